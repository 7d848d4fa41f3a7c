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

/// The deepest a value field's value nests: 128 levels of arrays and maps
/// (a `Vec<Vec<u8>>` holding one list is 2). A write of a deeper value is
/// refused before anything is sent ([`ValueError::Field`](crate::ValueError::Field)),
/// and a stored one is refused when read, before it is recursed into: a
/// reader recurses once per level, and a row another program wrote 500
/// levels deep would otherwise overflow a 2 MiB thread stack (a tokio
/// worker's) in a debug build. DynamoDB holds 32 levels at most
/// ([`store::dynamodb::MAX_DEPTH`](crate::store::dynamodb::MAX_DEPTH)).
pub const MAX_NESTING: usize = 128;

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

/// A key longer than [`MAX_KEY_LEN`] given to a write: refused by the
/// embedded stores (memory, redb), since no key type would decode it back
/// (Bigtable refuses keys over 4 KiB and DynamoDB its own limits before
/// sending).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("a key of {len} bytes (starting {}...) is longer than MAX_KEY_LEN ({MAX_KEY_LEN}): the store would keep it, but no key type decodes it back; keep long text in a value field, not in the key", ShortKey(key_start))]
pub struct KeyTooLong {
    /// The key's length.
    pub len: usize,
    /// Its first 64 bytes.
    pub key_start: Vec<u8>,
}

/// Refuses `key` when it is longer than [`MAX_KEY_LEN`].
pub fn check_key_len(key: &[u8]) -> Result<(), KeyTooLong> {
    if key.len() <= MAX_KEY_LEN {
        return Ok(());
    }
    Err(KeyTooLong {
        len: key.len(),
        key_start: key[..SHOWN].to_vec(),
    })
}

/// The bytes of a key an error shows.
const SHOWN: usize = 64;

/// A key in an error message: escaped, and cut after 64 bytes with its
/// length, so a hostile or runaway key does not fill a log.
pub struct ShortKey<'k>(pub &'k [u8]);

impl std::fmt::Display for ShortKey<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0.get(..SHOWN) {
            Some(start) if self.0.len() > SHOWN => {
                write!(f, "{}... ({} bytes)", start.escape_ascii(), self.0.len())
            }
            _ => write!(f, "{}", self.0.escape_ascii()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_keys_are_refused_and_shown_short() {
        assert!(check_key_len(&[b'a'; MAX_KEY_LEN]).is_ok());
        let err = check_key_len(&[b'a'; MAX_KEY_LEN + 1]).unwrap_err();
        assert_eq!(err.len, MAX_KEY_LEN + 1);
        let message = err.to_string();
        assert!(message.len() < 400, "{message}");
        assert!(
            message.contains("a key of 65537 bytes (starting aaaa"),
            "{message}"
        );
        assert_eq!(
            ShortKey(&[b'k'; 70]).to_string(),
            format!("{}... (70 bytes)", "k".repeat(64))
        );
        assert_eq!(ShortKey(b"a\x00").to_string(), "a\\x00");
    }
}
