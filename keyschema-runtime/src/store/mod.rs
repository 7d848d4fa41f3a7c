//! Ordered byte-key stores, and typed reads and writes on them.
//!
//! [`Store`] is the small interface a backend implements: get, put, delete,
//! an atomic batch write, and forward and reverse scans over a [`KeyRange`].
//! Everything typed (decoding rows, merging salt buckets, limits, cursors) is
//! built on top of it, so a new backend gets all of that for free.
//!
//! # Implementing `Store` for another backend
//!
//! TiKV's raw client, HBase through its REST or Thrift gateway, or RocksDB
//! each fit in an afternoon:
//!
//! * `scan(range, Forward)` yields the rows with `range.start() <= key <
//!   range.end()` in ascending key order; `Reverse` yields the same rows in
//!   descending order. `end() == None` means "to the end of the table".
//!   Page through the backend lazily (TiKV `scan` with a limit, an HBase
//!   scanner with caching) rather than loading the range: `scan` is not
//!   told a limit, and a typed scan stops pulling after `n + 1` rows per
//!   bucket. A range may be empty (its end at or before its start): it has
//!   no rows.
//! * A merged typed scan keeps one scan open per bucket at once, and its
//!   caller may write between rows: a scan's rows must not hold a lock
//!   that another scan or a write needs (`MemoryStore` copies pages of
//!   rows out under its read lock).
//! * Each range lies in the salt bucket it is tagged with
//!   ([`KeyRange::bucket`]), unless the store says it reads ranges across
//!   buckets ([`Store::reads_across_buckets`]).
//! * I/O errors are items of the iterator (`Err(...)`), never panics or a
//!   silently shortened scan.
//! * `write_batch` applies every mutation or none when the backend can
//!   (TiKV transactions, a redb write transaction); document it otherwise.
//! * `compare_and_write` applies each [`Cas`] only if its key holds what it
//!   expects, the check and the write as one step (TiKV's raw
//!   `compare_and_swap`, HBase's `checkAndMutate`). The backfill relies on
//!   it to never overwrite a newer row.
//! * `scan_into` lends the rows of a scan to the typed scans ([`RowSource`]).
//!   A backend that allocates each row anyway lends `scan`'s rows with
//!   [`OwnedRows`]: `type Lent<'a> = OwnedRows<Self::Rows<'a>>` and
//!   `Ok(OwnedRows::new(self.scan(range, direction)?))`. One that reads
//!   pages of its own lends from them, as `MemoryStore` and `RedbStore` do.
//!
//! [`OwnedRows`] shows a whole store written from scratch on a `BTreeMap`;
//! [`MemoryStore`] and `RedbStore` lend rows from pages of their own.
//! `write_batch_planned` matters only to key types with indexes, and its
//! default is correct for any store.

mod asynchronous;
#[cfg(feature = "bigtable")]
pub mod bigtable;
mod cas;
#[cfg(feature = "dynamodb")]
pub mod dynamodb;
mod error;
pub(crate) mod indexed;
pub(crate) mod layout;
mod memory;
pub(crate) mod planned;
mod records;
#[cfg(feature = "redb")]
mod redb;
mod source;
mod table_pass;

#[cfg(feature = "redb")]
pub use self::redb::RedbStore;
pub use asynchronous::AsyncStore;
pub use cas::Cas;
pub use error::RowError;
pub use memory::MemoryStore;
pub use records::{AsyncRecordStore, RecordStore, Records};
pub use source::{BoxRowSource, OwnedRows, RowSource};
pub use table_pass::{BoxTableStream, EntryChange, TablePass, TableRow};

pub use crate::range::Direction;

use crate::history::Phase;
use crate::key::{OneLayout, RowKey};
use crate::range::KeyRange;
use crate::schema::Schema;
use futures_core::Stream;
use indexed::write_rows;
use layout::read_key;
pub(crate) use layout::{get_in, get_in_async, phased_batch, Write};
pub(crate) use records::{project_row, whole_at};
use std::pin::Pin;

