//! What the sync and async index readers and the backfill share: the
//! entry a stored row should have (from the fields the index is over),
//! the check of a row against the entry that names it, the position after
//! the last row returned from a chunk of entries, the chunk's size and the
//! refusal of a `building` index.

use super::{EntryError, Index, IndexError};
use crate::record::{decode_values, read_some, Record, ValueError};
use crate::scan::Cursor;
use crate::store::RowError;
use std::collections::VecDeque;

/// Entries per row fetch.
pub(super) const CHUNK: usize = 256;

/// How many entries to read next: a chunk, and no more than the rows the
/// limit leaves (so that a page ends where a chunk does).
pub(super) fn chunk_size(limit: Option<usize>, returned: usize) -> usize {
    limit.map_or(CHUNK, |n| n.saturating_sub(returned).clamp(1, CHUNK))
}

/// The refusal of a scan of a `building` index.
pub(super) fn building<I: Index, E>() -> RowError<E> {
    RowError::Index(IndexError::Building {
        index: I::schema().name(),
        row: <I::Row as crate::key::RowKey>::schema().name(),
    })
}

/// Reads a stored row's value fields into `row`; a row type without value
/// fields stores a raw value (`put_row`), which is left unread.
pub(super) fn read_values<K: Record>(row: &mut K, value: &[u8]) -> Result<(), ValueError> {
    if K::VALUES.is_empty() {
        return Ok(());
    }
    decode_values(row, value)
}

/// The entry key the row stored under `key` with `value` should have
/// (`None`: none, an `Option` field of the index is `None`), from its key
/// and the value fields the index is over alone, as a write finds a row's
/// old entries: a row another version of the struct wrote (without a
/// field the index does not read, or with one of another type) has its
/// entry. Why not when the key does not decode, the value is no row's
/// value fields, or a field the index is over is missing (required) or
/// does not read as its type.
pub(crate) fn stored_entry<I: Index>(
    key: &[u8],
    value: &[u8],
) -> Result<Option<Vec<u8>>, EntryError> {
    let mut row = <I::Row as crate::key::RowKey>::decode(key).map_err(EntryError::Key)?;
    indexed_entry::<I>(&mut row, value).map_err(EntryError::Value)
}

/// [`stored_entry`] of a row whose key fields are already in `row`.
fn indexed_entry<I: Index>(row: &mut I::Row, value: &[u8]) -> Result<Option<Vec<u8>>, ValueError> {
    read_some::<I::Row>(value, |reader| I::read_indexed(row, reader))?;
    Ok(I::entry_key(row))
}

/// The row `entry` names, whole, from its stored `value`: `Ok(None)` when
/// the row is gone or does not have this entry (a stale one, or one in
/// another salt bucket than its fields hash to). The row's key fields are
/// the entry's (its key was made of them).
pub(super) fn checked_row<I: Index, E>(
    entry_key: &[u8],
    entry: I,
    value: Option<Vec<u8>>,
) -> Result<Option<I::Row>, RowError<E>> {
    let Some(value) = value else {
        return Ok(None);
    };
    let mut row = entry.into_row();
    if let Err(source) = read_values(&mut row, &value) {
        // A row that does not read whole (another version of the struct
        // wrote it) is an error only if this entry is its own: a stale
        // entry naming it is skipped, as any stale entry is.
        let key = crate::key::RowKey::encode(&row);
        let own = indexed_entry::<I>(&mut row, &value);
        if matches!(&own, Ok(own) if own.as_deref() != Some(entry_key)) {
            return Ok(None);
        }
        return Err(RowError::Value {
            schema: <I::Row as crate::key::RowKey>::schema().name(),
            key,
            source,
        });
    }
    // The scan decoded the entry without deriving its salt again
    // (`decode_scanned`): the row's own entry key, salt hashed, says
    // whether this entry, in this bucket, is the row's.
    if I::entry_key(&row).as_deref() != Some(entry_key) {
        return Ok(None);
    }
    Ok(Some(row))
}

/// Where an index scan stands inside a chunk of entries: the entries'
/// cursor after the last entry consumed (its row returned, or the entry
/// skipped as stale), from the cursor taken after each entry was read.
/// Outside a chunk the entries' own cursor is exact.
#[derive(Default)]
pub(super) struct ChunkCursor {
    at: Option<Cursor>,
    /// The entries' cursor after each entry read and not yet consumed.
    pending: VecDeque<Cursor>,
}

impl ChunkCursor {
    /// A chunk is read from here.
    pub(super) fn begin(&mut self, entries: Cursor) {
        self.at = Some(entries);
        self.pending.clear();
    }

    /// An entry was read; `entries` is the cursor after it.
    pub(super) fn pulled(&mut self, entries: Cursor) {
        self.pending.push_back(entries);
    }

    /// The chunk's next entry was consumed; `past`: the cursor moves past
    /// it (not after an error, which a resumed scan meets again).
    pub(super) fn consumed(&mut self, past: bool) {
        if let Some(cursor) = self.pending.pop_front() {
            if past {
                self.at = Some(cursor);
            }
        }
    }

    /// The chunk is done.
    pub(super) fn end(&mut self) {
        self.at = None;
        self.pending.clear();
    }

    /// The cursor after the last row returned; `entries` when outside a
    /// chunk.
    pub(super) fn cursor(&self, entries: impl FnOnce() -> Cursor) -> Cursor {
        match &self.at {
            Some(cursor) => cursor.clone(),
            None => entries(),
        }
    }
}
