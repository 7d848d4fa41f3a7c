//! Order-preserving, self-delimiting encodings of key components.
//!
//! Every supported type implements [`KeyComponent`]. Its encoding has two
//! properties that the rest of the crate relies on:
//!
//! * **order**: comparing two encodings byte-wise gives the same answer as
//!   comparing the values;
//! * **prefix-freedom**: no encoding is a proper prefix of another, so a key
//!   can be cut into components without lengths or separators, a prefix scan
//!   on `"u1"` never matches `"u10"`, and inverting a component's bytes
//!   (`rev`) gives exactly the descending order.
//!
//! The byte layout of each type is specified in `docs/ENCODING.md`.

use crate::error::DecodeError;

/// Inverts every byte: how `rev` components are stored.
#[inline]
pub(crate) fn invert(bytes: &mut [u8]) {
    for b in bytes {
        *b = !*b;
    }
}

/// A type that can be a row-key component.
///
/// Implemented for `u8`..`u128`, `i8`..`i128`, `bool`, `char`, `String`,
/// `Vec<u8>`, `[u8; N]`, `f32`, `f64` and `Option<T>` of any of them; with
/// the feature `uuid`, for `uuid::Uuid`; with `chrono`, for
/// `chrono::DateTime<Utc>`, `NaiveDateTime` and `NaiveDate`; with `time`,
/// for `time::OffsetDateTime`, `PrimitiveDateTime` and `Date`.
///
/// # Implementing it for your own type
///
/// `#[derive(KeyComponent)]` writes it for a newtype (delegating every
/// item to the wrapped type) and for a fieldless enum (its discriminant, so
/// keys sort by discriminant, rendered by variant name):
///
/// ```
/// use keyschema::{KeyComponent, RowKey};
///
/// #[derive(KeyComponent, Debug, Clone, PartialEq)]
/// struct UserId(String);
///
/// #[derive(KeyComponent, Debug, Clone, Copy, PartialEq)]
/// #[repr(u8)]
/// enum Status { Open = 1, Paid = 2 }
///
/// #[derive(RowKey, Debug, PartialEq)]
/// #[rowkey(then = user, status)]
/// struct Invoice { user: UserId, status: Status }
///
/// let invoice = Invoice { user: UserId("u1".into()), status: Status::Paid };
/// assert_eq!(invoice.encode(), b"u1\x00\x02");
/// assert_eq!(Invoice::render(&invoice.encode()), "u1|Paid");
/// assert_eq!(Invoice::decode(&invoice.encode()), Ok(invoice));
/// ```
///
/// By hand, delegate to the encoding of a type that already implements it. The
/// encoding you produce must keep the two laws of this module (byte order is
/// value order; no encoding is a prefix of another), which delegation gives
/// for free:
///
/// ```
/// use keyschema::{DecodeError, KeyComponent, Reader, RowKey};
///
/// /// A tenant id, stored in keys as its big-endian `u32`.
/// #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
/// pub struct TenantId(u32);
///
/// impl KeyComponent for TenantId {
///     type Ref<'a> = TenantId;
///     const FIXED_WIDTH: Option<usize> = Some(4);
///     // The bytes are a u32's: tools reading the schema can decode them.
///     const ENCODING: Option<keyschema::Encoding> = u32::ENCODING;
///
///     fn as_key_ref(&self) -> TenantId {
///         *self
///     }
///     fn encode_key(value: TenantId, out: &mut Vec<u8>) {
///         u32::encode_key(value.0, out)
///     }
///     fn decode_key(input: &mut Reader<'_>) -> Result<Self, DecodeError> {
///         u32::decode_key(input).map(TenantId)
///     }
/// }
///
/// #[derive(RowKey, Debug, PartialEq)]
/// #[rowkey(then = tenant, name)]
/// struct Document { tenant: TenantId, name: String }
///
/// let doc = Document { tenant: TenantId(7), name: "readme".into() };
/// assert_eq!(doc.encode(), b"\x00\x00\x00\x07readme\x00");
/// assert_eq!(Document::decode(&doc.encode()), Ok(doc));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a row-key component",
    label = "this type does not implement `keyschema::KeyComponent`",
    note = "key components can be u8..u128, i8..i128, bool, char, String, Vec<u8>, [u8; N], f32, f64, an Option of one of them, and with keyschema's features `uuid`, `chrono`, `time`: uuid::Uuid, chrono's DateTime<Utc>, NaiveDateTime, NaiveDate, time's OffsetDateTime, PrimitiveDateTime, Date",
    note = "for a type of your own crate: `#[derive(keyschema::KeyComponent)]` on a newtype (`struct UserId(String);`) or a fieldless enum, or implement `keyschema::KeyComponent` for `{Self}` (its docs show how); or mark the field `#[rowkey(skip)]` to leave it out of the key",
    note = "for another type of another crate, Rust's orphan rule forbids that impl: wrap it in a newtype of your crate and implement `KeyComponent` for the newtype, delegating to a supported form"
)]
pub trait KeyComponent: Sized {
    /// The borrowed form taken by `get_key` and used to encode: `&str` for
    /// `String`, `&[u8]` for `Vec<u8>`, the value itself for numbers.
    type Ref<'a>: Copy
    where
        Self: 'a;

