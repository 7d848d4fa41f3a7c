//! A stored row's value fields as text, without the Rust type: what a tool
//! prints for a row it read from a live table (the `keyschema` command's
//! `scan` and `get`). Each field reads back unambiguously: strings in JSON
//! quotes and escapes, numbers and `true`/`false` as they are, `null` for a
//! missing optional field, bytes as `0x` and hex, lists `[...]` and maps
//! `{...}`. A declared field is read by the same rules as the typed read
//! (and the Python package): a value its type refuses is an error naming
//! the field and what it holds, never printed as if it were good.

use super::cell_de::CellDeserializer;
use super::cells::{read_cell_map, CELL_MAP, PRESENCE, TAGGED};
use super::dynamo_words::{find_notes, inner_words, note, ITEM_NOTES};
use super::item_de::ItemDeserializer;
use super::kind::{cell_scalar, item_scalar, kind_of, quoted, Kind};
use super::misfit;
use super::shape::{shaped, Shape};
use super::track::{Track, Trail};
use super::walk::{is_whole_nested, Item, Walker};
use super::{ValueError, ValueField};
use serde::de::DeserializeSeed;

/// The deepest nesting rendered; deeper values are refused (as the typed
/// read refuses them: [`MAX_NESTING`](crate::MAX_NESTING)).
const MAX_DEPTH: usize = crate::limits::MAX_NESTING;

/// The value fields of a row's stored value, each as `(name, text)`: the
/// declared fields in declaration order (an absent optional one `null`),
/// then any field the row holds that `fields` does not declare. `value` is
/// what a whole-row read returns: the ordered stores' and DynamoDB's
/// MessagePack field map, or Bigtable's cell map, whose cells read by the
/// declared field's Rust type (`docs/ENCODING.md`, "Value fields on
/// Bigtable").
///
/// Each declared field is read as the typed read reads it, through the
/// same deserializers: an integer must fit its width (a Bigtable cell is 8
/// big-endian bytes, or 16 for a 128-bit one; the text `5` is refused), a
/// float prints as the shortest text of its own width (an `f32` as `0.9`
/// on every store), a 128-bit integer as its number, a string must be one.
/// A nested field whose type text spells its shape (`Vec<i64>`,
/// `(u8, String)`, `[f32; 3]`, `BTreeMap<String, u32>`, `Option` of them)
/// is read level by level as that Rust type asks, so a `Vec<i64>` holding
/// `[1, "x"]` is refused with the typed read's words and path
/// (``at `scores[1]`: ...``); a struct or enum of the user's, which the
/// text does not describe, prints as stored.
/// A field that does not read is [`ValueError::Field`] naming it, its type
/// and what it holds; a missing required field is [`ValueError::Missing`].
///
/// ```
/// use keyschema::record::render_values;
/// use keyschema::RowKey;
///
/// #[derive(RowKey)]
/// #[rowkey(then = (user_id), ts)]
/// struct Visit {
///     user_id: String,
///     ts: u64,
///     #[rowkey(value)]
///     url: String,
///     #[rowkey(value)]
///     referrer: Option<String>,
/// }
///
/// let value = keyschema::record::encode_values(&Visit {
///     user_id: "u1".into(),
///     ts: 7,
///     url: "/a \"b\"".into(),
///     referrer: None,
/// })?;
/// let text = render_values(&value, Visit::schema().values())?;
/// assert_eq!(text, [("url".into(), r#""/a \"b\"""#.into()), ("referrer".into(), "null".into())]);
/// # Ok::<(), keyschema::record::ValueError>(())
/// ```
pub fn render_values(
    value: &[u8],
    fields: &[ValueField],
) -> Result<Vec<(String, String)>, ValueError> {
    let mut found: Vec<(String, String)> = Vec::new();
    let declared = |name: &[u8]| fields.iter().find(|f| f.name.as_bytes() == name);
    if value.first() == Some(&CELL_MAP) {
        for (qualifier, cell) in read_cell_map(value)? {
            if qualifier == PRESENCE {
                continue;
            }
            let name = String::from_utf8_lossy(qualifier).into_owned();
            let text = match declared(qualifier) {
                Some(field) => checked_cell(field, cell)?,
                None => cell_text(cell)?,
            };
            found.push((name, text));
        }
    } else {
        let mut walker = Walker::new(value);
        let n = walker.map_len()?;
        // A DynamoDB item's notes (after its fields): its numbers as stored.
        let notes = find_notes(walker.at(walker.position()), n);
        for _ in 0..n {
            let name = match walker.item()? {
                Item::Str(name) if name == ITEM_NOTES.as_bytes() => {
                    walker.item()?;
                    continue;
                }
                Item::Str(name) => String::from_utf8_lossy(name).into_owned(),
                other => return Err(bad(format_args!("a field name is not a string: {other:?}"))),
            };
            let (item, raw) = walker.item_and_bytes()?;
            let text = match declared(name.as_bytes()) {
                Some(field) => checked_item(field, item, raw, notes)?,
                None => loose_item(raw)?,
            };
            found.push((name, text));
        }
        // A DynamoDB item's numbers beyond 64-bit integers, as it stores
        // them (not as the float the map holds); an `f32` or `f64` field by
        // its own shortest float text (DynamoDB keeps `3.4028235e38` as 39
        // digits, `1e125` as 126).
        if let Some(notes) = notes {
            for (name, text) in &mut found {
                // A float field as the typed read's float prints (`1e125`,
                // `2.0`), never as the digits DynamoDB keeps.
                let float_field = declared(name.as_bytes())
                    .is_some_and(|f| matches!(kind_of(f.type_name).0, Kind::F32 | Kind::F64));
                match note(notes, name) {
                    _ if float_field => {}
                    Some("SS" | "NS" | "BS") | None => {}
                    Some(number) => *text = number.to_string(),
                }
            }
        }
    }
    let mut out = Vec::with_capacity(found.len().max(fields.len()));
    for field in fields {
        match found.iter().position(|(name, _)| name == field.name) {
            Some(at) => out.push(found.remove(at)),
            None if field.refused_if_missing() => {
                return Err(ValueError::Missing { field: field.name })
            }
            None => out.push((field.name.to_string(), "null".to_string())),
        }
    }
    out.extend(found);
    Ok(out)
}

