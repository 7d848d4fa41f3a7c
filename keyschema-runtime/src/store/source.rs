//! [`RowSource`]: a scan that reads each row into the caller's buffers, so
//! a typed scan decodes straight from the store's bytes with no allocation
//! per row. [`Store::scan_into`](super::Store::scan_into) returns one;
//! [`OwnedRows`] lends the rows of [`Store::scan`](super::Store::scan).

use super::Row;

/// The rows of one scan, lent one at a time: [`advance`](Self::advance)
/// moves to the next row, and [`key`](Self::key) and
/// [`value`](Self::value) borrow it from the store's own page until the
/// next move, so a typed scan decodes each row where it lies.
///
/// ```
/// use keyschema::store::{Direction, MemoryStore, RowSource, Store};
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

    /// The current row's key (empty before the first row, after the last
    /// and after an error).
    fn key(&self) -> &[u8];

    /// The current row's value (empty before the first row, after the last
    /// and after an error).
    fn value(&self) -> &[u8];

    /// Moves to the next row and lends its key: [`advance`](Self::advance)
    /// and [`key`](Self::key) in one call; `Ok(None)` when the scan has no
    /// more.
    fn advance_key(&mut self) -> Result<Option<&[u8]>, Self::Error> {
        Ok(self.advance()?.then(|| self.key()))
    }
}

/// A scan's rows boxed: a [`Store::Lent`](super::Store::Lent) for a store
/// whose scans lend rows of different types (a wrapper over several
/// stores).
pub type BoxRowSource<'a, E> = Box<dyn RowSource<Error = E> + 'a>;

impl<R: RowSource + ?Sized> RowSource for Box<R> {
    type Error = R::Error;

    #[inline]
    fn advance(&mut self) -> Result<bool, R::Error> {
        (**self).advance()
    }

    #[inline]
    fn key(&self) -> &[u8] {
        (**self).key()
    }

    #[inline]
    fn value(&self) -> &[u8] {
        (**self).value()
    }

    #[inline]
    fn advance_key(&mut self) -> Result<Option<&[u8]>, R::Error> {
        (**self).advance_key()
    }
}

/// A [`RowSource`] over a store's row iterator (its
/// [`scan`](super::Store::scan)): each row the store allocated, held until
/// the next. The [`Store::Lent`](super::Store::Lent) of a store without
/// pages of its own to lend from:
///
/// ```
/// use keyschema::store::{Cas, Direction, Mutation, OwnedRows, Row, RowStore, Store};
/// use keyschema::{KeyRange, RowKey};
/// use std::collections::BTreeMap;
/// use std::ops::Bound;
/// use std::sync::Mutex;
///
/// /// Another backend: a map behind a lock.
/// #[derive(Default)]
/// struct Map(Mutex<BTreeMap<Vec<u8>, Vec<u8>>>);
///
/// #[derive(Debug, thiserror::Error)]
/// #[error("the map's lock was poisoned")]
/// struct Poisoned;
///
/// impl Store for Map {
///     type Error = Poisoned;
///     type Rows<'a> = std::vec::IntoIter<Result<Row, Poisoned>>;
///     type Lent<'a> = OwnedRows<Self::Rows<'a>>;
///
///     fn scan(&self, range: &KeyRange, direction: Direction) -> Result<Self::Rows<'_>, Poisoned> {
///         let map = self.0.lock().map_err(|_| Poisoned)?;
///         if range.end().is_some_and(|end| end <= range.start()) {
///             return Ok(Vec::new().into_iter()); // an empty range
///         }
///         let upper = range.end().map_or(Bound::Unbounded, Bound::Excluded);
///         let rows = map.range::<[u8], _>((Bound::Included(range.start()), upper));
///         // A real backend pages lazily (the scan may stop after a few rows).
///         let rows: Vec<_> = match direction {
///             Direction::Forward => rows.map(|(k, v)| Ok((k.clone(), v.clone()))).collect(),
///             Direction::Reverse => rows.rev().map(|(k, v)| Ok((k.clone(), v.clone()))).collect(),
///         };
///         Ok(rows.into_iter())
///     }
///     fn scan_into(&self, range: &KeyRange, direction: Direction) -> Result<Self::Lent<'_>, Poisoned> {
///         Ok(OwnedRows::new(self.scan(range, direction)?))
///     }
///     fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, Poisoned> {
///         Ok(self.0.lock().map_err(|_| Poisoned)?.get(key).cloned())
///     }
///     fn write_batch(&self, batch: &[Mutation]) -> Result<(), Poisoned> {
///         let mut map = self.0.lock().map_err(|_| Poisoned)?;
///         for m in batch {
///             match m {
///                 Mutation::Put { key, value } => map.insert(key.clone(), value.clone()),
///                 Mutation::Delete { key } => map.remove(key),
///             };
///         }
///         Ok(())
///     }
///     fn compare_and_write(&self, batch: &[Cas]) -> Result<Vec<bool>, Poisoned> {
///         let mut map = self.0.lock().map_err(|_| Poisoned)?;
///         Ok(batch
///             .iter()
///             .map(|cas| {
///                 let applies = cas.holds(map.get(&cas.key).map(Vec::as_slice));
///                 if applies {
///                     match &cas.set {
///                         Some(value) => map.insert(cas.key.clone(), value.clone()),
///                         None => map.remove(&cas.key),
///                     };
///                 }
///                 applies
///             })
///             .collect())
///     }
/// }
///
/// #[derive(RowKey, Debug, Clone, PartialEq)]
/// #[rowkey(salt = hash(user) % 8, then = user, rev(ts))]
/// struct Visit { user: String, ts: u64 }
///
/// let store = Map::default();
/// for ts in 1..=3 {
///     store.put_row(&Visit { user: "ann".into(), ts }, b"v")?;
/// }
/// let newest: Vec<u64> = Visit::scan().user("ann").limit(2).run(&store)
///     .map(|row| row.map(|(visit, _)| visit.ts))
///     .collect::<Result<_, _>>()?;
/// assert_eq!(newest, [3, 2]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct OwnedRows<I> {
    rows: I,
    current: Row,
}

impl<I> OwnedRows<I> {
    /// Lends the rows of `rows`.
    pub fn new(rows: I) -> Self {
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
            Some(Err(e)) => {
                self.current = (Vec::new(), Vec::new());
                Err(e)
            }
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
