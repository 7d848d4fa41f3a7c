//! One stored value field read by its type from its MessagePack item
//! ([`super::walk`]): the scalars most rows are made of (integers, text,
//! bools, bytes, `None`) straight from the item, and any other value (a
//! float, an array, a map, an enum, an ext, a scalar of the wrong kind)
//! through rmp-serde over the item's own bytes, so that both paths read
//! every value alike and a wrong one fails with rmp-serde's words.

use super::walk::{Item, Walker};
use serde::de::{self, Visitor};

type Error = rmp_serde::decode::Error;

/// A serde `Deserializer` of one MessagePack value: `item` and its whole
/// encoding `raw`.
pub(crate) struct ItemDeserializer<'v> {
    item: Item<'v>,
    raw: &'v [u8],
}

impl<'v> ItemDeserializer<'v> {
    #[inline]
    pub(crate) fn new(item: Item<'v>, raw: &'v [u8]) -> Self {
        ItemDeserializer { item, raw }
    }

    fn rmp(&self) -> rmp_serde::Deserializer<rmp_serde::decode::ReadRefReader<'v, [u8]>> {
        let mut de = rmp_serde::Deserializer::from_read_ref(self.raw);
        de.set_max_depth(crate::limits::MAX_NESTING + 8);
        de
    }

    /// Refuses a bin where a sequence is asked for.
    fn no_bin<'de, V: Visitor<'de>>(&self, visitor: &V) -> Result<(), Error> {
        match self.item {
            Item::Bin(bytes) => Err(de::Error::invalid_type(
                de::Unexpected::Bytes(bytes),
                visitor,
            )),
            _ => Ok(()),
        }
    }
}

/// Methods read by rmp-serde alone.
macro_rules! through_rmp {
    ($($method:ident),* $(,)?) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
            de::Deserializer::$method(&mut self.rmp(), visitor)
        }
    )*};
}

/// Integer methods: an integer item visited as the widest integer of its
/// sign (serde's primitive visitors check the range), anything else
/// through rmp-serde.
macro_rules! ints {
    ($($method:ident),* $(,)?) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
            match self.item {
                Item::Uint(n) => visitor.visit_u64(n),
                Item::Int(n) => visitor.visit_i64(n),
                _ => de::Deserializer::$method(&mut self.rmp(), visitor),
            }
        }
    )*};
}

