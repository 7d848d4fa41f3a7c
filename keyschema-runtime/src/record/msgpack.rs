//! The value fields of a row on the ordered stores (memory, redb): one
//! MessagePack map from each field's name (a str) to its value, in
//! declaration order, nested structs as maps too (serde's data model as
//! rmp-serde writes it with named fields). Any MessagePack library reads
//! it: `msgpack.unpackb(value)` in Python gives a dict.

use super::dynamo_words::{find_notes, inner_words, ITEM_NOTES};
use super::item_de::FrontDeserializer;
use super::misfit;
use super::track::{Track, Trail};
use super::walk::{Item, Walker};
use super::{Record, ValueError, ValueField, ValueReader, ValueWriter};

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
        let start = self.out.len();
        let mut ser = rmp_serde::Serializer::new(&mut *self.out).with_struct_map();
        value.serialize(&mut ser).map_err(|e| failed(&e))?;
        // A value no reader follows is not written: nesting past
        // MAX_NESTING (only an array or a map nests).
        let written = &self.out[start..];
        if matches!(written.first(), Some(0x80..=0x9f | 0xdc..=0xdf)) {
            Walker::new(written).item().map_err(|_| ValueError::Field {
                field: name,
                message: format!(
                    "it nests deeper than {} levels of lists and maps, which no reader of rows follows (keyschema::MAX_NESTING): store it flatter, or as bytes of your own",
                    crate::limits::MAX_NESTING
                ),
            })?;
        }
        Ok(())
    }
}

/// Reads a map's entries in stored order from the borrowed bytes (names
/// and strings are not copied on the way): names compared as bytes, an
/// unknown field's value stepped over whole, each value read by its type
/// (`ItemDeserializer`, in `item_de.rs`).
pub struct MapReader<'v> {
    walker: Walker<'v>,
    left: usize,
    /// The index, among the names asked for, of the field expected next:
    /// after the last one found (a map written by the same struct holds
    /// its fields in declaration order, so this is usually the match).
    /// Above 0 once a field asked for was found.
    expect: usize,
    /// Whether an entry had the empty name: the presence mark a store adds
    /// to a row that names none of its fields (DynamoDB's item whose
    /// fields are all `None`).
    presence: bool,
}

/// `e`'s own words, without the variant's prefix.
fn words(e: ValueError) -> String {
    match e {
        ValueError::Format { message } => message,
        other => other.to_string(),
    }
}

impl<'v> MapReader<'v> {
    /// A reader of the map `value` holds.
    #[inline]
    pub fn new(value: &'v [u8]) -> Result<Self, ValueError> {
        let mut walker = Walker::new(value);
        let left = walker.map_len().map_err(|e| ValueError::Format {
            message: format!("expected a MessagePack map of value fields: {}", words(e)),
        })?;
        Ok(MapReader {
            walker,
            left,
            expect: 0,
            presence: false,
        })
    }

    /// Whether the entries read so far named one of the fields asked for,
    /// or carried the presence mark (the empty name).
    #[inline]
    pub(crate) fn named(&self) -> bool {
        self.expect > 0 || self.presence
    }

