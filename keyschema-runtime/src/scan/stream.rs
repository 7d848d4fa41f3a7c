//! The async driver of a typed scan, over an [`AsyncStore`]: one stream
//! per bucket, merged by the same rules as the sync one, with at most
//! [`concurrency`](crate::ScanRequest::concurrency) requests in flight.
//!
//! A store's stream makes no request until it is polled, so the driver
//! bounds the requests in flight by the streams it polls. Merged, every
//! bucket's first row is needed before the first row is known: the first
//! requests go out `concurrency` at a time, and after that one stream at a
//! time is read (the one whose row was returned; its next rows are usually
//! in the page it already holds). Unordered, the buckets are read in order:
//! the current one, and as buckets run out, up to `concurrency - 1` of the
//! next ones ahead (one, then three, then seven...), so a page that one
//! bucket fills costs one request.

use super::cursor::Cursor;
use super::merge::{before, Keyed, ScanCore, ScanOptions};
use super::plan::Plan;
use super::tree::LoserTree;
use crate::history::Phase;
use crate::key::RowKey;
use crate::range::Direction;
use crate::store::{AsyncStore, BoxRowStream, Row, RowError, TypedRow};
use futures_core::Stream;
use std::marker::PhantomData;
use std::pin::Pin;
use std::task::{Context, Poll};

struct Source<E> {
    /// `None` once it ended (or for an empty range).
    rows: Option<BoxRowStream<E>>,
    /// The row read and not yet returned.
    head: Option<Row>,
    /// It was polled and answered `Pending`: its request is in flight.
    waiting: bool,
    /// Read ahead (unordered): an error, returned when the source is reached.
    error: Option<E>,
    /// Where the components start in its keys.
    header: usize,
    /// It was polled at least once (its first request was made).
    polled: bool,
}

impl<E> Source<E> {
    fn resolved(&self) -> bool {
        self.head.is_some() || self.rows.is_none() || self.error.is_some()
    }
}

/// A row with the index of its source, or why the scan could not give one.
pub(super) type SourcedRow<E> = Result<(usize, Row), RowError<E>>;

/// What polling a source once gave.
enum Polled<E> {
    Waiting,
    Row,
    Ended,
    Error(E),
}

/// The rows of an async typed scan: one stream per bucket, at most
/// [`concurrency`](crate::ScanRequest::concurrency) requests in flight,
/// merged in key order by the same rules as [`TypedRows`](super::TypedRows)
/// (or read bucket after bucket with [`unordered`](crate::ScanRequest::unordered)).
pub struct AsyncTypedRows<K, E> {
    merge: Merge<E>,
    key: PhantomData<fn() -> K>,
}

/// The sources of an async scan and their merge, whatever the rows are
/// decoded into: [`AsyncTypedRows`] decodes them as a key type, and
/// [`MergedRows`](super::MergedRows) returns them as stored.
pub(super) struct Merge<E> {
    pub(super) core: ScanCore,
    sources: Vec<Source<E>>,
    /// Merged: built once every source has answered.
    tree: Option<LoserTree>,
    /// Merged: the source whose row was returned last, read again before
    /// the next row is known.
    refill: Option<usize>,
    /// Sources polled and waiting for an answer.
    in_flight: usize,
    /// Unordered: how many sources after the current one are read ahead.
    ahead: usize,
    /// The page is full and the bucket of its last row was read once more
    /// ([`poll_page_end`](Self::poll_page_end)).
    page_ended: bool,
    /// The store's refusal of the key type, returned first.
    refused: Option<E>,
    /// Whether an error concerns one item and the scan reads on.
    item_error: fn(&E) -> bool,
}

impl<E> Merge<E> {
    /// Starts `core` on `store`, which reads rows as `reads` says, for
    /// rows of the layout `checked` (refused first when the store is not
    /// one of its tables).
    pub(super) fn new<S: AsyncStore<Error = E>>(
        store: &S,
        reads: &'static crate::schema::Schema,
        checked: &'static crate::schema::Schema,
        mut core: ScanCore,
    ) -> Self {
        core.start();
        let limit = core.per_source_limit();
        let direction = core.options.direction;
        // The streams are made now (a store's stream is lazy: no request
        // until it is polled).
        let sources = (0..core.plan.len())
            .map(|i| Source {
                rows: core
                    .range_for(i)
                    .map(|r| store.scan_for(reads, &r, direction, limit)),
                head: None,
                waiting: false,
                error: None,
                header: core.header_of(i),
                polled: false,
            })
            .collect();
        Merge {
            core,
            sources,
            tree: None,
            refill: None,
            in_flight: 0,
            ahead: 0,
            page_ended: false,
            refused: store.check_key_type(checked).err(),
            item_error: S::item_error,
        }
    }

    /// How many sources' streams were polled so far.
    pub(super) fn sources_read(&self) -> usize {
        self.sources.iter().filter(|s| s.polled).count()
    }
}

