//! The limits and reserved names the derive enforces. The runtime holds the
//! same limits (`keyschema::MAX_COMPONENTS`, `MAX_BUCKETS`,
//! `MAX_BUCKET_EXPANSION`); `tests/limits.rs` checks that the two agree, and
//! a unit test of `expand` checks that `SCAN_METHODS` are exactly the
//! methods every scan stage has.

/// The most components a key can declare.
pub const MAX_COMPONENTS: usize = 64;

/// The largest bucket count: a two-byte salt.
pub const MAX_BUCKETS: u64 = 65_536;

/// The most bucket values a range on a hashed bucket expands into.
pub const MAX_BUCKET_EXPANSION: usize = 4_096;

/// The methods every scan builder stage has; a key field cannot share a name.
pub const SCAN_METHODS: [&str; 10] = [
    "ranges",
    "request",
    "limit",
    "reverse",
    "unordered",
    "concurrency",
    "after",
    "run",
    "stream",
    "project",
];
