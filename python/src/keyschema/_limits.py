"""The limits of docs/ENCODING.md, "Limits" (tests/limits.rs checks that
this copy, the Rust one and the spec's table agree)."""

MAX_KEY_LEN = 65536
MAX_COMPONENTS = 64
MAX_BUCKETS = 65536
MAX_BUCKET_EXPANSION = 4096
MAX_NESTING = 128