    /// The width of every encoding when it is fixed (integers, floats,
    /// arrays), `None` for variable-width types. Used to size buffers and to
    /// describe the layout in a [`Schema`](crate::Schema).
    const FIXED_WIDTH: Option<usize> = None;

    /// Which built-in encoding of `docs/ENCODING.md` the bytes are, so that
    /// a schema document ([`Schema::to_json`](crate::Schema::to_json)) can
    /// tell tools and other languages how to read the component. Every
    /// built-in type sets it; a type that delegates to one sets that one's
    /// (`const ENCODING: Option<Encoding> = u32::ENCODING;`). `None` (the
    /// default) leaves the component opaque to tools: they can still split
    /// keys only when the type's bytes are one of the built-in encodings.
    const ENCODING: Option<Encoding> = None;

    /// The usual encoded size, used to reserve buffer space.
    const SIZE_HINT: usize = match Self::FIXED_WIDTH {
        Some(width) => width,
        None => 16,
    };

    /// Borrows the value for encoding.
    fn as_key_ref(&self) -> Self::Ref<'_>;

    /// Appends the encoding of `value` to `out`.
    fn encode_key(value: Self::Ref<'_>, out: &mut Vec<u8>);

    /// Appends the encoding of `value` with every byte inverted (a `rev`
    /// component). The default encodes, then inverts; fixed-width types
    /// override it to write the inverted bytes directly.
    #[inline]
    fn encode_key_desc(value: Self::Ref<'_>, out: &mut Vec<u8>) {
        let start = out.len();
        Self::encode_key(value, out);
        invert(&mut out[start..]);
    }

    /// Reads one encoded value from `input`, leaving it positioned after it.
    fn decode_key(input: &mut Reader<'_>) -> Result<Self, DecodeError>;

    /// Reads one encoded value into `slot`, reusing what it owns: a
    /// `String` or `Vec<u8>` keeps its capacity, so a scan that decodes
    /// every row into the same struct
    /// ([`TypedRows::next_ref`](crate::TypedRows::next_ref))
    /// allocates nothing per row. The default decodes a new value and
    /// assigns it. After an error `slot` holds some valid value.
    #[inline]
    fn decode_key_into(slot: &mut Self, input: &mut Reader<'_>) -> Result<(), DecodeError> {
        *slot = Self::decode_key(input)?;
        Ok(())
    }

    /// Reads one encoded value and appends a human-readable form to `out`, for
    /// logs and tools. The default decodes the value, then renders it as
    /// the built-in type named by [`ENCODING`](Self::ENCODING) renders
    /// (a newtype over `i64` reads `-7`, as its schema document says), or
    /// as hex (`0x0a1b`) without one.
    fn render_key(input: &mut Reader<'_>, out: &mut String) -> Result<(), DecodeError> {
        let mut again = input.clone();
        Self::decode_key(input)?;
        let start = again.offset();
        if let Some(encoding) = Self::ENCODING {
            let mark = out.len();
            let rendered = encoding.render(&mut again, out);
            if rendered.is_ok() && again.offset() == input.offset() {
                return Ok(());
            }
            // Bytes the declared encoding does not read as the type did.
            out.truncate(mark);
        }
        input.render_hex_since(start, out);
        Ok(())
    }
}

/// A fixed-width integer that can be stored byte-reversed, `reverse(field)`:
/// least-significant byte first, so sequential ids (1, 2, 3...) land far
/// apart in the key space instead of all on the last region (the HBase
/// article's reversal of fixed-width ids). Only equality scans make sense on
/// such a component.
#[diagnostic::on_unimplemented(
    message = "`reverse(...)` needs a fixed-width integer, and `{Self}` is not one",
    label = "cannot be stored byte-reversed",
    note = "reversal spreads sequential fixed-width ids (u8..u128, i8..i128); for descending order of any type use `rev(field)`"
)]
pub trait ReversibleKey: KeyComponent {}

