//! Fieldless enums (`#[derive(KeyComponent)]`): the discriminant as the
//! integer of the enum's `#[repr]` (`i64` without one), so keys sort by
//! discriminant; the variant names travel in the [`Encoding`] so that a
//! rendering, a schema document and the other readers show names
//! ([`Encoding`](super::Encoding)).

use super::{Base, KeyComponent, Reader, TextComponent, TextError};
use crate::error::DecodeError;
use std::sync::{Mutex, OnceLock};

/// The variants of a fieldless enum key component, by name and
/// discriminant, and the integer type its discriminants are stored as.
///
/// `#[derive(KeyComponent)]` writes one for each enum; its
/// [`Encoding`](crate::Encoding) (`enum u8 {Pending = 0, Paid = 1}` in a schema document)
/// carries it.
///
/// ```
/// use keyschema::{Base, EnumDef, Encoding, KeyComponent};
///
/// #[derive(KeyComponent, Debug, PartialEq)]
/// #[repr(u8)]
/// enum Status { Pending = 1, Paid = 2 }
///
/// let def = match Status::ENCODING.map(|e| e.base()) {
///     Some(Base::Enum(def)) => def,
///     _ => unreachable!(),
/// };
/// assert_eq!(def.repr(), Base::U8);
/// assert_eq!(def.name_of(2), Some("Paid"));
/// assert_eq!(def.discriminant_of("Pending"), Some(1));
/// assert_eq!(Status::ENCODING.unwrap().to_string(), "enum u8 {Pending = 1, Paid = 2}");
/// ```
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct EnumDef {
    repr: Base,
    variants: &'static [(&'static str, i128)],
}

impl EnumDef {
    /// The variants `(name, discriminant)` of an enum stored as `repr`
    /// (`u8`..`u64`, `i8`..`i64`). The derive checks the rest: names are
    /// distinct, discriminants distinct and within `repr`.
    pub const fn new(repr: Base, variants: &'static [(&'static str, i128)]) -> Self {
        EnumDef { repr, variants }
    }

    /// The integer type the discriminants are stored as.
    pub fn repr(&self) -> Base {
        self.repr
    }

    /// The variants, `(name, discriminant)`, in declaration order.
    pub fn variants(&self) -> &'static [(&'static str, i128)] {
        self.variants
    }

    /// The name of the variant with discriminant `d`.
    pub fn name_of(&self, d: i128) -> Option<&'static str> {
        self.variants.iter().find(|v| v.1 == d).map(|v| v.0)
    }

    /// The discriminant of the variant named `name`.
    pub fn discriminant_of(&self, name: &str) -> Option<i128> {
        self.variants.iter().find(|v| v.0 == name).map(|v| v.1)
    }

    /// Appends the discriminant `d` as the repr integer.
    pub(crate) fn write(&self, d: i128, out: &mut Vec<u8>) {
        macro_rules! put {
            ($($b:ident $t:ty),*) => {
                match self.repr {
                    $(Base::$b => <$t>::encode_key(<$t>::try_from(d).unwrap_or_default(), out),)*
                    _ => {}
                }
            };
        }
        put!(U8 u8, U16 u16, U32 u32, U64 u64, I8 i8, I16 i16, I32 i32, I64 i64);
    }

    /// Reads a discriminant and returns it with its variant's name; an
    /// unknown discriminant is an error naming the component and its offset.
    pub(crate) fn read(&self, input: &mut Reader<'_>) -> Result<(&'static str, i128), DecodeError> {
        macro_rules! get {
            ($($b:ident $t:ty),*) => {
                match self.repr {
                    $(Base::$b => i128::from(<$t>::decode_key(input)?),)*
                    _ => return Err(input.invalid_value("an enum stored as a type other than u8..u64, i8..i64")),
                }
            };
        }
        let d = get!(U8 u8, U16 u16, U32 u32, U64 u64, I8 i8, I16 i16, I32 i32, I64 i64);
        self.name_of(d)
            .map(|name| (name, d))
            .ok_or_else(|| input.invalid_value("not the discriminant of any variant of the enum"))
    }

    /// The text form of discriminant `d`: the repr integer's.
    pub(crate) fn write_text(&self, d: i128, out: &mut Vec<u8>) {
        macro_rules! put {
            ($($b:ident $t:ty),*) => {
                match self.repr {
                    $(Base::$b => <$t>::encode_text(<$t>::try_from(d).unwrap_or_default(), out, b'#'),)*
                    _ => {}
                }
            };
        }
        put!(U8 u8, U16 u16, U32 u32, U64 u64, I8 i8, I16 i16, I32 i32, I64 i64);
    }

    /// Reads a discriminant's text form, refusing one of no variant.
    pub(crate) fn read_text(&self, text: &[u8]) -> Result<(&'static str, i128), TextError> {
        macro_rules! get {
            ($($b:ident $t:ty),*) => {
                match self.repr {
                    $(Base::$b => i128::from(<$t>::decode_text(text, b'#')?),)*
                    _ => return Err("an enum stored as a type other than u8..u64, i8..i64"),
                }
            };
        }
        let d = get!(U8 u8, U16 u16, U32 u32, U64 u64, I8 i8, I16 i16, I32 i32, I64 i64);
        self.name_of(d)
            .map(|name| (name, d))
            .ok_or("not the discriminant of any variant of the enum")
    }

    /// Reads the compact form `u8{Pending=0,Paid=1}` (after `enum`, spaces
    /// removed), checked, and keeps one copy of each distinct enum for the
    /// life of the program (a `'static` `Encoding` needs it; a schema
    /// document read again reuses it).
    pub(crate) fn parse(compact: &str) -> Option<&'static EnumDef> {
        let (repr, body) = compact.split_once('{')?;
        let body = body.strip_suffix('}')?;
        let repr = match repr {
            "u8" => Base::U8,
            "u16" => Base::U16,
            "u32" => Base::U32,
            "u64" => Base::U64,
            "i8" => Base::I8,
            "i16" => Base::I16,
            "i32" => Base::I32,
            "i64" => Base::I64,
            _ => return None,
        };
        let (lo, hi) = repr_range(repr);
        let mut variants: Vec<(String, i128)> = Vec::new();
        for item in body.split(',') {
            let (name, value) = item.split_once('=')?;
            let value: i128 = value.parse().ok()?;
            let mut chars = name.chars();
            let first = chars.next()?;
            let ident = (first.is_alphabetic() || first == '_')
                && chars.all(|c| c.is_alphanumeric() || c == '_');
            if !ident
                || !(lo..=hi).contains(&value)
                || variants.iter().any(|(n, v)| n == name || *v == value)
            {
                return None;
            }
            variants.push((name.to_string(), value));
        }
        Some(intern(repr, variants))
    }
}

