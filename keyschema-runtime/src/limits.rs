//! The limits a key declaration and its keys live within, as the table in
//! `docs/ENCODING.md` ("Limits") states them. The derive holds a copy of the
//! compile-time ones (`keyschema-macros/src/limits.rs`) and the Python
//! package another (`keyschema.MAX_*`); `tests/limits.rs` holds all three to
//! the spec's table.

/// The longest key `decode` reads: 65,536 bytes. Longer input is rejected at
/// once with [`DecodeError::TooLong`](crate::DecodeError::TooLong), so
/// hostile input costs nothing to refuse. (Bigtable allows 4 KiB row keys,
/// HBase 32 KiB.) Decoding never recurses on input: nesting is fixed by the
/// key's types.
pub const MAX_KEY_LEN: usize = 65_536;

/// The most components a key can declare (checked at compile time).
pub const MAX_COMPONENTS: usize = 64;

/// The most salt buckets a key can declare, `% 65536`: a two-byte salt
/// (checked at compile time).
pub const MAX_BUCKETS: u32 = 65_536;

/// The most bucket values a range on a bucketed field expands into when the
/// salt hashes the bucket (each bucket is then its own partition): the
/// buckets holding a value of the range, an exclusive end on a bucket's
/// first value leaving that bucket out (`0..60000` over `bucket(day, 30)`
/// is 2,000 buckets).
pub const MAX_BUCKET_EXPANSION: usize = 4096;
