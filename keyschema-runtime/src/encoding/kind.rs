//! Which built-in encoding a component type uses, by name: what a schema
//! document records so that tools and other languages can read the key
//! without the Rust type.

use std::fmt;
use std::str::FromStr;

/// The encoding of a component type, one of those `docs/ENCODING.md`
/// specifies: a base type under zero or more `Option`s.
///
/// Every built-in [`KeyComponent`](crate::KeyComponent) declares its own;
/// a type of yours that delegates to one declares that one (see
/// [`KeyComponent::ENCODING`](crate::KeyComponent::ENCODING)).
///
/// ```
/// use keyschema::{Encoding, KeyComponent};
///
/// assert_eq!(<Option<Option<u8>>>::ENCODING.map(|e| e.to_string()).as_deref(), Some("Option<Option<u8>>"));
/// assert_eq!("[u8; 16]".parse::<Encoding>().map(|e| e.fixed_width()), Ok(Some(16)));
/// assert!("Uuid".parse::<Encoding>().is_err());
/// assert_eq!("timestamp".parse::<Encoding>().map(|e| e.fixed_width()), Ok(Some(12)));
/// let status: Encoding = "enum u8 {Pending = 0, Paid = 1}".parse().unwrap();
/// assert_eq!(status.fixed_width(), Some(1));
/// assert_eq!(status.to_string(), "enum u8 {Pending = 0, Paid = 1}");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Encoding {
    base: Base,
    options: u8,
}

/// The innermost type of an [`Encoding`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum Base {
    U8,
    U16,
    U32,
    U64,
    U128,
    I8,
    I16,
    I32,
    I64,
    I128,
    Bool,
    Char,
    String,
    /// `Vec<u8>`.
    Bytes,
    /// `[u8; N]`.
    Array(usize),
    F32,
    F64,
    /// A UUID: its 16 bytes (`uuid::Uuid`).
    Uuid,
    /// An instant: seconds and nanoseconds since 1970-01-01T00:00:00Z
    /// (`chrono::DateTime<Utc>`, `time::OffsetDateTime`).
    Timestamp,
    /// A civil date and time without a zone, as seconds and nanoseconds
    /// since 1970-01-01T00:00:00 (`chrono::NaiveDateTime`,
    /// `time::PrimitiveDateTime`).
    DateTime,
    /// A date: days since 1970-01-01 (`chrono::NaiveDate`, `time::Date`).
    Date,
    /// A fieldless enum (`#[derive(KeyComponent)]`): its discriminant as
    /// an integer, shown by variant name.
    Enum(&'static super::EnumDef),
}

/// The most `Option`s an encoding nests: decoding never recurses deeper.
const MAX_OPTIONS: u8 = 8;

impl Encoding {
    /// The encoding of a base type.
    pub const fn of(base: Base) -> Self {
        Encoding { base, options: 0 }
    }

    /// The encoding of `Option<T>` where `self` is `T`'s.
    pub const fn optional(self) -> Self {
        Encoding {
            base: self.base,
            options: self.options.saturating_add(1),
        }
    }

    /// The type under the `Option`s.
    pub fn base(&self) -> Base {
        self.base
    }

    /// How many `Option`s wrap the base type.
    pub fn options(&self) -> u8 {
        self.options
    }

    /// The encoding of the value inside one `Option` (`None` when this is
    /// not an `Option`).
    pub fn inner(&self) -> Option<Self> {
        self.options.checked_sub(1).map(|options| Encoding {
            base: self.base,
            options,
        })
    }

    /// The width of every encoding when it is fixed.
    pub fn fixed_width(&self) -> Option<usize> {
        if self.options > 0 {
            return None;
        }
        self.base.fixed_width()
    }

    /// The width of the text form (`format = text`) when it is fixed.
    pub fn text_width(&self) -> Option<usize> {
        if self.options > 0 {
            return None;
        }
        Some(match self.base {
            Base::U8 | Base::I8 => 3,
            Base::U16 | Base::I16 => 5,
            Base::U32 | Base::I32 => 10,
            Base::U64 | Base::I64 => 20,
            Base::U128 | Base::I128 => 39,
            Base::Bool => 1,
            Base::Array(n) => n.checked_mul(2)?,
            Base::F32 => 8,
            Base::F64 => 16,
            Base::Uuid => 36,
            Base::Timestamp | Base::DateTime => 2 * super::clock::SECONDS_WIDTH,
            Base::Date => 2 * super::clock::DATE_WIDTH,
            Base::Enum(def) => return Encoding::of(def.repr()).text_width(),
            Base::Char | Base::String | Base::Bytes => return None,
        })
    }

