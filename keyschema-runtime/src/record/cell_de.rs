//! One cell read by its field's type: the serde `Deserializer` of
//! [`super::cells`]. The type asks for what it is (`deserialize_str`,
//! `deserialize_u32`...), and the cell's bytes are read in that type's cell
//! encoding. Cells other programs wrote are read where they are
//! unambiguous: integers of 1, 2, 4 or 8 big-endian bytes (HBase's
//! `Bytes.toBytes(int)` is 4), a 4-byte float, a bool as one byte
//! (`00` false, `01` or `ff` true).

use serde::de::{self, IntoDeserializer, Visitor};

/// Why a cell does not read as its field's type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CellError(String);

impl std::fmt::Display for CellError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CellError {}

impl de::Error for CellError {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        CellError(msg.to_string())
    }
}

impl From<rmp_serde::decode::Error> for CellError {
    fn from(e: rmp_serde::decode::Error) -> Self {
        CellError(format!("the cell's MessagePack does not read: {e}"))
    }
}

/// Reads one cell's bytes as the type that asks.
pub struct CellDeserializer<'c> {
    cell: &'c [u8],
}

impl<'c> CellDeserializer<'c> {
    /// A deserializer of `cell`.
    pub fn new(cell: &'c [u8]) -> Self {
        CellDeserializer { cell }
    }

    fn wrong(&self, what: &str) -> CellError {
        let shown: String = self
            .cell
            .iter()
            .take(32)
            .map(|b| format!("{b:02x}"))
            .collect();
        CellError(format!(
            "expected {what}, found a cell of {} bytes ({shown}{})",
            self.cell.len(),
            if self.cell.len() > 32 { "..." } else { "" }
        ))
    }

    fn int(&self) -> Result<i64, CellError> {
        match self.cell.len() {
            1 | 2 | 4 | 8 => {
                let first = i64::from(self.cell[0] as i8);
                Ok(self.cell[1..]
                    .iter()
                    .fold(first, |n, &b| (n << 8) | i64::from(b)))
            }
            _ => Err(self.wrong("an integer: 8 big-endian bytes")),
        }
    }

    fn uint(&self) -> Result<u64, CellError> {
        match self.cell.len() {
            8 => Ok(self.cell.iter().fold(0u64, |n, &b| (n << 8) | u64::from(b))),
            1 | 2 | 4 => u64::try_from(self.int()?)
                .map_err(|_| self.wrong("an unsigned integer, found a negative one")),
            _ => Err(self.wrong("an integer: 8 big-endian bytes")),
        }
    }

    fn float(&self) -> Result<f64, CellError> {
        match <[u8; 8]>::try_from(self.cell) {
            Ok(b) => Ok(f64::from_be_bytes(b)),
            Err(_) => match <[u8; 4]>::try_from(self.cell) {
                Ok(b) => Ok(f64::from(f32::from_be_bytes(b))),
                Err(_) => Err(self.wrong("a float: 8 big-endian bytes (IEEE 754)")),
            },
        }
    }

    fn text(&self) -> Result<&'c str, CellError> {
        std::str::from_utf8(self.cell).map_err(|e| self.wrong(&format!("UTF-8 text ({e})")))
    }

    fn msgpack(&self) -> rmp_serde::Deserializer<rmp_serde::decode::ReadRefReader<'c, [u8]>> {
        rmp_serde::Deserializer::from_read_ref(self.cell)
    }

    /// Whether the cell is a MessagePack array or map, whole (what a
    /// nested value's cell holds).
    fn is_nested(&self) -> bool {
        matches!(self.cell.first(), Some(0x80..=0x9f | 0xdc..=0xdf)) && {
            let mut walker = super::walk::Walker::new(self.cell);
            walker.item().is_ok() && walker.is_empty()
        }
    }
}

macro_rules! ints {
    ($($method:ident $visit:ident $read:ident $t:ty),* $(,)?) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, CellError> {
            let n = self.$read()?;
            match <$t>::try_from(n) {
                Ok(n) => visitor.$visit(n),
                Err(_) => Err(CellError(format!("{n} does not fit in {}", stringify!($t)))),
            }
        }
    )*};
}

