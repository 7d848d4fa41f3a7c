//! What a typed scan makes of each row the store lends ([`Finish`]): a
//! typed row, a keyed one, a whole record, or a lent row ([`Lend`]). Both
//! drivers' per-row paths end here.

use super::merge::ScanCore;
use crate::encoding::bytes::copy_front;
use crate::key::RowKey;
use crate::store::RowError;

/// What a scan makes of a row the store lends: a typed row, a keyed one,
/// a whole record (a closure given the decoded row and the lent key and
/// value), or a lent row ([`Lend`]).
pub(crate) trait Finish<K, T, E> {
    /// Decodes the row of source `source` through `core` (which counts
    /// it) and makes the item; `None` for a row the scan skips. The error
    /// is boxed: the item is returned on every row, and a small one is
    /// returned in registers (a whole [`RowError`] went through memory).
    fn emit(
        &mut self,
        core: &mut ScanCore,
        source: usize,
        key: &[u8],
        value: &[u8],
    ) -> Option<Result<T, Box<RowError<E>>>>;
}

impl<K: RowKey, T, E, F> Finish<K, T, E> for F
where
    F: FnMut(K, &[u8], &[u8]) -> Result<T, RowError<E>>,
{
    #[inline]
    fn emit(
        &mut self,
        core: &mut ScanCore,
        source: usize,
        key: &[u8],
        value: &[u8],
    ) -> Option<Result<T, Box<RowError<E>>>> {
        let row = core.emit::<K, E>(source, key)?;
        Some(row.and_then(|row| self(row, key, value)).map_err(Box::new))
    }
}

/// Decodes each row into the same slot and copies its value into the same
/// buffer ([`TypedRows::next_ref`]).
pub(super) struct Lend<'a, K> {
    pub(super) slot: &'a mut Option<K>,
    pub(super) value: &'a mut Vec<u8>,
    pub(super) len: &'a mut usize,
}

impl<K: RowKey, E> Finish<K, (), E> for Lend<'_, K> {
    #[inline(always)]
    fn emit(
        &mut self,
        core: &mut ScanCore,
        source: usize,
        key: &[u8],
        value: &[u8],
    ) -> Option<Result<(), Box<RowError<E>>>> {
        let row = core.emit_into::<K, E>(source, key, self.slot)?;
        *self.len = copy_front(self.value, value);
        Some(row.map_err(Box::new))
    }
}
