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
pub(crate) fn bucket_of_parts<'a>(parts: impl Iterator<Item = Part<'a>>, buckets: u32) -> u32 {
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
    (u64::from_be_bytes(first) % u64::from(buckets)) as u32
}
