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
    let mut any = false;
    // The probe always fails: only the method the type called matters.
    let _ = T::deserialize(Probe { any: &mut any });
    any
}

struct Probe<'a> {
    any: &'a mut bool,
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

macro_rules! refuse {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Asked> {
            Err(Asked)
        }
    )*};
}

impl<'de> de::Deserializer<'de> for Probe<'_> {
    type Error = Asked;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Asked> {
        *self.any = true;
        Err(Asked)
    }

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

    fn deserialize_ignored_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Asked> {
        Err(Asked)
    }

    refuse! {
        deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64
        deserialize_i128 deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64
        deserialize_u128 deserialize_f32 deserialize_f64 deserialize_char deserialize_str
        deserialize_string deserialize_bytes deserialize_byte_buf deserialize_unit
        deserialize_seq deserialize_map deserialize_identifier
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: V,
    ) -> Result<V::Value, Asked> {
        Err(Asked)
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, _: usize, _: V) -> Result<V::Value, Asked> {
        Err(Asked)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: usize,
        _: V,
    ) -> Result<V::Value, Asked> {
        Err(Asked)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Asked> {
        Err(Asked)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Asked> {
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
    use super::{from_nil, is_self_describing, reads_nil};
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
}