macro_rules! reversible {
    ($($t:ty),*) => {$( impl ReversibleKey for $t {} )*};
}
reversible!(u8, u16, u32, u64, u128, i8, i16, i32, i64, i128);

/// An integer that can be bucketed, `bucket(field, WIDTH)`: the bucket of a
/// value is `value.div_euclid(WIDTH)` (floor division, so negative values
/// keep their order), a coarse time or number placed in the key before the
/// field itself (the Cassandra chapter's month bucket, DynamoDB's date suffix).
#[diagnostic::on_unimplemented(
    message = "`bucket(...)` needs an integer field (u8..u64, i8..i64), and `{Self}` is not one",
    label = "cannot be bucketed",
    note = "bucket a timestamp or a day number: `bucket(day, 30)` puts `day / 30` in the key"
)]
pub trait BucketKey: KeyComponent + Copy + Ord {
    /// The bucket of `value`: `value.div_euclid(width)`.
    fn bucket_of(value: Self, width: u64) -> Self;
    /// The bucket as a wide integer, to count buckets between two values.
    fn bucket_index(value: Self, width: u64) -> i128;
    /// The first value in bucket `index`, clamped to the type's range.
    fn bucket_first(index: i128, width: u64) -> Self;
    /// The last value in bucket `index`, clamped to the type's range.
    fn bucket_last(index: i128, width: u64) -> Self;
    /// The value of bucket number `index` itself (what the key stores).
    fn bucket_value(index: i128) -> Self;
}

macro_rules! bucket_key {
    ($($t:ty),*) => {$(
        impl BucketKey for $t {
            fn bucket_of(value: Self, width: u64) -> Self {
                Self::bucket_value(Self::bucket_index(value, width))
            }
            fn bucket_index(value: Self, width: u64) -> i128 {
                (value as i128).div_euclid(width.max(1) as i128)
            }
            fn bucket_first(index: i128, width: u64) -> Self {
                index.saturating_mul(width.max(1) as i128).clamp(<$t>::MIN as i128, <$t>::MAX as i128) as $t
            }
            fn bucket_last(index: i128, width: u64) -> Self {
                index
                    .saturating_add(1)
                    .saturating_mul(width.max(1) as i128)
                    .saturating_sub(1)
                    .clamp(<$t>::MIN as i128, <$t>::MAX as i128) as $t
            }
            fn bucket_value(index: i128) -> Self {
                index.clamp(<$t>::MIN as i128, <$t>::MAX as i128) as $t
            }
        }
    )*};
}
bucket_key!(u8, u16, u32, u64, i8, i16, i32, i64);

/// A value that can stand for a component of type `T` in a scan: `&str` for
/// a `String` component, `&[u8]` for `Vec<u8>`, and every `T` itself.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot stand for a key component of type `{T}`",
    label = "expected a `{T}` or its borrowed form",
    note = "a scan method takes the component's type (`&str` or `String` for a `String` component, `&[u8]` for `Vec<u8>`), or a range of it such as `a..b`"
)]
pub trait KeyArg<T: KeyComponent> {
    /// Appends the encoding of the value, as `T` would encode it.
    fn encode_arg(&self, out: &mut Vec<u8>);
}

impl<T: KeyComponent> KeyArg<T> for T {
    fn encode_arg(&self, out: &mut Vec<u8>) {
        T::encode_key(self.as_key_ref(), out)
    }
}

/// Reads encoded components out of a key.
///
/// A `Reader` hands a [`KeyComponent::decode_key`] implementation the bytes of
/// one component. When the component is declared `rev(...)`, the reader undoes
/// the inversion, so implementations always see the ascending encoding.
/// Errors built by the reader name the component and its offset in the key.
#[derive(Debug, Clone)]
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
    start: usize,
    mask: u8,
    component: &'static str,
}

impl<'a> Reader<'a> {
    /// A reader over `bytes` holding one or more ascending encodings, for
    /// decoding values outside a key (tests, tools). Errors name the
    /// component `"value"`.
    ///
    /// ```
    /// use keyschema::{KeyComponent, Reader};
    ///
    /// let mut reader = Reader::new(b"\x00\x01\x01\x00");
    /// assert_eq!(u16::decode_key(&mut reader), Ok(1));
    /// assert_eq!(u16::decode_key(&mut reader), Ok(256));
    /// assert!(reader.is_empty());
    /// ```
    pub fn new(bytes: &'a [u8]) -> Self {
        Reader::at(bytes, 0, false, "value")
    }

