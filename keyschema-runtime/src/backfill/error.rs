//! What goes wrong in a backfill.

use crate::error::DecodeError;
use std::path::PathBuf;

/// What went wrong in a backfill.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BackfillError<E> {
    /// The store failed; the checkpoint stands at the last batch written,
    /// so running again resumes there.
    #[error("store error: {0}")]
    Store(#[source] E),
    /// The key type declares no older layout.
    #[error("`{0}` declares no older layout (`#[rowkey_was(...)]`): there is nothing to backfill")]
    NoHistory(&'static str),
    /// A row of the older layout whose key does not read, or whose new key
    /// would be ambiguous: the backfill stops before it.
    #[error(
        "row {} of the older layout cannot be re-keyed: {source}",
        crate::limits::ShortKey(key)
    )]
    Row {
        /// The older key.
        key: Vec<u8>,
        /// Why.
        #[source]
        source: DecodeError,
    },
    /// A row whose value fields do not read: an index over them cannot
    /// be built for it. Fix or delete the row, then resume.
    #[error(
        "row {}: its value fields do not read, so its index entry cannot be made: {source}; fix or delete the row, then resume",
        crate::limits::ShortKey(key)
    )]
    Value {
        /// The row's key.
        key: Vec<u8>,
        /// Why.
        #[source]
        source: crate::record::ValueError,
    },
    /// The store keeps the index itself and has no whole-table pass
    /// ([`AsyncStore::table_pass`](crate::store::AsyncStore::table_pass)):
    /// there are no entries to build.
    #[error("the store keeps the index `{index}` itself and cannot read its whole table to give older rows their entries: rewrite the rows written before the index with the binary that declares it")]
    StoreKeepsIndexes {
        /// The index.
        index: &'static str,
    },
    /// The checkpoint file cannot be read or written.
    #[error("checkpoint {path}: {reason}")]
    Checkpoint {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// `delete_older` without a verification that allows it: one that
    /// matched (before the delete began), or that covers every older row
    /// (to resume a delete that began).
    #[error(
        "the verification does not allow the delete ({mismatched} buckets differ, {uncovered} older rows lack their declared row, {stranded} rows wait past the cut-over in the older layout): no older row was deleted. \
         While every writer is still in Phase::Split or Phase::Dual, run `copy` again (a finished copy starts a new pass over every older row), then `verify`, then `delete_older` with that verification. \
         A delete that began (its checkpoint says so) resumes with any verification in which every older row has its declared row"
    )]
    NotVerified {
        /// Buckets whose rows or checksums differ.
        mismatched: usize,
        /// Older rows whose declared row is missing.
        uncovered: u64,
        /// Rows in the older layout past the cut-over.
        stranded: u64,
    },
    /// `delete_older` with a verification of another key type.
    #[error(
        "the verification is of `{verified}`, not `{schema}`: run `verify` with this backfill"
    )]
    OtherSchema {
        /// The key type the verification is of.
        verified: &'static str,
        /// The key type of the backfill.
        schema: &'static str,
    },
    /// `copy` after `delete_older` began (this backfill's marks or its
    /// checkpoint say so): writers are then in `Phase::New`, the declared
    /// layout holds the newer rows, and a copy would bring the older ones
    /// back over them and delete the rows written since.
    #[error("the delete of the older rows began (the checkpoint says so): a copy now would overwrite rows written in Phase::New with their older versions and delete the rows written since; nothing was read or written. Resume `delete_older` instead")]
    DeleteBegan,
    /// A verification or a checkpoint made on another store than the one
    /// given.
    #[error("the {what} was made on {made_on}, not on this store ({this}): nothing was read or written; run `verify` (or start the backfill with a new checkpoint) on this store")]
    OtherStore {
        /// `verification` or `checkpoint`.
        what: &'static str,
        /// The store it was made on.
        made_on: String,
        /// The store given.
        this: String,
    },
    /// A row kept changing while a batch wrote it (other writers): the
    /// batch stopped, its cursor not moved; running again resumes there.
    #[error("row {} of the older layout kept changing while the backfill wrote it: the checkpoint stands before its batch; run the step again", crate::limits::ShortKey(key))]
    Contended {
        /// The older key.
        key: Vec<u8>,
    },
    /// The store cannot read what the backfill reads, each layout's salt
    /// buckets in key order (DynamoDB reads one partition per Query and a
    /// bucket holds many), or holds another key type; refused before any
    /// row was read or written.
    #[error("this store cannot run the backfill, which reads each layout bucket by bucket in key order ({0}); nothing was read or written. On DynamoDB, where a bucket holds many partitions, create a table for the declared layout and move the rows into it with a parallel Scan (or an export and import), writing each with put_row")]
    Unsupported(#[source] E),
}
