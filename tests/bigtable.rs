//! The Bigtable store against the real emulator (`cbtemulator`), started by
//! the tests themselves when `BIGTABLE_EMULATOR_HOST` is not set.
#![cfg(feature = "bigtable")]

#[path = "support/emulator.rs"]
mod emulator;

use futures_util::StreamExt;
use keyschema::store::bigtable::{BigtableError, RowStream};
use keyschema::store::{BigtableStore, Direction, Mutation};
use keyschema::RowKey;

#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = hash(user_id, site) % 8, then = user_id, site, rev(timestamp))]
struct Event {
    user_id: String,
    site: String,
    timestamp: u64,
}

async fn store(prefix: &str) -> BigtableStore {
    let store = BigtableStore::connect_emulator(
        &emulator::host(),
        "keyschema",
        "test",
        &emulator::fresh_table(prefix),
    )
    .await
    .expect("connect to the emulator");
    store
        .create_table_for::<Event>()
        .await
        .expect("create table");
    store
}

fn puts(keys: &[Vec<u8>]) -> Vec<Mutation> {
    keys.iter()
        .map(|k| Mutation::Put {
            key: k.clone(),
            value: [b"v:".as_slice(), k].concat(),
        })
        .collect()
}

async fn collect(stream: RowStream) -> Vec<Vec<u8>> {
    stream.map(|r| r.expect("row").0).collect().await
}

#[tokio::test]
async fn writes_gets_and_scans_both_ways() {
    let store = store("basic").await;
    let keys: Vec<Vec<u8>> = (0..50u64).map(|t| Event::get_key("u1", "s", t)).collect();
    store.write_batch(&puts(&keys)).await.expect("batch");
    assert_eq!(
        store.get(&keys[7]).await.unwrap(),
        Some([b"v:".as_slice(), &keys[7]].concat())
    );
    assert_eq!(store.get(b"absent").await.unwrap(), None);

    let range = Event::scan()
        .user_id("u1")
        .site("s")
        .ranges()
        .iter()
        .next()
        .unwrap()
        .clone();
    let forward = collect(store.scan(&range, Direction::Forward, None)).await;
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(forward, sorted);
    let backward = collect(store.scan(&range, Direction::Reverse, None)).await;
    sorted.reverse();
    assert_eq!(
        backward, sorted,
        "reverse scans carry the bigtable-features header"
    );
    let limited = collect(store.scan(&range, Direction::Forward, Some(5))).await;
    assert_eq!(limited.len(), 5);

    // A put replaces the value (timestamp 0), a delete removes the row.
    store.put(&keys[0], b"new").await.unwrap();
    assert_eq!(store.get(&keys[0]).await.unwrap(), Some(b"new".to_vec()));
    store
        .write_batch(&[Mutation::Delete {
            key: keys[0].clone(),
        }])
        .await
        .unwrap();
    assert_eq!(store.get(&keys[0]).await.unwrap(), None);
}

#[tokio::test]
async fn one_request_for_a_whole_range_set() {
    let store = store("rowset").await;
    let keys: Vec<Vec<u8>> = (0..40u64)
        .map(|t| Event::get_key(&format!("u{}", t % 4), &format!("s{}", t % 3), t))
        .collect();
    store.write_batch(&puts(&keys)).await.unwrap();
    let set = Event::scan().user_id("u1").ranges();
    assert_eq!(set.len(), 8);
    let got = collect(store.scan_set(&set, Direction::Forward, None)).await;
    let mut expected: Vec<Vec<u8>> = keys.iter().filter(|k| set.contains(k)).cloned().collect();
    expected.sort();
    assert_eq!(got, expected);
}

#[tokio::test]
async fn a_failing_entry_is_reported_and_the_others_land() {
    let store = store("partial").await;
    let good = Event::get_key("u1", "s", 1);
    // Bigtable rejects an empty row key, entry by entry.
    let batch = vec![
        Mutation::Put {
            key: good.clone(),
            value: b"ok".to_vec(),
        },
        Mutation::Put {
            key: Vec::new(),
            value: b"bad".to_vec(),
        },
        Mutation::Put {
            key: Event::get_key("u2", "s", 1),
            value: b"ok".to_vec(),
        },
        Mutation::Put {
            key: Vec::new(),
            value: b"bad again".to_vec(),
        },
    ];
    let err = store
        .write_batch(&batch)
        .await
        .expect_err("the empty keys fail");
    let BigtableError::PartialBatch { failed, total } = &err else {
        panic!("expected a partial batch, got {err}");
    };
    assert_eq!(*total, 4);
    let indexes: Vec<usize> = failed.iter().map(|f| f.index).collect();
    assert_eq!(indexes, [1, 3], "every failed entry, and only those");
    assert!(
        err.to_string().contains("Row keys must be non-empty"),
        "{err}"
    );
    // The good entries landed.
    assert_eq!(store.get(&good).await.unwrap(), Some(b"ok".to_vec()));
    assert_eq!(
        store.get(&Event::get_key("u2", "s", 1)).await.unwrap(),
        Some(b"ok".to_vec())
    );
}
