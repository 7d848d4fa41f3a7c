//! A whole-table pass for a store that keeps its indexes itself
//! (DynamoDB, whose indexes are GSIs over attributes of the row's item):
//! how [`IndexBackfill`](crate::index::IndexBackfill) builds and verifies
//! an index added to a live table there. The rows are read in the store's
//! own order (a DynamoDB Scan is in hash order, not key order), each with
//! the entry it carries, and an entry is set on a row only if the row is
//! still as it was read.

use super::BoxFuture;
use futures_core::Stream;
use std::pin::Pin;

/// One row of a whole-table pass: its key, its value as the store's typed
/// reads return it, and the entry key of the index it carries (`None`
/// when it carries none).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableRow {
    /// The row key.
    pub key: Vec<u8>,
    /// The value, as [`AsyncStore::scan_for`](super::AsyncStore::scan_for) returns it.
    pub value: Vec<u8>,
    /// The index entry key the row carries.
    pub carried: Option<Vec<u8>>,
}

/// A change of the entry one row carries: from `was` (what the pass read)
/// to the entry its `value` gives, applied only if the row still holds
/// `value` and `was`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryChange {
    /// The row key.
    pub key: Vec<u8>,
    /// The value the pass read.
    pub value: Vec<u8>,
    /// The entry key the row carried when read.
    pub was: Option<Vec<u8>>,
}

/// The rows of a whole-table pass, streamed.
pub type BoxTableStream<E> = Pin<Box<dyn Stream<Item = Result<TableRow, E>> + Send + 'static>>;

/// A store's whole-table pass, when it has one
/// ([`AsyncStore::table_pass`](super::AsyncStore::table_pass)).
pub trait TablePass: Sync {
    /// What goes wrong.
    type Error: std::error::Error + Send + Sync + 'static;

    /// The rows of the table after row `after` (a key this pass returned;
    /// `None` from the start), in the store's order, read `page` at a time,
    /// each with the entry of `index` it carries. With `from_index`, the
    /// rows the index holds instead (eventually consistent on DynamoDB),
    /// and `after` must be `None`.
    fn rows(
        &self,
        index: &'static crate::schema::Schema,
        from_index: bool,
        after: Option<Vec<u8>>,
        page: usize,
    ) -> BoxTableStream<Self::Error>;

    /// Sets on each row the entry of `index` its value gives (or removes
    /// the one it carries when it gives none), each change applied only if
    /// the row still holds the value and the entry it was read with (a
    /// writer that changed it meanwhile wrote its own entry). Per change,
    /// whether it applied.
    fn set_entries(
        &self,
        index: &'static crate::schema::Schema,
        changes: Vec<EntryChange>,
    ) -> BoxFuture<'_, Result<Vec<bool>, Self::Error>>;
}
