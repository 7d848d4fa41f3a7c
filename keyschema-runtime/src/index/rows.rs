//! The rows an index scan names, read whole and checked against their
//! entries: entries pulled in chunks, their rows fetched with one
//! `get_many` per chunk.

use super::check::{building, checked_row, chunk_size, ChunkCursor};
use super::Index;
use crate::scan::{Cursor, TypedRows};
use crate::store::{RowError, Store};
use std::collections::VecDeque;

/// An entry of a chunk: its key, itself, and its row's stored value.
type Fetched<I> = (Vec<u8>, I, Option<Vec<u8>>);

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
    chunk: VecDeque<Fetched<I>>,
    at: ChunkCursor,
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
            at: ChunkCursor::default(),
            deferred: None,
            failed: false,
        }
    }
}

impl<I: Index, S: Store> IndexRows<'_, I, S> {
    /// Where the scan stands: `.after(cursor)` on the same request resumes
    /// after the last row returned.
    pub fn cursor(&self) -> Cursor {
        self.at.cursor(|| self.entries.cursor())
    }

    /// How many entries the scan skipped because their row does not have
    /// them (anything above 0 is left by interrupted writes or raw ones).
    pub fn stale_entries(&self) -> u64 {
        self.stale
    }

    /// Reads the next chunk of entries and their rows; `false` when there
    /// are none.
    fn fill(&mut self) -> bool {
        let want = chunk_size(self.limit, self.returned);
        self.at.begin(self.entries.cursor());
        // The entries, and apart the row keys they name (one borrowed
        // slice for `get_many`, nothing copied).
        let (mut entries, mut rows) = (Vec::new(), Vec::new());
        while entries.len() < want {
            match self.entries.next_keyed() {
                Some(Ok((entry_key, entry, _))) => {
                    rows.push(entry.row_key());
                    entries.push((entry_key, entry));
                    self.at.pulled(self.entries.cursor());
                }
                Some(Err(e)) => {
                    self.deferred = Some(e);
                    break;
                }
                None => break,
            }
        }
        if entries.is_empty() {
            self.at.end();
            return false;
        }
        match self.store.get_many(&rows) {
            Ok(values) => self.chunk.extend(
                entries
                    .into_iter()
                    .zip(values)
                    .map(|((key, entry), value)| (key, entry, value)),
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
}

impl<I: Index, S: Store> Iterator for IndexRows<'_, I, S> {
    type Item = Result<I::Row, RowError<S::Error>>;

    fn next(&mut self) -> Option<Self::Item> {
        if I::BUILDING {
            if self.refused {
                return None;
            }
            self.refused = true;
            return Some(Err(building::<I, S::Error>()));
        }
        loop {
            if self.limit.is_some_and(|n| self.returned >= n) {
                return None;
            }
            let Some((entry_key, entry, value)) = self.chunk.pop_front() else {
                if let Some(e) = self.deferred.take() {
                    // An entry that did not decode, met after the chunk's
                    // rows: the cursor moves past it as it is returned (a
                    // chunk that could not be read keeps it before).
                    if !self.failed {
                        self.at.end();
                    }
                    return Some(Err(e));
                }
                if self.failed || !self.fill() {
                    return self.deferred.take().map(Err);
                }
                continue;
            };
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
    }
}
