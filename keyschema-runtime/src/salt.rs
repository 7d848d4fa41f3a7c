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

/// The bucket of a hash input under the published rule.
///
/// ```
/// use keyschema::{encode_value, salt};
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
    reduce(first_word(input), buckets)
}

/// SHA-256's initial state (FIPS 180-4, 5.3.3).
const H0: [u32; 8] = [
    0x6a09_e667,
    0xbb67_ae85,
    0x3c6e_f372,
    0xa54f_f53a,
    0x510e_527f,
    0x9b05_688c,
    0x1f83_d9ab,
    0x5be0_cd19,
];

/// The first 8 bytes of SHA-256(`input`), big-endian: the whole digest is
/// never needed. One pass over the input straight through the compression
/// function, with the padding (FIPS 180-4, 5.1.1) built on the stack; a
/// key's salt input (usually under 56 bytes) is a single block.
fn first_word(input: &[u8]) -> u64 {
    let mut state = H0;
    let mut blocks = input.chunks_exact(64);
    for block in &mut blocks {
        compress(&mut state, block);
    }
    let rest = blocks.remainder();
    let bits = (input.len() as u64).wrapping_mul(8).to_be_bytes();
    if rest.len() < 56 {
        // The padding and the length fit after the input in one block.
        let mut tail = [0u8; 64];
        tail[..rest.len()].copy_from_slice(rest);
        tail[rest.len()] = 0x80;
        tail[56..].copy_from_slice(&bits);
        compress(&mut state, &tail);
    } else {
        let mut tail = [0u8; 128];
        tail[..rest.len()].copy_from_slice(rest);
        tail[rest.len()] = 0x80;
        tail[120..].copy_from_slice(&bits);
        compress(&mut state, &tail[..64]);
        compress(&mut state, &tail[64..]);
    }
    (u64::from(state[0]) << 32) | u64::from(state[1])
}

fn compress(state: &mut [u32; 8], block: &[u8]) {
    let block = sha2::digest::generic_array::GenericArray::from_slice(block);
    sha2::compress256(state, std::slice::from_ref(block));
}

/// `hash % buckets`, with a mask when `buckets` is a power of two (the
/// usual choice) instead of a 64-bit division.
#[inline]
fn reduce(hash: u64, buckets: u32) -> u32 {
    if buckets.is_power_of_two() {
        (hash & u64::from(buckets - 1)) as u32
    } else {
        (hash % u64::from(buckets)) as u32
    }
}

/// The width in bytes of the salt for `buckets` buckets.
pub const fn width(buckets: u32) -> usize {
    if buckets <= 256 {
        1
    } else {
        2
    }
}

/// The digits of the largest bucket, `N - 1`: a text key's salt width.
pub const fn decimal_width(buckets: u32) -> usize {
    let mut n = if buckets > 1 { buckets - 1 } else { 1 };
    let mut digits = 0;
    while n > 0 {
        n /= 10;
        digits += 1;
    }
    digits
}

/// Writes `bucket` as zero-padded decimal into `out`.
pub(crate) fn write_decimal(mut bucket: u32, out: &mut [u8]) {
    for b in out.iter_mut().rev() {
        *b = b'0' + (bucket % 10) as u8;
        bucket /= 10;
    }
}

