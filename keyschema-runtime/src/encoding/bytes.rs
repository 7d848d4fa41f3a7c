//! Strings and byte strings: 0x00 and 0x01 escaped by a 0x01 in front, then a 0x00 terminator.
//! Fixed-size arrays: their bytes as they are.

use super::{Base, Encoding, KeyArg, KeyComponent, Reader};
use crate::error::DecodeError;

/// Ends every string and byte-string encoding.
pub(crate) const TERMINATOR: u8 = 0x00;
/// Precedes a 0x00 or 0x01 byte inside a string.
pub(crate) const ESCAPE: u8 = 0x01;

#[inline]
pub(crate) fn encode_escaped(value: &[u8], out: &mut Vec<u8>) {
    if !needs_escape(value) {
        // Nearly every real string: copied as it is.
        out.reserve(value.len() + 1);
        out.extend_from_slice(value);
        out.push(TERMINATOR);
    } else {
        encode_escaped_slow(value, out);
    }
}

/// Whether `value` holds a 0x00 or 0x01 byte.
#[inline]
fn needs_escape(value: &[u8]) -> bool {
    find_special(value).is_some()
}

/// The index of the first 0x00 or 0x01 byte (a terminator or an escape),
/// eight bytes at a time. Per lane, `x - 0x02` sets the high bit where `x`
/// had it clear only when the lane is below 2 or a borrow came in from a
/// lower lane; a borrow only starts at a lane below 2, so the lowest flagged
/// lane is exactly the first special byte.
#[inline]
pub(crate) fn find_special(value: &[u8]) -> Option<usize> {
    const TWOS: u64 = 0x0202_0202_0202_0202;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut words = value.chunks_exact(8);
    let mut at = 0;
    for word in &mut words {
        let mut lanes = [0u8; 8];
        lanes.copy_from_slice(word);
        let x = u64::from_le_bytes(lanes);
        let flags = x.wrapping_sub(TWOS) & !x & HIGH;
        if flags != 0 {
            return Some(at + (flags.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    words
        .remainder()
        .iter()
        .position(|&b| b <= ESCAPE)
        .map(|n| at + n)
}

#[cold]
fn encode_escaped_slow(value: &[u8], out: &mut Vec<u8>) {
    out.reserve(value.len() + 2);
    let mut rest = value;
    while let Some(n) = rest.iter().position(|&b| b <= ESCAPE) {
        out.extend_from_slice(&rest[..n]);
        out.push(ESCAPE);
        out.push(rest[n]);
        rest = &rest[n + 1..];
    }
    out.extend_from_slice(rest);
    out.push(TERMINATOR);
}

/// Appends `c` for a human reader: printable characters as they are,
/// the separator `|`, `\` and control characters escaped.
pub(crate) fn push_escaped_char(out: &mut String, c: char) {
    match c {
        '|' => out.push_str("\\|"),
        '\\' => out.push_str("\\\\"),
        c if c.is_control() => out.extend(c.escape_default()),
        c => out.push(c),
    }
}

impl KeyComponent for String {
    type Ref<'a> = &'a str;
    const ENCODING: Option<Encoding> = Some(Encoding::of(Base::String));

    fn as_key_ref(&self) -> &str {
        self
    }
    fn encode_key(value: &str, out: &mut Vec<u8>) {
        encode_escaped(value.as_bytes(), out)
    }
    #[inline(always)]
    fn decode_key(input: &mut Reader<'_>) -> Result<Self, DecodeError> {
        let bytes = input.read_escaped_owned("a string ending in 0x00")?;
        String::from_utf8(bytes).map_err(|_| input.invalid_utf8())
    }
    /// Into the slot's own buffer: no allocation once it has room. A
    /// string equal to the slot's is kept as it is: neither copied nor
    /// validated again.
    #[inline(always)]
    fn decode_key_into(slot: &mut String, input: &mut Reader<'_>) -> Result<(), DecodeError> {
        if let Some(plain) = input.read_plain_terminated() {
            // Rows read in key order often repeat a component (a user's
            // rows are adjacent): the slot already holds it, validated.
            if !same_bytes(slot.as_bytes(), plain) {
                slot.clear();
                slot.push_str(std::str::from_utf8(plain).map_err(|_| input.invalid_utf8())?);
            }
            return Ok(());
        }
        let mut bytes = std::mem::take(slot).into_bytes();
        bytes.clear();
        input.read_escaped(&mut bytes, "a string ending in 0x00")?;
        *slot = String::from_utf8(bytes).map_err(|_| input.invalid_utf8())?;
        Ok(())
    }
    fn render_key(input: &mut Reader<'_>, out: &mut String) -> Result<(), DecodeError> {
        let value = Self::decode_key(input)?;
        for c in value.chars() {
            push_escaped_char(out, c);
        }
        Ok(())
    }
}

impl KeyArg<String> for &str {
    fn encode_arg(&self, out: &mut Vec<u8>) {
        encode_escaped(self.as_bytes(), out)
    }
}

impl KeyArg<String> for &String {
    fn encode_arg(&self, out: &mut Vec<u8>) {
        encode_escaped(self.as_bytes(), out)
    }
}

impl KeyComponent for Vec<u8> {
    type Ref<'a> = &'a [u8];
    const ENCODING: Option<Encoding> = Some(Encoding::of(Base::Bytes));

    fn as_key_ref(&self) -> &[u8] {
        self
    }
    fn encode_key(value: &[u8], out: &mut Vec<u8>) {
        encode_escaped(value, out)
    }
    fn decode_key(input: &mut Reader<'_>) -> Result<Self, DecodeError> {
        input.read_escaped_owned("a byte string ending in 0x00")
    }
    /// Into the slot's own buffer: no allocation once it has room.
    #[inline]
    fn decode_key_into(slot: &mut Vec<u8>, input: &mut Reader<'_>) -> Result<(), DecodeError> {
        slot.clear();
        if let Some(plain) = input.read_plain_terminated() {
            slot.extend_from_slice(plain);
            return Ok(());
        }
        input.read_escaped(slot, "a byte string ending in 0x00")
    }
    fn render_key(input: &mut Reader<'_>, out: &mut String) -> Result<(), DecodeError> {
        let value = Self::decode_key(input)?;
        out.push_str("0x");
        for b in value {
            super::push_hex(out, b);
        }
        Ok(())
    }
}

impl KeyArg<Vec<u8>> for &[u8] {
    fn encode_arg(&self, out: &mut Vec<u8>) {
        encode_escaped(self, out)
    }
}

impl KeyArg<Vec<u8>> for &Vec<u8> {
    fn encode_arg(&self, out: &mut Vec<u8>) {
        encode_escaped(self, out)
    }
}

impl<const N: usize> KeyArg<Vec<u8>> for &[u8; N] {
    fn encode_arg(&self, out: &mut Vec<u8>) {
        encode_escaped(&self[..], out)
    }
}

impl<const N: usize> KeyComponent for [u8; N] {
    type Ref<'a> = &'a [u8; N];
    const FIXED_WIDTH: Option<usize> = Some(N);
    const ENCODING: Option<Encoding> = Some(Encoding::of(Base::Array(N)));

    fn as_key_ref(&self) -> &[u8; N] {
        self
    }
    fn encode_key(value: &[u8; N], out: &mut Vec<u8>) {
        out.extend_from_slice(value);
    }
    fn decode_key(input: &mut Reader<'_>) -> Result<Self, DecodeError> {
        input.read_array("a fixed-size byte array")
    }
    fn render_key(input: &mut Reader<'_>, out: &mut String) -> Result<(), DecodeError> {
        let value: [u8; N] = Self::decode_key(input)?;
        out.push_str("0x");
        for b in value {
            super::push_hex(out, b);
        }
        Ok(())
    }
}

impl<const N: usize> KeyArg<[u8; N]> for &[u8; N] {
    fn encode_arg(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self[..])
    }
}

/// Whether `a` and `b` hold the same bytes: for 4 to 16 bytes (most key
/// strings) by two overlapping word loads each, inline, where `==` calls
/// `memcmp`.
#[inline(always)]
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    // The first and last N bytes, overlapping: a fixed-size compare each.
    fn ends<const N: usize>(x: &[u8]) -> Option<(&[u8; N], &[u8; N])> {
        Some((x.first_chunk::<N>()?, x.last_chunk::<N>()?))
    }
    match a.len() {
        8..=16 => ends::<8>(a) == ends::<8>(b),
        4..=7 => ends::<4>(a) == ends::<4>(b),
        _ => a == b,
    }
}

/// Copies `bytes` to the front of `buffer` (grown to fit, never shrunk)
/// and returns their length: for 4 to 32 bytes (most keys and small
/// values) by two overlapping fixed-size moves, inline, where
/// `copy_from_slice` calls `memcpy`. The copy is `buffer[..returned]`.
#[inline(always)]
pub(crate) fn copy_front(buffer: &mut Vec<u8>, bytes: &[u8]) -> usize {
    let n = bytes.len();
    if buffer.len() < n {
        buffer.resize(n, 0);
    }
    let Some(to) = buffer.get_mut(..n) else {
        return 0;
    };
    // The first and last N bytes, overlapping: a fixed-size move each.
    fn ends<const N: usize>(to: &mut [u8], from: &[u8]) {
        if let (Some(a), Some(b)) = (to.first_chunk_mut::<N>(), from.first_chunk::<N>()) {
            *a = *b;
        }
        if let (Some(a), Some(b)) = (to.last_chunk_mut::<N>(), from.last_chunk::<N>()) {
            *a = *b;
        }
    }
    match n {
        16..=32 => ends::<16>(to, bytes),
        8..=15 => ends::<8>(to, bytes),
        4..=7 => ends::<4>(to, bytes),
        _ => to.copy_from_slice(bytes),
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The inline copy puts exactly the bytes at the front, for every
    /// length to 40, into buffers shorter and longer than them.
    #[test]
    fn copy_front_copies_exactly() {
        for n in 0..=40usize {
            let bytes: Vec<u8> = (0..n as u8).map(|i| i.wrapping_mul(29) ^ 0x5a).collect();
            for held in [0usize, 3, n, n + 7] {
                let mut buffer = vec![0xeeu8; held];
                let len = copy_front(&mut buffer, &bytes);
                assert_eq!(len, n);
                assert_eq!(&buffer[..len], &bytes[..], "{n} into {held}");
                assert_eq!(buffer.len(), held.max(n));
                assert!(buffer[n..].iter().all(|&b| b == 0xee || b == 0), "{n}");
            }
        }
    }

    /// The word-at-a-time test agrees with a byte loop for every byte value
    /// at every position of strings up to 24 bytes, over various fillers.
    #[test]
    fn find_special_matches_byte_loop() {
        for len in 0..24 {
            for filler in [0x00u8, 0x01, 0x02, 0x7f, 0x80, 0xfe, 0xff] {
                for at in 0..len {
                    for b in 0..=255u8 {
                        let mut value = vec![filler; len];
                        value[at] = b;
                        let want = value.iter().position(|&b| b <= 1);
                        assert_eq!(find_special(&value), want, "{value:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn needs_escape_matches_byte_loop() {
        for len in 1..24 {
            for filler in [0x02u8, 0x7f, 0x80, 0xfe, 0xff] {
                for at in 0..len {
                    for b in 0..=255u8 {
                        let mut value = vec![filler; len];
                        value[at] = b;
                        assert_eq!(needs_escape(&value), b <= 1, "{value:?}");
                    }
                }
            }
        }
        assert!(!needs_escape(b""));
    }

    /// The inline comparison agrees with `==` on every length to 20, for
    /// equal bytes and for a difference at every position.
    #[test]
    fn same_bytes_is_equality() {
        for n in 0..=20usize {
            let a: Vec<u8> = (0..n as u8).map(|i| i.wrapping_mul(37)).collect();
            assert!(super::same_bytes(&a, &a.clone()), "{n}");
            for at in 0..n {
                let mut b = a.clone();
                b[at] ^= 0x40;
                assert!(!super::same_bytes(&a, &b), "{n} {at}");
            }
            assert!(!super::same_bytes(&a, &a[..n.saturating_sub(1)]) || n == 0);
        }
    }
}
