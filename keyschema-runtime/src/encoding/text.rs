//! The readable text form of components, for `format = text(sep = "#")`.
//!
//! Numbers are zero-padded decimal of fixed width (signed ones offset by
//! 2^(bits-1)), so text order is numeric order; `rev` of a number is its
//! digit complement (9 - d). Strings are UTF-8 with `%` and the separator
//! written `%25` and `%XX`; byte strings, byte arrays and floats are
//! lowercase hex; `bool` is `0`/`1`; `Option` is `-` (None) or `=` followed
//! by the value. Variable-width components are followed by the separator,
//! which never occurs inside them, so keys stay prefix-free. The exact rules
//! and where text order differs from value order are in `docs/ENCODING.md`.

use super::KeyComponent;

/// Why a component's text does not decode.
pub type TextError = &'static str;

/// A component type with a readable text form.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no readable text form for `format = text(...)`",
    label = "not a text key component",
    note = "text keys support integers, bool, char, String, Vec<u8>, [u8; N], f32, f64, the uuid, chrono and time types, derived newtypes and enums, and Option of those; implement `keyschema::TextComponent` for your type, or use the binary format"
)]
pub trait TextComponent: KeyComponent {
    /// The width of every text form when it is fixed; `None` when the text
    /// is variable and ends at the separator.
    const TEXT_WIDTH: Option<usize>;

    /// Appends the text form. Variable-width forms must never contain `sep`.
    fn encode_text(value: Self::Ref<'_>, out: &mut Vec<u8>, sep: u8);

    /// Reads a value back from exactly its text form (without separator).
    fn decode_text(text: &[u8], sep: u8) -> Result<Self, TextError>;
}

/// A text form made of decimal digits only: `rev` complements its digits.
#[diagnostic::on_unimplemented(
    message = "`rev(...)` in a text key needs a number, and `{Self}` is not one",
    label = "no digit complement",
    note = "in `format = text(...)`, `rev` writes the 9-complement of a zero-padded number; for other types use the binary format"
)]
pub trait TextDigits: TextComponent {}

/// A text form whose byte order is the value order: fixed-width numbers,
/// `bool`, byte arrays, floats, and `Option` of those. A scan may bind a
/// range on such a component of a text key.
///
/// Strings, `char` and `Vec<u8>` are not: a variable-width text is
/// followed by the separator, so `"A"` (`A_`) sorts after `"A1"` (`A1_`)
/// under `sep = "_"`, and escapes (`%5F`) sort by their `%`. A range over
/// them would silently miss rows, so it does not compile.
#[diagnostic::on_unimplemented(
    message = "a range on `{Self}` in a text key would not be exact",
    label = "range scan refused here",
    note = "in `format = text(...)` a variable-width text is followed by the separator, so text order is not value order (with sep = \"_\", \"A1\" sorts before \"A\"): a range would miss rows",
    note = "bind this component by equality (`.field(value)`), or declare the key `format = binary` (memcomparable: ranges on strings are exact), or scan a coarser prefix and filter the rows"
)]
pub trait TextOrdered: TextComponent {}

macro_rules! text_ordered {
    ($($t:ty),*) => {$(impl TextOrdered for $t {})*};
}
text_ordered!(u8, u16, u32, u64, u128, i8, i16, i32, i64, i128, bool, f32, f64);
impl<const N: usize> TextOrdered for [u8; N] {}
/// `-` (None) sorts before `=` (Some), and the value after `=` has a fixed
/// width, so the separator never decides the order.
impl<T: TextOrdered> TextOrdered for Option<T> {}

fn digits(mut v: u128, width: usize, out: &mut Vec<u8>) {
    let start = out.len();
    out.resize(start + width, b'0');
    for i in (start..start + width).rev() {
        out[i] = b'0' + (v % 10) as u8;
        v /= 10;
    }
}

fn parse_digits(text: &[u8]) -> Result<u128, TextError> {
    let mut v: u128 = 0;
    for &c in text {
        if !c.is_ascii_digit() {
            return Err("expected decimal digits");
        }
        v = v
            .checked_mul(10)
            .and_then(|v| v.checked_add(u128::from(c - b'0')))
            .ok_or("number too large")?;
    }
    Ok(v)
}