/// A declared field's error: its name, its type, and what it holds.
fn wrong(field: &ValueField, message: impl std::fmt::Display) -> ValueError {
    ValueError::Field {
        field: field.name,
        message: format!("({}) {message}", field.type_name),
    }
}

/// A declared field's Bigtable cell, read by its type as the typed read
/// reads it.
fn checked_cell(field: &ValueField, cell: &[u8]) -> Result<String, ValueError> {
    let (kind, _) = kind_of(field.type_name);
    if let Some(text) = cell_scalar(kind, cell) {
        return text.map_err(|e| wrong(field, e));
    }
    // A type of the user's that the document's `types` describe reads by
    // its shape, as a nested value does.
    let shape = Shape::of_field(field);
    let user = kind == Kind::Auto && shape.is_known();
    match kind {
        Kind::Bytes => Ok(hex(cell)),
        Kind::Nested | Kind::Auto if kind == Kind::Nested || user => {
            if shape.is_known() {
                let trail = Trail::default();
                return shaped(field, &shape, &trail, cell, None, |seed| {
                    seed.deserialize(Track::new(CellDeserializer::new(cell), &trail))
                        .map_err(|e| {
                            // As the typed read says it: a nested value's
                            // MessagePack at its path, else the cell's words.
                            match is_whole_nested(cell) {
                                true => {
                                    let inner = e
                                        .reader_words()
                                        .map_or_else(|| e.to_string(), str::to_string);
                                    misfit::message(field.name, cell, &trail, &inner, None)
                                }
                                false => e.to_string(),
                            }
                        })
                });
            }
            let mut walker = Walker::new(cell);
            let mut text = String::new();
            match item_text(&mut walker, &mut text, 0) {
                Ok(()) if walker.is_empty() => Ok(text),
                _ => Err(wrong(
                    field,
                    format_args!(
                        "expected one MessagePack value (a nested value's cell), found a cell of {} bytes ({})",
                        cell.len(),
                        hex(cell.get(..32).unwrap_or(cell))
                    ),
                )),
            }
        }
        _ => {
            if let Some((&TAGGED, rest)) = cell.split_first() {
                let mut walker = Walker::new(rest);
                let mut text = String::new();
                return match item_text(&mut walker, &mut text, 0) {
                    Ok(()) if walker.is_empty() => Ok(text),
                    _ => Err(wrong(
                        field,
                        "expected one MessagePack value after the byte c1",
                    )),
                };
            }
            cell_text(cell)
        }
    }
}

