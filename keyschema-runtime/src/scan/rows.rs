//! The sync driver of a typed scan, over a [`Store`]: one store scan per
//! bucket range, merged in key order with one pending row per bucket.

use super::cursor::Cursor;
use super::merge::{unkeyed, Keyed, Pending, ScanCore, ScanOptions};
use crate::history::Phase;
use crate::key::RowKey;
use crate::range::KeyRange;
use crate::store::{Row, RowError, Store, TypedRow};
use std::collections::binary_heap::{BinaryHeap, PeekMut};
use std::marker::PhantomData;

/// One bucket's scan in the sync driver.
struct Source<I> {
    rows: Option<I>,
    /// Rows pulled from the store so far (the per-bucket limit).
    pulled: usize,
}

/// The next row of a source, honouring the per-bucket limit; `Ok(None)` when
/// it has no more (`exhausted` tells whether the store ran out).
fn pull<I, E>(
    source: &mut Source<I>,
    limit: Option<usize>,
    exhausted: &mut bool,
) -> Result<Option<Row>, E>
where
    I: Iterator<Item = Result<Row, E>>,
{
    let Some(rows) = source.rows.as_mut() else {
        return Ok(None);
    };
    if limit.is_some_and(|n| source.pulled >= n) {
        source.rows = None;
        return Ok(None);
    }
    match rows.next() {
        Some(Ok(row)) => {
            source.pulled += 1;
            Ok(Some(row))
        }
        Some(Err(e)) => Err(e),
        None => {
            source.rows = None;
            *exhausted = true;
            Ok(None)
        }
    }
}

/// [`pull`] source `i`, marking it done in `core` when the store ran out.
fn pull_marking<I, E>(
    source: &mut Source<I>,
    core: &mut ScanCore,
    i: usize,
) -> Result<Option<Row>, E>
where
    I: Iterator<Item = Result<Row, E>>,
{
    let mut exhausted = false;
    let row = pull(source, core.per_source_limit(), &mut exhausted);
    if exhausted {
        core.mark_done(i);
    }
    row
}

/// The rows of a typed scan: decoded keys with their values.
///
/// Ordered (the default), it merges the buckets by the key bytes after the
/// salt, which is the declared order, holding at most one pending row per
/// bucket. Unordered, it drains the buckets one after the other.
/// [`cursor`](Self::cursor) says where to resume.
pub struct TypedRows<'s, K, S: Store + 's> {
    store: &'s S,
    core: ScanCore,
    sources: Vec<Source<S::Rows<'s>>>,
    heap: BinaryHeap<Pending>,
    current: usize,
    /// A store error met while refilling, returned after the row in hand.
    deferred: Option<S::Error>,
    key: PhantomData<fn() -> K>,
}

impl<'s, K: RowKey, S: Store> TypedRows<'s, K, S> {
    pub(crate) fn new(
        store: &'s S,
        ranges: Vec<KeyRange>,
        options: ScanOptions,
        phase: Option<Phase>,
    ) -> Self {
        let history = K::history().zip(phase);
        TypedRows {
            store,
            core: ScanCore::new(K::schema(), ranges, options, history),
            sources: Vec::new(),
            heap: BinaryHeap::new(),
            current: 0,
            deferred: None,
            key: PhantomData,
        }
    }

    /// Where the scan stands: resume with `.after(cursor)` on the same request
    /// to get exactly the rows not yet returned.
    pub fn cursor(&self) -> Cursor {
        self.core.cursor()
    }

    /// Takes the limit off the scan before it starts (an index scan counts
    /// the rows it returns itself).
    pub(crate) fn take_limit(&mut self) -> Option<usize> {
        self.core.options.limit.take()
    }

    /// Whether the buckets are merged into key order.
    pub(crate) fn ordered(&self) -> bool {
        self.core.options.ordered
    }

    /// The store the scan reads.
    pub(crate) fn store(&self) -> &'s S {
        self.store
    }

    /// Opens one store scan per range, restarted after the cursor's positions.
    fn start(&mut self) -> Result<(), S::Error> {
        for range in self.core.plan() {
            let rows = match range {
                Some(range) => Some(self.store.scan(&range, self.core.options.direction)?),
                None => None,
            };
            self.sources.push(Source { rows, pulled: 0 });
        }
        if self.core.options.ordered {
            for i in 0..self.sources.len() {
                if let Some(row) = self.pull(i)? {
                    self.heap.push(Pending::new(&self.core, i, row));
                }
            }
        }
        Ok(())
    }

    fn pull(&mut self, i: usize) -> Result<Option<Row>, S::Error> {
        pull_marking(&mut self.sources[i], &mut self.core, i)
    }

    fn next_row(&mut self) -> Result<Option<(usize, Row)>, S::Error> {
        if !self.core.started {
            self.start()?;
        }
        if self.core.options.ordered {
            // Replace the smallest pending row by the next row of its bucket
            // in place: one sift instead of a pop and a push.
            let Some(mut top) = self.heap.peek_mut() else {
                return Ok(None);
            };
            let i = top.source;
            let row = match pull_marking(&mut self.sources[i], &mut self.core, i) {
                Ok(Some((key, value))) => {
                    let key = std::mem::replace(&mut top.key, key);
                    let value = std::mem::replace(&mut top.value, value);
                    (key, value)
                }
                Ok(None) => {
                    let p = PeekMut::pop(top);
                    (p.key, p.value)
                }
                // Never drop the row in hand: the error waits for the next call.
                Err(e) => {
                    self.deferred = Some(e);
                    let p = PeekMut::pop(top);
                    (p.key, p.value)
                }
            };
            return Ok(Some((i, row)));
        }
        while self.current < self.sources.len() {
            if let Some(row) = self.pull(self.current)? {
                return Ok(Some((self.current, row)));
            }
            self.current += 1;
        }
        Ok(None)
    }
}

impl<'s, K: crate::record::Record, S: Store> TypedRows<'s, K, S> {
    /// The same rows, whole: each with its value fields read from its value
    /// (see [`RecordStore`](crate::store::RecordStore)).
    pub fn records(self) -> crate::store::Records<Self> {
        crate::store::Records::new(self)
    }
}

impl<K: RowKey, S: Store> Iterator for TypedRows<'_, K, S> {
    type Item = Result<TypedRow<K>, RowError<S::Error>>;

    /// A store error is yielded once and ends the scan; [`cursor`](Self::cursor)
    /// then resumes exactly after the rows returned.
    fn next(&mut self) -> Option<Self::Item> {
        self.next_keyed().map(unkeyed)
    }
}

impl<K: RowKey, S: Store> TypedRows<'_, K, S> {
    /// The next row with its key bytes.
    pub(crate) fn next_keyed(&mut self) -> Option<Result<Keyed<K>, RowError<S::Error>>> {
        if let Some(refused) = self.core.take_refusal() {
            return Some(Err(refused));
        }
        loop {
            if self.core.limit_reached() {
                return None;
            }
            let next = match self.deferred.take() {
                Some(e) => Err(e),
                None => self.next_row(),
            };
            match next {
                Ok(Some((source, row))) => match self.core.emit(source, row) {
                    Some(item) => return Some(item),
                    // A row of the other layout: on to the next.
                    None => continue,
                },
                Ok(None) => return None,
                Err(e) => {
                    self.core.failed = true;
                    return Some(Err(RowError::Store(e)));
                }
            }
        }
    }
}
