//! The rows an index scan names, read whole and checked against their
//! entries: entries pulled in chunks, their rows fetched with one
//! `get_many` per chunk.

use super::Index;
use crate::record::decode_values;
use crate::scan::{Cursor, TypedRows};
use crate::store::{RowError, Store};
use std::collections::VecDeque;

/// Entries per row fetch.
const CHUNK: usize = 256;

/// An entry of a chunk: its key, itself, the row key it names, and the
/// row's stored value.
type Fetched<I> = (Vec<u8>, I, Vec<u8>, Option<Vec<u8>>);

/// The rows of an index scan (`Name::scan()...run(&store).rows()`): for
/// each entry, the row it names, whole, returned only if the row's entry
/// under this index is that entry. An entry whose row is gone or no longer
/// has it (left by an interrupted write on a store without transactions, or
/// by a raw write) is skipped. At most the scan's limit of rows.
///
/// Entries are read in chunks (at most 256, and no more than the rows the
/// limit leaves), and each chunk's rows in one
/// [`get_many`](Store::get_many); [`cursor`](Self::cursor) is exact after
/// any row returned.
pub struct IndexRows<'s, I: Index, S: Store + 's> {
    entries: TypedRows<'s, I, S>,
    store: &'s S,
    limit: Option<usize>,
    returned: usize,
    /// Entries skipped so far because their row does not have them.
    stale: u64,
    /// Whether the refusal of a `building` index was returned.
    refused: bool,
    /// The chunk in hand: each entry's key, the entry, the row key it
    /// names, and the row's stored value.
    chunk: VecDeque<Fetched<I>>,
    /// The entries' cursor when the chunk was read, and the rows returned
    /// from the chunk since (their bucket and key after the header): the
    /// cursor after the last row returned.
    chunk_start: Option<Cursor>,
    moved: Vec<(u32, Vec<u8>)>,
    /// An error met while reading the chunk, returned after its rows.
    deferred: Option<RowError<S::Error>>,
    /// A chunk's rows could not be read: the scan is over.
    failed: bool,
}

impl<'s, I: Index, S: Store> TypedRows<'s, I, S> {
    /// The rows these index entries name, whole (see [`IndexRows`]).
    pub fn rows(mut self) -> IndexRows<'s, I, S> {
        // The limit counts rows returned, not entries read: a skipped entry
        // must not shorten the page.
        let limit = self.take_limit();
        let store = self.store();
        IndexRows {
            entries: self,
            store,
            limit,
            returned: 0,
            stale: 0,
            refused: false,
            chunk: VecDeque::new(),
            chunk_start: None,
            moved: Vec::new(),
            deferred: None,
            failed: false,
        }
    }
}

impl<I: Index, S: Store> IndexRows<'_, I, S> {
    /// Where the scan stands: `.after(cursor)` on the same request resumes
    /// after the last row returned.
    pub fn cursor(&self) -> Cursor {
        let Some(start) = &self.chunk_start else {
            return self.entries.cursor();
        };
        let mut cursor = start.clone();
        for (bucket, body) in &self.moved {
            cursor.past(self.entries.ordered(), *bucket, body);
        }
        cursor
    }

    /// How many entries the scan skipped because their row does not have
    /// them (anything above 0 is left by interrupted writes or raw ones).
    pub fn stale_entries(&self) -> u64 {
        self.stale
    }

    /// Reads the next chunk of entries and their rows; `false` when there
    /// are none.
    fn fill(&mut self) -> bool {
        let want = self
            .limit
            .map_or(CHUNK, |n| n.saturating_sub(self.returned).clamp(1, CHUNK));
        self.chunk_start = Some(self.entries.cursor());
        self.moved.clear();
        let mut keys = Vec::new();
        while keys.len() < want {
            match self.entries.next_keyed() {
                Some(Ok((entry_key, entry, _))) => {
                    let row = entry.row_key();
                    keys.push((entry_key, entry, row));
                }
                Some(Err(e)) => {
                    self.deferred = Some(e);
                    break;
                }
                None => break,
            }
        }
        if keys.is_empty() {
            self.chunk_start = None;
            return false;
        }
        let rows: Vec<Vec<u8>> = keys.iter().map(|(_, _, row)| row.clone()).collect();
        match self.store.get_many(&rows) {
            Ok(values) => self.chunk.extend(
                keys.into_iter()
                    .zip(values)
                    .map(|((key, entry, row), value)| (key, entry, row, value)),
            ),
            Err(e) => {
                // Nothing of the chunk was returned: the cursor stays
                // before it, and the scan ends with the error.
                self.failed = true;
                self.deferred = Some(RowError::Store(e));
            }
        }
        true
    }

    /// The chunk is done: the entries' own cursor is exact again.
    fn drained(&mut self) {
        if self.chunk.is_empty() {
            self.chunk_start = None;
            self.moved.clear();
        }
    }
}

impl<I: Index, S: Store> Iterator for IndexRows<'_, I, S> {
    type Item = Result<I::Row, RowError<S::Error>>;

    fn next(&mut self) -> Option<Self::Item> {
        if I::BUILDING {
            if self.refused {
                return None;
            }
            self.refused = true;
            return Some(Err(RowError::Index(super::IndexError::Building {
                index: I::schema().name(),
                row: <I::Row as crate::RowKey>::schema().name(),
            })));
        }
        loop {
            if self.limit.is_some_and(|n| self.returned >= n) {
                return None;
            }
            let Some((entry_key, entry, key, value)) = self.chunk.pop_front() else {
                if let Some(e) = self.deferred.take() {
                    return Some(Err(e));
                }
                if self.failed || !self.fill() {
                    return self.deferred.take().map(Err);
                }
                continue;
            };
            self.drained();
            let Some(value) = value else {
                self.stale += 1;
                continue;
            };
            // The row's key fields are the entry's (its key was made of them).
            let mut row = entry.into_row();
            if let Err(source) = decode_values(&mut row, &value) {
                return Some(Err(RowError::Value {
                    schema: <I::Row as crate::RowKey>::schema().name(),
                    key,
                    source,
                }));
            }
            // The entry's salt was checked when it was decoded.
            let schema = I::schema();
            let bucket = schema.bucket_of(&entry_key).unwrap_or(0);
            if I::entry_key_in(&row, bucket).as_deref() != Some(entry_key.as_slice()) {
                self.stale += 1;
                continue;
            }
            if self.chunk_start.is_some() {
                let body = entry_key.get(schema.header_len()..).unwrap_or_default();
                match self.moved.last_mut() {
                    Some((b, last)) if *b == bucket || self.entries.ordered() => {
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
    }
}
