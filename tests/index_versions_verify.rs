//! An index's backfill and reads over rows an older version of the struct
//! wrote (issue 40): version 1 writes rows, version 2 adds a required
//! value field and keeps the same indexes. Version 2's `verify` and
//! `build` find each row's entry from the fields the index is over (as a
//! write does), so they count and index version 1's rows; a row whose
//! indexed fields do not read is reported by key and field, and the
//! verification goes on; an index scan returns an error naming each
//! version-1 row (never drops it). On memory, redb, a store without
//! transactions and the async path (`verify_async`, `build_async`); the
//! Bigtable emulator and dynalite in `index_versions_services`. The ground
//! truth: entry keys and counts made by hand from each layout's `get_key`.

mod common;

use common::no_txn::NoTxn;
use common::versions::{
    index_scans_name_the_older_rows, verify_and_build_over_older_rows,
    verify_counts_a_stale_entry_of_an_older_row,
    verify_reports_rows_whose_indexed_fields_do_not_read, AsyncMemory, Under,
};
use common::versions_under::{AsyncUnder, SyncUnder};
use keyschema::store::{MemoryStore, RedbStore};

fn memory() -> SyncUnder<MemoryStore> {
    SyncUnder(MemoryStore::new())
}

fn redb(dir: &tempfile::TempDir) -> SyncUnder<RedbStore> {
    SyncUnder(RedbStore::open(dir.path().join("t.redb")).expect("redb"))
}

fn no_txn() -> SyncUnder<NoTxn> {
    SyncUnder(NoTxn::new())
}

fn async_memory() -> AsyncUnder<AsyncMemory> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime");
    AsyncUnder::same(rt, AsyncMemory(MemoryStore::new()))
}

fn each<U: Under>(store: U, story: fn(&U)) {
    story(&store);
}

macro_rules! on_each_store {
    ($($name:ident: $story:path,)*) => {
        $(mod $name {
            use super::*;
            #[test]
            fn memory() {
                each(super::memory(), $story);
            }
            #[test]
            fn redb() {
                let dir = tempfile::tempdir().expect("a temp dir");
                each(super::redb(&dir), $story);
            }
            #[test]
            fn without_transactions() {
                each(super::no_txn(), $story);
            }
            #[test]
            fn async_path() {
                each(super::async_memory(), $story);
            }
        })*
    };
}

on_each_store! {
    verify_and_build_read_older_rows_by_their_indexed_fields: verify_and_build_over_older_rows,
    verify_counts_a_stale_entry_naming_an_older_row: verify_counts_a_stale_entry_of_an_older_row,
    verify_reports_unreadable_indexed_fields_and_goes_on: verify_reports_rows_whose_indexed_fields_do_not_read,
    index_scans_return_an_error_naming_each_older_row: index_scans_name_the_older_rows,
}

/// A value that names none of the row type's value fields (another
/// program's MessagePack map `{"x": 1}`) is no row's, even to an index
/// over an `Option` field it lacks: the verify reports it, and goes on.
#[test]
fn verify_reports_a_value_that_names_no_field_and_goes_on() {
    use keyschema::index::{EntryError, IndexBackfill};
    use keyschema::store::{Mutation, RecordStore, Store};
    use keyschema::ValueError;
    let store = MemoryStore::new();
    store
        .put_record(&common::versions::newer_row())
        .expect("a row");
    let key = common::versions::v2::Hit::get_key("u3", 1);
    let put = Mutation::Put {
        key: key.clone(),
        value: b"\x81\xa1x\x01".to_vec(),
    };
    store.write_batch(&[put]).expect("another program's value");
    let by_tag = IndexBackfill::<common::versions::v2::HitByTag>::new()
        .verify(&store)
        .expect("verify");
    assert_eq!(
        common::versions::counts(&by_tag),
        [2, 1, 1, 1, 1, 0, 1],
        "{by_tag:?}"
    );
    assert_eq!(by_tag.unreadable_rows[0].key, key);
    assert!(matches!(
        by_tag.unreadable_rows[0].error,
        EntryError::Value(ValueError::Format { .. })
    ));
}
