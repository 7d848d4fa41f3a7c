//! A row's value fields as cells, one per field: Bigtable's shape (and
//! HBase's). The qualifier is the field's name; the cell holds its value in
//! the encoding a person and the service's own tools read:
//!
//! | serde / MessagePack | cell |
//! |---|---|
//! | string | its UTF-8 bytes |
//! | integer | 8 bytes, big-endian two's complement (what `ReadModifyWriteRow` increments; a `u64` above `i64::MAX` as its 8 bytes) |
//! | float | 8 bytes, the big-endian IEEE 754 double (HBase's `Bytes.toBytes(double)`) |
//! | bool | `true` or `false` |
//! | bytes (`serde_bytes`) | the bytes |
//! | nil (`None`, unit, `null`) | no cell, in a self-describing field too: its type reads nil ([`super::reads_nil`]), so a missing field reads as nil |
//! | sequence, map, struct, enum variant with content | the value's MessagePack encoding, as in the ordered stores' map |
//!
//! A unit enum variant is a string, its name. Cells are read back by the
//! field's type ([`CellDeserializer`]), so the cell needs no type tag.
//!
//! Except for a self-describing field ([`super::is_self_describing`]:
//! `serde_json::Value`, an untagged or internally tagged enum), whose type
//! reads whatever the cell holds: there a string is its UTF-8 bytes as
//! above, and any other value (and text that is itself one whole
//! MessagePack array or map) is the byte `c1` followed by its MessagePack
//! encoding (`c1` never begins UTF-8 text), so that `5`, `true` and `"5"`
//! read back as what they were (and `null`, which has no cell, as nil).
//!
//! Across the store boundary the cells of a row travel as one value, the
//! *cell map*: the byte `c1` (never used in MessagePack, so a cell map is
//! never taken for the ordered stores' map) and a MessagePack map from each
//! qualifier (bin) to its cell (bin), in qualifier order. Specified in
//! `docs/ENCODING.md`, "Value fields on Bigtable".

use super::cell_de::CellDeserializer;
use super::dynamo_words::ITEM_NOTES;
use super::misfit;
use super::track::{Track, Trail};
use super::walk::{is_whole_nested, Item, Walker};
use super::{ValueError, ValueField, ValueReader};

/// The first byte of a cell map.
pub const CELL_MAP: u8 = 0xc1;

pub use super::cell_de::TAGGED;

/// The qualifier of the cell a row with no other cell keeps (every field
/// `None`): a row without cells does not exist on Bigtable. No field has an
/// empty name, so readers skip it.
pub const PRESENCE: &[u8] = b"";

/// One cell: its qualifier and its value.
pub type Cell = (Vec<u8>, Vec<u8>);

/// One cell, borrowed from a cell map.
pub type CellRef<'v> = (&'v [u8], &'v [u8]);

/// The cells of a row's value fields, from the value a typed write gives
/// the store (the ordered stores' map, [`super::msgpack`]) or a cell map
/// (what a read returned, written back by the backfill). Nil fields have no
/// cell; a row with no cell at all gets the [`PRESENCE`] cell. `fields` are
/// the key type's value fields: a self-describing one is kept as its text
/// or [`TAGGED`] MessagePack.
pub fn cells_of(value: &[u8], fields: &[ValueField]) -> Result<Vec<Cell>, ValueError> {
    if value.first() == Some(&CELL_MAP) {
        let cells = read_cell_map(value)?;
        // A store of cells reads no row without cells.
        if cells.is_empty() && !fields.is_empty() {
            return Err(super::not_fields(fields));
        }
        return Ok(cells
            .into_iter()
            .map(|(q, v)| (q.to_vec(), v.to_vec()))
            .collect());
    }
    let mut walker = Walker::new(value);
    let n = walker.map_len().map_err(|_| not_fields())?;
    let mut cells = Vec::with_capacity(n.min(256));
    let mut named = fields.is_empty();
    for _ in 0..n {
        let name = match walker.item()? {
            Item::Str(name) => name,
            other => {
                return Err(ValueError::Format {
                    message: format!("a field name is not a MessagePack str: {other:?}"),
                })
            }
        };
        let field = fields.iter().find(|f| f.name.as_bytes() == name);
        named |= field.is_some() || name.is_empty();
        let self_describing = field.is_some_and(|f| (f.self_describing)());
        let (item, bytes) = walker.item_and_bytes()?;
        // A DynamoDB item's notes are no field (and their name is the
        // presence cell's).
        if name == ITEM_NOTES.as_bytes() {
            continue;
        }
        let cell = match item {
            Item::Nil => continue,
            // Text a reader would take for a nested value is tagged too.
            Item::Str(s) if self_describing && !super::walk::is_whole_nested(s) => s.to_vec(),
            _ if self_describing => {
                let mut cell = Vec::with_capacity(bytes.len() + 1);
                cell.push(TAGGED);
                cell.extend_from_slice(bytes);
                cell
            }
            Item::Bool(b) => if b { &b"true"[..] } else { b"false" }.to_vec(),
            Item::Int(n) => n.to_be_bytes().to_vec(),
            Item::Uint(n) => n.to_be_bytes().to_vec(),
            Item::Float(x) => x.to_be_bytes().to_vec(),
            Item::Str(s) | Item::Bin(s) | Item::Nested(s) => s.to_vec(),
        };
        cells.push((name.to_vec(), cell));
    }
    if !walker.is_empty() {
        return Err(ValueError::Format {
            message: "bytes after the map of value fields".into(),
        });
    }
    if !named {
        return Err(super::not_fields(fields));
    }
    if cells.is_empty() {
        cells.push((PRESENCE.to_vec(), Vec::new()));
    }
    Ok(cells)
}

