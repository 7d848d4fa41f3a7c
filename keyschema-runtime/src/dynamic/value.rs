//! [`Value`]: a key field's value when the Rust type is not at hand.

use crate::encoding::{clock, ids, Base, Encoding};
use crate::schema::json_string;
use std::fmt::Write as _;

/// The value of one key field, typed by its [`Encoding`]: what a
/// [`DynSchema`](super::DynSchema) encodes from and decodes to.
///
/// Floats compare by their bits, so a NaN equals itself and `-0.0` differs
/// from `0.0`, as in keys.
///
/// ```
/// use keyschema::dynamic::Value;
///
/// assert_eq!(Value::from("u1"), Value::String("u1".into()));
/// assert_eq!(Value::from(Some(7u16)), Value::Option(Some(Box::new(Value::U16(7)))));
/// assert_eq!(Value::from(f64::NAN), Value::from(f64::NAN));
/// ```
#[derive(Debug, Clone)]
#[allow(missing_docs)]
pub enum Value {
    U8(u8),
    U16(u16),
    U32(u32),
    U64(u64),
    U128(u128),
    I8(i8),
    I16(i16),
    I32(i32),
    I64(i64),
    I128(i128),
    Bool(bool),
    Char(char),
    String(String),
    /// `Vec<u8>`, and `[u8; N]` with exactly N bytes.
    Bytes(Vec<u8>),
    F32(f32),
    F64(f64),
    Option(Option<Box<Value>>),
    /// `uuid`: the 16 bytes.
    Uuid([u8; 16]),
    /// `timestamp`: seconds since 1970-01-01T00:00:00Z and nanoseconds
    /// (1,000,000,000 and up in a leap second, after a `:59`).
    Timestamp(i64, u32),
    /// `datetime`: a civil date and time as seconds since
    /// 1970-01-01T00:00:00 and nanoseconds, as [`Value::Timestamp`].
    DateTime(i64, u32),
    /// `date`: days since 1970-01-01.
    Date(i32),
    /// `enum ...`: the variant's name.
    Enum(String),
}

impl PartialEq for Value {
    fn eq(&self, other: &Self) -> bool {
        use Value::*;
        match (self, other) {
            (F32(a), F32(b)) => a.to_bits() == b.to_bits(),
            (F64(a), F64(b)) => a.to_bits() == b.to_bits(),
            (U8(a), U8(b)) => a == b,
            (U16(a), U16(b)) => a == b,
            (U32(a), U32(b)) => a == b,
            (U64(a), U64(b)) => a == b,
            (U128(a), U128(b)) => a == b,
            (I8(a), I8(b)) => a == b,
            (I16(a), I16(b)) => a == b,
            (I32(a), I32(b)) => a == b,
            (I64(a), I64(b)) => a == b,
            (I128(a), I128(b)) => a == b,
            (Bool(a), Bool(b)) => a == b,
            (Char(a), Char(b)) => a == b,
            (String(a), String(b)) => a == b,
            (Bytes(a), Bytes(b)) => a == b,
            (Option(a), Option(b)) => a == b,
            (Uuid(a), Uuid(b)) => a == b,
            (Timestamp(a, m), Timestamp(b, n)) | (DateTime(a, m), DateTime(b, n)) => {
                (a, m) == (b, n)
            }
            (Date(a), Date(b)) => a == b,
            (Enum(a), Enum(b)) => a == b,
            _ => false,
        }
    }
}

macro_rules! from_scalar {
    ($($t:ty => $v:ident),*) => {$(
        impl From<$t> for Value {
            fn from(v: $t) -> Self {
                Value::$v(v)
            }
        }
    )*};
}
from_scalar!(u8 => U8, u16 => U16, u32 => U32, u64 => U64, u128 => U128,
    i8 => I8, i16 => I16, i32 => I32, i64 => I64, i128 => I128,
    bool => Bool, char => Char, String => String, Vec<u8> => Bytes, f32 => F32, f64 => F64);

