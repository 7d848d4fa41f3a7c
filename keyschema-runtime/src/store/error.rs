//! [`RowError`]: why a typed read or write on a store failed.

use crate::error::{CursorError, DecodeError};

/// Why a typed read failed: the store failed, a key in the scanned range
/// is not a key of the schema, or a randomly salted row has differing copies.
#[derive(Debug, thiserror::Error)]
pub enum RowError<E> {
    /// The store reported an error.
    #[error("store error: {0}")]
    Store(#[source] E),
    /// A stored key inside the requested range does not decode: another
    /// schema's rows share the key space, or the row is corrupt.
    #[error(
        "key {} in the scanned range does not decode: {source}",
        crate::limits::ShortKey(key)
    )]
    Decode {
        /// The offending key, as stored.
        key: Vec<u8>,
        /// Why it does not decode.
        #[source]
        source: DecodeError,
    },
    /// A `random % N` row is stored in several buckets with different
    /// values (it was written twice with `put_row`, which inserts). A get
    /// cannot tell which copy is current; `replace_row` keeps one copy.
    #[error("row {} is stored in salt buckets {buckets:?} with different values: a `random % N` put_row inserts a copy; write the row with replace_row to keep one", crate::limits::ShortKey(key))]
    Conflict {
        /// The key, in the lowest bucket that holds a copy.
        key: Vec<u8>,
        /// Every bucket that holds a copy.
        buckets: Vec<u32>,
    },
    /// A cursor from another scan was passed to `after`.
    #[error(transparent)]
    Cursor(#[from] CursorError),
    /// A read or write that the key type's layout history refuses: a phase
    /// its cut-over does not have, or a row the older layout cannot hold.
    #[error(transparent)]
    Layout(#[from] crate::history::LayoutError),
    /// A write or read that the key type's indexes refuse.
    #[error(transparent)]
    Index(#[from] crate::error::IndexError),
    /// A row's value fields do not read as its type's, or one cannot be
    /// written.
    #[error("row {} of `{schema}`: {source}", crate::limits::ShortKey(key))]
    Value {
        /// The key type.
        schema: &'static str,
        /// The row's key.
        key: Vec<u8>,
        /// Why.
        #[source]
        source: crate::record::ValueError,
    },
}