/// One write of a batch.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Mutation {
    /// Sets `key` to `value`.
    Put {
        /// The row key.
        key: Vec<u8>,
        /// The stored value.
        value: Vec<u8>,
    },
    /// Removes `key` (nothing happens if it is absent).
    Delete {
        /// The row key.
        key: Vec<u8>,
    },
}

impl Mutation {
    /// The key the mutation writes.
    pub fn key(&self) -> &[u8] {
        match self {
            Mutation::Put { key, .. } | Mutation::Delete { key } => key,
        }
    }
}

/// What [`Store::write_batch_planned`] asks for each mutation of a batch:
/// given its position and the value its key holds just before it, the
/// further mutations to apply with it.
pub type Plan<'a> = dyn FnMut(usize, Option<&[u8]>) -> Vec<Mutation> + 'a;

/// A stored row: its key and its value.
pub type Row = (Vec<u8>, Vec<u8>);

/// A decoded row: the key struct (skipped fields at their `Default`) and the value.
pub type TypedRow<K> = (K, Vec<u8>);

/// A typed row lent by [`TypedRows::next_ref`](crate::TypedRows::next_ref):
/// the decoded row and its value, borrowed until the next call.
pub type LentRow<'a, K> = (&'a K, &'a [u8]);

/// An ordered key-value store with byte keys.
pub trait Store {
    /// What goes wrong: I/O, corruption, a lost connection.
    type Error: std::error::Error + Send + Sync + 'static;

    /// The rows of one scan, in the order asked for.
    type Rows<'a>: Iterator<Item = Result<Row, Self::Error>>
    where
        Self: 'a;

    /// The rows of one scan, lent one at a time ([`scan_into`](Self::scan_into)):
    /// [`OwnedRows`]`<Self::Rows<'a>>` for a store whose scan allocates
    /// each row anyway. A type of its own, not a boxed one, so that the
    /// typed scans' per-row calls are direct (boxed, they cost 4 to 7% of
    /// a scan on `MemoryStore`).
    type Lent<'a>: RowSource<Error = Self::Error>
    where
        Self: 'a;

    /// The value stored under `key`.
    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, Self::Error>;

    /// The values stored under `keys`, in their order (`None` for a key
    /// that is absent). The default gets them one by one; a store that
    /// can read many keys in one request or transaction should.
    fn get_many(&self, keys: &[Vec<u8>]) -> Result<Vec<Option<Vec<u8>>>, Self::Error> {
        keys.iter().map(|key| self.get(key)).collect()
    }

    /// Applies every mutation, in order, atomically where the store allows.
    fn write_batch(&self, batch: &[Mutation]) -> Result<(), Self::Error>;

    /// The rows whose keys lie in `range`, ascending or descending.
    fn scan(&self, range: &KeyRange, direction: Direction) -> Result<Self::Rows<'_>, Self::Error>;

    /// The rows of [`scan`](Self::scan), lent one at a time: what typed
    /// scans read, so that a row is decoded where the store keeps it, with
    /// no allocation between the store and the decoder. A store whose scan
    /// allocates each row lends them with [`OwnedRows`]; one that can lend
    /// from its own pages (as `MemoryStore` and `RedbStore` do) should
    /// (a whole store written so: [`OwnedRows`]).
    fn scan_into(
        &self,
        range: &KeyRange,
        direction: Direction,
    ) -> Result<Self::Lent<'_>, Self::Error>;

    /// Applies each compare-and-set of `batch` whose key holds what it
    /// expects, the check and the write as one atomic step per entry;
    /// returns, per entry, whether it was applied.
    fn compare_and_write(&self, batch: &[Cas]) -> Result<Vec<bool>, Self::Error>;

    /// Names the table this store reads and writes (`redb:/abs/path`,
    /// `bigtable:projects/p/instances/i/tables/t`), so that a backfill's
    /// verification and checkpoint are never used on another one. `None`
    /// (the default, for a store that cannot name itself) checks nothing.
    fn identity(&self) -> Option<String> {
        None
    }