/// A declared field's MessagePack item (`raw`, its whole encoding), read
/// by its type as the typed read reads it; `notes` are a DynamoDB item's.
fn checked_item(
    field: &ValueField,
    item: Item<'_>,
    raw: &[u8],
    notes: Option<&[u8]>,
) -> Result<String, ValueError> {
    let (kind, optional) = kind_of(field.type_name);
    // A type of the user's that the document's `types` describe reads by
    // its shape, as a nested value does (nil too: a unit struct reads it,
    // a struct does not).
    let shape = Shape::of_field(field);
    let (kind, user) = match kind == Kind::Auto && shape.is_known() {
        true => (Kind::Nested, true),
        false => (kind, false),
    };
    if item == Item::Nil && !user {
        return match optional || (field.reads_nil)() || matches!(kind, Kind::Nested | Kind::Auto) {
            true => Ok("null".into()),
            false => Err(wrong(
                field,
                "nil, which only an Option (or a type the document marks `nil`) holds",
            )),
        };
    }
    if let Some(text) = item_scalar(kind, item, raw) {
        return text.map_err(|e| match notes {
            // A DynamoDB attribute in the typed read's words (`the number
            // (N) ...`, `found a string (S)`), as a nested one is said.
            Some(_) => dynamo_misfit(field, item, raw, notes)
                .unwrap_or_else(|| wrong(field, format_args!("{e}; it holds {}", shown(raw)))),
            None => wrong(field, format_args!("{e}; it holds {}", shown(raw))),
        });
    }
    match (kind, item) {
        (Kind::Bytes, Item::Bin(b)) => Ok(hex(b)),
        // A `Vec<u8>` marked `#[serde(with = "serde_bytes")]` is a bin,
        // and its type text is the same.
        (Kind::Nested, Item::Bin(b)) if shape.is_bytes_like() => Ok(hex(b)),
        (Kind::Bytes, _) => Err(wrong(
            field,
            format_args!("expected bytes; it holds {}", shown(raw)),
        )),
        (Kind::Nested, _) => {
            if !shape.is_known() {
                return loose_item(raw);
            }
            let trail = Trail::default();
            shaped(field, &shape, &trail, raw, notes, |seed| {
                seed.deserialize(Track::new(ItemDeserializer::new(item, raw), &trail))
                    .map_err(|e| {
                        let inner = match notes {
                            Some(_) => inner_words(&e),
                            None => misfit::reader_words(&e),
                        };
                        misfit::message(field.name, raw, &trail, &inner, notes)
                    })
            })
        }
        _ => loose_item(raw),
    }
}

/// Why a DynamoDB attribute `item` does not read as `field`'s type, by
/// the typed read's reader and words; `None` if that reader takes it.
fn dynamo_misfit(
    field: &ValueField,
    item: Item<'_>,
    raw: &[u8],
    notes: Option<&[u8]>,
) -> Option<ValueError> {
    let trail = Trail::default();
    shaped(field, &Shape::of_field(field), &trail, raw, notes, |seed| {
        seed.deserialize(Track::new(ItemDeserializer::new(item, raw), &trail))
            .map_err(|e| misfit::message(field.name, raw, &trail, &inner_words(&e), notes))
    })
    .err()
}

/// What a MessagePack value holds, for an error: its text, cut at 64
/// characters.
fn shown(raw: &[u8]) -> String {
    let text = loose_item(raw).unwrap_or_else(|_| hex(raw));
    match text.char_indices().nth(64) {
        Some((at, _)) => format!("{}...", &text[..at]),
        None => text,
    }
}

/// A MessagePack value as text, whatever it holds.
fn loose_item(raw: &[u8]) -> Result<String, ValueError> {
    let mut text = String::new();
    item_text(&mut Walker::new(raw), &mut text, 0)?;
    Ok(text)
}

