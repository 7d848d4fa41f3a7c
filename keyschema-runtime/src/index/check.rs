//! What the sync and async index readers share: the check of a row
//! against the entry that names it, the position after the last row
//! returned from a chunk of entries, the chunk's size and the refusal of a
//! `building` index.

use super::{Index, IndexError};
use crate::record::{decode_values, Record, ValueError};
use crate::scan::Cursor;
use crate::store::RowError;

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
        row: <I::Row as crate::RowKey>::schema().name(),
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

/// The row `entry` names, whole, from its stored `value`, and the entry's
/// salt bucket: `Ok(None)` when the row is gone or does not have this entry
/// (a stale one). The row's key fields are the entry's (its key was made
/// of them), and the entry's salt was checked when it was decoded, so the
/// check re-encodes the entry in that bucket without hashing again.
pub(super) fn checked_row<I: Index, E>(
    entry_key: &[u8],
    entry: I,
    value: Option<Vec<u8>>,
) -> Result<Option<(I::Row, u32)>, RowError<E>> {
    let Some(value) = value else {
        return Ok(None);
    };
    let mut row = entry.into_row();
    if let Err(source) = read_values(&mut row, &value) {
        return Err(RowError::Value {
            schema: <I::Row as crate::RowKey>::schema().name(),
            key: crate::RowKey::encode(&row),
            source,
        });
    }
    let bucket = I::schema().bucket_of(entry_key).unwrap_or(0);
    if I::entry_key_in(&row, bucket).as_deref() != Some(entry_key) {
        return Ok(None);
    }
    Ok(Some((row, bucket)))
}

/// Where an index scan stands inside a chunk of entries: the entries'
/// cursor when the chunk was read, and the rows returned from it since.
/// Outside a chunk the entries' own cursor is exact.
#[derive(Default)]
pub(super) struct ChunkCursor {
    start: Option<Cursor>,
    moved: Vec<(u32, Vec<u8>)>,
}

impl ChunkCursor {
    /// A chunk is read from here.
    pub(super) fn begin(&mut self, entries: Cursor) {
        self.start = Some(entries);
        self.moved.clear();
    }

    /// The chunk is done.
    pub(super) fn end(&mut self) {
        self.start = None;
        self.moved.clear();
    }

    /// A row was returned from the chunk, named by `entry_key` in `bucket`.
    pub(super) fn passed<I: Index>(&mut self, ordered: bool, bucket: u32, entry_key: &[u8]) {
        if self.start.is_none() {
            return;
        }
        let body = entry_key
            .get(I::schema().header_len()..)
            .unwrap_or_default();
        match self.moved.last_mut() {
            // Merged, one position stands for every bucket.
            Some((b, last)) if *b == bucket || ordered => {
                *b = bucket;
                last.clear();
                last.extend_from_slice(body);
            }
            _ => self.moved.push((bucket, body.to_vec())),
        }
    }

    /// The cursor after the last row returned; `entries` when outside a
    /// chunk.
    pub(super) fn cursor(&self, ordered: bool, entries: impl FnOnce() -> Cursor) -> Cursor {
        let Some(start) = &self.start else {
            return entries();
        };
        let mut cursor = start.clone();
        for (bucket, body) in &self.moved {
            cursor.past(ordered, *bucket, body);
        }
        cursor
    }
}