macro_rules! text_unsigned {
    ($($t:ty => $w:expr),*) => {$(
        impl TextComponent for $t {
            const TEXT_WIDTH: Option<usize> = Some($w);
            fn encode_text(value: $t, out: &mut Vec<u8>, _sep: u8) {
                digits(value as u128, $w, out);
            }
            fn decode_text(text: &[u8], _sep: u8) -> Result<Self, TextError> {
                if text.len() != $w {
                    return Err("wrong number of digits");
                }
                <$t>::try_from(parse_digits(text)?).map_err(|_| "number out of range")
            }
        }
        impl TextDigits for $t {}
    )*};
}

macro_rules! text_signed {
    ($($t:ty : $u:ty => $w:expr),*) => {$(
        impl TextComponent for $t {
            const TEXT_WIDTH: Option<usize> = Some($w);
            fn encode_text(value: $t, out: &mut Vec<u8>, _sep: u8) {
                // Offset by 2^(bits-1): MIN..=MAX onto 0..=2^bits-1, in order.
                let shifted = (value as $u) ^ (1 << (<$u>::BITS - 1));
                digits(shifted as u128, $w, out);
            }
            fn decode_text(text: &[u8], _sep: u8) -> Result<Self, TextError> {
                if text.len() != $w {
                    return Err("wrong number of digits");
                }
                let shifted = <$u>::try_from(parse_digits(text)?).map_err(|_| "number out of range")?;
                Ok((shifted ^ (1 << (<$u>::BITS - 1))) as $t)
            }
        }
        impl TextDigits for $t {}
    )*};
}

text_unsigned!(u8 => 3, u16 => 5, u32 => 10, u64 => 20, u128 => 39);
text_signed!(i8: u8 => 3, i16: u16 => 5, i32: u32 => 10, i64: u64 => 20, i128: u128 => 39);

impl TextComponent for bool {
    const TEXT_WIDTH: Option<usize> = Some(1);
    fn encode_text(value: bool, out: &mut Vec<u8>, _sep: u8) {
        out.push(if value { b'1' } else { b'0' });
    }
    fn decode_text(text: &[u8], _sep: u8) -> Result<Self, TextError> {
        match text {
            b"0" => Ok(false),
            b"1" => Ok(true),
            _ => Err("expected 0 or 1"),
        }
    }
}

fn escape_text(value: &[u8], out: &mut Vec<u8>, sep: u8) {
    for &b in value {
        if b == b'%' || b == sep {
            out.extend_from_slice(format!("%{b:02X}").as_bytes());
        } else {
            out.push(b);
        }
    }
}

/// Reads text written by [`escape_text`], and only that: `%` must start
/// `%25` or the separator's escape, in uppercase hex, so every string has
/// exactly one text form (`%41` for `A` is refused, not read as `A`).
fn unescape_text(text: &[u8], sep: u8) -> Result<Vec<u8>, TextError> {
    let mut out = Vec::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        if text[i] == b'%' {
            let Some(&[hi, lo]) = text.get(i + 1..i + 3) else {
                return Err("truncated %XX escape");
            };
            let byte = match (upper_nibble(hi), upper_nibble(lo)) {
                (Some(hi), Some(lo)) => hi << 4 | lo,
                _ => return Err("bad %XX escape: expected two uppercase hex digits"),
            };
            if byte != b'%' && byte != sep {
                return Err("needless %XX escape: only % and the separator are escaped");
            }
            out.push(byte);
            i += 3;
        } else {
            out.push(text[i]);
            i += 1;
        }
    }
    Ok(out)
}

impl TextComponent for String {
    const TEXT_WIDTH: Option<usize> = None;
    fn encode_text(value: &str, out: &mut Vec<u8>, sep: u8) {
        escape_text(value.as_bytes(), out, sep);
    }
    fn decode_text(text: &[u8], sep: u8) -> Result<Self, TextError> {
        String::from_utf8(unescape_text(text, sep)?).map_err(|_| "not UTF-8")
    }
}

