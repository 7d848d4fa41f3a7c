//! Whole rows on the ordered stores: a row's key fields in its key and its
//! value fields ([`Record`]) in its value, as one MessagePack map
//! ([`crate::record::msgpack`]). The raw-bytes forms of [`RowStore`] stay
//! for values a program encodes itself.

use crate::history::Phase;
use crate::key::OneLayout;
use crate::record::{decode_values, encode_values, Projection, Record, ValueError};
use crate::store::asynchronous::get_keyed_reading;
use crate::store::indexed::write_rows;
use crate::store::{
    get_keyed_row, put_batch, replace_batch, write_in, AsyncStore, BoxFuture, Mutation, RowError,
    RowStore, Store, TypedRow,
};

/// Whole typed rows on any [`Store`]: put, replace and get a row with its
/// value fields, and read a typed scan's rows whole ([`Records`]).
///
/// ```
/// use keyschema::store::{MemoryStore, RecordStore};
/// use keyschema::RowKey;
///
/// #[derive(RowKey, Debug, PartialEq)]
/// #[rowkey(salt = hash(user_id) % 4, then = user_id, rev(ts))]
/// struct Visit {
///     user_id: String,
///     ts: u64,
///     #[rowkey(value)]
///     page: String,
///     #[rowkey(value)]
///     referrer: Option<String>,
/// }
///
/// let store = MemoryStore::new();
/// let visit = Visit { user_id: "u1".into(), ts: 7, page: "/home".into(), referrer: None };
/// store.put_record(&visit)?;
/// assert_eq!(store.get_record::<Visit>(&Visit::get_key("u1", 7))?, Some(visit));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait RecordStore: RowStore {
    /// Stores `row`, key and value fields. With a `random % N` salt this is
    /// an insert, as [`put_row`](RowStore::put_row).
    fn put_record<K: OneLayout + Record>(&self, row: &K) -> Result<(), RowError<Self::Error>> {
        let value = values_of(row)?;
        let put = Mutation::Put {
            key: row.encode(),
            value,
        };
        write_rows::<K, _>(self, &[put]).map_err(RowError::Store)
    }

    /// Stores `row` wherever it is, as [`replace_row`](RowStore::replace_row).
    fn replace_record<K: OneLayout + Record>(&self, row: &K) -> Result<(), RowError<Self::Error>> {
        let value = values_of(row)?;
        write_rows::<K, _>(self, &replace_batch::<K>(&row.encode(), &value))
            .map_err(RowError::Store)
    }

    /// Stores many rows in one batch (atomic where the store allows).
    fn put_records<'r, K: OneLayout + Record + 'r>(
        &self,
        rows: impl IntoIterator<Item = &'r K>,
    ) -> Result<(), RowError<Self::Error>> {
        let rows = with_values(rows)?;
        write_rows::<K, _>(self, &put_batch(rows.iter().map(|(k, v)| (*k, v))))
            .map_err(RowError::Store)
    }

    /// The whole row stored under `key`: key fields from the key, value
    /// fields from the value; `None` when absent.
    fn get_record<K: OneLayout + Record>(
        &self,
        key: &[u8],
    ) -> Result<Option<K>, RowError<Self::Error>> {
        match get_keyed_row::<K, _>(self, key)? {
            Some((at, row)) => whole_at(at, row).map(Some),
            None => Ok(None),
        }
    }

    /// Part of the row stored under `key`: the projection `V` (see
    /// [`Projection`]), its value fields read from the stored value;
    /// `None` when absent.
    fn get_projected<V: Projection>(&self, key: &[u8]) -> Result<Option<V>, RowError<Self::Error>>
    where
        V::Of: OneLayout,
    {
        match get_keyed_row::<V::Of, _>(self, key)? {
            Some((at, (row, value))) => project_row(at, row, &value).map(Some),
            None => Ok(None),
        }
    }

    /// [`put_record`](Self::put_record) for a key type with a layout
    /// history (`#[rowkey_was]`): stores `row` in every layout `phase`
    /// writes it to, as [`RowStore::put_row_in`].
    fn put_record_in<K: Record>(&self, phase: Phase, row: &K) -> Result<(), RowError<Self::Error>> {
        let value = values_of(row)?;
        self.put_row_in(phase, row, &value)
    }

    /// [`put_records`](Self::put_records) in `phase`, in one batch
    /// ([`RowStore::put_rows_in`]).
    fn put_records_in<'r, K: Record + 'r>(
        &self,
        phase: Phase,
        rows: impl IntoIterator<Item = &'r K>,
    ) -> Result<(), RowError<Self::Error>> {
        let rows = with_values(rows)?;
        self.put_rows_in(phase, rows.iter().map(|(k, v)| (*k, v)))
    }

    /// [`replace_record`](Self::replace_record) in `phase`
    /// ([`RowStore::replace_row_in`]).
    fn replace_record_in<K: Record>(
        &self,
        phase: Phase,
        row: &K,
    ) -> Result<(), RowError<Self::Error>> {
        let value = values_of(row)?;
        self.replace_row_in(phase, row, &value)
    }

    /// The whole row with `row`'s key fields, read where `phase` keeps it
    /// ([`RowStore::get_row_in`]); `None` when absent.
    fn get_record_in<K: Record>(
        &self,
        phase: Phase,
        row: &K,
    ) -> Result<Option<K>, RowError<Self::Error>> {
        match self.get_row_in(phase, row)? {
            Some(row) => whole(row).map(Some),
            None => Ok(None),
        }
    }
}