    /// The next stored field's name as bytes, `None` after the last.
    #[inline]
    fn next_name_bytes(&mut self) -> Result<Option<&'v [u8]>, ValueError> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        match self.walker.item()? {
            Item::Str(name) => Ok(Some(name)),
            other => Err(ValueError::Format {
                message: format!("a field name is not a MessagePack str: {other:?}"),
            }),
        }
    }

    /// The name of the next stored field, `None` after the last; its value
    /// is read next ([`value_seed`](Self::value_seed) or skipped). A
    /// DynamoDB item's notes ([`ITEM_NOTES`]) are no field: stepped over.
    #[cfg_attr(not(feature = "dynamodb"), allow(dead_code))]
    pub(crate) fn next_name(&mut self) -> Result<Option<&'v str>, ValueError> {
        loop {
            match self.next_name_bytes()? {
                Some(name) if name == ITEM_NOTES.as_bytes() => {
                    self.walker.item()?;
                }
                Some(name) => {
                    return std::str::from_utf8(name)
                        .map(Some)
                        .map_err(|e| ValueError::Format {
                            message: format!("a field name is not UTF-8: {e}"),
                        })
                }
                None => return Ok(None),
            }
        }
    }

    /// The value after [`next_name`](Self::next_name), read by `seed`.
    #[cfg_attr(not(feature = "dynamodb"), allow(dead_code))]
    pub(crate) fn value_seed<T, S: for<'de> serde::de::DeserializeSeed<'de, Value = T>>(
        &mut self,
        seed: S,
    ) -> Result<T, rmp_serde::decode::Error> {
        let (_, raw) = self
            .walker
            .item_and_bytes()
            .map_err(|e| <rmp_serde::decode::Error as serde::de::Error>::custom(words(e)))?;
        seed.deserialize(&mut rmp_serde::Deserializer::from_read_ref(raw))
    }
}

impl MapReader<'_> {
    /// The error of `field`, whose value (at `start`) did not read:
    /// in DynamoDB's terms when the map is a DynamoDB item's (it has
    /// [`ITEM_NOTES`] after its fields), else in plain ones; the value as
    /// stored, at the path `trail` failed at.
    #[cold]
    #[inline(never)]
    fn field_error(
        &self,
        field: &'static str,
        start: usize,
        trail: &Trail,
        error: &rmp_serde::decode::Error,
    ) -> ValueError {
        let mut walker = self.walker.at(start);
        let message = match walker.item_and_bytes() {
            Ok((_, raw)) => match find_notes(walker, self.left) {
                Some(notes) => misfit::message(field, raw, trail, &inner_words(error), Some(notes)),
                None => misfit::message(field, raw, trail, &misfit::reader_words(error), None),
            },
            Err(_) => misfit::reader_words(error),
        };
        ValueError::Field { field, message }
    }
}

impl ValueReader for MapReader<'_> {
    #[inline]
    fn next_field(&mut self, names: &[&str]) -> Result<Option<usize>, ValueError> {
        while let Some(name) = self.next_name_bytes()? {
            let found = match names.get(self.expect) {
                Some(n) if n.as_bytes() == name => Some(self.expect),
                _ => names.iter().position(|n| n.as_bytes() == name),
            };
            match found {
                Some(i) => {
                    self.expect = i + 1;
                    return Ok(Some(i));
                }
                None => {
                    self.presence |= name.is_empty();
                    self.walker.item()?;
                }
            }
        }
        Ok(None)
    }

    #[inline]
    fn value<T: serde::de::DeserializeOwned>(
        &mut self,
        field: &'static str,
    ) -> Result<T, ValueError> {
        let start = self.walker.position();
        let trail = Trail::default();
        let read = T::deserialize(Track::new(FrontDeserializer::new(&mut self.walker), &trail));
        let value = match read {
            Ok(value) => value,
            Err(e) => return Err(self.field_error(field, start, &trail, &e)),
        };
        // A type whose `Deserialize` asked for nothing leaves its value
        // unread: step over it, so the next name is a name.
        if self.walker.position() == start {
            self.walker.item()?;
        }
        Ok(value)
    }
}

/// Whether the map `value` names one of `fields`, or carries the presence
/// mark (an entry with the empty name): what every row keyschema writes
/// does (see [`super::decode_values`]).
pub(crate) fn names_one_of(value: &[u8], fields: &[ValueField]) -> Result<bool, ValueError> {
    let mut reader = MapReader::new(value)?;
    while let Some(name) = reader.next_name_bytes()? {
        if name.is_empty() || fields.iter().any(|f| f.name.as_bytes() == name) {
            return Ok(true);
        }
        reader.walker.item()?;
    }
    Ok(false)
}
