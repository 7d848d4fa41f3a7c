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
    #[error("row {} of the older layout cannot be re-keyed: {source}", key.escape_ascii())]
    Row {
        /// The older key.
        key: Vec<u8>,
        /// Why.
        #[source]
        source: DecodeError,
    },
    /// The checkpoint file cannot be read or written.
    #[error("checkpoint {path}: {reason}")]
    Checkpoint {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// `delete_older` without a verification that matched.
    #[error("the verification does not match ({0} buckets differ): the older rows are kept; run the copy again, then verify")]
    NotVerified(usize),
}
