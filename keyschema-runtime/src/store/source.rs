//! [`RowSource`]: a scan that reads each row into the caller's buffers, so
//! a typed scan decodes straight from the store's bytes with no allocation
//! per row. [`Store::scan_into`](super::Store::scan_into) returns one; its
//! default wraps [`Store::scan`](super::Store::scan).

use super::Row;

/// The rows of one scan, each read into buffers the caller keeps and
/// reuses.
///
/// ```
/// use keyschema::store::{Direction, MemoryStore, Store};
/// use keyschema::KeyRange;
///
/// let store = MemoryStore::new();
/// store.put(b"a", b"1")?;
/// store.put(b"b", b"2")?;
/// let mut rows = store.scan_into(&KeyRange::new(Vec::new(), None, 0), Direction::Forward)?;
/// let (mut key, mut value) = (Vec::new(), Vec::new());
/// let mut seen = Vec::new();
/// while rows.next_into(&mut key, &mut value)? {
///     seen.push((key.clone(), value.clone()));
/// }
/// assert_eq!(seen, [(b"a".to_vec(), b"1".to_vec()), (b"b".to_vec(), b"2".to_vec())]);
/// # Ok::<(), keyschema::KeyTooLong>(())
/// ```
pub trait RowSource {
    /// What goes wrong.
    type Error;

    /// Reads the next row into `key` and `value`, replacing what they
    /// held; `Ok(false)` when the scan has no more rows (the buffers are
    /// then left as they were). After an error the scan is over.
    fn next_into(&mut self, key: &mut Vec<u8>, value: &mut Vec<u8>) -> Result<bool, Self::Error>;
}

/// A scan's rows boxed, as [`Store::scan_into`](super::Store::scan_into)
/// returns them.
pub type BoxRowSource<'a, E> = Box<dyn RowSource<Error = E> + 'a>;

/// A [`RowSource`] over a store's row iterator: each row moved into the
/// buffers (the store already allocated it).
pub(crate) struct OwnedRows<I>(pub(crate) I);

impl<I, E> RowSource for OwnedRows<I>
where
    I: Iterator<Item = Result<Row, E>>,
{
    type Error = E;

    fn next_into(&mut self, key: &mut Vec<u8>, value: &mut Vec<u8>) -> Result<bool, E> {
        match self.0.next() {
            Some(Ok((k, v))) => {
                *key = k;
                *value = v;
                Ok(true)
            }
            Some(Err(e)) => Err(e),
            None => Ok(false),
        }
    }
}

/// Replaces `buf`'s contents with `bytes`, reusing its allocation.
#[inline]
pub(crate) fn fill(buf: &mut Vec<u8>, bytes: &[u8]) {
    buf.clear();
    buf.extend_from_slice(bytes);
}