    /// Applies `batch` together with the mutations `plan` adds for each of
    /// its entries, given the entry's position and the value its key holds
    /// just before it (after the batch's earlier entries): what keeps an
    /// index in step with its rows ([`crate::index`]).
    ///
    /// A store with transactions makes the reads and every write one atomic
    /// step, as `MemoryStore` and `RedbStore` do; implement it so. The
    /// default, for a store without, reads each key, then writes every
    /// added put, the batch, and every added delete, in that order: not
    /// atomic, but an interrupted write leaves at worst an index entry
    /// whose row does not have it, which index reads skip, never a row
    /// without its entry.
    fn write_batch_planned(&self, batch: &[Mutation], plan: &mut Plan) -> Result<(), Self::Error> {
        let planned::Steps { puts, deletes } = planned::steps(batch, |key| self.get(key), plan)?;
        self.write_batch(&puts)?;
        self.write_batch(batch)?;
        self.write_batch(&deletes)
    }

    /// Whether [`write_batch_planned`](Self::write_batch_planned) is one
    /// atomic step that serializes concurrent writers (a transaction, as
    /// on `MemoryStore` and `RedbStore`). `false` (the default): a typed
    /// write with indexes reads its rows again after the three steps and
    /// puts back the entries a concurrent writer of the same row deleted
    /// ([`crate::index`]).
    fn planned_writes_are_atomic(&self) -> bool {
        false
    }

    /// Whether [`scan`](Self::scan) reads any range by its bounds alone,
    /// whatever salt buckets it spans: one ordered key space, as
    /// `MemoryStore` and `RedbStore` are. A merged scan over more than 64
    /// buckets then finds every bucket's first row by one walk over up to
    /// 2,048 buckets at a time, with ranges that span buckets (their
    /// [`bucket`](KeyRange::bucket) tag is 0). `false` (the default): every
    /// range lies in the one bucket it is tagged with, and such a merge
    /// opens each bucket itself (one seek per bucket), so a store that
    /// routes a scan by its bucket reads the right rows.
    fn reads_across_buckets(&self) -> bool {
        false
    }

    /// Sets `key` to `value`.
    fn put(&self, key: &[u8], value: &[u8]) -> Result<(), Self::Error> {
        self.write_batch(&[Mutation::Put {
            key: key.to_vec(),
            value: value.to_vec(),
        }])
    }

    /// Removes `key`.
    fn delete(&self, key: &[u8]) -> Result<(), Self::Error> {
        self.write_batch(&[Mutation::Delete { key: key.to_vec() }])
    }
}

/// A shared reference to a store is a store.
impl<S: Store + ?Sized> Store for &S {
    type Error = S::Error;
    type Rows<'a>
        = S::Rows<'a>
    where
        Self: 'a;
    type Lent<'a>
        = S::Lent<'a>
    where
        Self: 'a;

    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, S::Error> {
        (**self).get(key)
    }
    fn write_batch(&self, batch: &[Mutation]) -> Result<(), S::Error> {
        (**self).write_batch(batch)
    }
    fn write_batch_planned(&self, batch: &[Mutation], plan: &mut Plan) -> Result<(), S::Error> {
        (**self).write_batch_planned(batch, plan)
    }
    fn planned_writes_are_atomic(&self) -> bool {
        (**self).planned_writes_are_atomic()
    }
    fn reads_across_buckets(&self) -> bool {
        (**self).reads_across_buckets()
    }
    fn get_many(&self, keys: &[Vec<u8>]) -> Result<Vec<Option<Vec<u8>>>, S::Error> {
        (**self).get_many(keys)
    }
    fn scan(&self, range: &KeyRange, direction: Direction) -> Result<S::Rows<'_>, S::Error> {
        (**self).scan(range, direction)
    }
    fn scan_into(&self, range: &KeyRange, direction: Direction) -> Result<S::Lent<'_>, S::Error> {
        (**self).scan_into(range, direction)
    }
    fn compare_and_write(&self, batch: &[Cas]) -> Result<Vec<bool>, S::Error> {
        (**self).compare_and_write(batch)
    }
    fn identity(&self) -> Option<String> {
        (**self).identity()
    }
}

/// The rows of one async scan.
pub type BoxRowStream<E> = Pin<Box<dyn Stream<Item = Result<Row, E>> + Send + 'static>>;

