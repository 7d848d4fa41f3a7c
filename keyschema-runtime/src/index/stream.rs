//! The rows an async index scan names: entries pulled in chunks, each
//! chunk's rows read in one `get_many_for` request, checked against their
//! entries.

use super::check::{building, checked_row, chunk_size, ChunkCursor};
use super::Index;
use crate::scan::{AsyncTypedRows, Cursor, ScanRequest};
use crate::store::{AsyncStore, BoxFuture, Row, RowError};
use futures_core::Stream;
use std::collections::{HashMap, VecDeque};
use std::pin::Pin;
use std::task::{Context, Poll};

/// An entry pulled: its key, itself and the row key it names.
type Pulled<I> = (Vec<u8>, I, Vec<u8>);

/// The rows of an async index scan (`.stream_rows(&store)` on an index's
/// scan request), as [`IndexRows`](super::IndexRows) on a sync store:
/// each entry's row, whole, returned only if the row has that entry; one
/// row request per chunk of entries (Bigtable: one ReadRows with the
/// chunk's row keys; DynamoDB: one BatchGetItem, a consistent read).
/// [`cursor`](Self::cursor) is exact after any row.
pub struct AsyncIndexRows<'s, I: Index, S: AsyncStore> {
    entries: AsyncTypedRows<I, S::Error>,
    store: &'s S,
    limit: Option<usize>,
    returned: usize,
    stale: u64,
    refused: bool,
    pulled: Vec<Pulled<I>>,
    fetch: Option<BoxFuture<'s, Result<Vec<Row>, S::Error>>>,
    chunk: VecDeque<(Vec<u8>, I, Option<Vec<u8>>)>,
    at: ChunkCursor,
    deferred: Option<RowError<S::Error>>,
    failed: bool,
    exhausted: bool,
}

impl<I: Index> ScanRequest<I> {
    /// Runs the index scan on an async store and reads the rows its
    /// entries name, whole (see [`AsyncIndexRows`]).
    pub fn stream_rows<'s, S: AsyncStore>(&self, store: &'s S) -> AsyncIndexRows<'s, I, S> {
        let (request, limit) = self.without_limit();
        AsyncIndexRows {
            entries: request.stream_any(store),
            store,
            limit,
            returned: 0,
            stale: 0,
            refused: false,
            pulled: Vec::new(),
            fetch: None,
            chunk: VecDeque::new(),
            at: ChunkCursor::default(),
            deferred: None,
            failed: false,
            exhausted: false,
        }
    }
}

impl<I: Index, S: AsyncStore> AsyncIndexRows<'_, I, S> {
    /// Where the scan stands: `.after(cursor)` on the same request resumes
    /// after the last row returned.
    pub fn cursor(&self) -> Cursor {
        self.at.cursor(|| self.entries.cursor())
    }

    /// Entries skipped because their row does not have them.
    pub fn stale_entries(&self) -> u64 {
        self.stale
    }

    /// The next row of the chunk in hand, checked; `None` when it is empty.
    fn next_in_chunk(&mut self) -> Option<Result<I::Row, RowError<S::Error>>> {
        while let Some((entry_key, entry, value)) = self.chunk.pop_front() {
            // The cursor after each entry consumed is exact, also after a
            // chunk's last (the entries' own may be past an entry that did
            // not decode, whose error is still to come).
            let checked = checked_row::<I, S::Error>(&entry_key, entry, value);
            self.at.consumed(checked.is_ok());
            match checked {
                Ok(Some(row)) => {
                    self.returned += 1;
                    return Some(Ok(row));
                }
                Ok(None) => self.stale += 1,
                Err(e) => return Some(Err(e)),
            }
        }
        None
    }

    /// The rows of the chunk in flight arrived: each entry with its row's
    /// value (several entries may name one row: a stale one and the row's
    /// own).
    fn arrived(&mut self, rows: Result<Vec<Row>, S::Error>) {
        let pulled = std::mem::take(&mut self.pulled);
        match rows {
            Ok(rows) => {
                let found: HashMap<Vec<u8>, Vec<u8>> = rows.into_iter().collect();
                self.chunk.extend(
                    pulled
                        .into_iter()
                        .map(|(key, entry, row)| (key, entry, found.get(&row).cloned())),
                );
            }
            Err(e) => {
                // Nothing of the chunk was returned: the cursor stays
                // before it, and the scan ends here.
                self.failed = true;
                self.deferred = Some(RowError::Store(e));
            }
        }
    }
}

impl<I: Index, S: AsyncStore> Unpin for AsyncIndexRows<'_, I, S> {}

impl<I: Index, S: AsyncStore> Stream for AsyncIndexRows<'_, I, S> {
    type Item = Result<I::Row, RowError<S::Error>>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        if I::BUILDING {
            if this.refused {
                return Poll::Ready(None);
            }
            this.refused = true;
            return Poll::Ready(Some(Err(building::<I, S::Error>())));
        }
        loop {
            if this.limit.is_some_and(|n| this.returned >= n) {
                return Poll::Ready(None);
            }
            if let Some(row) = this.next_in_chunk() {
                return Poll::Ready(Some(row));
            }
            if let Some(fetch) = this.fetch.as_mut() {
                let rows = match fetch.as_mut().poll(cx) {
                    Poll::Pending => return Poll::Pending,
                    Poll::Ready(rows) => rows,
                };
                this.fetch = None;
                this.arrived(rows);
                continue;
            }
            if let Some(e) = this.deferred.take() {
                // An entry that did not decode: the cursor moves past it
                // as it is returned (a chunk that could not be read keeps
                // it before).
                if !this.failed {
                    this.at.end();
                }
                return Poll::Ready(Some(Err(e)));
            }
            if this.failed {
                return Poll::Ready(None);
            }
            // The next chunk of entries.
            let want = chunk_size(this.limit, this.returned);
            if this.pulled.is_empty() {
                if this.exhausted {
                    return Poll::Ready(None);
                }
                this.at.begin(this.entries.cursor());
            }
            while this.pulled.len() < want && !this.exhausted {
                match Pin::new(&mut this.entries).poll_keyed(cx) {
                    Poll::Ready(Some(Ok((key, entry, _)))) => {
                        let row = entry.row_key();
                        this.pulled.push((key, entry, row));
                        this.at.pulled(this.entries.cursor());
                    }
                    Poll::Ready(Some(Err(e))) => {
                        this.deferred = Some(e);
                        break;
                    }
                    Poll::Ready(None) => this.exhausted = true,
                    Poll::Pending if this.pulled.is_empty() => return Poll::Pending,
                    Poll::Pending => break,
                }
            }
            if this.pulled.is_empty() {
                this.at.end();
                continue;
            }
            let keys = this.pulled.iter().map(|(_, _, row)| row.clone()).collect();
            let schema = <I::Row as crate::key::RowKey>::schema();
            this.fetch = Some(this.store.get_many_for(schema, keys));
        }
    }
}