impl TextComponent for char {
    const TEXT_WIDTH: Option<usize> = None;
    fn encode_text(value: char, out: &mut Vec<u8>, sep: u8) {
        escape_text(value.encode_utf8(&mut [0; 4]).as_bytes(), out, sep);
    }
    fn decode_text(text: &[u8], sep: u8) -> Result<Self, TextError> {
        let s = String::from_utf8(unescape_text(text, sep)?).map_err(|_| "not UTF-8")?;
        let mut chars = s.chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) => Ok(c),
            _ => Err("expected one character"),
        }
    }
}

fn hex(bytes: &[u8], out: &mut Vec<u8>) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    for &b in bytes {
        out.push(DIGITS[usize::from(b >> 4)]);
        out.push(DIGITS[usize::from(b & 0xF)]);
    }
}

/// The value of an uppercase hex digit (`%XX` escapes).
fn upper_nibble(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

/// The value of a lowercase hex digit (byte strings, floats).
fn lower_nibble(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    }
}

/// Reads lowercase hex, and only that (no sign, no uppercase), so every
/// byte string has exactly one text form.
fn unhex(text: &[u8]) -> Result<Vec<u8>, TextError> {
    if !text.len().is_multiple_of(2) {
        return Err("odd number of hex digits");
    }
    text.chunks_exact(2)
        .map(
            |pair| match (lower_nibble(pair[0]), lower_nibble(pair[1])) {
                (Some(hi), Some(lo)) => Ok(hi << 4 | lo),
                _ => Err("expected lowercase hex digits"),
            },
        )
        .collect()
}

impl TextComponent for Vec<u8> {
    const TEXT_WIDTH: Option<usize> = None;
    fn encode_text(value: &[u8], out: &mut Vec<u8>, _sep: u8) {
        hex(value, out);
    }
    fn decode_text(text: &[u8], _sep: u8) -> Result<Self, TextError> {
        unhex(text)
    }
}

impl<const N: usize> TextComponent for [u8; N] {
    const TEXT_WIDTH: Option<usize> = Some(2 * N);
    fn encode_text(value: &[u8; N], out: &mut Vec<u8>, _sep: u8) {
        hex(value, out);
    }
    fn decode_text(text: &[u8], _sep: u8) -> Result<Self, TextError> {
        unhex(text)?.try_into().map_err(|_| "wrong length")
    }
}

macro_rules! text_float {
    ($($t:ty : $w:expr),*) => {$(
        impl TextComponent for $t {
            const TEXT_WIDTH: Option<usize> = Some($w);
            fn encode_text(value: $t, out: &mut Vec<u8>, _sep: u8) {
                // The ordered binary bits as hex: total order, exact round trip.
                let mut bin = Vec::with_capacity($w / 2);
                <$t as KeyComponent>::encode_key(value, &mut bin);
                hex(&bin, out);
            }
            fn decode_text(text: &[u8], _sep: u8) -> Result<Self, TextError> {
                let bin = unhex(text)?;
                super::decode_value::<$t>(&bin).map_err(|_| "bad float bits")
            }
        }
    )*};
}
text_float!(f32: 8, f64: 16);

impl<T: TextComponent> TextComponent for Option<T> {
    const TEXT_WIDTH: Option<usize> = None;
    fn encode_text(value: Option<T::Ref<'_>>, out: &mut Vec<u8>, sep: u8) {
        match value {
            None => out.push(b'-'),
            Some(v) => {
                out.push(b'=');
                T::encode_text(v, out, sep);
            }
        }
    }
    fn decode_text(text: &[u8], sep: u8) -> Result<Self, TextError> {
        match text.split_first() {
            Some((b'-', [])) => Ok(None),
            Some((b'=', rest)) => T::decode_text(rest, sep).map(Some),
            _ => Err("expected - (None) or = (Some)"),
        }
    }
}

/// The 9-complement of decimal digits (`rev` of a text number).
pub(crate) fn complement_digits(text: &mut [u8]) {
    for c in text {
        if c.is_ascii_digit() {
            *c = b'9' - (*c - b'0');
        }
    }
}

/// The text form of a component given its binary encoding (scans bind
/// components through their binary encodings).
pub(crate) fn binary_to_text<T: TextComponent>(
    binary: &[u8],
    out: &mut Vec<u8>,
    sep: u8,
) -> Result<(), crate::error::DecodeError> {
    let value = super::decode_value::<T>(binary)?;
    T::encode_text(value.as_key_ref(), out, sep);
    Ok(())
}