    #[inline]
    pub(crate) fn at(buf: &'a [u8], pos: usize, descending: bool, component: &'static str) -> Self {
        Reader {
            buf,
            pos,
            start: pos,
            mask: if descending { 0xFF } else { 0x00 },
            component,
        }
    }

    /// The offset of the next byte to read, from the start of the key.
    #[inline]
    pub fn offset(&self) -> usize {
        self.pos
    }

    /// Whether every byte has been read.
    pub fn is_empty(&self) -> bool {
        self.pos >= self.buf.len()
    }

    /// The name of the component being read.
    pub fn component(&self) -> &'static str {
        self.component
    }

    /// Reads one byte. `expected` describes the whole value, for the error
    /// when the key ends here (`"8 bytes of u64"`).
    pub fn read_byte(&mut self, expected: &'static str) -> Result<u8, DecodeError> {
        match self.buf.get(self.pos) {
            Some(&b) => {
                self.pos += 1;
                Ok(b ^ self.mask)
            }
            None => Err(self.truncated(expected)),
        }
    }

    /// Reads exactly `n` bytes (a `[u8; n]` whose length is known only at
    /// run time: dynamic schemas).
    pub(crate) fn read_vec(
        &mut self,
        n: usize,
        expected: &'static str,
    ) -> Result<Vec<u8>, DecodeError> {
        let end = self.pos.checked_add(n).filter(|&end| end <= self.buf.len());
        let Some(end) = end else {
            return Err(self.truncated(expected));
        };
        let bytes = self.buf[self.pos..end]
            .iter()
            .map(|b| b ^ self.mask)
            .collect();
        self.pos = end;
        Ok(bytes)
    }

    /// Reads exactly `N` bytes.
    #[inline]
    pub fn read_array<const N: usize>(
        &mut self,
        expected: &'static str,
    ) -> Result<[u8; N], DecodeError> {
        let end = self.pos.checked_add(N).filter(|&end| end <= self.buf.len());
        let Some(end) = end else {
            return Err(self.truncated(expected));
        };
        let mut array = [0u8; N];
        array.copy_from_slice(&self.buf[self.pos..end]);
        if self.mask != 0 {
            for b in &mut array {
                *b ^= self.mask;
            }
        }
        self.pos = end;
        Ok(array)
    }

    /// The common case of an escaped, terminated byte string: ascending
    /// and without escapes, its bytes where they lie (and the reader moved
    /// past its terminator); `None` otherwise, the reader unmoved.
    #[inline(always)]
    pub(crate) fn read_plain_terminated(&mut self) -> Option<&'a [u8]> {
        if self.mask != 0 {
            return None;
        }
        let rest = self.buf.get(self.pos..)?;
        let n = bytes::find_special(rest)?;
        if rest[n] != bytes::TERMINATOR {
            return None;
        }
        self.pos += n + 1;
        Some(&rest[..n])
    }

    /// Reads an escaped, terminated byte string into an owned buffer of
    /// exactly its size when it has no escapes (the common case).
    #[inline(always)]
    pub fn read_escaped_owned(&mut self, expected: &'static str) -> Result<Vec<u8>, DecodeError> {
        if let Some(plain) = self.read_plain_terminated() {
            return Ok(plain.to_vec());
        }
        let mut out = Vec::new();
        self.read_escaped(&mut out, expected)?;
        Ok(out)
    }

    /// Reads an escaped, terminated byte string (the encoding of `String` and
    /// `Vec<u8>`) and appends its unescaped bytes to `out`.
    pub fn read_escaped(
        &mut self,
        out: &mut Vec<u8>,
        expected: &'static str,
    ) -> Result<(), DecodeError> {
        let rest = &self.buf[self.pos..];
        let mask = self.mask;
        // The next terminator or escape byte: word at a time on plain bytes,
        // byte by byte under `rev`'s inversion.
        let find = |run: &[u8]| match mask {
            0 => bytes::find_special(run),
            _ => run.iter().position(|&b| b ^ mask <= bytes::ESCAPE),
        };
        let mut i = 0;
        loop {
            let Some(n) = find(&rest[i..]) else {
                return Err(self.truncated(expected));
            };
            match mask {
                0 => out.extend_from_slice(&rest[i..i + n]),
                _ => out.extend(rest[i..i + n].iter().map(|b| b ^ mask)),
            }
            i += n;
            if rest[i] ^ mask == bytes::TERMINATOR {
                self.pos += i + 1;
                return Ok(());
            }
            let Some(&escaped) = rest.get(i + 1) else {
                return Err(self.truncated(expected));
            };
            let escaped = escaped ^ mask;
            if escaped > bytes::ESCAPE {
                return Err(self.invalid_byte(
                    self.pos + i + 1,
                    escaped,
                    "0x00 or 0x01 after the escape byte 0x01",
                ));
            }
            out.push(escaped);
            i += 2;
        }
    }

    /// An error for the key ending inside this component.
    pub fn truncated(&self, expected: &'static str) -> DecodeError {
        DecodeError::Truncated {
            component: self.component,
            offset: self.start,
            expected,
        }
    }

    /// An error for a byte the encoding never produces, at `offset`.
    pub fn invalid_byte(&self, offset: usize, found: u8, expected: &'static str) -> DecodeError {
        DecodeError::InvalidByte {
            component: self.component,
            offset,
            found,
            expected,
        }
    }

    /// An error for well-formed bytes that denote no value of the type.
    pub fn invalid_value(&self, reason: &'static str) -> DecodeError {
        DecodeError::InvalidValue {
            component: self.component,
            offset: self.start,
            reason,
        }
    }

    /// An error for a string component that is not UTF-8.
    pub fn invalid_utf8(&self) -> DecodeError {
        DecodeError::InvalidUtf8 {
            component: self.component,
            offset: self.start,
        }
    }

    /// Writes the (ascending) bytes read since `start` as `0x` and hex.
    pub fn render_hex_since(&self, start: usize, out: &mut String) {
        let start = start.min(self.pos);
        out.push_str("0x");
        for &b in &self.buf[start..self.pos] {
            push_hex(out, b ^ self.mask);
        }
    }
}