/// The answer of a typed get: the row, if any, or why it failed.
pub type TypedGet<K, E> = Result<Option<TypedRow<K>>, RowError<E>>;

/// A future of an async store, boxed.
pub type BoxFuture<'a, T> = Pin<Box<dyn std::future::Future<Output = T> + Send + 'a>>;

/// Typed writes, gets and deletes on any [`Store`], through the generated
/// key code.
///
/// ```
/// use keyschema::store::{MemoryStore, RowStore};
/// use keyschema::RowKey;
///
/// #[derive(RowKey, Debug, PartialEq)]
/// #[rowkey(salt = hash(user_id) % 4, then = user_id, rev(ts))]
/// struct Visit { user_id: String, ts: u64 }
///
/// let store = MemoryStore::new();
/// store.put_row(&Visit { user_id: "u1".into(), ts: 7 }, b"page=/home")?;
/// let (visit, value) = store.get_row::<Visit>(&Visit::get_key("u1", 7))?.expect("stored");
/// assert_eq!((visit.ts, value.as_slice()), (7, &b"page=/home"[..]));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Random salts (`salt = random % N`)
///
/// A randomly salted row may sit in any of N buckets, so:
///
/// * [`put_row`](Self::put_row) and [`put_rows`](Self::put_rows) **insert**:
///   each write picks a fresh bucket, so writing a row that already exists
///   stores a second copy (scans then return it twice). This is the
///   write-sharding of the DynamoDB and HBase articles, for rows written
///   once (events, ledger lines).
/// * [`replace_row`](Self::replace_row) **upserts**: one batch that puts the
///   row in a fresh bucket and deletes it from the N - 1 others (atomic where
///   the store's batches are).
/// * [`get_row`](Self::get_row) reads all N candidates; copies with equal
///   values are one row, copies with different values are a
///   [`RowError::Conflict`], never a silent pick.
/// * [`delete_row`](Self::delete_row) deletes all N candidates in one batch.
///
/// ```
/// use keyschema::store::{MemoryStore, RowError, RowStore};
/// use keyschema::RowKey;
///
/// #[derive(RowKey, Debug, PartialEq)]
/// #[rowkey(salt = random % 10, then = invoice_id, line)]
/// struct Line { invoice_id: u64, line: u32 }
///
/// let store = MemoryStore::new();
/// let line = Line { invoice_id: 42, line: 1 };
/// store.replace_row(&line, b"10 EUR")?;
/// store.replace_row(&line, b"12 EUR")?; // an upsert: still one copy
/// assert_eq!(store.len(), 1);
/// assert_eq!(Line::get(&store, 42, 1)?.map(|(_, v)| v), Some(b"12 EUR".to_vec()));
///
/// store.delete_row(&line)?; // every bucket
/// assert!(store.is_empty());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait RowStore: Store {
    /// Stores `value` under `row`'s key. With a `random % N` salt this is an
    /// insert (a fresh bucket each time); see [`replace_row`](Self::replace_row).
    fn put_row<K: OneLayout>(&self, row: &K, value: &[u8]) -> Result<(), Self::Error> {
        write_rows::<K, _>(
            self,
            &[Mutation::Put {
                key: row.encode(),
                value: value.to_vec(),
            }],
        )
    }

    /// Stores `value` under `row`'s key, replacing the row wherever it is:
    /// with a `random % N` salt, one batch that puts the row in a fresh
    /// bucket and deletes it from every other bucket. For other layouts the
    /// same as [`put_row`](Self::put_row).
    fn replace_row<K: OneLayout>(&self, row: &K, value: &[u8]) -> Result<(), Self::Error> {
        write_rows::<K, _>(self, &replace_batch::<K>(&row.encode(), value))
    }

    /// Stores many rows in one batch (atomic where the store allows). With a
    /// `random % N` salt, each row is inserted (see [`put_row`](Self::put_row)).
    fn put_rows<'r, K: OneLayout + 'r, V: AsRef<[u8]> + 'r>(
        &self,
        rows: impl IntoIterator<Item = (&'r K, V)>,
    ) -> Result<(), Self::Error> {
        write_rows::<K, _>(self, &put_batch(rows))
    }

    /// Removes `row`: with a `random % N` salt, from every bucket, in one batch.
    fn delete_row<K: OneLayout>(&self, row: &K) -> Result<(), Self::Error> {
        write_rows::<K, _>(self, &delete_batch::<K>(&row.encode()))
    }

    /// Stores `row` where `phase` of its key type's layout change writes it
    /// (`#[rowkey_was]`; see [`Phase`]): in `Split`, the layout of its side
    /// of the cut-over; in `Dual`, both layouts, in one batch. Refuses a
    /// key that would also read as another row of the other layout
    /// ([`DecodeError::AmbiguousLayout`](crate::DecodeError::AmbiguousLayout)). Without a history, as
    /// [`put_row`](Self::put_row).
    fn put_row_in<K: RowKey>(
        &self,
        phase: Phase,
        row: &K,
        value: &[u8],
    ) -> Result<(), RowError<Self::Error>> {
        let batch = phased_batch(phase, [(row, value)], Write::Put)?;
        write_rows::<K, _>(self, &batch).map_err(RowError::Store)
    }

    /// [`put_row_in`](Self::put_row_in) for many rows, in one batch.
    fn put_rows_in<'r, K: RowKey + 'r, V: AsRef<[u8]> + 'r>(
        &self,
        phase: Phase,
        rows: impl IntoIterator<Item = (&'r K, V)>,
    ) -> Result<(), RowError<Self::Error>> {
        let batch = phased_batch(phase, rows, Write::Put)?;
        write_rows::<K, _>(self, &batch).map_err(RowError::Store)
    }

    /// [`replace_row`](Self::replace_row) in every layout `phase` writes
    /// `row` to, in one batch.
    fn replace_row_in<K: RowKey>(
        &self,
        phase: Phase,
        row: &K,
        value: &[u8],
    ) -> Result<(), RowError<Self::Error>> {
        let batch = phased_batch(phase, [(row, value)], Write::Replace)?;
        write_rows::<K, _>(self, &batch).map_err(RowError::Store)
    }

    /// Deletes `row` from both layouts, in one batch, whatever the phase
    /// (`phase` is taken for symmetry with the other writes): a row left in
    /// one layout would be copied back by the backfill, or read again in
    /// `Split` as a row the older binary wrote past the cut-over.
    fn delete_row_in<K: RowKey>(&self, phase: Phase, row: &K) -> Result<(), RowError<Self::Error>> {
        let batch = phased_batch(phase, [(row, &[][..])], Write::Delete)?;
        write_rows::<K, _>(self, &batch).map_err(RowError::Store)
    }

    /// The row with `row`'s key fields, read where `phase` keeps it (see
    /// [`Phase`]), decoded in that layout. In `Split`, a row past the
    /// cut-over that is missing from the declared layout is looked for in
    /// the older one too (an older binary still running writes it there).
    fn get_row_in<K: RowKey>(
        &self,
        phase: Phase,
        row: &K,
    ) -> Result<Option<TypedRow<K>>, RowError<Self::Error>> {
        let (key, older) = read_key(phase, row);
        get_in(self, phase, key, older)
    }

    /// The row stored under `key`, decoded, with its value. With a
    /// `random % N` salt, `key` may be in any bucket: every candidate is
    /// read (see [`Schema::candidates`](crate::Schema::candidates)).
    fn get_row<K: OneLayout>(
        &self,
        key: &[u8],
    ) -> Result<Option<TypedRow<K>>, RowError<Self::Error>> {
        Ok(get_keyed_row(self, key)?.map(|(_, row)| row))
    }
}

