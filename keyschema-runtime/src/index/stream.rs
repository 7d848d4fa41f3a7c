//! The rows an async index scan names: entries pulled in chunks, each
//! chunk's rows read in one `get_many_for` request, checked against their
//! entries.

use super::Index;
use crate::record::decode_values;
use crate::scan::{AsyncTypedRows, Cursor, ScanRequest};
use crate::store::{AsyncStore, BoxFuture, Row, RowError};
use futures_core::Stream;
use std::collections::{HashMap, VecDeque};
use std::pin::Pin;
use std::task::{Context, Poll};

/// Entries per row request.
const CHUNK: usize = 256;

/// An entry pulled: its key, itself and the row key it names.
type Pulled<I> = (Vec<u8>, I, Vec<u8>);

/// The rows of an async index scan (`.stream_rows(&store)` on an index's
/// scan request), as [`IndexRows`](super::IndexRows) on a sync store:
/// each entry's row, whole, returned only if the row has that entry; one
/// row request per chunk of entries (Bigtable: one ReadRows with the
/// chunk's row keys). [`cursor`](Self::cursor) is exact after any row.
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
    chunk_start: Option<Cursor>,
    moved: Vec<(u32, Vec<u8>)>,
    ordered: bool,
    deferred: Option<RowError<S::Error>>,
    failed: bool,
    exhausted: bool,
}

impl<I: Index> ScanRequest<I> {
    /// Runs the index scan on an async store and reads the rows its
    /// entries name, whole (see [`AsyncIndexRows`]).
    pub fn stream_rows<'s, S: AsyncStore>(&self, store: &'s S) -> AsyncIndexRows<'s, I, S> {
        let (request, limit) = self.without_limit();
        let ordered = request.is_ordered();
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
            chunk_start: None,
            moved: Vec::new(),
            ordered,
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
        let Some(start) = &self.chunk_start else {
            return self.entries.cursor();
        };
        let mut cursor = start.clone();
        for (bucket, body) in &self.moved {
            cursor.past(self.ordered, *bucket, body);
        }
        cursor
    }

    /// Entries skipped because their row does not have them.
    pub fn stale_entries(&self) -> u64 {
        self.stale
    }

    /// The next row of the chunk in hand, checked; `None` when it is empty.
    fn next_in_chunk(&mut self) -> Option<Result<I::Row, RowError<S::Error>>> {
        while let Some((entry_key, entry, value)) = self.chunk.pop_front() {
            if self.chunk.is_empty() && self.pulled.is_empty() && self.fetch.is_none() {
                self.chunk_start = None;
                self.moved.clear();
            }
            let Some(value) = value else {
                self.stale += 1;
                continue;
            };
            let mut row = entry.into_row();
            if let Err(source) = decode_values(&mut row, &value) {
                return Some(Err(RowError::Value {
                    schema: <I::Row as crate::RowKey>::schema().name(),
                    key: crate::RowKey::encode(&row),
                    source,
                }));
            }
            let schema = I::schema();
            let bucket = schema.bucket_of(&entry_key).unwrap_or(0);
            if I::entry_key_in(&row, bucket).as_deref() != Some(entry_key.as_slice()) {
                self.stale += 1;
                continue;
            }
            if self.chunk_start.is_some() {
                let body = entry_key.get(schema.header_len()..).unwrap_or_default();
                match self.moved.last_mut() {
                    Some((b, last)) if *b == bucket || self.ordered => {
                        *b = bucket;
                        last.clear();
                        last.extend_from_slice(body);
                    }
                    _ => self.moved.push((bucket, body.to_vec())),
                }
            }
            self.returned += 1;
            return Some(Ok(row));
        }
        None
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
            return Poll::Ready(Some(Err(RowError::Index(super::IndexError::Building {
                index: I::schema().name(),
                row: <I::Row as crate::RowKey>::schema().name(),
            }))));
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
                let pulled = std::mem::take(&mut this.pulled);
                match rows {
                    Ok(rows) => {
                        // Several entries may name one row (a stale one and
                        // the row's own): each gets the row.
                        let found: HashMap<Vec<u8>, Vec<u8>> = rows.into_iter().collect();
                        this.chunk.extend(
                            pulled
                                .into_iter()
                                .map(|(key, entry, row)| (key, entry, found.get(&row).cloned())),
                        );
                    }
                    Err(e) => {
                        // Nothing of the chunk was returned: the cursor
                        // stays before it, and the scan ends here.
                        this.failed = true;
                        this.deferred = Some(RowError::Store(e));
                    }
                }
                continue;
            }
            if let Some(e) = this.deferred.take() {
                return Poll::Ready(Some(Err(e)));
            }
            if this.failed {
                return Poll::Ready(None);
            }
            // The next chunk of entries.
            let want = this
                .limit
                .map_or(CHUNK, |n| n.saturating_sub(this.returned).clamp(1, CHUNK));
            if this.pulled.is_empty() {
                if this.exhausted {
                    return Poll::Ready(None);
                }
                this.chunk_start = Some(this.entries.cursor());
                this.moved.clear();
            }
            while this.pulled.len() < want && !this.exhausted {
                match Pin::new(&mut this.entries).poll_keyed(cx) {
                    Poll::Ready(Some(Ok((key, entry, _)))) => {
                        let row = entry.row_key();
                        this.pulled.push((key, entry, row));
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
                this.chunk_start = None;
                continue;
            }
            let keys = this.pulled.iter().map(|(_, _, row)| row.clone()).collect();
            let schema = <I::Row as crate::RowKey>::schema();
            this.fetch = Some(this.store.get_many_for(schema, keys));
        }
    }
}
