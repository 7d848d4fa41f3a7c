//! Indexes as a model (issue 20) on memory, redb, and a store without
//! transactions: random interleavings of the public operations against a
//! plain map (`common::index_model`). On memory and redb a write and its
//! entries are one transaction (a crash is the process dying before or
//! after it, and no entry is ever stale but for rows another program
//! deleted); the store without transactions writes in three steps (the new
//! entries, the row, the old entries' deletes), and a crash cuts it after
//! any of them: the index scans must still equal the map. Some writes are
//! an older version of the struct's, which the current one cannot read:
//! its writes and deletes over them must still keep the index exact, which
//! the older version's `verify` checks at the end; the current version's
//! backfill (`build`, `verify`) runs between any two steps and at the end,
//! over the rows of both versions (issue 40).

mod common;

use common::index_model::{
    by_page, by_tag, op, run, Driver, Hit, HitByPage, HitByTag, HitV1, HitV1ByPage, HitV1ByTag,
    Key, Scan,
};
use common::index_model_backfill::Verified;
use common::no_txn::NoTxn;
use keyschema::index::IndexBackfill;
use keyschema::store::{MemoryStore, RecordStore, RedbStore, RowStore, Store};
use keyschema::{Cursor, RowKey};
use proptest::prelude::*;

/// Cuts a store's next write after this many store calls (`None`: never).
type Crash<S> = dyn Fn(&S, Option<usize>);

/// One driver over any sync store, reopened by `reopen`.
struct Sync<S: Store> {
    store: Option<S>,
    reopen: Box<dyn Fn(Option<S>) -> S>,
    /// Cuts the next write after this many store calls.
    crash: Box<Crash<S>>,
    transactional: bool,
    stale: u64,
}

fn text<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

impl<S: Store> Sync<S> {
    fn store(&self) -> &S {
        self.store.as_ref().expect("a store")
    }
}

