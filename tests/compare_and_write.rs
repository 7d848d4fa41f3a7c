//! `compare_and_write` on every store: the check and the write are one
//! step, on the byte. Against the real services' emulators (cbtemulator,
//! dynalite) for the cloud stores: the backfill relies on it.

mod common;

use keyschema::store::{Cas, MemoryStore, RedbStore, Store};

/// The same checks on every store, as `(batch, applied)` rounds.
fn rounds() -> Vec<(Vec<Cas>, Vec<bool>)> {
    let k = |s: &str| s.as_bytes().to_vec();
    vec![
        // Absent: a put-if-absent applies once.
        (
            vec![
                Cas::put_if_absent(k("a"), k("1")),
                Cas::put_if_absent(k("b"), vec![0, 0xff]),
            ],
            vec![true, true],
        ),
        (vec![Cas::put_if_absent(k("a"), k("2"))], vec![false]),
        // A value differing in one byte, or a prefix of it, is not it.
        (
            vec![
                Cas::delete_if(k("b"), vec![0, 0xfe]),
                Cas::delete_if(k("b"), vec![0]),
                Cas {
                    key: k("a"),
                    expect: Some(k("11")),
                    set: Some(k("x")),
                },
            ],
            vec![false, false, false],
        ),
        // The exact value: replaced, then deleted.
        (
            vec![
                Cas {
                    key: k("a"),
                    expect: Some(k("1")),
                    set: Some(k("3")),
                },
                Cas::delete_if(k("b"), vec![0, 0xff]),
            ],
            vec![true, true],
        ),
        // Expecting a value on an absent key, or absence on a present one.
        (
            vec![
                Cas::delete_if(k("b"), vec![0, 0xff]),
                Cas {
                    key: k("a"),
                    expect: None,
                    set: None,
                },
            ],
            vec![false, false],
        ),
    ]
}

/// What the store holds after the rounds.
fn after(get: impl Fn(&[u8]) -> Option<Vec<u8>>) {
    assert_eq!(get(b"a"), Some(b"3".to_vec()));
    assert_eq!(get(b"b"), None);
}

fn check_sync<S: Store>(store: &S)
where
    S::Error: std::fmt::Debug,
{
    for (batch, applied) in rounds() {
        assert_eq!(
            store.compare_and_write(&batch).expect("cas"),
            applied,
            "{batch:?}"
        );
    }
    after(|k| store.get(k).expect("get"));
}

#[test]
fn memory_compares_and_writes_on_the_byte() {
    check_sync(&MemoryStore::new());
}

#[test]
fn redb_compares_and_writes_on_the_byte() {
    let dir = tempfile::tempdir().expect("temp dir");
    check_sync(&RedbStore::open(dir.path().join("t.redb")).expect("open"));
}

#[cfg(feature = "bigtable")]
#[tokio::test]
async fn bigtable_compares_and_writes_on_the_byte_through_check_and_mutate_row() {
    use common::emulator;
    use keyschema::store::bigtable::BigtableStore;
    let store = BigtableStore::connect_emulator(
        &emulator::host(),
        "keyschema",
        "test",
        &emulator::fresh_table("cas"),
    )
    .await
    .expect("connect to the emulator");
    store
        .create_table_for::<common::schemas::Event>()
        .await
        .expect("create table");
    for (batch, applied) in rounds() {
        assert_eq!(
            store.compare_and_write(&batch).await.expect("cas"),
            applied,
            "{batch:?}"
        );
    }
    let a = store.get(b"a").await.expect("get");
    let b = store.get(b"b").await.expect("get");
    after(|k| if k == b"a" { a.clone() } else { b.clone() });
}

#[cfg(feature = "dynamodb")]
#[tokio::test]
async fn dynamodb_compares_and_writes_on_the_byte_through_condition_expressions() {
    use common::dynalite;
    use keyschema::store::dynamodb::DynamoStore;
    use keyschema::RowKey;
    /// One partition attribute holding the whole key.
    #[derive(RowKey, Debug, Clone, PartialEq)]
    #[rowkey(then = (name))]
    struct Name {
        name: String,
    }
    let store =
        DynamoStore::connect_local::<Name>(&dynalite::endpoint(), &dynalite::fresh_table("cas"))
            .expect("a store");
    store.create_table().await.expect("create table");
    // Keys of the schema: each a name, escaped and terminated.
    let key = |s: &str| Name { name: s.into() }.encode();
    let rounds: Vec<(Vec<Cas>, Vec<bool>)> = rounds()
        .into_iter()
        .map(|(batch, applied)| {
            let batch = batch
                .into_iter()
                .map(|c| Cas {
                    key: key(std::str::from_utf8(&c.key).expect("utf-8")),
                    ..c
                })
                .collect();
            (batch, applied)
        })
        .collect();
    for (batch, applied) in rounds {
        assert_eq!(
            store.compare_and_write(&batch).await.expect("cas"),
            applied,
            "{batch:?}"
        );
    }
    let a = store.get(&key("a")).await.expect("get");
    let b = store.get(&key("b")).await.expect("get");
    after(|k| if k == b"a" { a.clone() } else { b.clone() });
}
