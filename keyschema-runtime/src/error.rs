//! Errors of keys and cursors: bytes that do not form a key of the
//! expected schema, and cursors that cannot resume a scan.

/// Why a byte string is not a valid key of a schema.
///
/// Every variant says where the problem is: the component (`"salt"` and
/// `"prefix"` for the parts before the first field) and the byte offset
/// from the start of the key.
///
/// ```
/// use keyschema::{DecodeError, RowKey};
///
/// #[derive(RowKey, Debug, PartialEq)]
/// #[rowkey(then = user_id, ts)]
/// struct Visit { user_id: String, ts: u64 }
///
/// // "u1" and its terminator, then only three of the eight bytes of `ts`.
/// let err = Visit::decode(b"u1\x00\x00\x00\x01").unwrap_err();
/// assert_eq!(err, DecodeError::Truncated { component: "ts", offset: 3, expected: "8 bytes of u64" });
/// assert_eq!(err.to_string(), "key ends inside component `ts` at byte 3: expected 8 bytes of u64");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DecodeError {
    /// The key ended before the component was complete.
    #[error("key ends inside component `{component}` at byte {offset}: expected {expected}")]
    Truncated {
        /// The component being read.
        component: &'static str,
        /// Where the component starts.
        offset: usize,
        /// What the component needed.
        expected: &'static str,
    },
    /// A byte that the component's encoding never produces.
    #[error("component `{component}` has byte {found:#04x} at byte {offset}: expected {expected}")]
    InvalidByte {
        /// The component being read.
        component: &'static str,
        /// Where the bad byte is.
        offset: usize,
        /// The byte found there (after undoing `rev`).
        found: u8,
        /// What the encoding allows there.
        expected: &'static str,
    },
    /// A string component whose bytes are not UTF-8.
    #[error("component `{component}` starting at byte {offset} is not valid UTF-8")]
    InvalidUtf8 {
        /// The component being read.
        component: &'static str,
        /// Where the component starts.
        offset: usize,
    },
    /// Well-formed bytes that do not denote a value of the type.
    #[error("component `{component}` at byte {offset} is not a valid value: {reason}")]
    InvalidValue {
        /// The component being read.
        component: &'static str,
        /// Where the component starts.
        offset: usize,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// The key does not start with the schema's constant prefix: it belongs to another table or schema.
    #[error("key does not start with the prefix {expected:?} of schema `{schema}` (first difference at byte {offset})")]
    ForeignPrefix {
        /// The schema's name.
        schema: &'static str,
        /// The expected prefix, escaped for printing.
        expected: String,
        /// The first byte that differs.
        offset: usize,
    },
    /// A salt value that is not below the schema's bucket count.
    #[error("salt at byte {offset} is {found}, but schema `{schema}` has only {buckets} buckets")]
    SaltOutOfRange {
        /// The schema's name.
        schema: &'static str,
        /// Where the salt is.
        offset: usize,
        /// The salt value found.
        found: u32,
        /// The schema's bucket count.
        buckets: u32,
    },
    /// The salt does not match the hash of the key's fields: the key was built by
    /// a different schema or hash, or its bytes were altered.
    #[error(
        "salt at byte {offset} is {found}, but the key's hashed fields give bucket {expected}"
    )]
    SaltMismatch {
        /// Where the salt is.
        offset: usize,
        /// The salt value found.
        found: u32,
        /// The bucket the key's fields hash to.
        expected: u32,
    },
    /// A key longer than [`MAX_KEY_LEN`](crate::MAX_KEY_LEN): rejected before
    /// any of it is read.
    #[error("key is {len} bytes, above the limit of {max}")]
    TooLong {
        /// The key's length.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// A key that reads as a row in both layouts of a key type's history,
    /// and that the cut-over does not decide.
    #[error("the key reads as a row of `{schema}` in both its declared and its older layout (`#[rowkey_was]`), and the cut-over does not decide which")]
    AmbiguousLayout {
        /// The key type.
        schema: &'static str,
    },
    /// A key of an older layout, asked of a key type that declares none.
    #[error("`{schema}` declares no older layout (`#[rowkey_was(...)]`)")]
    NoHistory {
        /// The key type.
        schema: &'static str,
    },
    /// Bytes left after the last component.
    #[error("{count} unexpected bytes after the last component, starting at byte {offset}")]
    TrailingBytes {
        /// Where the extra bytes start.
        offset: usize,
        /// How many there are.
        count: usize,
    },
}

/// A cursor that cannot be used: its bytes are not a cursor, or it was
/// made by another request.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CursorError {
    /// The bytes (or hex) are not a cursor.
    #[error("invalid scan cursor at byte {offset}: {reason}")]
    Invalid {
        /// Where the bytes went wrong.
        offset: usize,
        /// What was wrong there.
        reason: &'static str,
    },
    /// The cursor was made by a different request: another key type, other
    /// bound values or range, the other direction, or the other order mode.
    #[error("the cursor was made by another scan than this `{schema}` scan: a cursor resumes only the request that made it (same key type, same bound fields and range, same direction, same ordered or unordered mode)")]
    OtherRequest {
        /// The key type of the scan it was passed to.
        schema: &'static str,
    },
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

/// A scan request that cannot be turned into ranges.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ScanError {
    /// The range spans more bucket values than a scan expands into.
    #[error("the range on `{component}` spans {count} buckets of width {width}, more than the {max} a scan expands into; narrow the range")]
    TooManyBuckets {
        /// The bucketed field.
        component: &'static str,
        /// Bucket values the range spans.
        count: u128,
        /// The bucket width.
        width: u64,
        /// [`MAX_BUCKET_EXPANSION`](crate::MAX_BUCKET_EXPANSION).
        max: usize,
    },
    /// An open-ended range on a bucketed field whose bucket is hashed.
    #[error("the range on `{component}` is open-ended, but its bucket is hashed into the salt: each bucket is a separate partition, so give both ends")]
    Unbounded {
        /// The bucketed field.
        component: &'static str,
    },
}