impl<'de> de::Deserializer<'de> for ItemDeserializer<'de> {
    type Error = Error;

    through_rmp! {
        deserialize_any, deserialize_f32, deserialize_f64,
        deserialize_char, deserialize_unit, deserialize_map,
        deserialize_identifier, deserialize_ignored_any,
    }

    /// A bin is no sequence (rmp-serde reads one as its bytes' integers:
    /// a DynamoDB `B` is not a list).
    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.no_bin(&visitor)?;
        de::Deserializer::deserialize_seq(&mut self.rmp(), visitor)
    }

    // A 128-bit field reads an integer item by its sign too (rmp-serde would
    // read `-1` into a `u128` as 2^128 - 1); its own 16-byte bin goes
    // through rmp-serde.
    ints! {
        deserialize_i8, deserialize_i16, deserialize_i32, deserialize_i64,
        deserialize_u8, deserialize_u16, deserialize_u32, deserialize_u64,
        deserialize_i128, deserialize_u128,
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.item {
            Item::Bool(b) => visitor.visit_bool(b),
            _ => de::Deserializer::deserialize_bool(&mut self.rmp(), visitor),
        }
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.item {
            Item::Str(bytes) => match std::str::from_utf8(bytes) {
                Ok(text) => visitor.visit_borrowed_str(text),
                Err(_) => de::Deserializer::deserialize_str(&mut self.rmp(), visitor),
            },
            _ => de::Deserializer::deserialize_str(&mut self.rmp(), visitor),
        }
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_str(visitor)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.item {
            Item::Bin(bytes) => visitor.visit_borrowed_bytes(bytes),
            _ => de::Deserializer::deserialize_bytes(&mut self.rmp(), visitor),
        }
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_bytes(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.item {
            Item::Nil => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        de::Deserializer::deserialize_unit_struct(&mut self.rmp(), name, visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        de::Deserializer::deserialize_newtype_struct(&mut self.rmp(), name, visitor)
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, Error> {
        self.no_bin(&visitor)?;
        de::Deserializer::deserialize_tuple(&mut self.rmp(), len, visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.no_bin(&visitor)?;
        de::Deserializer::deserialize_tuple_struct(&mut self.rmp(), name, len, visitor)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        de::Deserializer::deserialize_struct(&mut self.rmp(), name, fields, visitor)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        de::Deserializer::deserialize_enum(&mut self.rmp(), name, variants, visitor)
    }

    fn is_human_readable(&self) -> bool {
        // What rmp-serde says, so that a type that reads itself differently
        // for text formats (uuid, chrono, time) reads the same bytes.
        let mut rmp = self.rmp();
        de::Deserializer::is_human_readable(&&mut rmp)
    }
}

/// A serde `Deserializer` of the value at the front of a walker, for the
/// hot path of a whole-row read: text, integers and `None` are read from
/// the walker's bytes without making an [`Item`] first; anything else (and
/// text that is not UTF-8) goes through [`ItemDeserializer`], so both read
/// every value alike.
pub(crate) struct FrontDeserializer<'a, 'w> {
    walker: &'w mut Walker<'a>,
}

impl<'a, 'w> FrontDeserializer<'a, 'w> {
    #[inline]
    pub(crate) fn new(walker: &'w mut Walker<'a>) -> Self {
        FrontDeserializer { walker }
    }

    /// The value as an item, taken.
    #[inline]
    fn item(self) -> Result<ItemDeserializer<'a>, Error> {
        let (item, raw) = self
            .walker
            .item_and_bytes()
            .map_err(|e| <Error as de::Error>::custom(e.to_string()))?;
        Ok(ItemDeserializer::new(item, raw))
    }
}

/// Methods the item path reads.
macro_rules! by_item {
    ($($method:ident),* $(,)?) => {$(
        #[inline]
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
            de::Deserializer::$method(self.item()?, visitor)
        }
    )*};
}

/// Integer methods: an integer at the front visited as the widest integer
/// of its sign, as [`ItemDeserializer`] does.
macro_rules! front_ints {
    ($($method:ident),* $(,)?) => {$(
        #[inline]
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
            match self.walker.take_int() {
                Some(Ok(n)) => visitor.visit_u64(n),
                Some(Err(n)) => visitor.visit_i64(n),
                None => de::Deserializer::$method(self.item()?, visitor),
            }
        }
    )*};
}

impl<'de> de::Deserializer<'de> for FrontDeserializer<'de, '_> {
    type Error = Error;

    by_item! {
        deserialize_any, deserialize_bool, deserialize_f32, deserialize_f64, deserialize_i128,
        deserialize_u128, deserialize_char, deserialize_unit, deserialize_seq, deserialize_map,
        deserialize_identifier, deserialize_ignored_any, deserialize_bytes, deserialize_byte_buf,
    }

    front_ints! {
        deserialize_i8, deserialize_i16, deserialize_i32, deserialize_i64,
        deserialize_u8, deserialize_u16, deserialize_u32, deserialize_u64,
    }

    #[inline]
    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        if let Some((bytes, end)) = self.walker.peek_str() {
            if let Ok(text) = std::str::from_utf8(bytes) {
                self.walker.advance_to(end);
                return visitor.visit_borrowed_str(text);
            }
        }
        de::Deserializer::deserialize_str(self.item()?, visitor)
    }

    #[inline]
    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_str(visitor)
    }

    #[inline]
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        if self.walker.take_nil() {
            return visitor.visit_none();
        }
        visitor.visit_some(self)
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        de::Deserializer::deserialize_unit_struct(self.item()?, name, visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        de::Deserializer::deserialize_newtype_struct(self.item()?, name, visitor)
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, Error> {
        de::Deserializer::deserialize_tuple(self.item()?, len, visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        de::Deserializer::deserialize_tuple_struct(self.item()?, name, len, visitor)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        de::Deserializer::deserialize_struct(self.item()?, name, fields, visitor)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        de::Deserializer::deserialize_enum(self.item()?, name, variants, visitor)
    }

    /// As [`ItemDeserializer`]'s: rmp-serde's.
    fn is_human_readable(&self) -> bool {
        let mut rmp = rmp_serde::Deserializer::from_read_ref(&[][..]);
        de::Deserializer::is_human_readable(&&mut rmp)
    }
}

#[cfg(test)]
mod tests {
    use super::super::walk::Walker;
    use super::*;
    use serde::de::DeserializeOwned;
    use serde::{Deserialize, Serialize};
    use std::collections::BTreeMap;
    use std::fmt::Debug;

    /// Reads `bytes` through the item path and through rmp-serde alone.
    fn both<T: DeserializeOwned + PartialEq + Debug>(
        bytes: &[u8],
    ) -> (Result<T, String>, Result<T, String>) {
        let (item, raw) = Walker::new(bytes).item_and_bytes().expect("one item");
        let ours = T::deserialize(ItemDeserializer::new(item, raw)).map_err(|e| e.to_string());
        let theirs = rmp_serde::from_slice::<T>(bytes).map_err(|e| e.to_string());
        // The front path reads alike, and takes exactly the one item when
        // it reads.
        let mut walker = Walker::new(bytes);
        let front = T::deserialize(FrontDeserializer::new(&mut walker)).map_err(|e| e.to_string());
        assert_eq!(front, ours, "{bytes:x?}");
        if front.is_ok() {
            assert!(walker.is_empty(), "{bytes:x?}");
        }
        (ours, theirs)
    }

    fn same<T: Serialize + DeserializeOwned + PartialEq + Debug>(value: T) {
        let bytes = rmp_serde::to_vec_named(&value).expect("msgpack");
        let (ours, theirs) = both::<T>(&bytes);
        assert_eq!(ours.as_ref(), Ok(&value), "{bytes:x?}");
        assert_eq!(ours, theirs);
    }

    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    enum Kind {
        Unit,
        New(u8),
        Pair(i32, String),
        Named { a: Option<u16> },
    }

    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Unit;

    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Wrap(i64);

    #[test]
    fn every_kind_reads_as_rmp_serde_reads_it() {
        same(0u8);
        same(u64::MAX);
        same(i64::MIN);
        same(-1i8);
        same(1.5f32);
        same(-0.25f64);
        same(i128::MIN);
        same(u128::MAX);
        same('é');
        same(String::from("text"));
        same(String::new());
        same(true);
        same(());
        same(Unit);
        same(Wrap(-7));
        same((1u8, "two".to_string()));
        same(Some(Some(3u32)));
        same(None::<String>);
        same(vec![Kind::Unit, Kind::New(4), Kind::Pair(-1, "x".into())]);
        same(Kind::Named { a: None });
        same(BTreeMap::from([("k".to_string(), vec![1u16, 2])]));
        same(serde_json::json!({"a": [1, "b", null, 2.5]}));
    }

    #[test]
    fn wrong_values_fail_as_rmp_serde_fails() {
        let cases: &[(&[u8], &str)] = &[
            (&[0xcd, 0x01, 0x2c], "u8"),  // 300
            (&[0xff], "u32"),             // -1
            (&[0xa1, b'x'], "u64"),       // a str
            (&[0xa2, 0xff, 0xfe], "str"), // not UTF-8
            (&[0x05], "bool"),
            (&[0xc3], "string"),
        ];
        for (bytes, ty) in cases {
            let (ours, theirs) = match *ty {
                "u8" => {
                    let (a, b) = both::<u8>(bytes);
                    (a.map(|_| ()), b.map(|_| ()))
                }
                "u32" => {
                    let (a, b) = both::<u32>(bytes);
                    (a.map(|_| ()), b.map(|_| ()))
                }
                "u64" => {
                    let (a, b) = both::<u64>(bytes);
                    (a.map(|_| ()), b.map(|_| ()))
                }
                "bool" => {
                    let (a, b) = both::<bool>(bytes);
                    (a.map(|_| ()), b.map(|_| ()))
                }
                _ => {
                    let (a, b) = both::<String>(bytes);
                    (a.map(|_| ()), b.map(|_| ()))
                }
            };
            assert!(ours.is_err(), "{ty} from {bytes:x?}");
            assert!(theirs.is_err(), "{ty} from {bytes:x?}");
        }
    }
}
