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
//! row does not have (which reads skip), never a row without its entry.
//! DynamoDB keeps each index as a GSI over attributes of the row's item
//! ([`AsyncStore::keeps_indexes`]). An index over an `Option` value field
//! is sparse: a row whose field is `None` has no entry.
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
//! [`AsyncStore::keeps_indexes`]: crate::store::AsyncStore::keeps_indexes

mod backfill;
mod backfill_async;
mod check;
mod rows;
mod stream;

pub use backfill::{IndexBackfill, IndexVerification};
pub use rows::IndexRows;
pub use stream::AsyncIndexRows;

use crate::key::RowKey;
use crate::record::Record;
use crate::schema::Schema;
use crate::store::planned::steps;
use crate::store::{AsyncStore, Mutation, Store};
use std::collections::HashMap;

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

    /// [`entry_key`](Self::entry_key) in salt bucket `bucket`, without
    /// hashing the salt: what checks a row against an entry whose salt its
    /// decode checked already (equal fields give equal salts).
    #[doc(hidden)]
    fn entry_key_in(row: &Self::Row, bucket: u32) -> Option<Vec<u8>>;
}

/// Why an indexed write or read was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum IndexError {
    /// The index is declared `building`: rows written before it have no
    /// entry until its backfill has run, so its scans would miss them.
    #[error("the index `{index}` of `{row}` is declared `building`: rows written before it have no entry yet, so a scan would miss them. Run its backfill (`IndexBackfill::<{index}>`) until `verify` matches, then drop `building` from `index({index}, ...)`")]
    Building {
        /// The index.
        index: &'static str,
        /// The row type.
        row: &'static str,
    },
}

/// Writes `batch` (puts and deletes of `K`'s rows) with the entries of
/// `K`'s indexes: each put's entries put, each row's old entries that it
/// no longer has deleted, as one planned write (one transaction where the
/// store has them). Without indexes, the batch alone.
pub(crate) fn write_rows<K: RowKey, S: Store + ?Sized>(
    store: &S,
    batch: &[Mutation],
) -> Result<(), S::Error> {
    let schema = K::schema();
    if !schema.has_indexes() {
        return store.write_batch(batch);
    }
    store.write_batch_planned(batch, &mut |i, old| entry_changes(schema, batch, i, old))
}

/// The entry puts and deletes that keep `schema`'s indexes in step with
/// `batch[i]`, given the value its key held before it.
fn entry_changes(
    schema: &'static Schema,
    batch: &[Mutation],
    i: usize,
    old: Option<&[u8]>,
) -> Vec<Mutation> {
    let Some(m) = batch.get(i) else {
        return Vec::new();
    };
    let new = match m {
        Mutation::Put { key, value } => schema.stored_entries(key, value),
        Mutation::Delete { .. } => Vec::new(),
    };
    let gone = old.map_or_else(Vec::new, |old| schema.stored_entries(m.key(), old));
    let mut out: Vec<Mutation> = gone
        .into_iter()
        .filter(|k| !new.contains(k))
        .map(|key| Mutation::Delete { key })
        .collect();
    out.extend(new.into_iter().map(|key| Mutation::Put {
        key,
        value: Vec::new(),
    }));
    out
}

/// The typed write of `batch` on an async store, keeping `schema`'s
/// indexes: the rows' old values read in one request, then the three steps
/// of a store without transactions (the new entries, the rows, the old
/// entries' deletes). Without indexes, the rows alone.
pub(crate) async fn write_rows_async<S: AsyncStore + ?Sized>(
    store: &S,
    schema: &'static Schema,
    batch: Vec<Mutation>,
) -> Result<(), S::Error> {
    if !schema.has_indexes() || store.keeps_indexes() {
        return store.write_for(schema, batch).await;
    }
    let mut keys: Vec<Vec<u8>> = batch.iter().map(|m| m.key().to_vec()).collect();
    keys.sort();
    keys.dedup();
    let old: HashMap<Vec<u8>, Vec<u8>> = store
        .get_many_for(schema, keys)
        .await?
        .into_iter()
        .collect();
    let steps = steps(
        &batch,
        |key| Ok::<_, S::Error>(old.get(key).cloned()),
        &mut |i, old| entry_changes(schema, &batch, i, old),
    )?;
    if !steps.puts.is_empty() {
        store.write(steps.puts).await?;
    }
    store.write_for(schema, batch).await?;
    if !steps.deletes.is_empty() {
        store.write(steps.deletes).await?;
    }
    Ok(())
}
