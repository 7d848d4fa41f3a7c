//! Asking a value field's type with no data: whether it is
//! self-describing, and what it reads from nil.
//!
//! Self-describing types have a `Deserialize` that asks for whatever the
//! format holds (`deserialize_any`), such as `serde_json::Value` and
//! untagged or internally tagged enums. A store that keeps a field in a
//! form that does not say its own type (a Bigtable cell of 8 bytes may be
//! an integer, a float or text) must keep such a field in a form that
//! does: see [`super::cells`].

use serde::de::{self, Visitor};

/// Whether `T`'s `Deserialize` begins with `deserialize_any`, looking
/// through `Option` and newtype structs. Asks the type once, with a
/// deserializer that holds nothing: no allocation, no data read.
pub fn is_self_describing<T: de::DeserializeOwned>() -> bool {
    asks::<T>() == Asks::Any
}

/// What a type's `Deserialize` asks the format for first, looking through
/// `Option` and newtype structs: the kind of value it reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Asks {
    /// Whatever the format holds (`deserialize_any`): a self-describing
    /// type.
    Any,
    /// A bool.
    Bool,
    /// An integer of at most 64 bits: its type's name and range.
    Int {
        /// `i8` to `u64`.
        name: &'static str,
        /// The smallest value it holds.
        min: i128,
        /// The largest.
        max: i128,
    },
    /// An `i128` or a `u128` (MessagePack: an integer, or 16 bytes).
    Wide {
        /// `i128` (else `u128`).
        signed: bool,
    },
    /// An `f64`.
    Float,
    /// An `f32`.
    F32,
    /// A char.
    Char,
    /// A string.
    Str,
    /// Bytes (`serde_bytes`).
    Bytes,
    /// Unit, or a unit struct.
    Unit,
    /// A sequence or a tuple.
    Seq,
    /// A map or a struct.
    Map,
    /// An enum.
    Enum,
    /// Anything else (an identifier, an ignored value).
    Other,
}

/// What `T`'s `Deserialize` asks for first ([`Asks`]). Asks the type
/// once, with a deserializer that holds nothing.
pub(crate) fn asks<T: de::DeserializeOwned>() -> Asks {
    let mut asked = Asks::Other;
    // The probe always fails: only the method the type called matters.
    let _ = T::deserialize(Probe { asked: &mut asked });
    asked
}

struct Probe<'a> {
    asked: &'a mut Asks,
}

/// The probe's error: it carries nothing.
#[derive(Debug)]
struct Asked;

impl std::fmt::Display for Asked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("probed")
    }
}

impl std::error::Error for Asked {}

impl de::Error for Asked {
    fn custom<T: std::fmt::Display>(_: T) -> Self {
        Asked
    }
}

/// Methods that note what was asked and fail.
macro_rules! note {
    ($($method:ident => $asks:expr),* $(,)?) => {$(
        fn $method<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Asked> {
            *self.asked = $asks;
            Err(Asked)
        }
    )*};
}

/// An integer type's [`Asks`].
macro_rules! int {
    ($t:ty) => {
        Asks::Int {
            name: stringify!($t),
            min: i128::from(<$t>::MIN),
            max: i128::from(<$t>::MAX),
        }
    };
}