fn not_fields() -> ValueError {
    ValueError::Format {
        message: "the value is not a map of value fields: a key type with value fields is written whole (put_record), not from raw bytes".into(),
    }
}

/// The cell map of `cells` (sorted by qualifier here).
pub fn cell_map<'c>(cells: impl IntoIterator<Item = (&'c [u8], &'c [u8])>) -> Vec<u8> {
    let mut cells: Vec<(&[u8], &[u8])> = cells.into_iter().collect();
    cells.sort_unstable();
    let mut out = vec![CELL_MAP];
    let n = u32::try_from(cells.len()).unwrap_or(u32::MAX);
    // Writing to a Vec cannot fail.
    let _ = rmp::encode::write_map_len(&mut out, n);
    for (q, v) in cells {
        for bytes in [q, v] {
            let len = u32::try_from(bytes.len()).unwrap_or(u32::MAX);
            let _ = rmp::encode::write_bin_len(&mut out, len);
            out.extend_from_slice(bytes);
        }
    }
    out
}

/// The cells of a cell map, borrowed, in stored order.
pub fn read_cell_map(value: &[u8]) -> Result<Vec<CellRef<'_>>, ValueError> {
    let Some((&CELL_MAP, rest)) = value.split_first() else {
        return Err(ValueError::Format {
            message: "not a cell map: it must begin with c1".into(),
        });
    };
    let mut walker = Walker::new(rest);
    let n = walker.map_len()?;
    let mut cells = Vec::with_capacity(n.min(256));
    for _ in 0..n {
        match (walker.item()?, walker.item()?) {
            (Item::Bin(q), Item::Bin(v)) => cells.push((q, v)),
            other => {
                return Err(ValueError::Format {
                    message: format!("a cell map entry is not two bins: {other:?}"),
                })
            }
        }
    }
    Ok(cells)
}

/// Reads a row's value fields from its cell map, each cell by its field's
/// type.
pub struct CellReader<'v> {
    cells: std::vec::IntoIter<CellRef<'v>>,
    current: &'v [u8],
    /// Whether a cell read so far was a field asked for or the
    /// [`PRESENCE`] cell.
    named: bool,
}

impl<'v> CellReader<'v> {
    /// A reader of the cell map `value`.
    pub fn new(value: &'v [u8]) -> Result<Self, ValueError> {
        Ok(CellReader {
            cells: read_cell_map(value)?.into_iter(),
            current: &[],
            named: false,
        })
    }

    /// Whether the cells read so far held a field asked for, or the
    /// [`PRESENCE`] cell.
    pub(crate) fn named(&self) -> bool {
        self.named
    }

    /// Whether no cell is left to read (none at all, before the first).
    pub(crate) fn is_empty(&self) -> bool {
        self.cells.len() == 0
    }
}

impl ValueReader for CellReader<'_> {
    fn next_field(&mut self, names: &[&str]) -> Result<Option<usize>, ValueError> {
        for (qualifier, cell) in self.cells.by_ref() {
            if let Some(i) = names.iter().position(|n| n.as_bytes() == qualifier) {
                self.current = cell;
                self.named = true;
                return Ok(Some(i));
            }
            self.named |= qualifier == PRESENCE;
        }
        Ok(None)
    }

    fn value<T: serde::de::DeserializeOwned>(
        &mut self,
        field: &'static str,
    ) -> Result<T, ValueError> {
        let trail = Trail::default();
        let cell = self.current;
        T::deserialize(Track::new(CellDeserializer::new(cell), &trail)).map_err(|e| {
            // A nested value's MessagePack (after `c1` in a self-describing
            // field's cell) is said as the ordered stores' is; a scalar
            // cell in the cell's own words.
            let nested = match cell.split_first() {
                Some((&TAGGED, rest)) => Some(rest),
                _ => is_whole_nested(cell).then_some(cell),
            };
            let message = match nested {
                Some(raw) => {
                    let inner = e
                        .reader_words()
                        .map_or_else(|| e.to_string(), str::to_string);
                    misfit::message(field, raw, &trail, &inner, None)
                }
                None => e.to_string(),
            };
            ValueError::Field { field, message }
        })
    }
}