impl From<&str> for Value {
    fn from(v: &str) -> Self {
        Value::String(v.to_string())
    }
}

impl From<&[u8]> for Value {
    fn from(v: &[u8]) -> Self {
        Value::Bytes(v.to_vec())
    }
}

impl<const N: usize> From<[u8; N]> for Value {
    fn from(v: [u8; N]) -> Self {
        Value::Bytes(v.to_vec())
    }
}

impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(v: Option<T>) -> Self {
        Value::Option(v.map(|v| Box::new(v.into())))
    }
}

#[cfg(feature = "uuid")]
impl From<uuid::Uuid> for Value {
    fn from(v: uuid::Uuid) -> Self {
        Value::Uuid(v.into_bytes())
    }
}

#[cfg(feature = "chrono")]
impl From<chrono::DateTime<chrono::Utc>> for Value {
    fn from(v: chrono::DateTime<chrono::Utc>) -> Self {
        Value::Timestamp(v.timestamp(), v.timestamp_subsec_nanos())
    }
}

#[cfg(feature = "chrono")]
impl From<chrono::NaiveDateTime> for Value {
    fn from(v: chrono::NaiveDateTime) -> Self {
        let utc = v.and_utc();
        Value::DateTime(utc.timestamp(), utc.timestamp_subsec_nanos())
    }
}

#[cfg(feature = "chrono")]
impl From<chrono::NaiveDate> for Value {
    fn from(v: chrono::NaiveDate) -> Self {
        Value::Date(v.to_epoch_days())
    }
}

#[cfg(feature = "time")]
impl From<time::OffsetDateTime> for Value {
    /// The instant (the offset is not part of the encoding).
    fn from(v: time::OffsetDateTime) -> Self {
        Value::Timestamp(v.unix_timestamp(), v.nanosecond())
    }
}

#[cfg(feature = "time")]
impl From<time::PrimitiveDateTime> for Value {
    fn from(v: time::PrimitiveDateTime) -> Self {
        Value::DateTime(v.assume_utc().unix_timestamp(), v.nanosecond())
    }
}

#[cfg(feature = "time")]
impl From<time::Date> for Value {
    fn from(v: time::Date) -> Self {
        Value::Date(v.to_julian_day() - 2_440_588)
    }
}

impl Value {
    /// A short description for errors: `u64 7`, `String "a"`.
    pub(crate) fn describe(&self) -> String {
        match self {
            Value::Option(None) => "None".to_string(),
            Value::Option(Some(v)) => format!("Some({})", v.describe()),
            Value::String(s) => format!("String {s:?}"),
            Value::Bytes(b) => format!("{} bytes", b.len()),
            other => {
                let mut text = String::new();
                other.write_json(&mut text);
                format!("{} {text}", other.type_name())
            }
        }
    }

