//! `Store::scan_into` lends exactly the rows `Store::scan` yields, in the
//! same order, on every store: memory and redb (which lend from their own
//! pages) and a store that lends the rows `scan` allocated (`OwnedRows`); for any keys, range and direction, across the memory
//! store's growing pages. `advance_key` agrees with `advance` and `key`.

mod common;

use common::no_txn::NoTxn;
use keyschema::store::{
    BoxRowSource, Direction, MemoryStore, Mutation, RedbStore, RowSource, Store,
};
use keyschema::KeyRange;
use proptest::prelude::*;

fn lent<S: Store>(store: &S, range: &KeyRange, direction: Direction) -> Vec<(Vec<u8>, Vec<u8>)>
where
    S::Error: std::fmt::Debug,
{
    let mut rows = store.scan_into(range, direction).expect("scan_into");
    let mut out = Vec::new();
    while rows.advance().expect("advance") {
        out.push((rows.key().to_vec(), rows.value().to_vec()));
    }
    // After the last row, nothing is lent and nothing moves.
    assert!(rows.key().is_empty() && rows.value().is_empty());
    assert!(!rows.advance().expect("advance"));
    // `advance_key` moves as `advance` does and lends the key.
    let mut rows = store.scan_into(range, direction).expect("scan_into");
    let mut keys = Vec::new();
    while let Some(key) = rows.advance_key().expect("advance_key") {
        keys.push(key.to_vec());
        assert_eq!(rows.key(), keys[keys.len() - 1]);
    }
    assert!(rows.advance_key().expect("advance_key").is_none());
    assert_eq!(keys, out.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>());
    // Boxed (a `BoxRowSource`, for a store over several others), the same.
    let mut boxed: BoxRowSource<'_, S::Error> =
        Box::new(store.scan_into(range, direction).expect("scan_into"));
    let mut again = Vec::new();
    while let Some(key) = boxed.advance_key().expect("advance_key") {
        let key = key.to_vec();
        again.push((key, boxed.value().to_vec()));
    }
    assert_eq!(again, out);
    out
}

fn scanned<S: Store>(store: &S, range: &KeyRange, direction: Direction) -> Vec<(Vec<u8>, Vec<u8>)>
where
    S::Error: std::fmt::Debug,
{
    store
        .scan(range, direction)
        .expect("scan")
        .map(|r| r.expect("row"))
        .collect()
}

fn key() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(prop::sample::select(vec![0u8, 1, 2, 0x7f, 0xff]), 1..4)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn scan_into_lends_what_scan_yields(
        rows in prop::collection::btree_map(key(), prop::collection::vec(any::<u8>(), 0..6), 0..120),
        start in key(),
        end in prop::option::of(key()),
        reverse in any::<bool>(),
    ) {
        let batch: Vec<Mutation> = rows
            .iter()
            .map(|(k, v)| Mutation::Put { key: k.clone(), value: v.clone() })
            .collect();
        let direction = if reverse { Direction::Reverse } else { Direction::Forward };
        let range = KeyRange::new(start, end, 0);
        let expected: Vec<(Vec<u8>, Vec<u8>)> = rows
            .iter()
            .filter(|(k, _)| range.contains(k))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let expected: Vec<_> = if reverse { expected.into_iter().rev().collect() } else { expected };

        let memory = MemoryStore::new();
        memory.write_batch(&batch).expect("write");
        prop_assert_eq!(&lent(&memory, &range, direction), &expected);
        prop_assert_eq!(&scanned(&memory, &range, direction), &expected);

        let dir = tempfile::tempdir().expect("temp dir");
        let redb = RedbStore::open(dir.path()).expect("redb");
        redb.write_batch(&batch).expect("write");
        prop_assert_eq!(&lent(&redb, &range, direction), &expected);
        prop_assert_eq!(&scanned(&redb, &range, direction), &expected);

        let owned = NoTxn::new();
        owned.write_batch(&batch).expect("write");
        prop_assert_eq!(&lent(&owned, &range, direction), &expected);
    }
}
