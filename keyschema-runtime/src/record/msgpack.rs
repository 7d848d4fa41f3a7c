//! The value fields of a row on the ordered stores (memory, redb): one
//! MessagePack map from each field's name (a str) to its value, in
//! declaration order, nested structs as maps too (serde's data model as
//! rmp-serde writes it with named fields). Any MessagePack library reads
//! it: `msgpack.unpackb(value)` in Python gives a dict.

use super::{Record, ValueError, ValueReader, ValueWriter};
use serde::de::IgnoredAny;
use serde::Deserialize;

/// Appends `row`'s value fields to `out` as one map; a field that serde
/// cannot write (its `Serialize` failed) is an error naming it.
pub(super) fn write_values<K: Record>(row: &K, out: &mut Vec<u8>) -> Result<(), ValueError> {
    let count = u32::try_from(K::VALUES.len()).unwrap_or(u32::MAX);
    rmp::encode::write_map_len(out, count).map_err(|e| ValueError::Format {
        message: e.to_string(),
    })?;
    let mut writer = MapWriter { out };
    row.write_values(&mut writer)
}

/// Writes each field as a name and a value.
struct MapWriter<'o> {
    out: &'o mut Vec<u8>,
}

impl ValueWriter for MapWriter<'_> {
    type Error = ValueError;

    fn field<T: serde::Serialize + ?Sized>(
        &mut self,
        name: &'static str,
        value: &T,
    ) -> Result<(), ValueError> {
        let failed = |e: &dyn std::fmt::Display| ValueError::Field {
            field: name,
            message: format!("it cannot be written as MessagePack: {e}"),
        };
        rmp::encode::write_str(self.out, name).map_err(|e| failed(&e))?;
        let mut ser = rmp_serde::Serializer::new(&mut *self.out).with_struct_map();
        value.serialize(&mut ser).map_err(|e| failed(&e))
    }
}

/// Reads a map's entries in stored order, through one deserializer over
/// the borrowed bytes (names and strings are not copied on the way).
pub struct MapReader<'v> {
    de: rmp_serde::Deserializer<rmp_serde::decode::ReadRefReader<'v, [u8]>>,
    left: u32,
}

impl<'v> MapReader<'v> {
    /// A reader of the map `value` holds.
    pub fn new(value: &'v [u8]) -> Result<Self, ValueError> {
        let mut rest = value;
        let left = rmp::decode::read_map_len(&mut rest).map_err(|e| ValueError::Format {
            message: format!("expected a MessagePack map of value fields: {e}"),
        })?;
        Ok(MapReader {
            de: rmp_serde::Deserializer::from_read_ref(rest),
            left,
        })
    }

    fn skip(&mut self) -> Result<(), ValueError> {
        IgnoredAny::deserialize(&mut self.de).map_err(|e| ValueError::Format {
            message: format!("an entry of the map does not read: {e}"),
        })?;
        Ok(())
    }

    /// The name of the next stored field, `None` after the last; its value
    /// is read next ([`value_seed`](Self::value_seed) or skipped).
    pub(crate) fn next_name(&mut self) -> Result<Option<&'v str>, ValueError> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        <&'v str>::deserialize(&mut self.de)
            .map(Some)
            .map_err(|e| ValueError::Format {
                message: format!("a field name is not a MessagePack str: {e}"),
            })
    }

    /// The value after [`next_name`](Self::next_name), read by `seed`.
    #[cfg_attr(not(feature = "dynamodb"), allow(dead_code))]
    pub(crate) fn value_seed<T, S: for<'de> serde::de::DeserializeSeed<'de, Value = T>>(
        &mut self,
        seed: S,
    ) -> Result<T, rmp_serde::decode::Error> {
        seed.deserialize(&mut self.de)
    }
}

impl ValueReader for MapReader<'_> {
    fn next_field(&mut self, names: &[&str]) -> Result<Option<usize>, ValueError> {
        while let Some(name) = self.next_name()? {
            match names.iter().position(|n| *n == name) {
                Some(i) => return Ok(Some(i)),
                None => self.skip()?,
            }
        }
        Ok(None)
    }

    fn value<T: serde::de::DeserializeOwned>(
        &mut self,
        field: &'static str,
    ) -> Result<T, ValueError> {
        T::deserialize(&mut self.de).map_err(|e| ValueError::Field {
            field,
            message: e.to_string(),
        })
    }
}