    fn type_name(&self) -> &'static str {
        match self {
            Value::U8(_) => "u8",
            Value::U16(_) => "u16",
            Value::U32(_) => "u32",
            Value::U64(_) => "u64",
            Value::U128(_) => "u128",
            Value::I8(_) => "i8",
            Value::I16(_) => "i16",
            Value::I32(_) => "i32",
            Value::I64(_) => "i64",
            Value::I128(_) => "i128",
            Value::Bool(_) => "bool",
            Value::Char(_) => "char",
            Value::String(_) => "String",
            Value::Bytes(_) => "bytes",
            Value::F32(_) => "f32",
            Value::F64(_) => "f64",
            Value::Option(_) => "Option",
            Value::Uuid(_) => "uuid",
            Value::Timestamp(..) => "timestamp",
            Value::DateTime(..) => "datetime",
            Value::Date(_) => "date",
            Value::Enum(_) => "enum variant",
        }
    }

    /// An integer's value, for buckets.
    pub(crate) fn as_i128(&self) -> Option<i128> {
        Some(match *self {
            Value::U8(v) => v.into(),
            Value::U16(v) => v.into(),
            Value::U32(v) => v.into(),
            Value::U64(v) => v.into(),
            Value::I8(v) => v.into(),
            Value::I16(v) => v.into(),
            Value::I32(v) => v.into(),
            Value::I64(v) => v.into(),
            _ => return None,
        })
    }

    /// The integer `v` of type `base`, clamped to the type's range.
    pub(crate) fn clamped_int(base: Base, v: i128) -> Option<Value> {
        fn clamp<T: TryFrom<i128> + Copy>(v: i128, min: T, max: T) -> T
        where
            i128: From<T>,
        {
            T::try_from(v.clamp(i128::from(min), i128::from(max))).unwrap_or(min)
        }
        Some(match base {
            Base::U8 => Value::U8(clamp(v, u8::MIN, u8::MAX)),
            Base::U16 => Value::U16(clamp(v, u16::MIN, u16::MAX)),
            Base::U32 => Value::U32(clamp(v, u32::MIN, u32::MAX)),
            Base::U64 => Value::U64(clamp(v, u64::MIN, u64::MAX)),
            Base::I8 => Value::I8(clamp(v, i8::MIN, i8::MAX)),
            Base::I16 => Value::I16(clamp(v, i16::MIN, i16::MAX)),
            Base::I32 => Value::I32(clamp(v, i32::MIN, i32::MAX)),
            Base::I64 => Value::I64(clamp(v, i64::MIN, i64::MAX)),
            _ => return None,
        })
    }

    /// Reads a value of `encoding` from text, as a person types it and as
    /// [`DynSchema::render`](super::DynSchema::render) shows it: integers
    /// and floats in decimal (`inf`, `-inf`, `NaN`), `true`/`false`, a
    /// string or a char as it is, bytes as hex (`0x` optional), `<none>`
    /// for `None`, `v` or `<some v>` for `Some(v)`.
    ///
    /// ```
    /// use keyschema::dynamic::Value;
    ///
    /// let opt: keyschema::Encoding = "Option<Option<u8>>".parse().unwrap();
    /// assert_eq!(Value::parse(opt, "<some <none>>"), Ok(Value::from(Some(None::<u8>))));
    /// assert_eq!(Value::parse(opt, "5"), Ok(Value::from(Some(Some(5u8)))));
    /// assert!(Value::parse("u8".parse().unwrap(), "300").is_err());
    /// ```
    pub fn parse(encoding: Encoding, text: &str) -> Result<Value, &'static str> {
        if let Some(inner) = encoding.inner() {
            if text == "<none>" {
                return Ok(Value::Option(None));
            }
            let text = text
                .strip_prefix("<some ")
                .and_then(|t| t.strip_suffix('>'))
                .unwrap_or(text);
            return Value::parse(inner, text).map(|v| Value::Option(Some(Box::new(v))));
        }
        fn num<T: std::str::FromStr>(text: &str) -> Result<T, &'static str> {
            text.trim()
                .parse()
                .map_err(|_| "not a number of this type (out of range, or not a number)")
        }
        Ok(match encoding.base() {
            Base::U8 => Value::U8(num(text)?),
            Base::U16 => Value::U16(num(text)?),
            Base::U32 => Value::U32(num(text)?),
            Base::U64 => Value::U64(num(text)?),
            Base::U128 => Value::U128(num(text)?),
            Base::I8 => Value::I8(num(text)?),
            Base::I16 => Value::I16(num(text)?),
            Base::I32 => Value::I32(num(text)?),
            Base::I64 => Value::I64(num(text)?),
            Base::I128 => Value::I128(num(text)?),
            Base::F32 => Value::F32(num(text)?),
            Base::F64 => Value::F64(num(text)?),
            Base::Bool => match text {
                "true" => Value::Bool(true),
                "false" => Value::Bool(false),
                _ => return Err("expected true or false"),
            },
            Base::Char => {
                let mut chars = text.chars();
                match (chars.next(), chars.next()) {
                    (Some(c), None) => Value::Char(c),
                    _ => return Err("expected exactly one character"),
                }
            }
            Base::String => Value::String(text.to_string()),
            Base::Bytes => Value::Bytes(unhex(text)?),
            Base::Array(n) => {
                let bytes = unhex(text)?;
                if bytes.len() != n {
                    return Err("wrong number of bytes for the array");
                }
                Value::Bytes(bytes)
            }
            Base::Uuid => Value::Uuid(ids::parse(text.as_bytes())?),
            Base::Timestamp => {
                let (s, n) = clock::parse_seconds(text, "Z")?;
                Value::Timestamp(s, n)
            }
            Base::DateTime => {
                let (s, n) = clock::parse_seconds(text, "")?;
                Value::DateTime(s, n)
            }
            Base::Date => Value::Date(clock::parse_days(text)?),
            Base::Enum(def) => match def.discriminant_of(text) {
                Some(_) => Value::Enum(text.to_string()),
                None => return Err("not the name of a variant of the enum"),
            },
        })
    }

    /// The value as text that [`Value::parse`] reads back: numbers in
    /// decimal (`inf`, `NaN`), strings and chars as they are, bytes as `0x`
    /// and hex, `<none>`, and `Some(v)` as `v` or `<some v>`.
    ///
    /// ```
    /// use keyschema::dynamic::Value;
    ///
    /// assert_eq!(Value::from(Some(None::<u8>)).to_text(), "<some <none>>");
    /// assert_eq!(Value::from(vec![0u8, 255]).to_text(), "0x00ff");
    /// assert_eq!(Value::from(-0.0f64).to_text(), "-0.0");
    /// ```
    pub fn to_text(&self) -> String {
        match self {
            Value::U8(v) => v.to_string(),
            Value::U16(v) => v.to_string(),
            Value::U32(v) => v.to_string(),
            Value::U64(v) => v.to_string(),
            Value::U128(v) => v.to_string(),
            Value::I8(v) => v.to_string(),
            Value::I16(v) => v.to_string(),
            Value::I32(v) => v.to_string(),
            Value::I64(v) => v.to_string(),
            Value::I128(v) => v.to_string(),
            Value::Bool(v) => v.to_string(),
            Value::Char(c) => c.to_string(),
            Value::String(s) => s.clone(),
            Value::Bytes(b) => {
                let mut out = String::from("0x");
                for &byte in b {
                    crate::encoding::push_hex(&mut out, byte);
                }
                out
            }
            Value::F32(v) => format!("{v:?}"),
            Value::F64(v) => format!("{v:?}"),
            Value::Option(None) => "<none>".to_string(),
            Value::Uuid(_)
            | Value::Timestamp(..)
            | Value::DateTime(..)
            | Value::Date(_)
            | Value::Enum(_) => self.rendered(),
            Value::Option(Some(v)) => {
                let inner = v.to_text();
                if inner.starts_with("<none>") || inner.starts_with("<some ") {
                    format!("<some {inner}>")
                } else {
                    inner
                }
            }
        }
    }

    /// The value as JSON, as `docs/ENCODING.md` ("Values as JSON")
    /// specifies: integers as numbers of any size, `true`/`false`, strings,
    /// bytes as lowercase hex strings, finite floats as numbers and the
    /// others as `"inf"`, `"-inf"`, `"NaN"`, `"-NaN"`; `None` as `null`,
    /// `Some(v)` as `v`, or `{"some": v}` when `v` is `null` or itself such
    /// an object.
    ///
    /// ```
    /// use keyschema::dynamic::Value;
    ///
    /// assert_eq!(Value::from(u128::MAX).to_json(), "340282366920938463463374607431768211455");
    /// assert_eq!(Value::from(Some(None::<u8>)).to_json(), r#"{"some":null}"#);
    /// assert_eq!(Value::from(vec![0u8, 255]).to_json(), r#""00ff""#);
    /// ```
    pub fn to_json(&self) -> String {
        let mut out = String::new();
        self.write_json(&mut out);
        out
    }

    pub(crate) fn write_json(&self, out: &mut String) {
        match self {
            Value::U8(v) => push_display(out, v),
            Value::U16(v) => push_display(out, v),
            Value::U32(v) => push_display(out, v),
            Value::U64(v) => push_display(out, v),
            Value::U128(v) => push_display(out, v),
            Value::I8(v) => push_display(out, v),
            Value::I16(v) => push_display(out, v),
            Value::I32(v) => push_display(out, v),
            Value::I64(v) => push_display(out, v),
            Value::I128(v) => push_display(out, v),
            Value::Bool(v) => push_display(out, v),
            Value::Char(c) => json_string(out, c.encode_utf8(&mut [0; 4])),
            Value::String(s) => json_string(out, s),
            Value::Bytes(b) => {
                out.push('"');
                for &byte in b {
                    crate::encoding::push_hex(out, byte);
                }
                out.push('"');
            }
            Value::F32(v) => json_float(out, f64::from(*v), v.is_finite(), || format!("{v:?}")),
            Value::F64(v) => json_float(out, *v, v.is_finite(), || format!("{v:?}")),
            Value::Uuid(_)
            | Value::Timestamp(..)
            | Value::DateTime(..)
            | Value::Date(_)
            | Value::Enum(_) => json_string(out, &self.rendered()),
            Value::Option(None) => out.push_str("null"),
            Value::Option(Some(v)) => {
                let start = out.len();
                v.write_json(out);
                if out[start..] == *"null" || out[start..].starts_with("{\"some\":") {
                    out.insert_str(start, "{\"some\":");
                    out.push('}');
                }
            }
        }
    }
}

