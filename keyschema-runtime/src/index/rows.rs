//! The rows an index scan names, read whole and checked against their
//! entries.

use super::Index;
use crate::record::decode_values;
use crate::scan::{Cursor, TypedRows};
use crate::store::{RowError, Store};

/// The rows of an index scan (`Name::scan()...run(&store).rows()`): for
/// each entry, the row it names, whole, returned only if the row's entry
/// under this index is that entry. An entry whose row is gone or no longer
/// has it (left by an interrupted write on a store without transactions, or
/// by a raw write) is skipped. At most the scan's limit of rows.
pub struct IndexRows<'s, I: Index, S: Store + 's> {
    entries: TypedRows<'s, I, S>,
    store: &'s S,
    limit: Option<usize>,
    returned: usize,
    /// Entries skipped so far because their row does not have them.
    stale: u64,
    /// Whether the refusal of a `building` index was returned.
    refused: bool,
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
        }
    }
}

impl<I: Index, S: Store> IndexRows<'_, I, S> {
    /// Where the scan stands: `.after(cursor)` on the same request resumes
    /// after the last row returned.
    pub fn cursor(&self) -> Cursor {
        self.entries.cursor()
    }

    /// How many entries the scan skipped because their row does not have
    /// them (anything above 0 is left by interrupted writes or raw ones).
    pub fn stale_entries(&self) -> u64 {
        self.stale
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
            let (entry_key, entry, _) = match self.entries.next_keyed()? {
                Ok(keyed) => keyed,
                Err(e) => return Some(Err(e)),
            };
            let key = entry.row_key();
            let value = match self.store.get(&key) {
                Ok(Some(value)) => value,
                Ok(None) => {
                    self.stale += 1;
                    continue;
                }
                Err(e) => return Some(Err(RowError::Store(e))),
            };
            let mut row = match <I::Row as crate::RowKey>::decode(&key) {
                Ok(row) => row,
                Err(source) => return Some(Err(RowError::Decode { key, source })),
            };
            if let Err(source) = decode_values(&mut row, &value) {
                return Some(Err(RowError::Value {
                    schema: <I::Row as crate::RowKey>::schema().name(),
                    key,
                    source,
                }));
            }
            if I::entry_key(&row).as_deref() != Some(entry_key.as_slice()) {
                self.stale += 1;
                continue;
            }
            self.returned += 1;
            return Some(Ok(row));
        }
    }
}