/// A format file for `cbt read` and `cbt lookup` (`format-file=PATH`)
/// that prints the integer and float fields of `schema`'s rows as numbers
/// (`1000`, `0.25`) instead of their 8 quoted bytes. Fields whose type is
/// known by its name only (`i64`, `Option<u32>`, `f64`...) are listed; the
/// others print as cbt prints bytes.
///
/// ```
/// use keyschema::RowKey;
///
/// #[derive(RowKey)]
/// #[rowkey(then = (invoice_id), line_no, family = "ledger")]
/// struct Line {
///     invoice_id: String,
///     line_no: u16,
///     #[rowkey(value)]
///     amount: i64,
///     #[rowkey(value)]
///     memo: String,
/// }
///
/// let yaml = keyschema::record::cells::cbt_format_file(Line::schema());
/// assert_eq!(yaml, "families:\n  ledger:\n    columns:\n      amount:\n        encoding: BigEndian\n        type: INT64\n");
/// ```
pub fn cbt_format_file(schema: &crate::schema::Schema) -> String {
    const INTS: &[&str] = &["i8", "i16", "i32", "i64", "isize"];
    const UINTS: &[&str] = &["u8", "u16", "u32", "u64", "usize"];
    let mut out = format!("families:\n  {}:\n    columns:\n", schema.family());
    for field in schema.values() {
        let ty = field.type_name.replace(' ', "");
        let inner = ty
            .strip_prefix("Option<")
            .and_then(|t| t.strip_suffix('>'))
            .unwrap_or(&ty);
        // Every integer cell is 8 bytes; an unsigned one above i64::MAX
        // would print negative as INT64.
        let kind = if INTS.contains(&inner) {
            "INT64"
        } else if UINTS.contains(&inner) {
            "UINT64"
        } else if inner == "f32" || inner == "f64" {
            "float64"
        } else {
            continue;
        };
        out.push_str(&format!(
            "      {}:\n        encoding: BigEndian\n        type: {kind}\n",
            field.name
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_map_becomes_one_readable_cell_per_field() {
        // {action: "click", n: 7, gone: nil, ok: true, x: 0.5, tags: ["a"]}
        let mut map = vec![0x86, 0xa6];
        map.extend(b"action");
        map.extend([0xa5]);
        map.extend(b"click");
        map.extend([0xa1, b'n', 0x07, 0xa4]);
        map.extend(b"gone");
        map.extend([0xc0, 0xa2, b'o', b'k', 0xc3, 0xa1, b'x', 0xcb]);
        map.extend(0.5f64.to_be_bytes());
        map.extend([0xa4]);
        map.extend(b"tags");
        map.extend([0x91, 0xa1, b'a']);
        let cells = cells_of(&map, &[]).unwrap();
        let expect: Vec<Cell> = vec![
            (b"action".to_vec(), b"click".to_vec()),
            (b"n".to_vec(), 7i64.to_be_bytes().to_vec()),
            (b"ok".to_vec(), b"true".to_vec()),
            (b"x".to_vec(), 0.5f64.to_be_bytes().to_vec()),
            (b"tags".to_vec(), vec![0x91, 0xa1, b'a']),
        ];
        assert_eq!(cells, expect);
        // A cell map round-trips through cells_of, sorted by qualifier.
        let packed = cell_map(cells.iter().map(|(q, v)| (&q[..], &v[..])));
        let mut sorted = expect.clone();
        sorted.sort();
        assert_eq!(cells_of(&packed, &[]).unwrap(), sorted);
    }

    #[test]
    fn a_row_of_nils_keeps_a_presence_cell_and_raw_bytes_are_refused() {
        assert_eq!(
            cells_of(&[0x81, 0xa1, b'a', 0xc0], &[]).unwrap(),
            vec![(Vec::new(), Vec::new())]
        );
        assert!(cells_of(b"raw bytes", &[]).is_err());
        // A DynamoDB item's map: its notes entry is no cell.
        assert_eq!(
            cells_of(&[0x82, 0xa1, b'a', 0x07, 0xa0, 0x80], &[]).unwrap(),
            vec![(b"a".to_vec(), 7u64.to_be_bytes().to_vec())]
        );
        assert!(read_cell_map(&[0xc1, 0x81, 0xa1, b'a', 0xc4, 0x00]).is_err());
    }
}