impl<'de> de::Deserializer<'de> for CellDeserializer<'de> {
    type Error = CellError;

    /// A self-describing type (an untagged enum, `serde_json::Value`): a
    /// cell that is a whole MessagePack array or map reads as one, valid
    /// UTF-8 as a string, anything else as bytes.
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, CellError> {
        if self.is_nested() {
            return Ok(de::Deserializer::deserialize_any(
                &mut self.msgpack(),
                visitor,
            )?);
        }
        match std::str::from_utf8(self.cell) {
            Ok(s) => visitor.visit_str(s),
            Err(_) => visitor.visit_bytes(self.cell),
        }
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, CellError> {
        match self.cell {
            b"true" | [0x01] | [0xff] => visitor.visit_bool(true),
            b"false" | [0x00] => visitor.visit_bool(false),
            _ => Err(self.wrong("a bool: `true` or `false`")),
        }
    }

    ints! {
        deserialize_i8 visit_i8 int i8,
        deserialize_i16 visit_i16 int i16,
        deserialize_i32 visit_i32 int i32,
        deserialize_i64 visit_i64 int i64,
        deserialize_u8 visit_u8 uint u8,
        deserialize_u16 visit_u16 uint u16,
        deserialize_u32 visit_u32 uint u32,
        deserialize_u64 visit_u64 uint u64,
    }

    /// A 128-bit integer: the 16 big-endian bytes MessagePack's `bin`
    /// holds it as (rmp-serde), or a shorter integer cell.
    fn deserialize_i128<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, CellError> {
        match <[u8; 16]>::try_from(self.cell) {
            Ok(b) => visitor.visit_i128(i128::from_be_bytes(b)),
            Err(_) => visitor.visit_i128(i128::from(self.int()?)),
        }
    }

    /// As `deserialize_i128`, unsigned.
    fn deserialize_u128<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, CellError> {
        match <[u8; 16]>::try_from(self.cell) {
            Ok(b) => visitor.visit_u128(u128::from_be_bytes(b)),
            Err(_) => visitor.visit_u128(u128::from(self.uint()?)),
        }
    }

    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, CellError> {
        visitor.visit_f64(self.float()?)
    }

    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, CellError> {
        visitor.visit_f64(self.float()?)
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, CellError> {
        visitor.visit_str(self.text()?)
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, CellError> {
        visitor.visit_str(self.text()?)
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, CellError> {
        visitor.visit_str(self.text()?)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, CellError> {
        visitor.visit_bytes(self.cell)
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, CellError> {
        visitor.visit_bytes(self.cell)
    }

    /// A stored cell is `Some`: `None` has no cell.
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, CellError> {
        visitor.visit_some(self)
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, CellError> {
        visitor.visit_unit()
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, CellError> {
        visitor.visit_unit()
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, CellError> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, CellError> {
        Ok(de::Deserializer::deserialize_seq(
            &mut self.msgpack(),
            visitor,
        )?)
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, CellError> {
        Ok(de::Deserializer::deserialize_tuple(
            &mut self.msgpack(),
            len,
            visitor,
        )?)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, CellError> {
        Ok(de::Deserializer::deserialize_tuple_struct(
            &mut self.msgpack(),
            name,
            len,
            visitor,
        )?)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, CellError> {
        Ok(de::Deserializer::deserialize_map(
            &mut self.msgpack(),
            visitor,
        )?)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, CellError> {
        Ok(de::Deserializer::deserialize_struct(
            &mut self.msgpack(),
            name,
            fields,
            visitor,
        )?)
    }

    /// A variant with content is a one-entry MessagePack map (its first
    /// byte `81`, never the first byte of UTF-8 text); a unit variant is
    /// its name as text.
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, CellError> {
        if self.cell.first() == Some(&0x81) {
            return Ok(de::Deserializer::deserialize_enum(
                &mut self.msgpack(),
                name,
                variants,
                visitor,
            )?);
        }
        let variant: de::value::StrDeserializer<'_, CellError> = self.text()?.into_deserializer();
        visitor.visit_enum(variant)
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, CellError> {
        visitor.visit_str(self.text()?)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, CellError> {
        visitor.visit_unit()
    }
}
