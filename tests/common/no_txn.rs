//! A store with no transactions of its own, whose writes fail on demand:
//! a process that dies between two steps.

use keyschema::store::{Cas, Direction, MemoryStore, Mutation, Row, Store};
use keyschema::{KeyRange, KeyTooLong};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// A store with no transactions of its own: `MemoryStore`'s reads and
/// batches, the default `write_batch_planned`, and a budget of batches
/// after which it fails as a dead process would.
#[derive(Clone)]
pub struct NoTxn {
    pub inner: MemoryStore,
    budget: Arc<AtomicUsize>,
}

impl NoTxn {
    pub fn new() -> Self {
        NoTxn {
            inner: MemoryStore::new(),
            budget: Arc::new(AtomicUsize::new(usize::MAX)),
        }
    }

    /// Fails every batch after the next `batches` (`None`: never).
    pub fn fail_after(&self, batches: Option<usize>) {
        self.budget
            .store(batches.unwrap_or(usize::MAX), Ordering::SeqCst);
    }
}

#[derive(Debug)]
pub enum NoTxnError {
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
    crate::common::lend_scanned_rows!();

    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, NoTxnError> {
        Ok(self.inner.get(key)?)
    }
    fn write_batch(&self, batch: &[Mutation]) -> Result<(), NoTxnError> {
        let left = self.budget.load(Ordering::SeqCst);
        if left == 0 {
            return Err(NoTxnError::Crashed);
        }
        self.budget.store(left - 1, Ordering::SeqCst);
        // Another thread may run between two steps, as a process would.
        std::thread::yield_now();
        Ok(self.inner.write_batch(batch)?)
    }
    fn scan(&self, range: &KeyRange, direction: Direction) -> Result<NoTxnRows, NoTxnError> {
        let rows = self.inner.scan(range, direction)?;
        Ok(rows.map((|r: Result<Row, KeyTooLong>| r.map_err(NoTxnError::from)) as fn(_) -> _))
    }
    fn compare_and_write(&self, batch: &[Cas]) -> Result<Vec<bool>, NoTxnError> {
        Ok(self.inner.compare_and_write(batch)?)
    }
    /// The memory store's one key space: merges over many buckets walk it.
    fn reads_across_buckets(&self) -> bool {
        true
    }
}
