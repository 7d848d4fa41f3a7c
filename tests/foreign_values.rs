//! A stored value that is not a row of the key type is an error, never a
//! row of defaults (issue 40): with only `Option` and
//! `#[rowkey(value, default)]` fields, any MessagePack map used to read as
//! a row, the empty map `80` and another program's struct
//! (`rmp_serde::to_vec_named`) included. A row names at least one of its
//! type's value fields (every row keyschema writes names them all), or
//! carries a store's presence mark (the empty name: Bigtable's `f:` cell,
//! the entry DynamoDB's reads add to an item whose fields are all `None`).
//! On memory, redb, Bigtable's `v:v` cell and family cells, DynamoDB.
#![cfg(all(feature = "bigtable", feature = "dynamodb"))]

mod common;

use common::{cbt, dynalite, emulator};
use futures_util::StreamExt;
use keyschema::record::encode_values;
use keyschema::store::bigtable::{BigtableError, BigtableStore};
use keyschema::store::dynamodb::DynamoError;
use keyschema::store::{
    AsyncRecordStore, MemoryStore, RecordStore, RedbStore, RowError, RowStore, Store,
};
use keyschema::{Projection, RowKey, ValueError};
use serde::Serialize;

/// Every value field may be missing: nothing required to catch a stranger.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(format = text, then = (id), n, family = "f")]
struct Loose {
    id: String,
    n: u32,
    #[rowkey(value)]
    note: Option<String>,
    #[rowkey(value, default)]
    count: u64,
}

/// `Loose` before `count` was added.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(format = text, then = (id), n, family = "f")]
struct LooseV1 {
    id: String,
    n: u32,
    #[rowkey(value)]
    note: Option<String>,
}

/// `Loose`'s key alone: its raw values are bytes of the program's own.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(format = text, then = (id), n)]
struct Raw {
    id: String,
    n: u32,
}

/// Part of `Loose`.
#[derive(Projection, Debug, PartialEq)]
#[projection(of = Loose)]
struct Count {
    n: u32,
    #[projection(value)]
    count: u64,
}

/// Another program's struct, stored as its own named MessagePack map.
#[derive(Serialize)]
struct Theirs {
    title: String,
    pages: u32,
}

fn loose(n: u32, note: Option<&str>, count: u64) -> Loose {
    Loose {
        id: "a".into(),
        n,
        note: note.map(Into::into),
        count,
    }
}

/// Values that are not rows of `Loose`: the empty map, another struct's
/// map, an empty cell map (`c1 80`, which no store of cells hands over).
fn strangers() -> Vec<(&'static str, Vec<u8>)> {
    let theirs = Theirs {
        title: "Dune".into(),
        pages: 412,
    };
    vec![
        ("the empty map", b"\x80".to_vec()),
        (
            "another struct's map",
            rmp_serde::to_vec_named(&theirs).expect("msgpack"),
        ),
        ("an empty cell map", b"\xc1\x80".to_vec()),
    ]
}

/// A refusal of a value that is not a row: the format error, at `key`.
fn assert_not_a_row<T: std::fmt::Debug, E: std::fmt::Debug>(
    got: Result<T, RowError<E>>,
    key: &[u8],
    what: &str,
) {
    match got {
        Err(RowError::Value {
            key: at,
            source: ValueError::Format { message },
            ..
        }) => {
            assert_eq!(at, key, "{what}");
            assert!(message.contains("names none of"), "{what}: {message}");
        }
        other => panic!("{what}: expected the value refused, got {other:?}"),
    }
}

fn on_an_ordered_store<S: Store>(store: &S) {
    for (i, (what, value)) in strangers().into_iter().enumerate() {
        let row = loose(i as u32, None, 0);
        let key = row.encode();
        store.put_row(&row, &value).expect("a raw put");
        assert_not_a_row(store.get_record::<Loose>(&key), &key, what);
        assert_not_a_row(store.get_projected::<Count>(&key), &key, what);
    }
    // A scan yields each as an error item and reads on.
    store.put_record(&loose(9, None, 0)).expect("put");
    let rows: Vec<Result<Loose, _>> = Loose::scan().id("a").run(store).records().collect();
    assert_eq!(rows.len(), 4);
    assert!(rows[..3].iter().all(|r| matches!(
        r,
        Err(RowError::Value {
            source: ValueError::Format { .. },
            ..
        })
    )));
    assert_eq!(rows[3].as_ref().ok(), Some(&loose(9, None, 0)));

    // Rows keyschema wrote still read: every field `None` or default, and
    // a row of the struct before `count` was added (it names `note` only).
    let older = LooseV1 {
        id: "b".into(),
        n: 1,
        note: None,
    };
    store.put_record(&older).expect("put v1");
    let read = store.get_record::<Loose>(&older.encode()).expect("get");
    assert_eq!(read.map(|r| (r.note, r.count)), Some((None, 0)));
    // A projection of a field the older row lacks reads its default: the
    // row names another of the type's fields.
    let count = store.get_projected::<Count>(&older.encode()).expect("get");
    assert_eq!(count, Some(Count { n: 1, count: 0 }));
}

