//! What each step of the backfill does with a row it reads: which layout
//! and side of the cut-over the row is on, and the [`Pair`] of keys the
//! protocol writes.

use super::apply::{How, Pair};
use super::{Backfill, BackfillError, Step};
use crate::error::DecodeError;
use crate::history::Cut;
use crate::key::RowKey;
use crate::store::layout::misread;

/// What a key read from a range of the older layout is.
pub(crate) enum Older<K> {
    /// Not a row of the older layout (a declared key inside the range).
    Not,
    /// A row the backfill re-keys: before the cut-over, or any row of a
    /// migration.
    InSpan(K),
    /// A row the older binary wrote past the cut-over (a rolling deploy
    /// writes such rows): it belongs in the declared layout.
    Stranded(K),
}

impl<K: RowKey> Backfill<K> {
    /// What a key of an older range is.
    pub(crate) fn older(&self, key: &[u8]) -> Result<Older<K>, DecodeError> {
        let row = match K::decode_older(key) {
            Ok(row) => row,
            // A key of the declared layout inside an older range.
            Err(e) => {
                return if K::decode(key).is_ok() {
                    Ok(Older::Not)
                } else {
                    Err(e)
                }
            }
        };
        if !self.history.same_components(K::schema()) && K::decode(key).is_ok() {
            // Another row of the declared layout (a copy made earlier).
            return Ok(Older::Not);
        }
        Ok(match self.history.cut() {
            Cut::Field { .. } if row.past_cut_over() => Older::Stranded(row),
            _ => Older::InSpan(row),
        })
    }

    /// The pair a step writes for a key read from one of its ranges
    /// (`older`: a range of the older layout); `None` to leave the key.
    pub(crate) fn pair<E>(
        &self,
        step: Step,
        older: bool,
        key: &[u8],
    ) -> Result<Option<Pair>, BackfillError<E>> {
        let bad = |source| BackfillError::Row {
            key: key.to_vec(),
            source,
        };
        if !older {
            return Ok(self.declared_pair(key));
        }
        let (row, how) = match self.older(key).map_err(bad)? {
            Older::Not => return Ok(None),
            Older::Stranded(row) => (row, How::Move),
            Older::InSpan(row) if step == Step::Copy => (row, How::Sync),
            Older::InSpan(row) => (row, How::Move),
        };
        let declared = row.encode();
        // A row whose two keys are the same bytes is where it goes: the
        // copy counts it (and writes nothing), the delete leaves it.
        if declared == key && how == How::Move {
            return Ok(None);
        }
        Ok(Some(Pair {
            older: key.to_vec(),
            declared,
            how,
        }))
    }

    /// A row of the declared layout in the copied span, paired with its
    /// older key: the copy removes it when the older layout lost it (an
    /// older binary deleted it after it was copied).
    fn declared_pair(&self, key: &[u8]) -> Option<Pair> {
        let row = K::decode(key).ok()?;
        if matches!(self.history.cut(), Cut::Field { .. }) && row.past_cut_over() {
            return None;
        }
        let older = row.encode_older()?;
        if older == key || misread::<K>(&older) {
            return None;
        }
        Some(Pair {
            older,
            declared: key.to_vec(),
            how: How::Sync,
        })
    }
}