impl Value {
    /// How a key rendering shows a value of the encodings that render as
    /// text: a UUID hyphenated, an instant in RFC 3339 at UTC, a date-time
    /// without the `Z`, a date as `YYYY-MM-DD`, a variant by name.
    fn rendered(&self) -> String {
        let mut out = String::new();
        match self {
            Value::Uuid(b) => ids::render(b, &mut out),
            Value::Timestamp(s, n) => clock::render_seconds(&mut out, *s, *n, "Z"),
            Value::DateTime(s, n) => clock::render_seconds(&mut out, *s, *n, ""),
            Value::Date(d) => clock::render_date(&mut out, *d),
            Value::Enum(name) => out.push_str(name),
            _ => {}
        }
        out
    }
}

fn push_display(out: &mut String, v: impl std::fmt::Display) {
    let _ = write!(out, "{v}");
}

/// A float as JSON: `shortest` is the shortest text that reads back as the
/// same value of its own width.
fn json_float(out: &mut String, v: f64, finite: bool, shortest: impl Fn() -> String) {
    if finite {
        out.push_str(&shortest());
    } else if v.is_nan() {
        out.push_str(if v.is_sign_negative() {
            "\"-NaN\""
        } else {
            "\"NaN\""
        });
    } else if v > 0.0 {
        out.push_str("\"inf\"");
    } else {
        out.push_str("\"-inf\"");
    }
}

/// Hex digits, either case, with an optional `0x`.
fn unhex(text: &str) -> Result<Vec<u8>, &'static str> {
    let digits = text.strip_prefix("0x").unwrap_or(text).as_bytes();
    if !digits.len().is_multiple_of(2) {
        return Err("odd number of hex digits");
    }
    digits
        .chunks_exact(2)
        .map(|pair| match (hex_digit(pair[0]), hex_digit(pair[1])) {
            (Some(hi), Some(lo)) => Ok(hi << 4 | lo),
            _ => Err("expected hex digits"),
        })
        .collect()
}

fn hex_digit(c: u8) -> Option<u8> {
    (c as char).to_digit(16).map(|d| d as u8)
}