    /// Whether the base is an integer (what `rev` in text keys, `reverse`
    /// and `bucket` need, without `Option`).
    pub fn is_integer(&self) -> bool {
        self.options == 0 && self.base.is_integer()
    }

    /// Whether the text form sorts like the value (a range on it in a text
    /// key is exact): see `TextOrdered`.
    pub fn is_text_ordered(&self) -> bool {
        !matches!(self.base, Base::Char | Base::String | Base::Bytes)
    }
}

impl Base {
    fn fixed_width(self) -> Option<usize> {
        Some(match self {
            Base::U8 | Base::I8 | Base::Bool => 1,
            Base::U16 | Base::I16 => 2,
            Base::U32 | Base::I32 | Base::Char | Base::F32 => 4,
            Base::U64 | Base::I64 | Base::F64 => 8,
            Base::U128 | Base::I128 => 16,
            Base::Array(n) => n,
            Base::Uuid => 16,
            Base::Timestamp | Base::DateTime => super::clock::SECONDS_WIDTH,
            Base::Date => super::clock::DATE_WIDTH,
            Base::Enum(def) => return def.repr().fixed_width(),
            Base::String | Base::Bytes => return None,
        })
    }

    /// `u8`..`u128`, `i8`..`i128`.
    pub fn is_integer(self) -> bool {
        matches!(
            self,
            Base::U8
                | Base::U16
                | Base::U32
                | Base::U64
                | Base::U128
                | Base::I8
                | Base::I16
                | Base::I32
                | Base::I64
                | Base::I128
        )
    }

    /// Whether the type is signed (`i8`..`i128`).
    pub fn is_signed(self) -> bool {
        matches!(
            self,
            Base::I8 | Base::I16 | Base::I32 | Base::I64 | Base::I128
        )
    }

    const NAMES: [(&'static str, Base); 20] = [
        ("u8", Base::U8),
        ("u16", Base::U16),
        ("u32", Base::U32),
        ("u64", Base::U64),
        ("u128", Base::U128),
        ("i8", Base::I8),
        ("i16", Base::I16),
        ("i32", Base::I32),
        ("i64", Base::I64),
        ("i128", Base::I128),
        ("bool", Base::Bool),
        ("char", Base::Char),
        ("String", Base::String),
        ("Vec<u8>", Base::Bytes),
        ("f32", Base::F32),
        ("f64", Base::F64),
        ("uuid", Base::Uuid),
        ("timestamp", Base::Timestamp),
        ("datetime", Base::DateTime),
        ("date", Base::Date),
    ];
}

impl fmt::Display for Base {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Base::Array(n) => return write!(f, "[u8; {n}]"),
            Base::Enum(def) => return super::enums::display(def, f),
            _ => {}
        }
        let name = Base::NAMES
            .iter()
            .find(|(_, b)| b == self)
            .map_or("?", |(name, _)| name);
        f.write_str(name)
    }
}

impl fmt::Display for Encoding {
    /// The type as Rust writes it: `u64`, `Option<String>`, `[u8; 16]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for _ in 0..self.options {
            f.write_str("Option<")?;
        }
        write!(f, "{}", self.base)?;
        for _ in 0..self.options {
            f.write_str(">")?;
        }
        Ok(())
    }
}

/// A type name that is not one of the built-in encodings.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", unknown_message(&self.0))]
pub struct UnknownEncoding(pub String);

/// Why `text` is no encoding: too many `Option`s, else not one of them.
fn unknown_message(text: &str) -> String {
    let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let mut rest = compact.as_str();
    let mut options = 0usize;
    while let Some(inner) = rest
        .strip_prefix("Option<")
        .and_then(|r| r.strip_suffix('>'))
    {
        options += 1;
        rest = inner;
    }
    if options > usize::from(MAX_OPTIONS) {
        return format!(
            "`{text}` nests {options} Options; a key encoding nests at most {MAX_OPTIONS}"
        );
    }
    format!("`{text}` is not a key encoding (u8..u128, i8..i128, bool, char, String, Vec<u8>, [u8; N], f32, f64, uuid, timestamp, datetime, date, `enum R {{Name = n, ...}}` with R one of u8..u64, i8..i64 and distinct names and discriminants that fit R, or Option of one)")
}

