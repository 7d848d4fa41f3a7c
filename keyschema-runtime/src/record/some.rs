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
/// [`read_fields`]'s `read` gets.
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

/// Reads the fields of `value` whose names are among `names`: `read` is
/// given each one's index in `names` and sets it, and `got` marks it read.
/// A field that does not read as its type stops the reading (the reader's
/// place in the value is then unknown), so it and the fields stored after
/// it stay unmarked; so do all of them when `value` is not a row's value
/// fields at all. Fields not in `names` are stepped over unread.
#[doc(hidden)]
pub fn read_fields(
    value: &[u8],
    names: &[&str],
    got: &mut [bool],
    mut read: impl FnMut(&mut StoredValues<'_>, usize) -> Result<(), ValueError>,
) {
    let reader = if value.first() == Some(&CELL_MAP) {
        CellReader::new(value).map(StoredValues::Cells)
    } else {
        MapReader::new(value).map(StoredValues::Map)
    };
    let Ok(mut reader) = reader else {
        return;
    };
    while let Ok(Some(i)) = reader.next_field(names) {
        if read(&mut reader, i).is_err() {
            return;
        }
        if let Some(got) = got.get_mut(i) {
            *got = true;
        }
    }
}

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

    fn read(value: &[u8]) -> ([bool; 2], String, i64) {
        let (mut page, mut n) = (String::new(), 0i64);
        let mut got = [false; 2];
        read_fields(value, &["page", "n"], &mut got, |r, i| {
            match i {
                0 => page = r.value::<String>("page")?,
                1 => n = r.value::<i64>("n")?,
                _ => {}
            }
            Ok(())
        });
        (got, page, n)
    }

    #[test]
    fn reads_the_named_fields_and_steps_over_the_others() {
        // "tag": "x" (a fixstr), "page": "/a", "n": 5
        let value = map(&[("tag", b"\xa1x"), ("page", b"\xa2/a"), ("n", b"\x05")]);
        assert_eq!(read(&value), ([true, true], "/a".into(), 5));
    }

    #[test]
    fn a_missing_field_is_unmarked_and_the_rest_read() {
        let value = map(&[("page", b"\xa2/a")]);
        assert_eq!(read(&value), ([true, false], "/a".into(), 0));
    }

    #[test]
    fn a_field_of_another_type_stops_the_reading() {
        // "n" holds a string: it and "page" after it stay unread.
        let value = map(&[("n", b"\xa1x"), ("page", b"\xa2/a")]);
        assert_eq!(read(&value), ([false, false], String::new(), 0));
    }

    #[test]
    fn a_value_that_is_no_map_reads_nothing() {
        assert_eq!(read(b"\x05"), ([false, false], String::new(), 0));
        assert_eq!(read(b""), ([false, false], String::new(), 0));
    }
}
