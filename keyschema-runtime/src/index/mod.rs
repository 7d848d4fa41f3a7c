//! Indexes: further key layouts of a row type, kept in step with its rows.
//!
//! A key type declares an index with `index(Name, ...)` in its
//! `#[rowkey(...)]`: a key layout of its own (prefix, salt, components,
//! `rev`, `bucket`, partition group, format), checked at compile time like
//! the row's. The derive declares the *entry* type `Name`, a key type
//! holding the fields the index lists, and implements [`Index`] for it.
//! An entry is a key with an empty value: it holds every key field of the
//! row, so the row's key follows from it ([`Index::row_key`]).
//!
//! ```
//! use keyschema::store::{MemoryStore, RecordStore};
//! use keyschema::RowKey;
//!
//! #[derive(RowKey, Debug, Clone, PartialEq)]
//! #[rowkey(salt = hash(user_id, site) % 8, then = user_id, site, rev(timestamp),
//!          index(EventBySite, prefix = "s", salt = hash(site) % 8, then = (site), rev(timestamp), user_id))]
//! struct Event {
//!     user_id: String,
//!     site: String,
//!     timestamp: u64,
//!     #[rowkey(value)]
//!     action: String,
//! }
//!
//! let store = MemoryStore::new();
//! for (user, ts) in [("u1", 5), ("u2", 9), ("u3", 7)] {
//!     let event = Event { user_id: user.into(), site: "shop".into(), timestamp: ts, action: "view".into() };
//!     store.put_record(&event)?; // the row and its entry, in one transaction
//! }
//! // The site's latest events, newest first, whole: through the index.
//! let latest: Vec<Event> = EventBySite::scan().site("shop").limit(2).run(&store).rows().collect::<Result<_, _>>()?;
//! assert_eq!(latest.iter().map(|e| e.timestamp).collect::<Vec<_>>(), [9, 7]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Writes
//!
//! Every typed write of the row type (`put_record`, `replace_record`,
//! `put_records`, `put_row`, `delete_row` and the `_in` forms, sync and
//! async) writes and removes the entries with the row: it reads the row's
//! stored value first (an update that changes an indexed field removes the
//! old entry). On a store with transactions (memory, redb) the read and
//! every write are one transaction, all or nothing
//! ([`Store::write_batch_planned`]); on one without (Bigtable, or a `Store`
//! that keeps the default), three steps: the new entries, the rows, the old
//! entries' deletes, so a crash between two leaves at worst an entry its
//! row does not have (which reads skip), never a row without its entry;
//! then the rows are read again and each entry the write put or deleted
//! that its row has now is put back, so that a concurrent writer of the
//! same row, which deletes the entries of the version it read, never
//! leaves the last version without its entry
//! ([`Store::planned_writes_are_atomic`]). DynamoDB keeps each index as a
//! GSI over attributes of the row's item ([`AsyncStore::keeps_indexes`]);
//! on a live table [`IndexBackfill::build_async`] gives the older items
//! theirs. An index over an `Option` value field is sparse: a row whose
//! field is `None` has no entry.
//!
//! # Reads
//!
//! `Name::scan()` is a typed scan of the entries with everything a row
//! scan has (bound prefixes in key order, ranges, one range per bucket, the
//! ordered merge, limit, reverse, cursors); `.rows()` on it reads the row
//! each entry names, whole, and returns it only if the row's entry is that
//! entry, so a scan never returns a row that is not in the table nor a row
//! under an index value it no longer has. The limit counts rows returned.
//!
//! On an async store, `.stream_rows(&store)` on the index's scan request
//! ([`AsyncIndexRows`]) does the same, one request per chunk of entries.
//!
//! [`Store::write_batch_planned`]: crate::store::Store::write_batch_planned
//! [`Store::planned_writes_are_atomic`]: crate::store::Store::planned_writes_are_atomic
//! [`AsyncStore::keeps_indexes`]: crate::store::AsyncStore::keeps_indexes

mod backfill;
mod backfill_async;
mod backfill_table;
mod check;
mod rows;
mod stream;
mod verification;

pub use backfill::IndexBackfill;
pub use rows::IndexRows;
pub use stream::AsyncIndexRows;
pub use verification::{EntryError, IndexVerification, UnreadableRow};

pub use crate::error::IndexError;

use crate::key::RowKey;
use crate::record::{Record, ValueError, ValueReader};

/// The entry type of an index: a key type whose rows name rows of
/// [`Row`](Self::Row). Implemented by `#[derive(RowKey)]` for each
/// `index(Name, ...)` of a row type; see the [module](self).
pub trait Index: RowKey {
    /// The row type whose index this is.
    type Row: Record;

    /// Whether the index is declared `building`: writes keep its entries,
    /// and its backfill ([`IndexBackfill`]) writes those of the rows
    /// written before it, but its scans' rows are refused
    /// ([`IndexError::Building`]) until the declaration drops `building`.
    const BUILDING: bool = false;

    /// The key of `row`'s entry; `None` when the row has none (an `Option`
    /// value field of the index is `None`).
    fn entry_key(row: &Self::Row) -> Option<Vec<u8>>;

    /// The key of the row this entry names.
    fn row_key(&self) -> Vec<u8>;

    /// The row this entry names with the entry's key fields and every
    /// other field at its `Default` (its value fields are read next).
    #[doc(hidden)]
    fn into_row(self) -> Self::Row;

    /// Sets on `row` the value fields this index is over, read by name from
    /// a stored row's `reader`, stepping over the others: what the entry a
    /// stored row should have needs, whichever version of the struct wrote
    /// it. A required one the row lacks is [`ValueError::Missing`], one
    /// that does not read as its type [`ValueError::Field`].
    #[doc(hidden)]
    fn read_indexed<R: ValueReader>(row: &mut Self::Row, reader: &mut R) -> Result<(), ValueError>;
}