impl<K: RowKey, E> AsyncTypedRows<K, E> {
    pub(crate) fn new<S: AsyncStore<Error = E>>(
        store: &S,
        reads: &'static crate::schema::Schema,
        plan: Plan,
        request: Vec<u8>,
        options: ScanOptions,
        phase: Option<Phase>,
    ) -> Self {
        let core = ScanCore::new(K::schema(), plan, request, options, K::history().zip(phase));
        AsyncTypedRows {
            merge: Merge::new(store, reads, K::schema(), core),
            key: PhantomData,
        }
    }

    /// Where the scan stands; see [`TypedRows::cursor`](super::TypedRows::cursor).
    pub fn cursor(&self) -> Cursor {
        self.merge.core.cursor()
    }

    /// How many buckets' streams were polled so far: each made at least
    /// one request to the store.
    pub fn buckets_read(&self) -> usize {
        self.merge.sources_read()
    }
}

impl<K: crate::record::Record, E> AsyncTypedRows<K, E> {
    /// The same rows, whole: each with its value fields (see
    /// [`AsyncRecordStore`](crate::store::AsyncRecordStore)); the cursor is
    /// [`Records::inner`](crate::store::Records::inner)`().cursor()`.
    pub fn records(self) -> crate::store::Records<Self> {
        crate::store::Records::new(self)
    }
}

impl<K, E> Unpin for AsyncTypedRows<K, E> {}

impl<K: RowKey, E> Stream for AsyncTypedRows<K, E> {
    type Item = Result<TypedRow<K>, RowError<E>>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.get_mut()
            .poll_keyed(cx)
            .map(|row| row.map(|row| row.map(|(_, row, value)| (row, value))))
    }
}

impl<K: RowKey, E> AsyncTypedRows<K, E> {
    /// The next row with its key bytes.
    pub(crate) fn poll_keyed(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Keyed<K>, RowError<E>>>> {
        loop {
            let (i, (key, value)) = match self.merge.poll_row(cx) {
                Poll::Ready(Some(Ok(row))) => row,
                Poll::Ready(Some(Err(e))) => return Poll::Ready(Some(Err(e))),
                Poll::Ready(None) => return Poll::Ready(None),
                Poll::Pending => return Poll::Pending,
            };
            if let Some(item) = self.merge.core.emit::<K, E>(i, &key) {
                return Poll::Ready(Some(item.map(|row| (key, row, value))));
            }
            // A row of the other layout: on to the next.
        }
    }
}

impl<E> Merge<E> {
    /// Polls source `i` once, unless it already has its answer.
    fn poll_source(&mut self, cx: &mut Context<'_>, i: usize) -> Polled<E> {
        let source = &mut self.sources[i];
        if source.head.is_some() {
            return Polled::Row;
        }
        if let Some(e) = source.error.take() {
            return Polled::Error(e);
        }
        let Some(rows) = source.rows.as_mut() else {
            return Polled::Ended;
        };
        source.polled = true;
        let polled = rows.as_mut().poll_next(cx);
        let was_waiting = std::mem::replace(&mut source.waiting, polled.is_pending());
        match (was_waiting, polled.is_pending()) {
            (false, true) => self.in_flight += 1,
            (true, false) => self.in_flight -= 1,
            _ => {}
        }
        match polled {
            Poll::Pending => Polled::Waiting,
            Poll::Ready(Some(Ok(row))) => {
                source.head = Some(row);
                Polled::Row
            }
            Poll::Ready(Some(Err(e))) => Polled::Error(e),
            Poll::Ready(None) => {
                source.rows = None;
                Polled::Ended
            }
        }
    }

    /// A store error: one item's (the scan reads on) or the end of the scan.
    fn error_row<T>(&mut self, e: E) -> Poll<Option<Result<T, RowError<E>>>> {
        if !(self.item_error)(&e) {
            self.core.failed = true;
        }
        Poll::Ready(Some(Err(RowError::Store(e))))
    }

    /// The next row in the merge (or, unordered, the bucket order) and its
    /// source, as stored; `None` when the scan is done or its limit
    /// reached. The caller counts it ([`ScanCore::emit`], or
    /// [`ScanCore::returned`] for a row returned undecoded).
    pub(super) fn poll_row(&mut self, cx: &mut Context<'_>) -> Poll<Option<SourcedRow<E>>> {
        if let Some(refused) = self.refused.take() {
            self.core.failed = true;
            return Poll::Ready(Some(Err(RowError::Store(refused))));
        }
        if let Some(refused) = self.core.take_refusal() {
            return Poll::Ready(Some(Err(refused)));
        }
        if self.core.limit_reached() {
            return self.poll_page_end(cx).map(|()| None);
        }
        let next = if self.core.options.ordered {
            self.poll_merged(cx)
        } else {
            self.poll_unordered(cx)
        };
        match next {
            Poll::Ready(Ok(Some(row))) => Poll::Ready(Some(Ok(row))),
            Poll::Ready(Ok(None)) => Poll::Ready(None),
            Poll::Ready(Err(e)) => self.error_row(e),
            Poll::Pending => Poll::Pending,
        }
    }

