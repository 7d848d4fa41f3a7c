//! [`RowSource`]: a scan that reads each row into the caller's buffers, so
//! a typed scan decodes straight from the store's bytes with no allocation
//! per row. [`Store::scan_into`](super::Store::scan_into) returns one; its
//! default wraps [`Store::scan`](super::Store::scan).

use super::Row;

/// The rows of one scan, lent one at a time: [`advance`](Self::advance)
/// moves to the next row, and [`key`](Self::key) and
/// [`value`](Self::value) borrow it from the store's own page until the
/// next move, so a typed scan decodes each row where it lies.
///
/// ```
/// use keyschema::store::{Direction, MemoryStore, Store};
/// use keyschema::KeyRange;
///
/// let store = MemoryStore::new();
/// store.put(b"a", b"1")?;
/// store.put(b"b", b"2")?;
/// let mut rows = store.scan_into(&KeyRange::new(Vec::new(), None, 0), Direction::Forward)?;
/// let mut seen = Vec::new();
/// while rows.advance()? {
///     seen.push((rows.key().to_vec(), rows.value().to_vec()));
/// }
/// assert_eq!(seen, [(b"a".to_vec(), b"1".to_vec()), (b"b".to_vec(), b"2".to_vec())]);
/// # Ok::<(), keyschema::KeyTooLong>(())
/// ```
pub trait RowSource {
    /// What goes wrong.
    type Error;

    /// Moves to the next row; `Ok(false)` when the scan has no more. After
    /// an error the scan is over.
    fn advance(&mut self) -> Result<bool, Self::Error>;

    /// The current row's key (empty before the first row and after the
    /// last).
    fn key(&self) -> &[u8];

    /// The current row's value (empty before the first row and after the
    /// last).
    fn value(&self) -> &[u8];

    /// Moves to the next row and lends its key: [`advance`](Self::advance)
    /// and [`key`](Self::key) in one call; `Ok(None)` when the scan has no
    /// more.
    fn advance_key(&mut self) -> Result<Option<&[u8]>, Self::Error> {
        Ok(self.advance()?.then(|| self.key()))
    }
}

/// A scan's rows boxed, as [`Store::scan_into`](super::Store::scan_into)
/// returns them.
pub type BoxRowSource<'a, E> = Box<dyn RowSource<Error = E> + 'a>;

/// A [`RowSource`] over a store's row iterator: each row the store
/// allocated, held until the next.
pub(crate) struct OwnedRows<I> {
    rows: I,
    current: Row,
}

impl<I> OwnedRows<I> {
    pub(crate) fn new(rows: I) -> Self {
        OwnedRows {
            rows,
            current: (Vec::new(), Vec::new()),
        }
    }
}

impl<I, E> RowSource for OwnedRows<I>
where
    I: Iterator<Item = Result<Row, E>>,
{
    type Error = E;

    fn advance(&mut self) -> Result<bool, E> {
        match self.rows.next() {
            Some(Ok(row)) => {
                self.current = row;
                Ok(true)
            }
            Some(Err(e)) => Err(e),
            None => {
                self.current = (Vec::new(), Vec::new());
                Ok(false)
            }
        }
    }

    fn key(&self) -> &[u8] {
        &self.current.0
    }

    fn value(&self) -> &[u8] {
        &self.current.1
    }
}
