//! One cell read by its field's type: the serde `Deserializer` of
//! [`super::cells`]. The type asks for what it is (`deserialize_str`,
//! `deserialize_u32`...), and the cell's bytes are read in that type's cell
//! encoding. Integers and floats are 8 big-endian bytes and nothing else:
//! a cell of another width (the text `5` that `cbt set` writes, HBase's
//! 4-byte `Bytes.toBytes(int)`) is an error, never a number guessed from
//! it. A bool also reads as one byte (`00` false, `01` or `ff` true).
//! Not human-readable, as the MessagePack the cells come from: a `Uuid`
//! is its 16 bytes.

use serde::de::{self, IntoDeserializer, Visitor};

/// The first byte of a self-describing field's cell that holds MessagePack
/// (any value but a string that does not itself read as MessagePack).
pub const TAGGED: u8 = 0xc1;

/// What a 128-bit integer's cell is expected to be: its 16 big-endian
/// bytes, or 8 (another program's 64-bit integer).
const WIDE: &str = "an integer: 8 or 16 big-endian bytes";

/// Why a cell does not read as its field's type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CellError(String, Option<String>);

impl CellError {
    /// What the MessagePack reader of a nested value's cell said, in the
    /// words the ordered stores' reader uses for the same value (so that
    /// a nested misfit reads alike from a cell and from the map); `None`
    /// for a refusal of the cell itself.
    pub(crate) fn reader_words(&self) -> Option<&str> {
        self.1.as_deref()
    }
}

impl std::fmt::Display for CellError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CellError {}

impl de::Error for CellError {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        CellError(msg.to_string(), None)
    }
}

impl From<rmp_serde::decode::Error> for CellError {
    fn from(e: rmp_serde::decode::Error) -> Self {
        CellError(
            format!("the cell's MessagePack does not read: {e}"),
            Some(super::misfit::reader_words(&e)),
        )
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
        CellError(
            format!(
                "expected {what}, found a cell of {} bytes ({shown}{})",
                self.cell.len(),
                if self.cell.len() > 32 { "..." } else { "" }
            ),
            None,
        )
    }

    fn eight(&self, what: &str) -> Result<[u8; 8], CellError> {
        <[u8; 8]>::try_from(self.cell).map_err(|_| {
            let mut wrong = self.wrong(what);
            if !self.cell.is_empty() && self.cell.iter().all(|b| b.is_ascii_graphic()) {
                wrong.0.push_str(&format!(
                    ": the cell holds the text {:?}; numbers are stored as 8 big-endian bytes (write them with the library, or `cbt set` with the bytes escaped)",
                    String::from_utf8_lossy(self.cell)
                ));
            }
            wrong
        })
    }

    fn int(&self) -> Result<i64, CellError> {
        Ok(i64::from_be_bytes(
            self.eight("an integer: 8 big-endian bytes")?,
        ))
    }

    fn uint(&self) -> Result<u64, CellError> {
        Ok(u64::from_be_bytes(
            self.eight("an integer: 8 big-endian bytes")?,
        ))
    }

    fn float(&self) -> Result<f64, CellError> {
        Ok(f64::from_be_bytes(
            self.eight("a float: 8 big-endian bytes (IEEE 754)")?,
        ))
    }

    fn text(&self) -> Result<&'c str, CellError> {
        std::str::from_utf8(self.cell).map_err(|e| self.wrong(&format!("UTF-8 text ({e})")))
    }

    fn msgpack(&self) -> rmp_serde::Deserializer<rmp_serde::decode::ReadRefReader<'c, [u8]>> {
        let mut de = rmp_serde::Deserializer::from_read_ref(self.cell);
        de.set_max_depth(crate::limits::MAX_NESTING + 8);
        de
    }

    /// Whether the cell is a MessagePack array or map, whole (what a
    /// nested value's cell holds).
    fn is_nested(&self) -> bool {
        super::walk::is_whole_nested(self.cell)
    }

    /// A sequence, a map or a struct is one whole MessagePack array or
    /// map: another cell (a bin, text, an integer's bytes) is refused as
    /// the cell it is, never read as MessagePack of another kind (a bin as
    /// a list of bytes).
    fn whole_nested(&self) -> Result<(), CellError> {
        if self.is_nested() {
            Ok(())
        } else {
            Err(self.wrong("a nested value: one whole MessagePack array or map"))
        }
    }
}

macro_rules! ints {
    ($($method:ident $visit:ident $read:ident $t:ty),* $(,)?) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, CellError> {
            let n = self.$read()?;
            match <$t>::try_from(n) {
                Ok(n) => visitor.$visit(n),
                Err(_) => Err(CellError(format!("{n} does not fit in {}", stringify!($t)), None)),
            }
        }
    )*};
}

impl<'de> de::Deserializer<'de> for CellDeserializer<'de> {
    type Error = CellError;

    /// A self-describing type (`serde_json::Value`, an untagged enum):
    /// a cell that begins with `c1` (never the first byte of UTF-8) holds
    /// MessagePack after it, as the library writes every value but a
    /// string there; a cell that is a whole MessagePack array or map reads
    /// as one; valid UTF-8 as a string; anything else as bytes.
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, CellError> {
        if let Some((&TAGGED, rest)) = self.cell.split_first() {
            let mut walker = super::walk::Walker::new(rest);
            if walker.item().is_err() || !walker.is_empty() {
                return Err(self.wrong("one MessagePack value after the byte c1"));
            }
            let mut rmp = rmp_serde::Deserializer::from_read_ref(rest);
            rmp.set_max_depth(crate::limits::MAX_NESTING + 8);
            return Ok(de::Deserializer::deserialize_any(&mut rmp, visitor)?);
        }
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

    /// As the MessagePack the cells are made from.
    fn is_human_readable(&self) -> bool {
        false
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
            Err(_) => visitor.visit_i128(i128::from(i64::from_be_bytes(self.eight(WIDE)?))),
        }
    }

    /// As `deserialize_i128`, unsigned.
    fn deserialize_u128<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, CellError> {
        match <[u8; 16]>::try_from(self.cell) {
            Ok(b) => visitor.visit_u128(u128::from_be_bytes(b)),
            Err(_) => visitor.visit_u128(u128::from(u64::from_be_bytes(self.eight(WIDE)?))),
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
        self.whole_nested()?;
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
        self.whole_nested()?;
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
        self.whole_nested()?;
        Ok(de::Deserializer::deserialize_tuple_struct(
            &mut self.msgpack(),
            name,
            len,
            visitor,
        )?)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, CellError> {
        self.whole_nested()?;
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
        self.whole_nested()?;
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
