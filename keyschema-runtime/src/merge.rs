//! Typed scans: one store scan per bucket range, merged back into key order.
//!
//! [`ScanCore`] holds what does not depend on how rows are fetched: the
//! ranges, where each bucket stands, the limit, the cursor, decoding. The
//! sync driver ([`TypedRows`], over a [`Store`]) and the async one
//! ([`AsyncTypedRows`], over an [`AsyncStore`]) share it
//! and the same ordering of pending rows, so they merge identically.

use crate::cursor::{Cursor, Position};
use crate::scan::KeyRange;
use crate::store::{Direction, Row, RowError, Store, TypedRow};
use crate::RowKey;
use std::cmp::Ordering;
use std::collections::binary_heap::{BinaryHeap, PeekMut};
use std::marker::PhantomData;

/// How a typed scan runs: set through the methods of [`ScanRequest`](crate::ScanRequest).
#[derive(Debug, Clone)]
pub(crate) struct ScanOptions {
    pub limit: Option<usize>,
    pub direction: Direction,
    pub ordered: bool,
    pub after: Option<Cursor>,
}

impl Default for ScanOptions {
    fn default() -> Self {
        ScanOptions {
            limit: None,
            direction: Direction::Forward,
            ordered: true,
            after: None,
        }
    }
}

/// A row waiting in the merge: one per bucket at most.
struct Pending {
    key: Vec<u8>,
    value: Vec<u8>,
    source: usize,
    /// Where the key's logical part starts (after prefix and salt).
    header: usize,
    reverse: bool,
}

impl Pending {
    fn new(core: &ScanCore, source: usize, (key, value): Row) -> Self {
        Pending {
            key,
            value,
            source,
            header: core.header,
            reverse: core.options.direction == Direction::Reverse,
        }
    }

    fn body(&self) -> &[u8] {
        self.key.get(self.header..).unwrap_or_default()
    }
}

impl PartialEq for Pending {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Pending {}
impl PartialOrd for Pending {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Pending {
    /// `BinaryHeap` pops the greatest: the next row is the smallest body
    /// forward, the largest in reverse.
    fn cmp(&self, other: &Self) -> Ordering {
        let by_key = self
            .body()
            .cmp(other.body())
            .then(self.source.cmp(&other.source));
        if self.reverse {
            by_key
        } else {
            by_key.reverse()
        }
    }
}

/// The fetch-independent state of a typed scan.
struct ScanCore {
    options: ScanOptions,
    header: usize,
    /// The request's ranges, one per bucket.
    ranges: Vec<KeyRange>,
    /// Per opened source: its bucket and how far it was read.
    positions: Vec<(u32, Position)>,
    started: bool,
    returned: usize,
    /// The logical part of the last row returned (ordered mode).
    last: Option<Vec<u8>>,
    /// A store error was returned: the scan is over.
    failed: bool,
    /// The key type's layout, for the request's fingerprint (computed only
    /// when a cursor is given or asked for, not on every scan).
    schema: &'static crate::Schema,
    /// The cursor given to `after` belongs to another request: returned
    /// as the first item, and nothing is read.
    refused: Option<crate::CursorError>,
}

impl ScanCore {
    fn new(
        schema: &'static crate::Schema,
        ranges: Vec<KeyRange>,
        mut options: ScanOptions,
    ) -> Self {
        let foreign = options.after.as_ref().is_some_and(|cursor| {
            cursor.fingerprint
                != crate::cursor::fingerprint(schema, &ranges, options.direction, options.ordered)
        });
        let refused = foreign.then(|| {
            options.after = None;
            crate::CursorError::OtherRequest {
                schema: schema.name(),
            }
        });
        let mut core = ScanCore {
            options,
            header: schema.header_len(),
            ranges,
            positions: Vec::new(),
            started: false,
            returned: 0,
            last: None,
            failed: false,
            schema,
            refused,
        };
        if core.refused.is_some() {
            // Nothing is read; the cursor stays at the start.
            core.ranges.clear();
        }
        core
    }

    /// The refusal of a foreign cursor, once; the scan then ends.
    fn take_refusal<E>(&mut self) -> Option<RowError<E>> {
        let refused = self.refused.take()?;
        self.failed = true;
        Some(RowError::Cursor(refused))
    }

