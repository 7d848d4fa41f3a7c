//! The async store interface (Cloud Bigtable, DynamoDB), and its typed
//! writes and gets.

use super::layout::read_key;
use super::{
    get_in_async, one_keyed_row, one_row, phased_batch, write_in, BoxFuture, BoxRowStream, Cas,
    Mutation, Row, RowError, TypedGet, Write,
};
use crate::history::Phase;
use crate::key::{OneLayout, RowKey};
use crate::range::{Direction, KeyRange};
use crate::schema::Schema;

/// A store whose reads are async (Cloud Bigtable, DynamoDB). Shared
/// between tasks (`Sync`): a typed write's steps hold it across awaits.
pub trait AsyncStore: Sync {
    /// What goes wrong.
    type Error: std::error::Error + Send + Sync + 'static;

    /// The rows of one range, at most `limit` of them, streamed.
    fn scan_stream(
        &self,
        range: &KeyRange,
        direction: Direction,
        limit: Option<usize>,
    ) -> BoxRowStream<Self::Error>;

    /// The rows stored under any of `keys` (absent keys are left out),
    /// in one round trip where the store allows.
    fn get_many(&self, keys: Vec<Vec<u8>>) -> BoxFuture<'_, Result<Vec<Row>, Self::Error>>;

    /// Applies a batch of puts and deletes, cut into requests under the
    /// service's limits (the stores' own `write_batch`).
    fn write(&self, batch: Vec<Mutation>) -> BoxFuture<'_, Result<(), Self::Error>>;

    /// The async [`Store::compare_and_write`](crate::store::Store::compare_and_write): each entry checked and
    /// written as one step on the service (`CheckAndMutateRow`, a
    /// conditional `PutItem`/`DeleteItem`); per entry, whether it applied.
    fn compare_and_write(&self, batch: Vec<Cas>) -> BoxFuture<'_, Result<Vec<bool>, Self::Error>>;