impl<'de> de::Deserializer<'de> for Probe<'_> {
    type Error = Asked;

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Asked> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> Result<V::Value, Asked> {
        visitor.visit_newtype_struct(self)
    }

    /// As the stores' formats (MessagePack, DynamoDB's items, cells).
    fn is_human_readable(&self) -> bool {
        false
    }

    note! {
        deserialize_any => Asks::Any,
        deserialize_bool => Asks::Bool,
        deserialize_i8 => int!(i8),
        deserialize_i16 => int!(i16),
        deserialize_i32 => int!(i32),
        deserialize_i64 => int!(i64),
        deserialize_u8 => int!(u8),
        deserialize_u16 => int!(u16),
        deserialize_u32 => int!(u32),
        deserialize_u64 => int!(u64),
        deserialize_i128 => Asks::Wide { signed: true },
        deserialize_u128 => Asks::Wide { signed: false },
        deserialize_f32 => Asks::F32,
        deserialize_f64 => Asks::Float,
        deserialize_char => Asks::Char,
        deserialize_str => Asks::Str,
        deserialize_string => Asks::Str,
        deserialize_bytes => Asks::Bytes,
        deserialize_byte_buf => Asks::Bytes,
        deserialize_unit => Asks::Unit,
        deserialize_seq => Asks::Seq,
        deserialize_map => Asks::Map,
        deserialize_identifier => Asks::Other,
        deserialize_ignored_any => Asks::Other,
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: V,
    ) -> Result<V::Value, Asked> {
        *self.asked = Asks::Unit;
        Err(Asked)
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, _: usize, _: V) -> Result<V::Value, Asked> {
        *self.asked = Asks::Seq;
        Err(Asked)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: usize,
        _: V,
    ) -> Result<V::Value, Asked> {
        *self.asked = Asks::Seq;
        Err(Asked)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Asked> {
        *self.asked = Asks::Map;
        Err(Asked)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Asked> {
        *self.asked = Asks::Enum;
        Err(Asked)
    }
}

/// Whether `T` reads nil ([`from_nil`] gives it a value): a store that
/// keeps no cell or attribute for a nil value (Bigtable, DynamoDB) reads
/// such a field back when it is missing, so a row need not hold it.
pub fn reads_nil<T: de::DeserializeOwned>() -> bool {
    from_nil::<T>().is_some()
}

/// `T` read from nil, when it takes nil: `()`, `None`, a unit struct,
/// `serde_json::Value::Null`, and a newtype around any of them
/// (`struct Maybe(Option<i32>)`). A store of cells writes nil as no cell,
/// so a required field without one reads as this before it is missing.
pub fn from_nil<T: de::DeserializeOwned>() -> Option<T> {
    T::deserialize(Nil).ok()
}

/// A deserializer of nil: unit to whoever asks, `None` to an option,
/// through newtypes.
struct Nil;

impl<'de> de::Deserializer<'de> for Nil {
    type Error = de::value::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_unit()
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_none()
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        visitor.visit_newtype_struct(self)
    }

    fn is_human_readable(&self) -> bool {
        false
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple tuple_struct map struct enum
        identifier ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::{asks, from_nil, is_self_describing, reads_nil, Asks};
    use std::collections::BTreeMap;

    #[derive(serde::Deserialize)]
    #[serde(untagged)]
    #[allow(dead_code)]
    enum Loose {
        A(u8),
        B(String),
    }

    #[derive(serde::Deserialize)]
    #[serde(tag = "kind")]
    #[allow(dead_code)]
    enum Tagged {
        A { x: u8 },
    }

    #[derive(serde::Deserialize)]
    #[allow(dead_code)]
    struct Wrapper(Option<serde_json::Value>);

    #[test]
    fn types_that_ask_for_anything_are_found_through_options_and_newtypes() {
        assert!(is_self_describing::<serde_json::Value>());
        assert!(is_self_describing::<Option<serde_json::Value>>());
        assert!(is_self_describing::<Wrapper>());
        assert!(is_self_describing::<Loose>());
        assert!(is_self_describing::<Tagged>());
        assert!(!is_self_describing::<i64>());
        assert!(!is_self_describing::<Option<String>>());
        assert!(!is_self_describing::<Vec<serde_json::Value>>());
        assert!(!is_self_describing::<BTreeMap<String, u8>>());
        assert!(!is_self_describing::<()>());
    }

    #[derive(serde::Deserialize, Debug, PartialEq)]
    struct Maybe(Option<i32>);

    #[derive(serde::Deserialize, Debug, PartialEq)]
    struct Unit;

    #[test]
    fn nil_reads_as_the_types_that_take_it_through_newtypes() {
        assert_eq!(from_nil::<()>(), Some(()));
        assert_eq!(from_nil::<Option<String>>(), Some(None));
        assert_eq!(from_nil::<Maybe>(), Some(Maybe(None)));
        assert_eq!(from_nil::<Unit>(), Some(Unit));
        assert_eq!(
            from_nil::<serde_json::Value>(),
            Some(serde_json::Value::Null)
        );
        assert_eq!(from_nil::<i64>(), None);
        assert_eq!(from_nil::<String>(), None);
        assert_eq!(from_nil::<Vec<u8>>(), None);
        assert!(reads_nil::<serde_json::Value>() && reads_nil::<()>());
        assert!(!reads_nil::<u32>() && !reads_nil::<Vec<serde_json::Value>>());
    }

    #[test]
    fn a_type_asks_for_its_kind_through_options_and_newtypes() {
        assert_eq!(
            asks::<Option<i64>>(),
            Asks::Int {
                name: "i64",
                min: i64::MIN.into(),
                max: i64::MAX.into()
            }
        );
        assert_eq!(
            asks::<Maybe>(),
            Asks::Int {
                name: "i32",
                min: i32::MIN.into(),
                max: i32::MAX.into()
            }
        );
        assert_eq!(
            asks::<u64>(),
            Asks::Int {
                name: "u64",
                min: 0,
                max: u64::MAX.into()
            }
        );
        assert_eq!(asks::<String>(), Asks::Str);
        assert_eq!(asks::<char>(), Asks::Char);
        assert_eq!(asks::<f32>(), Asks::F32);
        assert_eq!(asks::<u128>(), Asks::Wide { signed: false });
        assert_eq!(asks::<i128>(), Asks::Wide { signed: true });
        assert_eq!(asks::<Vec<u8>>(), Asks::Seq);
        assert_eq!(asks::<(u8, u8)>(), Asks::Seq);
        assert_eq!(asks::<BTreeMap<String, u8>>(), Asks::Map);
        assert_eq!(asks::<Unit>(), Asks::Unit);
        assert_eq!(asks::<Loose>(), Asks::Any);
        assert_eq!(asks::<bool>(), Asks::Bool);
    }
}