fn bad(what: impl std::fmt::Display) -> ValueError {
    ValueError::Format {
        message: what.to_string(),
    }
}

/// A Bigtable cell no field declares, as text: MessagePack after `c1` or
/// a whole array or map as what it holds, UTF-8 quoted, else hex.
fn cell_text(cell: &[u8]) -> Result<String, ValueError> {
    let nested = match cell.split_first() {
        Some((&TAGGED, rest)) => Some(rest),
        _ if is_whole_nested(cell) => Some(cell),
        _ => None,
    };
    if let Some(bytes) = nested {
        let mut walker = Walker::new(bytes);
        let mut text = String::new();
        item_text(&mut walker, &mut text, 0)?;
        return Ok(text);
    }
    Ok(match std::str::from_utf8(cell) {
        Ok(s) => quoted(s),
        Err(_) => hex(cell),
    })
}

fn hex(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(2 + 2 * bytes.len());
    out.push_str("0x");
    for &b in bytes {
        crate::encoding::push_hex(&mut out, b);
    }
    out
}

fn float(v: f64) -> String {
    super::kind::float_text(v, v.is_finite())
}

/// One MessagePack value from `walker` as text, arrays and maps within.
fn item_text(walker: &mut Walker<'_>, out: &mut String, depth: usize) -> Result<(), ValueError> {
    if depth > MAX_DEPTH {
        return Err(bad(format_args!("nested deeper than {MAX_DEPTH} levels")));
    }
    let (item, raw) = walker.item_and_bytes()?;
    match item {
        Item::Nil => out.push_str("null"),
        Item::Bool(b) => out.push_str(if b { "true" } else { "false" }),
        Item::Int(n) => out.push_str(&n.to_string()),
        Item::Uint(n) => out.push_str(&n.to_string()),
        // A float32 (`ca`) by its own shortest text, as an `f32` field
        // prints (`0.3`, not the f64 widening `0.30000001192092896`).
        Item::Float(v) if raw.first() == Some(&0xca) => {
            let v = v as f32;
            out.push_str(&super::kind::float_text(v, v.is_finite()));
        }
        Item::Float(v) => out.push_str(&float(v)),
        Item::Str(s) => out.push_str(&match std::str::from_utf8(s) {
            Ok(s) => quoted(s),
            Err(_) => hex(s),
        }),
        Item::Bin(b) => out.push_str(&hex(b)),
        Item::Nested(bytes) => nested_text(bytes, out, depth)?,
    }
    Ok(())
}

/// An array (`[a, b]`) or map (`{k: v}`); an ext as its hex.
fn nested_text(bytes: &[u8], out: &mut String, depth: usize) -> Result<(), ValueError> {
    let width = |n: usize| -> Option<usize> {
        let b = bytes.get(1..1 + n)?;
        Some(b.iter().fold(0usize, |n, &b| (n << 8) | usize::from(b)))
    };
    let (len, header, map) = match bytes.first().copied() {
        Some(m @ 0x90..=0x9f) => (Some(usize::from(m & 0x0f)), 1, false),
        Some(m @ 0x80..=0x8f) => (Some(usize::from(m & 0x0f)), 1, true),
        Some(0xdc) => (width(2), 3, false),
        Some(0xdd) => (width(4), 5, false),
        Some(0xde) => (width(2), 3, true),
        Some(0xdf) => (width(4), 5, true),
        _ => {
            out.push_str(&hex(bytes));
            return Ok(());
        }
    };
    let len = len.ok_or_else(|| bad("a truncated array or map header"))?;
    let mut walker = Walker::new(bytes.get(header..).unwrap_or_default());
    out.push(if map { '{' } else { '[' });
    for i in 0..len {
        if i > 0 {
            out.push_str(", ");
        }
        item_text(&mut walker, out, depth + 1)?;
        if map {
            out.push_str(": ");
            item_text(&mut walker, out, depth + 1)?;
        }
    }
    out.push(if map { '}' } else { ']' });
    Ok(())
}

#[cfg(test)]
#[path = "render_tests.rs"]
mod tests;
