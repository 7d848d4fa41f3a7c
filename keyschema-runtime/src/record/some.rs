//! Reading some of a stored row's value fields, each on its own: what a
//! write needs of a row's old value to find its index entries, whichever
//! version of the struct wrote it. A field the current struct requires and
//! the row lacks, or a field of another type, then matters only to the
//! indexes over it, instead of hiding every entry of the row.

use super::cells::{CellReader, CELL_MAP};
use super::msgpack::{names_one_of, MapReader};
use super::{not_a_row, Record, ValueError, ValueReader};

/// A stored value's reader, whichever of the two shapes it is in (the
/// ordered stores' map, a store of cells' cell map): what
/// [`read_stored`]'s `read` gets.
#[doc(hidden)]
pub enum StoredValues<'v> {
    /// A MessagePack map from field name to value.
    Map(MapReader<'v>),
    /// A Bigtable row's cell map ([`super::cells`]).
    Cells(CellReader<'v>),
}

impl ValueReader for StoredValues<'_> {
    fn next_field(&mut self, names: &[&str]) -> Result<Option<usize>, ValueError> {
        match self {
            StoredValues::Map(r) => r.next_field(names),
            StoredValues::Cells(r) => r.next_field(names),
        }
    }

    fn value<T: serde::de::DeserializeOwned>(
        &mut self,
        field: &'static str,
    ) -> Result<T, ValueError> {
        match self {
            StoredValues::Map(r) => r.value(field),
            StoredValues::Cells(r) => r.value(field),
        }
    }
}

/// Reads a stored value's fields with `read` (given the value's reader,
/// whichever of the two shapes it is in), leniently: a value in neither
/// shape reads as a map without fields (so `read` finds none: a required
/// field is then missing, an `Option` `None`). What a write reads a row's
/// old value with to find its index entries, each index's fields on their
/// own (`Record::read_index_fields`).
#[doc(hidden)]
pub fn read_stored(
    value: &[u8],
    read: impl FnOnce(&mut StoredValues<'_>) -> Result<(), ValueError>,
) -> Result<(), ValueError> {
    let reader = if value.first() == Some(&CELL_MAP) {
        CellReader::new(value).map(StoredValues::Cells)
    } else {
        MapReader::new(value).map(StoredValues::Map)
    };
    let mut reader = match reader {
        Ok(reader) => reader,
        Err(_) => StoredValues::Map(MapReader::new(EMPTY_MAP)?),
    };
    read(&mut reader)
}

/// The MessagePack map without entries.
const EMPTY_MAP: &[u8] = b"\x80";

impl StoredValues<'_> {
    /// Whether the fields read so far named one asked for, or the row's
    /// presence mark.
    fn named(&self) -> bool {
        match self {
            StoredValues::Map(r) => r.named(),
            StoredValues::Cells(r) => r.named(),
        }
    }
}

/// Reads some of `K`'s value fields from a stored `value` with `read`,
/// strictly: a value in neither shape is a [`ValueError::Format`], as is
/// one that names none of `K`'s value fields (no row keyschema writes is
/// such a value: [`super::decode_values`]), and whatever `read` returns
/// (a field missing, or of another type) is the error. A key type without
/// value fields stores a raw value, which is left unread.
pub(crate) fn read_some<K: Record>(
    value: &[u8],
    read: impl FnOnce(&mut StoredValues<'_>) -> Result<(), ValueError>,
) -> Result<(), ValueError> {
    if K::VALUES.is_empty() {
        return Ok(());
    }
    let mut reader = if value.first() == Some(&CELL_MAP) {
        StoredValues::Cells(CellReader::new(value)?)
    } else {
        StoredValues::Map(MapReader::new(value)?)
    };
    read(&mut reader)?;
    if reader.named() || names_any::<K>(value)? {
        return Ok(());
    }
    Err(not_a_row(K::VALUES))
}

/// Whether `value` names one of `K`'s value fields, or the presence mark.
fn names_any<K: Record>(value: &[u8]) -> Result<bool, ValueError> {
    if value.first() != Some(&CELL_MAP) {
        return names_one_of(value, K::VALUES);
    }
    let names: Vec<&str> = K::VALUES.iter().map(|f| f.name).collect();
    let mut reader = CellReader::new(value)?;
    Ok(reader.next_field(&names)?.is_some() || reader.named())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A MessagePack map of `fields`, each a name and an already encoded
    /// value.
    fn map(fields: &[(&str, &[u8])]) -> Vec<u8> {
        let mut out = Vec::new();
        rmp::encode::write_map_len(&mut out, fields.len() as u32).unwrap();
        for (name, value) in fields {
            rmp::encode::write_str(&mut out, name).unwrap();
            out.extend_from_slice(value);
        }
        out
    }

    /// `names` read from `value` as `read_stored` gives them: the ones
    /// read, and the error that stopped the reading.
    fn read(value: &[u8], names: &[&'static str]) -> (Vec<(usize, String)>, Option<ValueError>) {
        let mut got = Vec::new();
        let result = read_stored(value, |reader| {
            while let Some(i) = reader.next_field(names)? {
                got.push((i, reader.value::<String>(names[i])?));
            }
            Ok(())
        });
        (got, result.err())
    }

    #[test]
    fn reads_the_named_fields_and_steps_over_the_others() {
        // "n": 5, "tag": "x", "page": "/a"
        let value = map(&[("n", b"\x05"), ("tag", b"\xa1x"), ("page", b"\xa2/a")]);
        assert_eq!(read(&value, &["page"]), (vec![(0, "/a".into())], None));
        assert_eq!(read(&value, &["tag"]), (vec![(0, "x".into())], None));
    }

    #[test]
    fn a_field_of_another_type_is_the_error() {
        let value = map(&[("n", b"\x05"), ("page", b"\xa2/a")]);
        let (got, error) = read(&value, &["n", "page"]);
        assert!(got.is_empty());
        assert!(
            matches!(error, Some(ValueError::Field { field: "n", .. })),
            "{error:?}"
        );
    }

    #[test]
    fn a_value_in_neither_shape_reads_as_one_without_fields() {
        assert_eq!(read(b"\x05", &["page"]), (vec![], None));
        assert_eq!(read(b"", &["page"]), (vec![], None));
    }
}