impl<S: Store + ?Sized> RecordStore for S {}

/// Whole typed rows on any [`AsyncStore`] (Bigtable, DynamoDB): the async
/// [`RecordStore`]. On DynamoDB each value field is its own attribute in
/// DynamoDB's types (`store::dynamodb::ItemShape`, feature `dynamodb`).
///
/// ```no_run
/// # async fn demo(store: keyschema::store::dynamodb::DynamoStore) -> Result<(), Box<dyn std::error::Error>> {
/// use keyschema::store::AsyncRecordStore;
/// use keyschema::RowKey;
///
/// #[derive(RowKey, Debug, PartialEq)]
/// #[rowkey(then = (invoice_id), line_no)]
/// struct Line {
///     invoice_id: String,
///     line_no: u16,
///     #[rowkey(value)]
///     amount: i64,
///     #[rowkey(value)]
///     memo: String,
/// }
///
/// let line = Line { invoice_id: "INV-1".into(), line_no: 3, amount: 500, memo: "rent".into() };
/// store.put_record(&line).await?;
/// assert_eq!(store.get_record::<Line>(&Line::get_key("INV-1", 3)).await?, Some(line));
/// # Ok(()) }
/// ```
pub trait AsyncRecordStore: AsyncStore {
    /// Stores `row`, key and value fields ([`RecordStore::put_record`]).
    fn put_record<K: OneLayout + Record>(
        &self,
        row: &K,
    ) -> BoxFuture<'_, Result<(), RowError<Self::Error>>> {
        let batch = values_of(row).map(|value| {
            vec![Mutation::Put {
                key: row.encode(),
                value,
            }]
        });
        write_in(self, K::schema(), batch)
    }

    /// Stores `row` wherever it is ([`RecordStore::replace_record`]).
    fn replace_record<K: OneLayout + Record>(
        &self,
        row: &K,
    ) -> BoxFuture<'_, Result<(), RowError<Self::Error>>> {
        let batch = values_of(row).map(|value| replace_batch::<K>(&row.encode(), &value));
        write_in(self, K::schema(), batch)
    }

    /// Stores many rows ([`RecordStore::put_records`]).
    fn put_records<'r, K: OneLayout + Record + 'r>(
        &self,
        rows: impl IntoIterator<Item = &'r K>,
    ) -> BoxFuture<'_, Result<(), RowError<Self::Error>>> {
        let batch = with_values(rows).map(|rows| put_batch(rows.iter().map(|(k, v)| (*k, v))));
        write_in(self, K::schema(), batch)
    }

    /// The whole row stored under `key` ([`RecordStore::get_record`]).
    fn get_record<'a, K: OneLayout + Record + 'a>(
        &'a self,
        key: &[u8],
    ) -> BoxFuture<'a, Result<Option<K>, RowError<Self::Error>>> {
        let row = get_keyed_reading::<K, Self>(self, K::schema(), key);
        Box::pin(async move {
            match row.await? {
                Some((at, row)) => whole_at(at, row).map(Some),
                None => Ok(None),
            }
        })
    }

    /// Part of the row stored under `key` ([`RecordStore::get_projected`]):
    /// the store fetches `V`'s value fields only (a Bigtable column
    /// filter, a DynamoDB `ProjectionExpression`).
    fn get_projected<'a, V: Projection + 'a>(
        &'a self,
        key: &[u8],
    ) -> BoxFuture<'a, Result<Option<V>, RowError<Self::Error>>>
    where
        V::Of: OneLayout,
    {
        let row = get_keyed_reading::<V::Of, Self>(self, V::schema(), key);
        Box::pin(async move {
            match row.await? {
                Some((at, (row, value))) => project_row(at, row, &value).map(Some),
                None => Ok(None),
            }
        })
    }

    /// [`RecordStore::put_record_in`]: `row` in every layout `phase`
    /// writes it to.
    fn put_record_in<K: Record>(
        &self,
        phase: Phase,
        row: &K,
    ) -> BoxFuture<'_, Result<(), RowError<Self::Error>>> {
        match values_of(row) {
            Ok(value) => self.put_row_in(phase, row, &value),
            Err(e) => Box::pin(std::future::ready(Err(e))),
        }
    }

    /// [`RecordStore::put_records_in`].
    fn put_records_in<'r, K: Record + 'r>(
        &self,
        phase: Phase,
        rows: impl IntoIterator<Item = &'r K>,
    ) -> BoxFuture<'_, Result<(), RowError<Self::Error>>> {
        match with_values(rows) {
            Ok(rows) => self.put_rows_in(phase, rows.iter().map(|(k, v)| (*k, v))),
            Err(e) => Box::pin(std::future::ready(Err(e))),
        }
    }

    /// [`RecordStore::replace_record_in`].
    fn replace_record_in<K: Record>(
        &self,
        phase: Phase,
        row: &K,
    ) -> BoxFuture<'_, Result<(), RowError<Self::Error>>> {
        match values_of(row) {
            Ok(value) => self.replace_row_in(phase, row, &value),
            Err(e) => Box::pin(std::future::ready(Err(e))),
        }
    }

    /// [`RecordStore::get_record_in`].
    fn get_record_in<'a, K: Record + 'a>(
        &'a self,
        phase: Phase,
        row: &K,
    ) -> BoxFuture<'a, Result<Option<K>, RowError<Self::Error>>> {
        let row = self.get_row_in(phase, row);
        Box::pin(async move {
            match row.await? {
                Some(row) => whole(row).map(Some),
                None => Ok(None),
            }
        })
    }
}