/// A typed get's row with the key it was found under (with a `random % N`
/// salt, the bucket that holds it, which an error names).
pub(crate) type KeyedGet<K, E> = Result<Option<(Vec<u8>, TypedRow<K>)>, RowError<E>>;

/// [`RowStore::get_row`], with the key the row was found under (with a
/// `random % N` salt, the bucket that holds it, which an error names).
pub(crate) fn get_keyed_row<K: RowKey, S: Store + ?Sized>(
    store: &S,
    key: &[u8],
) -> KeyedGet<K, S::Error> {
    if !K::schema().salt().is_some_and(|s| s.is_random()) {
        return match store.get(key).map_err(RowError::Store)? {
            Some(value) => typed_row(key, value).map(|row| Some((key.to_vec(), row))),
            None => Ok(None),
        };
    }
    let mut found = Vec::new();
    for candidate in K::schema().candidates(key) {
        if let Some(value) = store.get(&candidate).map_err(RowError::Store)? {
            found.push((candidate, value));
        }
    }
    one_keyed_row(found)
}

/// Writes a batch made by [`phased_batch`] on an async store, or returns
/// its refusal.
pub(crate) fn write_in<'a, S: AsyncStore + ?Sized>(
    store: &'a S,
    schema: &'static Schema,
    batch: Result<Vec<Mutation>, RowError<S::Error>>,
) -> BoxFuture<'a, Result<(), RowError<S::Error>>> {
    let write = store
        .check_key_type(schema)
        .map_err(RowError::Store)
        .and(batch)
        .map(|batch| indexed::write_rows_async(store, schema, batch));
    Box::pin(async move {
        match write {
            Ok(write) => write.await.map_err(RowError::Store),
            Err(e) => Err(e),
        }
    })
}

