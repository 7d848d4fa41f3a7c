//! The layout change as a model (issue 18) on the sync stores, memory and
//! redb: `common::layout_model` runs random interleavings of every public
//! operation, crashes and restarts in fresh objects included, against a
//! map; this file drives them on a `Store`. `tests/backfill_model_async.rs`
//! drives the same model on the Bigtable emulator.

mod common;

use common::history::{Event, Request};
use common::layout_model::{fresh_backfill as fresh, op, run, scan_from, Driver, Page};
use keyschema::backfill::{Backfill, Progress, Verification};
use keyschema::history::Phase;
use keyschema::store::{Cas, Direction, MemoryStore, Mutation, RedbStore, RowStore, Store};
use keyschema::{Cursor, KeyRange, RowKey};
use proptest::prelude::*;
use std::cell::Cell;
use std::path::PathBuf;

/// A store whose compare-and-sets fail after a number of them (the process
/// dies mid-batch: the ones before it landed).
struct Failing<'s, S> {
    inner: &'s S,
    left: Cell<usize>,
}

#[derive(Debug)]
struct Died;
impl std::fmt::Display for Died {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("injected: the process died")
    }
}
impl std::error::Error for Died {}

impl<S: Store> Store for Failing<'_, S> {
    type Error = Died;
    type Rows<'a>
        = Box<dyn Iterator<Item = Result<keyschema::store::Row, Died>> + 'a>
    where
        Self: 'a;
    common::lend_scanned_rows!();
    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, Died> {
        self.inner.get(key).map_err(|_| Died)
    }
    fn write_batch(&self, batch: &[Mutation]) -> Result<(), Died> {
        self.inner.write_batch(batch).map_err(|_| Died)
    }
    fn scan(&self, range: &KeyRange, direction: Direction) -> Result<Self::Rows<'_>, Died> {
        let rows = self.inner.scan(range, direction).map_err(|_| Died)?;
        Ok(Box::new(rows.map(|r| r.map_err(|_| Died))))
    }
    fn compare_and_write(&self, batch: &[Cas]) -> Result<Vec<bool>, Died> {
        let n = batch.len().min(self.left.get());
        self.left.set(self.left.get() - n);
        let applied = self
            .inner
            .compare_and_write(&batch[..n])
            .map_err(|_| Died)?;
        if n < batch.len() {
            return Err(Died);
        }
        Ok(applied)
    }
}

/// The model's operations on a sync store, reopened by `open` on a restart.
struct Sync<'o, S> {
    open: &'o dyn Fn() -> S,
    /// `None` only while a restart reopens it.
    store: Option<S>,
    backfill: Backfill<Event>,
    checkpoint: PathBuf,
}

impl<'o, S: Store> Sync<'o, S>
where
    S::Error: std::fmt::Debug,
{
    fn new(open: &'o dyn Fn() -> S, dir: &std::path::Path) -> Self {
        let checkpoint = dir.join("backfill.checkpoint");
        Sync {
            open,
            store: Some(open()),
            backfill: fresh(&checkpoint),
            checkpoint,
        }
    }

    fn store(&self) -> &S {
        self.store.as_ref().expect("open")
    }

    fn failing(&self, n: usize) -> Failing<'_, S> {
        Failing {
            inner: self.store(),
            left: Cell::new(n),
        }
    }
}

impl<S: Store> Driver for Sync<'_, S>
where
    S::Error: std::fmt::Debug,
{
    fn put_in(&mut self, phase: Phase, e: &Event, value: &[u8]) -> Result<(), String> {
        self.store()
            .put_row_in(phase, e, value)
            .map_err(|e| e.to_string())
    }
    fn replace_in(&mut self, phase: Phase, e: &Event, value: &[u8]) {
        self.store()
            .replace_row_in(phase, e, value)
            .expect("replace");
    }
    fn delete_in(&mut self, phase: Phase, e: &Event) {
        self.store().delete_row_in(phase, e).expect("delete");
    }
    fn delete_older_key(&mut self, e: &Event) {
        let key = e.encode_older().expect("a history");
        self.store().delete(&key).expect("delete");
    }
    fn get_in(&mut self, phase: Phase, e: &Event) -> Option<Vec<u8>> {
        self.store()
            .get_row_in(phase, e)
            .expect("get")
            .map(|(_, v)| v)
    }
    fn older_holds(&mut self, e: &Event) -> bool {
        let key = e.encode_older().expect("a history");
        self.store().get(&key).expect("get").is_some()
    }
    fn scan_page(
        &mut self,
        r: &Request,
        phase: Phase,
        after: Option<Cursor>,
    ) -> Result<Page, String> {
        let scan = scan_from(r, phase, after);
        let mut rows = scan.run(self.store());
        let page = rows
            .by_ref()
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| format!("{e:?}"))?;
        Ok((page, rows.cursor()))
    }
    fn copy_batch(&mut self) -> Result<(), String> {
        self.backfill
            .copy_batch(self.store.as_ref().expect("open"))
            .map(|_| ())
            .map_err(|e| e.to_string())
    }
    fn crash_in_copy(&mut self, n: usize) -> Option<String> {
        // The process dies: its backfill object goes with it.
        let mut backfill = std::mem::replace(&mut self.backfill, fresh(&self.checkpoint));
        backfill
            .copy_batch(&self.failing(n))
            .err()
            .map(|e| e.to_string())
    }
    fn restart(&mut self) {
        // Close the store before reopening it (redb's file lock).
        self.store = None;
        self.store = Some((self.open)());
        self.backfill = fresh(&self.checkpoint);
    }
    fn copy(&mut self) -> Progress {
        self.backfill
            .copy(self.store.as_ref().expect("open"))
            .expect("copy")
    }
    fn verify(&mut self) -> Verification {
        self.backfill.verify(self.store()).expect("verify")
    }
    fn delete_older(&mut self, verified: &Verification, fail: Option<usize>) -> Result<(), String> {
        let Some(n) = fail else {
            return self
                .backfill
                .delete_older(self.store.as_ref().expect("open"), verified)
                .map(|_| ())
                .map_err(|e| e.to_string());
        };
        let mut backfill = std::mem::replace(&mut self.backfill, fresh(&self.checkpoint));
        backfill
            .delete_older(&self.failing(n), verified)
            .map(|_| ())
            .map_err(|e| e.to_string())
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]
    #[test]
    fn the_layout_change_agrees_with_a_map_memory(ops in prop::collection::vec(op(), 1..120)) {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = MemoryStore::new();
        // A restart keeps the memory (the same map behind a clone).
        let open = || store.clone();
        run(&mut Sync::new(&open, dir.path()), &ops)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]
    #[test]
    fn the_layout_change_agrees_with_a_map_redb(ops in prop::collection::vec(op(), 1..120)) {
        let dir = tempfile::tempdir().expect("temp dir");
        let db = dir.path().join("t.redb");
        let open = || RedbStore::open(&db).expect("open");
        run(&mut Sync::new(&open, dir.path()), &ops)?;
    }
}
