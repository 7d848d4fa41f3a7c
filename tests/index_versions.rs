//! Indexes across two versions of a struct (issue 40): version 1 writes
//! rows; version 2 adds a required value field and keeps the same indexes.
//! A version-2 write that moves a row's entries, and a version-2 delete,
//! must remove the entries version 1 wrote, although its stored value does
//! not read as version 2 (it lacks the new field): on memory, redb, a store
//! without transactions, and the async path. The ground truth is the
//! table's keys read raw, against the keys each remaining row and its
//! entries have by hand, and version 1's own `verify` (which reads both
//! versions' rows).

mod common;

use common::no_txn::NoTxn;
use common::versions::{v1, v2, AsyncMemory};
use keyschema::index::IndexBackfill;
use keyschema::store::{
    AsyncRecordStore, AsyncStore, Direction, MemoryStore, RecordStore, RedbStore, RowStore, Store,
};
use keyschema::{history::Phase, KeyRange};

/// The keys a table must hold after the story: the moved row and its one
/// entry (its tag is `None`: no tag entry), the row version 1 wrote last
/// and its two entries. Made by hand from each layout's `get_key`.
fn expected_keys() -> Vec<Vec<u8>> {
    let mut keys = vec![
        v2::Hit::get_key("u1", 1),
        v2::HitByPage::get_key("/c", 1, "u1"),
        v1::Hit::get_key("u1", 3),
        v1::HitByPage::get_key("/a", 3, "u1"),
        v1::HitByTag::get_key("z", "u1", 3),
    ];
    keys.sort();
    keys
}

/// Version 1 writes three rows; version 2 moves the first (another page,
/// no tag) and deletes the second.
fn story<S: Store>(store: &S) {
    store
        .put_records(&[
            v1(1, "/a", Some("x")),
            v1(2, "/b", Some("y")),
            v1(3, "/a", Some("z")),
        ])
        .expect("version 1 writes");
    store
        .put_record(&v2(1, "/c", None))
        .expect("version 2 moves");
    store
        .delete_row(&v2(2, "/b", None))
        .expect("version 2 deletes");
}

/// Every key the table holds, read raw.
fn keys<S: Store>(store: &S) -> Vec<Vec<u8>> {
    store
        .scan(&KeyRange::new(Vec::new(), None, 0), Direction::Forward)
        .expect("scan")
        .map(|row| row.expect("row").0)
        .collect()
}

/// No entry left stale or missing, by version 1's `verify` of each index.
fn verified<S: Store>(store: &S) {
    let by_page = IndexBackfill::<v1::HitByPage>::new()
        .verify(store)
        .expect("verify");
    assert_eq!(
        (by_page.stale, by_page.entries, by_page.valid),
        (0, 2, 2),
        "{by_page:?}"
    );
    assert!(by_page.matches(), "{by_page:?}");
    let by_tag = IndexBackfill::<v1::HitByTag>::new()
        .verify(store)
        .expect("verify");
    assert_eq!(
        (by_tag.stale, by_tag.entries, by_tag.valid),
        (0, 1, 1),
        "{by_tag:?}"
    );
    assert!(by_tag.matches(), "{by_tag:?}");
}

#[test]
fn a_newer_version_removes_the_entries_an_older_one_wrote_on_memory() {
    let store = MemoryStore::new();
    story(&store);
    assert_eq!(keys(&store), expected_keys());
    verified(&store);
}

#[test]
fn a_newer_version_removes_the_entries_an_older_one_wrote_on_redb() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let store = RedbStore::open(dir.path().join("t.redb")).expect("redb");
    story(&store);
    assert_eq!(keys(&store), expected_keys());
    verified(&store);
}

#[test]
fn a_newer_version_removes_the_entries_an_older_one_wrote_without_transactions() {
    let store = NoTxn::new();
    story(&store);
    assert_eq!(keys(&store), expected_keys());
    verified(&store);
}

#[test]
fn a_newer_version_removes_the_entries_an_older_one_wrote_async() {
    let store = AsyncMemory(MemoryStore::new());
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime");
    rt.block_on(async {
        AsyncRecordStore::put_records(
            &store,
            &[
                v1(1, "/a", Some("x")),
                v1(2, "/b", Some("y")),
                v1(3, "/a", Some("z")),
            ],
        )
        .await
        .expect("version 1 writes");
        AsyncRecordStore::put_record(&store, &v2(1, "/c", None))
            .await
            .expect("version 2 moves");
        store
            .delete_row_in(Phase::New, &v2(2, "/b", None))
            .await
            .expect("version 2 deletes");
    });
    assert_eq!(keys(&store.0), expected_keys());
    verified(&store.0);
}