    /// The page is full: the bucket its last row came from is read once
    /// more (merged, the refill of the row's source; unordered, the
    /// current source), so that a bucket that ran out with the page is done
    /// in the cursor, which is then finished when no row is left. Its row
    /// is not returned, and an error here is the next page's. The row is
    /// within what the bucket was asked for (one past the limit), so most
    /// often already received.
    fn poll_page_end(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        if self.page_ended || self.core.failed || self.core.returned == 0 {
            return Poll::Ready(());
        }
        let i = if self.core.options.ordered {
            match self.refill {
                Some(i) => i,
                None => return Poll::Ready(()),
            }
        } else {
            self.core.current
        };
        if i >= self.sources.len() {
            return Poll::Ready(());
        }
        match self.poll_source(cx, i) {
            Polled::Waiting => return Poll::Pending,
            Polled::Ended => self.core.mark_done(i),
            Polled::Row | Polled::Error(_) => {}
        }
        self.refill = None;
        self.page_ended = true;
        Poll::Ready(())
    }

    /// Merged: the next row in key order and its source.
    fn poll_merged(&mut self, cx: &mut Context<'_>) -> Poll<Result<Option<(usize, Row)>, E>> {
        let direction = self.core.options.direction;
        if self.tree.is_none() {
            match self.fill_every_source(cx) {
                Poll::Ready(Ok(())) => {}
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Pending => return Poll::Pending,
            }
            let sources = &self.sources;
            self.tree = Some(LoserTree::build(sources.len(), |a, b| {
                less(sources, direction, a, b)
            }));
        }
        if let Some(i) = self.refill {
            match self.poll_source(cx, i) {
                Polled::Waiting => return Poll::Pending,
                Polled::Error(e) => return Poll::Ready(Err(e)),
                Polled::Row => {}
                Polled::Ended => self.core.mark_done(i),
            }
            self.refill = None;
            let sources = &self.sources;
            if let Some(tree) = self.tree.as_mut() {
                tree.replay(i, |a, b| less(sources, direction, a, b));
            }
        }
        let Some(w) = self.tree.as_ref().and_then(LoserTree::winner) else {
            return Poll::Ready(Ok(None));
        };
        let Some(row) = self.sources[w].head.take() else {
            return Poll::Ready(Ok(None));
        };
        self.refill = Some(w);
        Poll::Ready(Ok(Some((w, row))))
    }

    /// Merged, before the first row: every source's first row (or end),
    /// at most `concurrency` requests in flight.
    fn fill_every_source(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), E>> {
        let limit = self.core.options.concurrency;
        loop {
            let mut unstarted = false;
            for i in 0..self.sources.len() {
                if self.sources[i].resolved() {
                    continue;
                }
                if !self.sources[i].waiting && self.in_flight >= limit {
                    unstarted = true;
                    continue;
                }
                match self.poll_source(cx, i) {
                    Polled::Waiting | Polled::Row => {}
                    Polled::Ended => self.core.mark_done(i),
                    Polled::Error(e) => return Poll::Ready(Err(e)),
                }
            }
            // A slot freed while this pass skipped a source: start it now
            // (no waker would call again for it).
            if !(unstarted && self.in_flight < limit) {
                break;
            }
        }
        if self.sources.iter().all(Source::resolved) {
            Poll::Ready(Ok(()))
        } else {
            Poll::Pending
        }
    }

    /// Unordered: the next row of the current source, reading ahead.
    fn poll_unordered(&mut self, cx: &mut Context<'_>) -> Poll<Result<Option<(usize, Row)>, E>> {
        loop {
            let i = self.core.current;
            if i >= self.sources.len() {
                return Poll::Ready(Ok(None));
            }
            let last = self.sources.len().min(i + 1 + self.ahead);
            for j in i + 1..last {
                if !self.sources[j].resolved() {
                    if let Polled::Error(e) = self.poll_source(cx, j) {
                        // Kept until the source is reached.
                        self.sources[j].error = Some(e);
                    }
                }
            }
            match self.poll_source(cx, i) {
                Polled::Waiting => return Poll::Pending,
                Polled::Row => {
                    let Some(row) = self.sources[i].head.take() else {
                        continue;
                    };
                    return Poll::Ready(Ok(Some((i, row))));
                }
                Polled::Error(e) => return Poll::Ready(Err(e)),
                Polled::Ended => {
                    self.core.mark_done(i);
                    // Buckets run out: read further ahead.
                    let most = self.core.options.concurrency.saturating_sub(1);
                    self.ahead = (self.ahead * 2 + 1).min(most);
                }
            }
        }
    }
}

/// Whether source `a`'s row comes before source `b`'s in the merge (a
/// source without a row never does).
fn less<E>(sources: &[Source<E>], direction: Direction, a: usize, b: usize) -> bool {
    match (&sources[a].head, &sources[b].head) {
        (Some((x, _)), Some((y, _))) => {
            let x = x.get(sources[a].header..).unwrap_or_default();
            let y = y.get(sources[b].header..).unwrap_or_default();
            before(x, a, y, b, direction)
        }
        (x, _) => x.is_some(),
    }
}