    fn initial_position(&self, bucket: u32) -> Position {
        self.options
            .after
            .as_ref()
            .map_or(Position::Start, |c| c.position(bucket).clone())
    }

    /// The ranges to open, one per source, each narrowed past the cursor;
    /// `None` for a bucket with nothing left.
    fn plan(&mut self) -> Vec<Option<KeyRange>> {
        self.started = true;
        let ranges = std::mem::take(&mut self.ranges);
        let plan = ranges
            .iter()
            .map(|range| {
                let position = self.initial_position(range.bucket());
                let narrowed = self.resume(range, &position);
                let position = if narrowed.is_some() {
                    position
                } else {
                    Position::Done
                };
                self.positions.push((range.bucket(), position));
                narrowed
            })
            .collect();
        self.ranges = ranges;
        plan
    }

    /// `range` narrowed to the rows after `position`; `None` when nothing is left.
    fn resume(&self, range: &KeyRange, position: &Position) -> Option<KeyRange> {
        let body = match position {
            Position::Start => return Some(range.clone()),
            Position::Done => return None,
            Position::After(body) => body,
        };
        let head = range.start().get(..self.header).unwrap_or(range.start());
        let mut at = Vec::with_capacity(head.len() + body.len() + 1);
        at.extend_from_slice(head);
        at.extend_from_slice(body);
        match self.options.direction {
            Direction::Forward => {
                at.push(0); // the smallest key after `at`
                let start = at.max(range.start().to_vec());
                let narrowed =
                    KeyRange::new(start, range.end().map(<[u8]>::to_vec), range.bucket());
                (narrowed.end().is_none_or(|e| narrowed.start() < e)).then_some(narrowed)
            }
            Direction::Reverse => {
                let end = match range.end() {
                    Some(e) if e < at.as_slice() => e.to_vec(),
                    _ => at,
                };
                (range.start() < end.as_slice())
                    .then(|| KeyRange::new(range.start().to_vec(), Some(end), range.bucket()))
            }
        }
    }

    fn limit_reached(&self) -> bool {
        self.failed || self.options.limit.is_some_and(|n| self.returned >= n)
    }

    /// The per-bucket limit pushed down to each source.
    fn per_source_limit(&self) -> Option<usize> {
        self.options.limit
    }

    fn mark_done(&mut self, source: usize) {
        self.positions[source].1 = Position::Done;
    }

    /// Bookkeeping for a returned row, then its decoding. Reuses buffers:
    /// no allocation per row.
    fn emit<K: RowKey, E>(
        &mut self,
        source: usize,
        (key, value): Row,
    ) -> Result<TypedRow<K>, RowError<E>> {
        self.returned += 1;
        let body = key.get(self.header..).unwrap_or_default();
        if self.options.ordered {
            set_after(self.last.get_or_insert_with(Vec::new), body);
        } else {
            let position = &mut self.positions[source].1;
            match position {
                Position::After(buf) => set_after(buf, body),
                // The source may already be marked done.
                Position::Done => {}
                Position::Start => *position = Position::After(body.to_vec()),
            }
        }
        match K::decode(&key) {
            Ok(row) => Ok((row, value)),
            Err(source) => Err(RowError::Decode { key, source }),
        }
    }

