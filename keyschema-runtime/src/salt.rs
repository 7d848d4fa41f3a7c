//! The salt rule: which bucket a key falls into.
//!
//! For a schema with `salt = hash(f1, f2, ...) % N`, the bucket is
//!
//! ```text
//! u64::from_be_bytes(SHA-256(enc(f1) || enc(f2) || ...)[0..8]) % N
//! ```
//!
//! where `enc` is the ascending binary encoding of each hashed field (before
//! `rev`, whatever the key's format), in the order written inside `hash(...)`.
//! Because every encoding is self-delimiting, `("ab", "c")` and `("a", "bc")`
//! hash differently. The salt is written before the first component: one byte
//! when `N <= 256`, two bytes big-endian when `N <= 65,536`.
//!
//! This is a published rule: `docs/ENCODING.md` has test vectors, so a client
//! in another language computes the same buckets.

use sha2::{Digest, Sha256};

/// The largest bucket count a schema can declare (a two-byte salt).
pub const MAX_BUCKETS: u32 = 65_536;

/// The bucket of a hash input under the published rule.
///
/// ```
/// use keyschema::{encoding::encode_value, salt};
///
/// // The salt input of `hash(user_id, site)` for ("u1", "s").
/// let mut input = encode_value::<String>("u1");
/// input.extend(encode_value::<String>("s"));
/// assert_eq!(salt::bucket(&input, 8), 3);
/// ```
///
/// # Panics
///
/// When `buckets` is 0. Schemas never have 0 buckets: the derive rejects `% 0`.
pub fn bucket(input: &[u8], buckets: u32) -> u32 {
    finish(Sha256::new().chain_update(input), buckets)
}

/// The width in bytes of the salt for `buckets` buckets.
pub const fn width(buckets: u32) -> usize {
    if buckets <= 256 {
        1
    } else {
        2
    }
}

/// Writes the salt bytes of `bucket` into `out` (which is `width(buckets)` long).
pub(crate) fn write(bucket: u32, out: &mut [u8]) {
    match out {
        [one] => *one = bucket as u8,
        [hi, lo] => {
            *hi = (bucket >> 8) as u8;
            *lo = bucket as u8;
        }
        _ => unreachable!("salt width is 1 or 2"),
    }
}

/// Reads a salt of `width` bytes.
pub(crate) fn read(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0u32, |acc, &b| (acc << 8) | u32::from(b))
}

/// The bucket of a hash input given as pieces of key bytes, some of which are
/// stored inverted (components declared `rev`) and are hashed un-inverted.
pub(crate) fn bucket_of_parts<'a>(
    parts: impl Iterator<Item = (&'a [u8], bool)>,
    buckets: u32,
) -> u32 {
    let mut hasher = Sha256::new();
    for (bytes, inverted) in parts {
        if !inverted {
            hasher.update(bytes);
            continue;
        }
        let mut chunk = [0u8; 64];
        for piece in bytes.chunks(chunk.len()) {
            for (dst, src) in chunk.iter_mut().zip(piece) {
                *dst = !src;
            }
            hasher.update(&chunk[..piece.len()]);
        }
    }
    finish(hasher, buckets)
}

fn finish(hasher: Sha256, buckets: u32) -> u32 {
    let digest = hasher.finalize();
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    (u64::from_be_bytes(first) % u64::from(buckets)) as u32
}