impl<S: Store> Driver for Sync<S>
where
    S::Error: std::fmt::Debug + std::fmt::Display,
{
    fn put(&mut self, row: &Hit) -> Result<(), String> {
        self.store().put_record(row).map_err(text)
    }
    fn put_older(&mut self, row: &HitV1) -> Option<Result<(), String>> {
        Some(self.store().put_record(row).map_err(text))
    }
    fn verify_older(&mut self) -> Option<Result<(bool, u64), String>> {
        let store = self.store();
        let check = || {
            let by_page = IndexBackfill::<HitV1ByPage>::new().verify(store)?;
            let by_tag = IndexBackfill::<HitV1ByTag>::new().verify(store)?;
            Ok((
                by_page.matches() && by_tag.matches(),
                by_page.stale + by_tag.stale,
            ))
        };
        Some(check().map_err(|e: keyschema::backfill::BackfillError<S::Error>| e.to_string()))
    }
    fn backfill(&mut self, build: bool) -> Option<Verified> {
        let store = self.store();
        let step = || {
            if build {
                IndexBackfill::<HitByPage>::new().batch(3).build(store)?;
                IndexBackfill::<HitByTag>::new().batch(3).build(store)?;
            }
            Ok([
                IndexBackfill::<HitByPage>::new().verify(store)?,
                IndexBackfill::<HitByTag>::new().verify(store)?,
            ])
        };
        Some(step().map_err(|e: keyschema::backfill::BackfillError<S::Error>| e.to_string()))
    }
    fn put_many(&mut self, rows: &[Hit]) -> Result<(), String> {
        self.store().put_records(rows).map_err(text)
    }
    fn replace(&mut self, row: &Hit) -> Result<(), String> {
        self.store().replace_record(row).map_err(text)
    }
    fn delete(&mut self, key: &Key) -> Result<(), String> {
        let row = Hit::decode(&Hit::get_key(&key.0, key.1)).map_err(text)?;
        self.store().delete_row(&row).map_err(text)
    }
    fn get(&mut self, key: &Key) -> Result<Option<Hit>, String> {
        self.store()
            .get_record::<Hit>(&Hit::get_key(&key.0, key.1))
            .map_err(text)
    }
    fn scan_page(
        &mut self,
        scan: &Scan,
        after: Option<Cursor>,
    ) -> Result<(Vec<Hit>, Cursor), String> {
        if after.is_some() {
            self.restart();
        }
        let store = self.store.as_ref().expect("a store");
        if let Some(request) = by_page(scan, after.clone()) {
            let mut rows = request.run(store).rows();
            let page = rows.by_ref().collect::<Result<Vec<_>, _>>().map_err(text)?;
            self.stale += rows.stale_entries();
            return Ok((page, rows.cursor()));
        }
        let request = by_tag(scan, after).expect("a page or a tag scan");
        let mut rows = request.run(store).rows();
        let page = rows.by_ref().collect::<Result<Vec<_>, _>>().map_err(text)?;
        self.stale += rows.stale_entries();
        Ok((page, rows.cursor()))
    }
    fn scan_first(&mut self, scan: &Scan, k: usize) -> Result<(Vec<Hit>, Cursor), String> {
        let store = self.store.as_ref().expect("a store");
        if let Some(request) = by_page(scan, None) {
            let mut rows = request.run(store).rows();
            let first = rows
                .by_ref()
                .take(k)
                .collect::<Result<Vec<_>, _>>()
                .map_err(text)?;
            self.stale += rows.stale_entries();
            return Ok((first, rows.cursor()));
        }
        let request = by_tag(scan, None).expect("a page or a tag scan");
        let mut rows = request.run(store).rows();
        let first = rows
            .by_ref()
            .take(k)
            .collect::<Result<Vec<_>, _>>()
            .map_err(text)?;
        self.stale += rows.stale_entries();
        Ok((first, rows.cursor()))
    }
    fn foreign_delete(&mut self, key: &Key) {
        self.store()
            .delete(&Hit::get_key(&key.0, key.1))
            .expect("another program's delete");
    }
    fn crash_in_put(&mut self, row: &Hit, steps: usize) {
        if self.transactional {
            // One transaction: the process died before it or after it.
            if steps > 0 {
                self.store().put_record(row).expect("the write");
            }
            return;
        }
        (self.crash)(self.store(), Some(steps));
        let _ = self.store().put_record(row);
        (self.crash)(self.store(), None);
    }
    fn restart(&mut self) {
        let old = self.store.take();
        self.store = Some((self.reopen)(old));
    }
    fn transactional(&self) -> bool {
        self.transactional
    }
    fn stale_seen(&mut self) -> u64 {
        std::mem::take(&mut self.stale)
    }
}

fn sync<S: Store + 'static>(
    reopen: impl Fn(Option<S>) -> S + 'static,
    crash: impl Fn(&S, Option<usize>) + 'static,
    transactional: bool,
) -> Sync<S> {
    Sync {
        store: Some(reopen(None)),
        reopen: Box::new(reopen),
        crash: Box::new(crash),
        transactional,
        stale: 0,
    }
}

fn memory() -> Sync<MemoryStore> {
    let shared = MemoryStore::new();
    sync(move |_| shared.clone(), |_, _| {}, true)
}

fn redb(dir: &std::path::Path) -> Sync<RedbStore> {
    let path = dir.to_path_buf();
    sync(
        move |old| {
            drop(old); // redb holds a lock on its file until closed
            RedbStore::open(&path).expect("redb")
        },
        |_, _| {},
        true,
    )
}

fn no_txn() -> Sync<NoTxn> {
    let shared = NoTxn::new();
    sync(
        move |_| shared.clone(),
        |store: &NoTxn, steps| store.fail_after(steps),
        false,
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]
    #[test]
    fn index_scans_agree_with_a_map_on_memory(ops in prop::collection::vec(op(), 1..80)) {
        run(&mut memory(), &ops)?;
    }

    #[test]
    fn index_scans_agree_with_a_map_on_redb(ops in prop::collection::vec(op(), 1..60)) {
        let dir = tempfile::tempdir().expect("a temp dir");
        run(&mut redb(dir.path()), &ops)?;
    }

    #[test]
    fn index_scans_agree_with_a_map_without_transactions(ops in prop::collection::vec(op(), 1..80)) {
        run(&mut no_txn(), &ops)?;
    }
}
