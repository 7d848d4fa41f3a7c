//! Indexes as a model (issue 20) on memory, redb, and a store without
//! transactions: random interleavings of the public operations against a
//! plain map (`common::index_model`). On memory and redb a write and its
//! entries are one transaction (a crash is the process dying before or
//! after it, and no entry is ever stale but for rows another program
//! deleted); the store without transactions writes in three steps (the new
//! entries, the row, the old entries' deletes), and a crash cuts it after
//! any of them: the index scans must still equal the map.

mod common;

use common::index_model::{by_page, by_tag, op, run, Driver, Hit, Key, Scan};
use keyschema::store::{Cas, Direction, MemoryStore, Mutation, RecordStore, RedbStore, Row};
use keyschema::store::{RowStore, Store};
use keyschema::{Cursor, KeyRange, KeyTooLong, RowKey};
use proptest::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// A store with no transactions of its own: `MemoryStore`'s reads and
/// batches, the default `write_batch_planned`, and a budget of batches
/// after which it fails as a dead process would.
#[derive(Clone)]
struct NoTxn {
    inner: MemoryStore,
    budget: Arc<AtomicUsize>,
}

#[derive(Debug)]
enum NoTxnError {
    Crashed,
    Inner(KeyTooLong),
}

impl std::fmt::Display for NoTxnError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NoTxnError::Crashed => f.write_str("the process died"),
            NoTxnError::Inner(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for NoTxnError {}

impl From<KeyTooLong> for NoTxnError {
    fn from(e: KeyTooLong) -> Self {
        NoTxnError::Inner(e)
    }
}

type NoTxnRows = std::iter::Map<
    <MemoryStore as Store>::Rows<'static>,
    fn(Result<Row, KeyTooLong>) -> Result<Row, NoTxnError>,
>;

impl Store for NoTxn {
    type Error = NoTxnError;
    type Rows<'a> = NoTxnRows;

    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, NoTxnError> {
        Ok(self.inner.get(key)?)
    }
    fn write_batch(&self, batch: &[Mutation]) -> Result<(), NoTxnError> {
        let left = self.budget.load(Ordering::SeqCst);
        if left == 0 {
            return Err(NoTxnError::Crashed);
        }
        self.budget.store(left - 1, Ordering::SeqCst);
        Ok(self.inner.write_batch(batch)?)
    }
    fn scan(&self, range: &KeyRange, direction: Direction) -> Result<NoTxnRows, NoTxnError> {
        let rows = self.inner.scan(range, direction)?;
        Ok(rows.map((|r: Result<Row, KeyTooLong>| r.map_err(NoTxnError::from)) as fn(_) -> _))
    }
    fn compare_and_write(&self, batch: &[Cas]) -> Result<Vec<bool>, NoTxnError> {
        Ok(self.inner.compare_and_write(batch)?)
    }
}

/// One driver over any sync store, reopened by `reopen`.
struct Sync<S: Store> {
    store: Option<S>,
    reopen: Box<dyn Fn(Option<S>) -> S>,
    /// Cuts the next write after this many store calls.
    crash: Box<dyn Fn(&S, Option<usize>)>,
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
    let shared = NoTxn {
        inner: MemoryStore::new(),
        budget: Arc::new(AtomicUsize::new(usize::MAX)),
    };
    sync(
        move |_| shared.clone(),
        |store: &NoTxn, steps| {
            store
                .budget
                .store(steps.unwrap_or(usize::MAX), Ordering::SeqCst)
        },
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
