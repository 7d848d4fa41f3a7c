//! The async driver of a typed scan, over an [`AsyncStore`]: one stream
//! per bucket, all polled together, merged by the same rules as the sync one.

use super::cursor::Cursor;
use super::merge::{unkeyed, Keyed, Pending, ScanCore, ScanOptions};
use crate::history::Phase;
use crate::key::RowKey;
use crate::range::KeyRange;
use crate::store::{AsyncStore, BoxRowStream, RowError, TypedRow};
use futures_core::Stream;
use std::collections::BinaryHeap;
use std::marker::PhantomData;
use std::pin::Pin;
use std::task::{Context, Poll};

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
    /// The store's refusal of the key type, returned first.
    refused: Option<E>,
    /// Whether an error concerns one item and the scan reads on.
    item_error: fn(&E) -> bool,
    key: PhantomData<fn() -> K>,
}

impl<K: RowKey, E> AsyncTypedRows<K, E> {
    pub(crate) fn new<S: AsyncStore<Error = E>>(
        store: &S,
        reads: &'static crate::schema::Schema,
        ranges: Vec<KeyRange>,
        options: ScanOptions,
        phase: Option<Phase>,
    ) -> Self {
        let mut core = ScanCore::new(K::schema(), ranges, options, K::history().zip(phase));
        let limit = core.per_source_limit();
        let direction = core.options.direction;
        let sources = core
            .plan()
            .into_iter()
            .map(|range| Source {
                rows: range.map(|r| store.scan_for(reads, &r, direction, limit)),
                wanted: true,
            })
            .collect();
        AsyncTypedRows {
            core,
            sources,
            heap: BinaryHeap::new(),
            current: 0,
            refused: store.check_key_type(K::schema()).err(),
            item_error: S::item_error,
            key: PhantomData,
        }
    }

    /// Where the scan stands; see [`TypedRows::cursor`](super::TypedRows::cursor).
    pub fn cursor(&self) -> Cursor {
        self.core.cursor()
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
        self.get_mut().poll_keyed(cx).map(|row| row.map(unkeyed))
    }
}

impl<K: RowKey, E> AsyncTypedRows<K, E> {
    /// The next row with its key bytes.
    pub(crate) fn poll_keyed(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Keyed<K>, RowError<E>>>> {
        let this = self;
        if let Some(refused) = this.refused.take() {
            this.core.failed = true;
            return Poll::Ready(Some(Err(RowError::Store(refused))));
        }
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
                    Poll::Ready(Some(Ok(row))) => match this.core.emit(i, row) {
                        Some(item) => return Poll::Ready(Some(item)),
                        // A row of the other layout: read on.
                        None => continue,
                    },
                    Poll::Ready(Some(Err(e))) => {
                        this.core.failed = !(this.item_error)(&e);
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
                Poll::Ready(Some(Err(e))) if (this.item_error)(&e) => {
                    // One unreadable item: reported, and its source read on
                    // (it stays wanted; the rows pending stay pending).
                    return Poll::Ready(Some(Err(RowError::Store(e))));
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
        match this.core.emit(p.source, (p.key, p.value)) {
            Some(item) => Poll::Ready(Some(item)),
            None => {
                // A row of the other layout: poll again for the next one.
                cx.waker().wake_by_ref();
                Poll::Pending
            }
        }
    }
}