/// Reads a decimal salt; `None` when not all digits.
pub(crate) fn read_decimal(bytes: &[u8]) -> Option<u32> {
    bytes.iter().try_fold(0u32, |acc, &b| {
        b.is_ascii_digit()
            .then(|| acc.saturating_mul(10).saturating_add(u32::from(b - b'0')))
    })
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

/// A piece of the salt's hash input, as it sits in the key.
#[derive(Clone, Copy)]
pub(crate) enum Part<'a> {
    /// Stored as encoded.
    Plain(&'a [u8]),
    /// Stored inverted (`rev`): hashed un-inverted.
    Inverted(&'a [u8]),
    /// Stored byte-reversed (`reverse`): hashed in encoding order.
    Reversed(&'a [u8]),
}

/// The bucket of a hash input given as pieces of key bytes, each hashed as
/// its plain ascending encoding (the rule hashes fields before transforms).
pub(crate) fn bucket_of_parts<'a>(
    parts: impl Iterator<Item = Part<'a>> + Clone,
    buckets: u32,
) -> u32 {
    // Short inputs (all real keys): gather the plain bytes on the stack and
    // hash them in one pass.
    let mut gathered = [0u8; 256];
    let mut len = 0;
    for part in parts.clone() {
        let (Part::Plain(bytes) | Part::Inverted(bytes) | Part::Reversed(bytes)) = part;
        let Some(dst) = gathered.get_mut(len..len + bytes.len()) else {
            len = usize::MAX;
            break;
        };
        match part {
            Part::Plain(_) => dst.copy_from_slice(bytes),
            Part::Inverted(_) => {
                for (d, s) in dst.iter_mut().zip(bytes) {
                    *d = !s;
                }
            }
            Part::Reversed(_) => {
                for (d, s) in dst.iter_mut().zip(bytes.iter().rev()) {
                    *d = *s;
                }
            }
        }
        len += bytes.len();
    }
    if let Some(input) = gathered.get(..len) {
        return bucket(input, buckets);
    }
    let mut hasher = Sha256::new();
    for part in parts {
        match part {
            Part::Plain(bytes) => hasher.update(bytes),
            Part::Inverted(bytes) => {
                let mut chunk = [0u8; 64];
                for piece in bytes.chunks(chunk.len()) {
                    for (dst, src) in chunk.iter_mut().zip(piece) {
                        *dst = !src;
                    }
                    hasher.update(&chunk[..piece.len()]);
                }
            }
            Part::Reversed(bytes) => {
                // Fixed-width integers: at most 16 bytes.
                let mut chunk = [0u8; 64];
                for piece in bytes.rchunks(chunk.len()) {
                    for (dst, src) in chunk.iter_mut().zip(piece.iter().rev()) {
                        *dst = *src;
                    }
                    hasher.update(&chunk[..piece.len()]);
                }
            }
        }
    }
    finish(hasher, buckets)
}

type Chooser = Box<dyn FnMut(u32) -> u32>;

thread_local! {
    static CHOOSER: std::cell::RefCell<Option<Chooser>> = const { std::cell::RefCell::new(None) };
    static STATE: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// The bucket a `random % N` key is written to: from the chooser set on this
/// thread by [`set_chooser`], or else a fast thread-local generator.
pub fn choose(buckets: u32) -> u32 {
    let chosen = CHOOSER.with(|c| c.borrow_mut().as_mut().map(|f| f(buckets)));
    match chosen {
        Some(b) => b % buckets.max(1),
        None => (next_random() % u64::from(buckets.max(1))) as u32,
    }
}

/// Makes this thread's random salts deterministic (tests, replays): the
/// chooser gets N and returns a bucket (taken modulo N). `None` restores
/// the random choice.
///
/// ```
/// use keyschema::salt;
///
/// let mut next = 0;
/// salt::set_chooser(Some(Box::new(move |n| { next = (next + 1) % n; next })));
/// assert_eq!((salt::choose(10), salt::choose(10)), (1, 2));
/// salt::set_chooser(None);
/// ```
pub fn set_chooser(chooser: Option<Box<dyn FnMut(u32) -> u32>>) {
    CHOOSER.with(|c| *c.borrow_mut() = chooser);
}

/// splitmix64 over a per-thread state seeded from the clock and the thread.
fn next_random() -> u64 {
    STATE.with(|state| {
        let mut x = state.get();
        if x == 0 {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as u64);
            let local = 0u8;
            x = nanos ^ (std::ptr::addr_of!(local) as u64).rotate_left(32) | 1;
        }
        x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
        state.set(x);
        let mut z = x;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    })
}

fn finish(hasher: Sha256, buckets: u32) -> u32 {
    let digest = hasher.finalize();
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    reduce(u64::from_be_bytes(first), buckets)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one-pass digest agrees with sha2's own at every padding boundary
    /// (55/56/63/64 bytes and their multiples), and the reduction with `%`.
    #[test]
    fn first_word_is_sha256_prefix() {
        let data: Vec<u8> = (0..300u32).map(|i| (i * 131 + 7) as u8).collect();
        for len in 0..data.len() {
            let digest = Sha256::digest(&data[..len]);
            let mut first = [0u8; 8];
            first.copy_from_slice(&digest[..8]);
            let want = u64::from_be_bytes(first);
            assert_eq!(first_word(&data[..len]), want, "length {len}");
            for buckets in [1, 2, 7, 8, 256, 1000, 65_536] {
                assert_eq!(
                    bucket(&data[..len], buckets),
                    (want % u64::from(buckets)) as u32,
                    "length {len}, {buckets} buckets"
                );
            }
        }
    }

    /// Parts are hashed as their plain bytes, on the stack or (past 256
    /// bytes) through the streaming hasher.
    #[test]
    fn parts_hash_their_plain_bytes() {
        for len in [0usize, 3, 100, 200, 300, 1000] {
            let plain: Vec<u8> = (0..len).map(|i| (i * 37) as u8).collect();
            let inverted: Vec<u8> = plain.iter().map(|b| !b).collect();
            let reversed: Vec<u8> = plain.iter().rev().copied().collect();
            let mut all = plain.clone();
            all.extend(&plain);
            all.extend(&plain);
            let parts = [
                Part::Plain(&plain),
                Part::Inverted(&inverted),
                Part::Reversed(&reversed),
            ];
            assert_eq!(
                bucket_of_parts(parts.iter().copied(), 1000),
                bucket(&all, 1000),
                "length {len}"
            );
        }
    }
}
