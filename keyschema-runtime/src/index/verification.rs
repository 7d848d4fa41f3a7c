//! What [`IndexBackfill::verify`](super::IndexBackfill::verify) counts,
//! and the rows it cannot check: the same counting for the sync, async and
//! table-pass verifications.

use super::check::stored_entry;
use super::Index;
use crate::error::DecodeError;
use crate::limits::ShortKey;
use crate::record::ValueError;

/// What [`IndexBackfill::verify`](super::IndexBackfill::verify) counted:
/// the rows and the entries.
///
/// The entry a row should have is made from its key and the value fields
/// the index is over alone, read by name (as a write finds a row's old
/// entries), so a row an older version of the struct wrote (without a
/// field it has since gained, which a whole read refuses) is counted like
/// any other. A row whose key or indexed fields do not read is
/// [`unreadable`](Self::unreadable), reported in
/// [`unreadable_rows`](Self::unreadable_rows), and the verification goes
/// on; an entry naming such a row is counted neither valid nor stale.
///
/// On an async store, [`IndexBackfill::build_async`](super::IndexBackfill::build_async)
/// and [`IndexBackfill::verify_async`](super::IndexBackfill::verify_async)
/// do the same (Bigtable, DynamoDB).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct IndexVerification {
    /// Rows of the row type.
    pub rows: u64,
    /// Rows that should have an entry (a sparse index skips the others).
    pub expected: u64,
    /// Of those, rows whose entry is in the index.
    pub present: u64,
    /// Entries in the index.
    pub entries: u64,
    /// Entries whose row has them.
    pub valid: u64,
    /// Entries whose row is gone or no longer has them (scans skip them).
    pub stale: u64,
    /// The first rows (up to 10) without their entry.
    pub missing: Vec<Vec<u8>>,
    /// Rows whose entry cannot be made: their key does not decode as the
    /// row type's, their value is no row's value fields, or a value field
    /// the index is over is missing (and required) or does not read as its
    /// type. Neither expected nor missing.
    pub unreadable: u64,
    /// The first of them (up to 10), each with why.
    pub unreadable_rows: Vec<UnreadableRow>,
}

/// A row whose index entry [`IndexBackfill::verify`](super::IndexBackfill::verify)
/// cannot make, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("row {}: its entry in index `{index}` cannot be made: {error}; rewrite the row (put_record) or delete it, then build and verify again", ShortKey(key))]
pub struct UnreadableRow {
    /// The index verified.
    pub index: &'static str,
    /// The row's key, as stored.
    pub key: Vec<u8>,
    /// Why.
    pub error: EntryError,
}

/// Why the entry a stored row should have cannot be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EntryError {
    /// The key does not decode as the row type's.
    #[error("its key does not decode as the row type's: {0}")]
    Key(#[source] DecodeError),
    /// The value is no row's value fields, or a value field the index is
    /// over is missing or does not read as its type.
    #[error(transparent)]
    Value(ValueError),
}

/// Rows listed by key at most.
const LISTED: usize = 10;

impl IndexVerification {
    /// Whether every row that should have an entry has it, every entry but
    /// the stale ones names such a row, and every row could be checked: the
    /// index is complete.
    pub fn matches(&self) -> bool {
        self.present == self.expected && self.valid == self.expected && self.unreadable == 0
    }

    /// Counts the row stored under `key` with `value`: the entry it should
    /// have, if any (then expected); a row whose entry cannot be made is
    /// noted unreadable.
    pub(super) fn row<I: Index>(&mut self, key: &[u8], value: &[u8]) -> Option<Vec<u8>> {
        self.rows += 1;
        match stored_entry::<I>(key, value) {
            Ok(Some(entry)) => {
                self.expected += 1;
                Some(entry)
            }
            Ok(None) => None,
            Err(error) => {
                self.unreadable += 1;
                if self.unreadable_rows.len() < LISTED {
                    self.unreadable_rows.push(UnreadableRow {
                        index: I::schema().name(),
                        key: key.to_vec(),
                        error,
                    });
                }
                None
            }
        }
    }

    /// Counts whether an expected row's entry (`row` its key) was found.
    pub(super) fn found(&mut self, row: Vec<u8>, present: bool) {
        if present {
            self.present += 1;
        } else if self.missing.len() < LISTED {
            self.missing.push(row);
        }
    }

    /// Counts entry `entry` of the index, whose row is `row` (its key and
    /// stored value; `None` when gone): valid when the row's entry is it,
    /// stale when the row is gone or has another, neither when the row's
    /// entry cannot be made (the row is counted unreadable).
    pub(super) fn entry<I: Index>(&mut self, entry: &[u8], row: Option<(&[u8], &[u8])>) {
        self.entries += 1;
        let Some((key, value)) = row else {
            self.stale += 1;
            return;
        };
        match stored_entry::<I>(key, value) {
            Ok(own) if own.as_deref() == Some(entry) => self.valid += 1,
            Ok(_) => self.stale += 1,
            Err(_) => {}
        }
    }
}