/// `render_key` for types whose `Display` form is what a reader wants.
pub(crate) fn render_display<T: KeyComponent + std::fmt::Display>(
    input: &mut Reader<'_>,
    out: &mut String,
) -> Result<(), DecodeError> {
    use std::fmt::Write as _;
    let value = T::decode_key(input)?;
    let _ = write!(out, "{value}");
    Ok(())
}

/// `KeyArg<T> for &T`, for `Copy` types whose `Ref` is the value itself.
macro_rules! arg_by_ref {
    ($($t:ty),*) => {$(
        impl $crate::encoding::KeyArg<$t> for &$t {
            fn encode_arg(&self, out: &mut Vec<u8>) {
                <$t as $crate::encoding::KeyComponent>::encode_key(**self, out)
            }
        }
    )*};
}

pub(crate) mod bytes;
#[cfg(feature = "chrono")]
mod chrono_types;
pub(crate) mod clock;
mod enums;
mod float;
pub(crate) mod ids;
mod int;
mod kind;
mod misc;
mod option;
pub(crate) mod text;
#[cfg(feature = "time")]
mod time_types;

pub use enums::EnumDef;
pub use kind::{Base, Encoding, UnknownEncoding};
pub use text::{TextComponent, TextDigits, TextError, TextOrdered};

/// Names a field type in generated code: `<T as KeyComponentCheck>::Checked`
/// is `T` when `T` is a key component, and one error at the field otherwise
/// (instead of one for every place the generated code uses the type).
#[doc(hidden)]
pub trait KeyComponentCheck {
    type Checked: KeyComponent;
}
impl<T: KeyComponent> KeyComponentCheck for T {
    type Checked = T;
}

pub(crate) fn push_hex(out: &mut String, b: u8) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    out.push(DIGITS[usize::from(b >> 4)] as char);
    out.push(DIGITS[usize::from(b & 0xF)] as char);
}

/// Encodes one value on its own, as it appears inside a key (ascending).
///
/// ```
/// assert_eq!(keyschema::encode_value::<String>("u1"), b"u1\x00");
/// assert_eq!(keyschema::encode_value::<i16>(-1), [0x7F, 0xFF]);
/// ```
pub fn encode_value<T: KeyComponent>(value: T::Ref<'_>) -> Vec<u8> {
    let mut out = Vec::with_capacity(T::SIZE_HINT);
    T::encode_key(value, &mut out);
    out
}

/// Decodes one value encoded on its own, rejecting bytes left after it.
///
/// ```
/// use keyschema::decode_value;
///
/// assert_eq!(decode_value::<String>(b"u1\x00"), Ok("u1".to_string()));
/// assert!(decode_value::<String>(b"u1").is_err()); // no terminator
/// ```
pub fn decode_value<T: KeyComponent>(bytes: &[u8]) -> Result<T, DecodeError> {
    let mut reader = Reader::new(bytes);
    let value = T::decode_key(&mut reader)?;
    if !reader.is_empty() {
        return Err(DecodeError::TrailingBytes {
            offset: reader.offset(),
            count: bytes.len() - reader.offset(),
        });
    }
    Ok(value)
}