impl FromStr for Encoding {
    type Err = UnknownEncoding;

    /// Reads the names [`Display`](fmt::Display) writes; spaces are ignored.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let unknown = || UnknownEncoding(s.to_string());
        let compact: String = s.chars().filter(|c| !c.is_whitespace()).collect();
        let mut rest = compact.as_str();
        let mut options = 0u8;
        while let Some(inner) = rest
            .strip_prefix("Option<")
            .and_then(|r| r.strip_suffix('>'))
        {
            options += 1;
            if options > MAX_OPTIONS {
                return Err(unknown());
            }
            rest = inner;
        }
        let base = if let Some(n) = rest.strip_prefix("[u8;").and_then(|r| r.strip_suffix(']')) {
            Base::Array(n.parse().map_err(|_| unknown())?)
        } else if let Some(body) = rest.strip_prefix("enum") {
            Base::Enum(super::EnumDef::parse(body).ok_or_else(unknown)?)
        } else {
            Base::NAMES
                .iter()
                .find(|(name, _)| *name == rest)
                .map(|(_, b)| *b)
                .ok_or_else(unknown)?
        };
        Ok(Encoding { base, options })
    }
}

impl Encoding {
    /// Renders one value of this encoding from `input`, as the built-in
    /// type's `render_key` does (`Schema::render`, the dynamic schemas, and
    /// the default `render_key` of a type that declares its encoding).
    pub(crate) fn render(
        self,
        input: &mut super::Reader<'_>,
        out: &mut String,
    ) -> Result<(), crate::error::DecodeError> {
        use super::KeyComponent;
        if let Some(inner) = self.inner() {
            let at = input.offset();
            return match input.read_byte("an Option tag")? {
                0x00 => {
                    out.push_str("<none>");
                    Ok(())
                }
                0x01 => {
                    // As `Option<T>::render_key`: `<some v>` when `v` reads like a None.
                    let start = out.len();
                    inner.render(input, out)?;
                    if out[start..].starts_with("<none>") || out[start..].starts_with("<some ") {
                        out.insert_str(start, "<some ");
                        out.push('>');
                    }
                    Ok(())
                }
                other => Err(input.invalid_byte(at, other, "0x00 (None) or 0x01 (Some)")),
            };
        }
        match self.base() {
            Base::U8 => u8::render_key(input, out),
            Base::U16 => u16::render_key(input, out),
            Base::U32 => u32::render_key(input, out),
            Base::U64 => u64::render_key(input, out),
            Base::U128 => u128::render_key(input, out),
            Base::I8 => i8::render_key(input, out),
            Base::I16 => i16::render_key(input, out),
            Base::I32 => i32::render_key(input, out),
            Base::I64 => i64::render_key(input, out),
            Base::I128 => i128::render_key(input, out),
            Base::Bool => bool::render_key(input, out),
            Base::Char => char::render_key(input, out),
            Base::F32 => f32::render_key(input, out),
            Base::F64 => f64::render_key(input, out),
            Base::String => String::render_key(input, out),
            Base::Bytes => <Vec<u8>>::render_key(input, out),
            Base::Array(n) => {
                let bytes = input.read_vec(n, "a fixed-size byte array")?;
                out.push_str("0x");
                for b in bytes {
                    super::push_hex(out, b);
                }
                Ok(())
            }
            Base::Uuid => {
                let bytes: [u8; 16] = input.read_array("16 bytes of uuid")?;
                super::ids::render(&bytes, out);
                Ok(())
            }
            Base::Timestamp => {
                let (seconds, nanos) =
                    super::clock::decode_seconds(input, "12 bytes of timestamp")?;
                super::clock::render_seconds(out, seconds, nanos, "Z");
                Ok(())
            }
            Base::DateTime => {
                let (seconds, nanos) = super::clock::decode_seconds(input, "12 bytes of datetime")?;
                super::clock::render_seconds(out, seconds, nanos, "");
                Ok(())
            }
            Base::Date => {
                super::clock::render_date(out, super::clock::decode_days(input)?);
                Ok(())
            }
            Base::Enum(def) => {
                out.push_str(def.read(input)?.0);
                Ok(())
            }
        }
    }
}