fn repr_range(repr: Base) -> (i128, i128) {
    match repr {
        Base::U8 => (0, u8::MAX.into()),
        Base::U16 => (0, u16::MAX.into()),
        Base::U32 => (0, u32::MAX.into()),
        Base::U64 => (0, u64::MAX.into()),
        Base::I8 => (i8::MIN.into(), i8::MAX.into()),
        Base::I16 => (i16::MIN.into(), i16::MAX.into()),
        Base::I32 => (i32::MIN.into(), i32::MAX.into()),
        _ => (i64::MIN.into(), i64::MAX.into()),
    }
}

fn intern(repr: Base, variants: Vec<(String, i128)>) -> &'static EnumDef {
    static DEFS: OnceLock<Mutex<Vec<&'static EnumDef>>> = OnceLock::new();
    let mut defs = DEFS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let same = |d: &&'static EnumDef| {
        d.repr == repr
            && d.variants.len() == variants.len()
            && d.variants
                .iter()
                .zip(&variants)
                .all(|(a, b)| a.0 == b.0 && a.1 == b.1)
    };
    if let Some(def) = defs.iter().copied().find(same) {
        return def;
    }
    let variants: Vec<(&'static str, i128)> = variants
        .into_iter()
        .map(|(name, d)| (&*Box::leak(name.into_boxed_str()), d))
        .collect();
    let def: &'static EnumDef = Box::leak(Box::new(EnumDef {
        repr,
        variants: Box::leak(variants.into_boxed_slice()),
    }));
    defs.push(def);
    def
}

/// Writes `enum u8 {Pending = 0, Paid = 1}`.
pub(crate) fn display(def: &EnumDef, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
    write!(f, "enum {} {{", def.repr)?;
    for (i, (name, d)) in def.variants.iter().enumerate() {
        let comma = if i == 0 { "" } else { ", " };
        write!(f, "{comma}{name} = {d}")?;
    }
    f.write_str("}")
}