/// The puts of a batch of typed rows.
pub(crate) fn put_batch<'r, K: RowKey + 'r, V: AsRef<[u8]> + 'r>(
    rows: impl IntoIterator<Item = (&'r K, V)>,
) -> Vec<Mutation> {
    rows.into_iter()
        .map(|(row, value)| Mutation::Put {
            key: row.encode(),
            value: value.as_ref().to_vec(),
        })
        .collect()
}

/// A put of `key`, then a delete of its other candidates (random salts).
pub(crate) fn replace_batch<K: RowKey>(key: &[u8], value: &[u8]) -> Vec<Mutation> {
    let mut batch = vec![Mutation::Put {
        key: key.to_vec(),
        value: value.to_vec(),
    }];
    batch.extend(
        K::schema()
            .candidates(key)
            .into_iter()
            .filter(|c| c.as_slice() != key)
            .map(|key| Mutation::Delete { key }),
    );
    batch
}

/// A delete of every candidate of `key`.
pub(crate) fn delete_batch<K: RowKey>(key: &[u8]) -> Vec<Mutation> {
    K::schema()
        .candidates(key)
        .into_iter()
        .map(|key| Mutation::Delete { key })
        .collect()
}

/// The one row among the stored copies of a key (in bucket order): `None`
/// when there is none, the first when all values agree, else a conflict.
pub(crate) fn one_row<K: RowKey, E>(found: Vec<Row>) -> Result<Option<TypedRow<K>>, RowError<E>> {
    Ok(one_keyed_row(found)?.map(|(_, row)| row))
}

/// [`one_row`], with the key the row was found under.
pub(crate) fn one_keyed_row<K: RowKey, E>(mut found: Vec<Row>) -> KeyedGet<K, E> {
    found.sort();
    let Some((key, value)) = found.first() else {
        return Ok(None);
    };
    if found.iter().any(|(_, v)| v != value) {
        let schema = K::schema();
        return Err(RowError::Conflict {
            key: key.clone(),
            buckets: found
                .iter()
                .filter_map(|(k, _)| schema.bucket_of(k).ok())
                .collect(),
        });
    }
    let (key, value) = found.swap_remove(0);
    let row = typed_row(&key, value)?;
    Ok(Some((key, row)))
}

/// A stored row decoded as `K`, or an error naming its key.
pub(crate) fn typed_row<K: RowKey, E>(
    key: &[u8],
    value: Vec<u8>,
) -> Result<TypedRow<K>, RowError<E>> {
    let row = K::decode(key).map_err(|source| RowError::Decode {
        key: key.to_vec(),
        source,
    })?;
    Ok((row, value))
}

impl<S: Store + ?Sized> RowStore for S {}