impl<S: AsyncStore + ?Sized> AsyncRecordStore for S {}

/// Each row with its value fields as stored.
fn with_values<'r, K: Record + 'r, E>(
    rows: impl IntoIterator<Item = &'r K>,
) -> Result<Vec<(&'r K, Vec<u8>)>, RowError<E>> {
    rows.into_iter()
        .map(|row| Ok((row, values_of(row)?)))
        .collect()
}

/// A row's value fields as stored, or the field that cannot be written.
fn values_of<K: Record, E>(row: &K) -> Result<Vec<u8>, RowError<E>> {
    encode_values(row).map_err(|source| value_error(row, source))
}

/// The whole row from a typed row and its stored value.
#[inline(always)]
fn whole<K: Record, E>((mut row, value): TypedRow<K>) -> Result<K, RowError<E>> {
    match decode_values(&mut row, &value) {
        Ok(()) => Ok(row),
        Err(source) => Err(value_error(&row, source)),
    }
}

/// The whole row from a typed row and its stored value, read under `key`
/// (which an error names: with a `random % N` salt, encoding the row
/// again would pick a bucket at random).
pub(crate) fn whole_at<K: Record, E>(
    key: Vec<u8>,
    (mut row, value): TypedRow<K>,
) -> Result<K, RowError<E>> {
    match decode_values(&mut row, &value) {
        Ok(()) => Ok(row),
        Err(source) => Err(RowError::Value {
            schema: K::schema().name(),
            key,
            source,
        }),
    }
}

/// A value error, with the row's key type and key.
fn value_error<K: Record, E>(row: &K, source: ValueError) -> RowError<E> {
    RowError::Value {
        schema: K::schema().name(),
        key: row.encode(),
        source,
    }
}

/// A typed scan's rows, whole: each row's value fields read from its value
/// (`scan.run(&store).records()`). A row whose value does not read is an
/// error item ([`RowError::Value`]); the scan goes on after it.
pub struct Records<I> {
    pub(crate) rows: I,
}

impl<I> Records<I> {
    pub(crate) fn new(rows: I) -> Self {
        Records { rows }
    }

    /// The scan underneath (for its cursor).
    pub fn inner(&self) -> &I {
        &self.rows
    }
}

/// The projection `V` of a row of `V::Of` read with `V`'s schema: its key
/// fields from `row`, its value fields from `value`; an error names `key`.
pub(crate) fn project_row<V: Projection, E>(
    key: Vec<u8>,
    row: V::Of,
    value: &[u8],
) -> Result<V, RowError<E>> {
    let mut projected = V::from_key(row);
    match crate::record::decode_projection(&mut projected, value) {
        Ok(()) => Ok(projected),
        Err(source) => Err(RowError::Value {
            schema: V::schema().name(),
            key,
            source,
        }),
    }
}