#[test]
fn strangers_are_refused_on_memory() {
    on_an_ordered_store(&MemoryStore::new());
}

#[test]
fn strangers_are_refused_on_redb() {
    let dir = tempfile::tempdir().expect("tempdir");
    on_an_ordered_store(&RedbStore::open(dir.path()).expect("redb"));
}

async fn bigtable(name: &str) -> (BigtableStore, String) {
    let table = emulator::fresh_table(name);
    let store =
        BigtableStore::connect_emulator(&emulator::host(), cbt::PROJECT, cbt::INSTANCE, &table)
            .await
            .expect("connect to the emulator");
    store.create_table_for::<Loose>().await.expect("create");
    store.create_table_for::<Raw>().await.expect("add v");
    (store, table)
}

#[tokio::test]
async fn strangers_are_refused_on_bigtable() {
    let (store, table) = bigtable("foreign").await;
    // In `v:v`, where a key type without value fields keeps its raw
    // values, and where whole rows were kept before they had columns.
    for (i, (what, value)) in strangers().into_iter().enumerate() {
        let row = Raw {
            id: "a".into(),
            n: i as u32,
        };
        store.put_row(&row, &value).await.expect("a raw put");
        let key = row.encode();
        assert_not_a_row(store.get_record::<Loose>(&key).await, &key, what);
        assert_not_a_row(store.get_projected::<Count>(&key).await, &key, what);
    }
    // Through the typed writes, raw bytes that are not the type's fields
    // are refused before anything is written.
    for (what, value) in strangers() {
        let row = loose(7, None, 0);
        match store.put_row(&row, &value).await {
            Err(BigtableError::Value { key, .. }) => assert_eq!(key, row.encode(), "{what}"),
            other => panic!("{what}: expected the put refused, got {other:?}"),
        }
        assert_eq!(store.get(&row.encode()).await.expect("get"), None, "{what}");
    }
    // A row whose only cell in the family is another program's column.
    let foreign = loose(8, None, 0).encode();
    let key = String::from_utf8(foreign.clone()).expect("a text key");
    cbt::run(&emulator::host(), &["set", &table, &key, "f:title=Dune"]);
    assert_not_a_row(store.get_record::<Loose>(&foreign).await, &foreign, "cbt");

    store.put_record(&loose(9, None, 0)).await.expect("put");
    let rows: Vec<Result<Loose, _>> = Loose::scan()
        .id("a")
        .request()
        .stream(&store)
        .records()
        .collect()
        .await;
    assert_eq!(rows.len(), 5, "{rows:?}");
    assert!(rows[..4].iter().all(|r| r.is_err()), "{rows:?}");
    assert_eq!(rows[4].as_ref().ok(), Some(&loose(9, None, 0)));

    // What keyschema wrote still reads: a row whose fields are all `None`
    // (only its presence cell `f:`), an older struct's row, and a whole
    // row kept in `v:v` before rows had columns.
    for note in [None, Some("v1")] {
        let older = LooseV1 {
            id: "b".into(),
            n: 1,
            note: note.map(Into::into),
        };
        store.put_record(&older).await.expect("put v1");
        let read = store.get_record::<Loose>(&older.encode()).await;
        assert_eq!(
            read.expect("get").map(|r| (r.note, r.count)),
            Some((older.note.clone(), 0))
        );
        let count = store.get_projected::<Count>(&older.encode()).await;
        assert_eq!(count.expect("get"), Some(Count { n: 1, count: 0 }));
    }
    let legacy = Raw {
        id: "b".into(),
        n: 3,
    };
    let mut kept = loose(3, Some("kept"), 5);
    kept.id = "b".into();
    let value = encode_values(&kept).expect("values");
    store.put_row(&legacy, &value).await.expect("put in v:v");
    let got = store.get_record::<Loose>(&legacy.encode()).await;
    assert_eq!(got.expect("get"), Some(kept));
}

#[tokio::test]
async fn strangers_are_refused_by_dynamodb_writes_and_none_fields_still_read() {
    let store = dynalite::store::<LooseV1>("foreign").await;
    let row = LooseV1 {
        id: "a".into(),
        n: 1,
        note: None,
    };
    for (what, value) in strangers() {
        match store.put_row(&row, &value).await {
            Err(DynamoError::NotFields { .. }) => {}
            other => panic!("{what}: expected the put refused, got {other:?}"),
        }
    }
    // An item whose value fields are all `None` has none of their
    // attributes: it is still a row.
    store.put_record(&row).await.expect("put");
    let got = store.get_record::<LooseV1>(&row.encode()).await;
    assert_eq!(got.expect("get"), Some(row.clone()));
    let rows: Vec<LooseV1> = LooseV1::scan()
        .id("a")
        .request()
        .stream(&store)
        .records()
        .map(|r| r.expect("a row"))
        .collect()
        .await;
    assert_eq!(rows, [row]);
}