    /// [`write`](Self::write) for the rows of `schema`: every typed write
    /// comes here. A store with a shape of its own for whole rows (Bigtable
    /// keeps each value field in a cell) reads a put's value as the row's
    /// value fields ([`crate::record::encode_values`]) when `schema` has
    /// any; the default writes the bytes as they are.
    fn write_for(
        &self,
        schema: &'static Schema,
        batch: Vec<Mutation>,
    ) -> BoxFuture<'_, Result<(), Self::Error>> {
        let _ = schema;
        self.write(batch)
    }

    /// [`scan_stream`](Self::scan_stream) for the rows of `schema`: every
    /// typed scan comes here. A store of cells returns a whole row's value
    /// as a cell map ([`crate::record::cells`]).
    fn scan_for(
        &self,
        schema: &'static Schema,
        range: &KeyRange,
        direction: Direction,
        limit: Option<usize>,
    ) -> BoxRowStream<Self::Error> {
        let _ = schema;
        self.scan_stream(range, direction, limit)
    }

    /// [`get_many`](Self::get_many) for the rows of `schema`: every typed
    /// get comes here.
    fn get_many_for(
        &self,
        schema: &'static Schema,
        keys: Vec<Vec<u8>>,
    ) -> BoxFuture<'_, Result<Vec<Row>, Self::Error>> {
        let _ = schema;
        self.get_many(keys)
    }

    /// [`compare_and_write`](Self::compare_and_write) for the rows of
    /// `schema` (the backfill's one write): what a [`Cas`] expects and sets
    /// is a value as [`scan_for`](Self::scan_for) and
    /// [`get_many_for`](Self::get_many_for) return it.
    fn compare_and_write_for(
        &self,
        schema: &'static Schema,
        batch: Vec<Cas>,
    ) -> BoxFuture<'_, Result<Vec<bool>, Self::Error>> {
        let _ = schema;
        self.compare_and_write(batch)
    }

    /// Whether the store keeps a key type's indexes itself (DynamoDB: each
    /// index a GSI over attributes of the row's item): typed writes then
    /// write the rows alone, and the store adds what its indexes need.
    /// Otherwise (the default) a typed write of a key type with indexes
    /// writes the entries as rows of their own ([`crate::index`]).
    fn keeps_indexes(&self) -> bool {
        false
    }

    /// A store that keeps its indexes itself reads its whole table with
    /// this pass, and sets the entries its rows carry: how
    /// [`IndexBackfill`](crate::index::IndexBackfill) builds an index added
    /// to a live table there (DynamoDB). `None` (the default): the store
    /// has no such pass, and its entries are rows of their own.
    fn table_pass(&self) -> Option<&dyn super::TablePass<Error = Self::Error>> {
        None
    }

    /// Refuses typed calls for rows of `schema` when the store was made
    /// for another key type's rows (a DynamoDB table, whose key attributes
    /// split one key type's keys). Every typed call and the backfill check
    /// it first. Stores that hold any key keep this default.
    fn check_key_type(&self, schema: &'static Schema) -> Result<(), Self::Error> {
        let _ = schema;
        Ok(())
    }

    /// [`Store::identity`](crate::store::Store::identity): names the table this store reads and writes
    /// (`bigtable:projects/p/instances/i/tables/t`, `dynamodb:table`), so
    /// that a backfill's verification and checkpoint are never used on
    /// another one. `None` (the default) checks nothing.
    fn identity(&self) -> Option<String> {
        None
    }

    /// Refuses, before any work, a range this store cannot scan in key
    /// order (DynamoDB reads one partition per Query, never a whole table):
    /// the backfill asks it for every range it will read.
    fn check_range(&self, range: &KeyRange) -> Result<(), Self::Error> {
        let _ = range;
        Ok(())
    }

    /// Whether a scan error concerns one stored item only (one another
    /// program wrote without a value keyschema can read), so a typed scan
    /// reports it as an error item and reads on. By default no error is.
    fn item_error(error: &Self::Error) -> bool
    where
        Self: Sized,
    {
        let _ = error;
        false
    }

    /// The async [`RowStore::put_row_in`](crate::store::RowStore::put_row_in): stores `row` where `phase` of
    /// its key type's layout change writes it, refusing ambiguous keys.
    fn put_row_in<K: RowKey>(
        &self,
        phase: Phase,
        row: &K,
        value: &[u8],
    ) -> BoxFuture<'_, Result<(), RowError<Self::Error>>> {
        write_in(
            self,
            K::schema(),
            phased_batch(phase, [(row, value)], Write::Put),
        )
    }

    /// The async [`RowStore::put_rows_in`](crate::store::RowStore::put_rows_in).
    fn put_rows_in<'r, K: RowKey + 'r, V: AsRef<[u8]> + 'r>(
        &self,
        phase: Phase,
        rows: impl IntoIterator<Item = (&'r K, V)>,
    ) -> BoxFuture<'_, Result<(), RowError<Self::Error>>> {
        write_in(self, K::schema(), phased_batch(phase, rows, Write::Put))
    }

    /// The async [`RowStore::replace_row_in`](crate::store::RowStore::replace_row_in).
    fn replace_row_in<K: RowKey>(
        &self,
        phase: Phase,
        row: &K,
        value: &[u8],
    ) -> BoxFuture<'_, Result<(), RowError<Self::Error>>> {
        write_in(
            self,
            K::schema(),
            phased_batch(phase, [(row, value)], Write::Replace),
        )
    }

    /// The async [`RowStore::delete_row_in`](crate::store::RowStore::delete_row_in).
    fn delete_row_in<K: RowKey>(
        &self,
        phase: Phase,
        row: &K,
    ) -> BoxFuture<'_, Result<(), RowError<Self::Error>>> {
        write_in(
            self,
            K::schema(),
            phased_batch(phase, [(row, &[][..])], Write::Delete),
        )
    }

    /// The async [`RowStore::get_row_in`](crate::store::RowStore::get_row_in).
    fn get_row_in<K: RowKey>(
        &self,
        phase: Phase,
        row: &K,
    ) -> BoxFuture<'_, TypedGet<K, Self::Error>> {
        let (key, older) = read_key(phase, row);
        get_in_async(self, phase, key, older)
    }

    /// The row stored under `key`, decoded, with its value: the async
    /// [`RowStore::get_row`](crate::store::RowStore::get_row), with the
    /// same rules for `random % N` salts (every candidate bucket read in
    /// one request; differing copies are a [`RowError::Conflict`]).
    fn get_row<K: OneLayout>(&self, key: &[u8]) -> BoxFuture<'_, TypedGet<K, Self::Error>> {
        get_row_reading(self, K::schema(), key)
    }
}

/// [`AsyncStore::get_row`], the store reading the row as `reads` says (a
/// projection's schema reads part of it).
pub(crate) fn get_row_reading<'a, K: RowKey, S: AsyncStore + ?Sized>(
    store: &'a S,
    reads: &'static Schema,
    key: &[u8],
) -> BoxFuture<'a, TypedGet<K, S::Error>> {
    let found = candidates_read(store, reads, key);
    Box::pin(async move { one_row::<K, S::Error>(found.await?) })
}

/// [`get_row_reading`], with the key the row was found under.
pub(crate) fn get_keyed_reading<'a, K: RowKey, S: AsyncStore + ?Sized>(
    store: &'a S,
    reads: &'static Schema,
    key: &[u8],
) -> BoxFuture<'a, super::KeyedGet<K, S::Error>> {
    let found = candidates_read(store, reads, key);
    Box::pin(async move { one_keyed_row::<K, S::Error>(found.await?) })
}

/// The rows stored under any of `key`'s candidates (every bucket's key
/// with a `random % N` salt), read as `reads` says.
fn candidates_read<'a, S: AsyncStore + ?Sized>(
    store: &'a S,
    reads: &'static Schema,
    key: &[u8],
) -> BoxFuture<'a, Result<Vec<Row>, RowError<S::Error>>> {
    let refused = store.check_key_type(reads).err();
    let rows = store.get_many_for(reads, reads.candidates(key));
    Box::pin(async move {
        if let Some(e) = refused {
            return Err(RowError::Store(e));
        }
        rows.await.map_err(RowError::Store)
    })
}