    fn cursor(&self) -> Cursor {
        let mut positions: Vec<(u32, Position)> = if self.started {
            self.positions
                .iter()
                .map(|(bucket, position)| {
                    let position = match (position, &self.last) {
                        (Position::Done, _) => Position::Done,
                        // Merged: every bucket restarts after the last row returned
                        // overall (rows pulled but not returned are read again).
                        (_, Some(last)) if self.options.ordered => Position::After(last.clone()),
                        (p, _) => p.clone(),
                    };
                    (*bucket, position)
                })
                .collect()
        } else {
            self.ranges
                .iter()
                .map(|r| (r.bucket(), self.initial_position(r.bucket())))
                .collect()
        };
        positions.sort_by_key(|(b, _)| *b);
        Cursor {
            direction: self.options.direction,
            fingerprint: crate::cursor::fingerprint(
                self.schema,
                &self.ranges,
                self.options.direction,
                self.options.ordered,
            ),
            positions,
        }
    }
}

fn set_after(buf: &mut Vec<u8>, body: &[u8]) {
    buf.clear();
    buf.extend_from_slice(body);
}

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
    pub(crate) fn new(store: &'s S, ranges: Vec<KeyRange>, options: ScanOptions) -> Self {
        TypedRows {
            store,
            core: ScanCore::new(K::schema(), ranges, options),
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
        let mut exhausted = false;
        let row = pull(
            &mut self.sources[i],
            self.core.per_source_limit(),
            &mut exhausted,
        );
        if exhausted {
            self.core.mark_done(i);
        }
        row
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
            let mut exhausted = false;
            let next = pull(
                &mut self.sources[i],
                self.core.per_source_limit(),
                &mut exhausted,
            );
            if exhausted {
                self.core.mark_done(i);
            }
            let row = match next {
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

impl<K: RowKey, S: Store> Iterator for TypedRows<'_, K, S> {
    type Item = Result<TypedRow<K>, RowError<S::Error>>;

    /// A store error is yielded once and ends the scan; [`cursor`](Self::cursor)
    /// then resumes exactly after the rows returned.
    fn next(&mut self) -> Option<Self::Item> {
        if let Some(refused) = self.core.take_refusal() {
            return Some(Err(refused));
        }
        if self.core.limit_reached() {
            return None;
        }
        let next = match self.deferred.take() {
            Some(e) => Err(e),
            None => self.next_row(),
        };
        match next {
            Ok(Some((source, row))) => Some(self.core.emit(source, row)),
            Ok(None) => None,
            Err(e) => {
                self.core.failed = true;
                Some(Err(RowError::Store(e)))
            }
        }
    }
}

pub use self::stream::{AsyncStore, AsyncTypedRows, BoxFuture, BoxRowStream, TypedGet};

mod stream {
    use super::{Pending, ScanCore, ScanOptions};
    use crate::scan::KeyRange;
    use crate::store::{Direction, Row, RowError, TypedRow};
    use crate::{Cursor, RowKey};
    use futures_core::Stream;
    use std::collections::BinaryHeap;
    use std::marker::PhantomData;
    use std::pin::Pin;
    use std::task::{Context, Poll};

    /// The rows of one async scan.
    pub type BoxRowStream<E> = Pin<Box<dyn Stream<Item = Result<Row, E>> + Send + 'static>>;

    /// The answer of a typed get: the row, if any, or why it failed.
    pub type TypedGet<K, E> = Result<Option<TypedRow<K>>, RowError<E>>;

    /// A future of an async store, boxed.
    pub type BoxFuture<'a, T> = Pin<Box<dyn std::future::Future<Output = T> + Send + 'a>>;

    /// A store whose reads are async (Cloud Bigtable).
    pub trait AsyncStore {
        /// What goes wrong.
        type Error: std::error::Error + Send + Sync + 'static;

        /// The rows of one range, at most `limit` of them, streamed.
        fn scan_stream(
            &self,
            range: &KeyRange,
            direction: Direction,
            limit: Option<usize>,
        ) -> BoxRowStream<Self::Error>;

        /// The rows stored under any of `keys` (absent keys are left out),
        /// in one round trip where the store allows.
        fn get_many(&self, keys: Vec<Vec<u8>>) -> BoxFuture<'_, Result<Vec<Row>, Self::Error>>;

        /// The row stored under `key`, decoded, with its value: the async
        /// [`RowStore::get_row`](crate::store::RowStore::get_row), with the
        /// same rules for `random % N` salts (every candidate bucket read in
        /// one request; differing copies are a [`RowError::Conflict`]).
        fn get_row<K: RowKey>(&self, key: &[u8]) -> BoxFuture<'_, TypedGet<K, Self::Error>> {
            let rows = self.get_many(K::schema().candidates(key));
            Box::pin(async move {
                let found = rows.await.map_err(RowError::Store)?;
                crate::store::one_row::<K, Self::Error>(found)
            })
        }
    }

    struct Source<E> {
        rows: Option<BoxRowStream<E>>,
        /// Whether the merge waits for this source's next row.
        wanted: bool,
    }

    /// The rows of an async typed scan: one stream per bucket, all polled
    /// together (their requests run concurrently), merged in key order by
    /// the same rules as [`TypedRows`](super::TypedRows).
    pub struct AsyncTypedRows<K, E> {
        core: ScanCore,
        sources: Vec<Source<E>>,
        heap: BinaryHeap<Pending>,
        current: usize,
        key: PhantomData<fn() -> K>,
    }

    impl<K: RowKey, E> AsyncTypedRows<K, E> {
        pub(crate) fn new<S: AsyncStore<Error = E>>(
            store: &S,
            ranges: Vec<KeyRange>,
            options: ScanOptions,
        ) -> Self {
            let mut core = ScanCore::new(K::schema(), ranges, options);
            let limit = core.per_source_limit();
            let direction = core.options.direction;
            let sources = core
                .plan()
                .into_iter()
                .map(|range| Source {
                    rows: range.map(|r| store.scan_stream(&r, direction, limit)),
                    wanted: true,
                })
                .collect();
            AsyncTypedRows {
                core,
                sources,
                heap: BinaryHeap::new(),
                current: 0,
                key: PhantomData,
            }
        }

        /// Where the scan stands; see [`TypedRows::cursor`](super::TypedRows::cursor).
        pub fn cursor(&self) -> Cursor {
            self.core.cursor()
        }
    }

    impl<K, E> Unpin for AsyncTypedRows<K, E> {}

    impl<K: RowKey, E> Stream for AsyncTypedRows<K, E> {
        type Item = Result<TypedRow<K>, RowError<E>>;

        fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
            let this = self.get_mut();
            if let Some(refused) = this.core.take_refusal() {
                return Poll::Ready(Some(Err(refused)));
            }
            if this.core.limit_reached() {
                return Poll::Ready(None);
            }
            if !this.core.options.ordered {
                while this.current < this.sources.len() {
                    let i = this.current;
                    let Some(rows) = this.sources[i].rows.as_mut() else {
                        this.current += 1;
                        continue;
                    };
                    match rows.as_mut().poll_next(cx) {
                        Poll::Pending => return Poll::Pending,
                        Poll::Ready(Some(Ok(row))) => {
                            return Poll::Ready(Some(this.core.emit(i, row)))
                        }
                        Poll::Ready(Some(Err(e))) => {
                            this.core.failed = true;
                            return Poll::Ready(Some(Err(RowError::Store(e))));
                        }
                        Poll::Ready(None) => {
                            this.sources[i].rows = None;
                            this.core.mark_done(i);
                            this.current += 1;
                        }
                    }
                }
                return Poll::Ready(None);
            }
            // Every open source whose row the merge waits for must have
            // answered before the smallest pending row is known.
            let mut waiting = false;
            for i in 0..this.sources.len() {
                if !this.sources[i].wanted {
                    continue;
                }
                let Some(rows) = this.sources[i].rows.as_mut() else {
                    this.sources[i].wanted = false;
                    continue;
                };
                match rows.as_mut().poll_next(cx) {
                    Poll::Pending => waiting = true,
                    Poll::Ready(Some(Ok(row))) => {
                        this.sources[i].wanted = false;
                        this.heap.push(Pending::new(&this.core, i, row));
                    }
                    Poll::Ready(Some(Err(e))) => {
                        // Rows already pending are not returned: the cursor
                        // resumes before them, so nothing is lost.
                        this.core.failed = true;
                        return Poll::Ready(Some(Err(RowError::Store(e))));
                    }
                    Poll::Ready(None) => {
                        this.sources[i].wanted = false;
                        this.sources[i].rows = None;
                        this.core.mark_done(i);
                    }
                }
            }
            if waiting {
                return Poll::Pending;
            }
            let Some(p) = this.heap.pop() else {
                return Poll::Ready(None);
            };
            this.sources[p.source].wanted = true;
            Poll::Ready(Some(this.core.emit(p.source, (p.key, p.value))))
        }
    }
}
