//! A value field read by its declared type without the Rust type: the
//! *kind* its type text names (`u32`, `Option<f32>`, `Vec<String>`...), and
//! one stored value (a Bigtable cell, or a MessagePack item of the ordered
//! stores' or DynamoDB's field map) read as that kind through the same
//! deserializers a typed read uses ([`CellDeserializer`], `ItemDeserializer`),
//! so that a value the typed read refuses is refused here too, with its
//! words. The kinds are the Python package's (`_values.py`, `value_kind`).

use super::cell_de::CellDeserializer;
use super::item_de::ItemDeserializer;
use super::misfit;
use super::track::{Track, Trail};
use super::walk::Item;
use serde::Deserialize;

/// What a value field's type reads as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    I8,
    I16,
    I32,
    I64,
    I128,
    U8,
    U16,
    U32,
    U64,
    U128,
    F32,
    F64,
    Bool,
    Char,
    Str,
    Bytes,
    /// A sequence, map, struct or enum with content: MessagePack.
    Nested,
    /// A type the text does not name (a newtype, an enum, `serde_json::Value`).
    Auto,
}

/// `type_name` without its `Option`/`Box`/`Rc`/`Arc` wrappers and spaces,
/// and whether an `Option` was among them.
fn unwrap(type_name: &str) -> (String, bool) {
    let mut t: String = type_name.chars().filter(|c| !c.is_whitespace()).collect();
    let mut optional = false;
    loop {
        let Some((head, rest)) = t.split_once('<') else {
            return (t, optional);
        };
        let name = head.rsplit("::").next().unwrap_or(head);
        let inner = match rest.strip_suffix('>') {
            Some(inner) if ["Option", "Box", "Rc", "Arc"].contains(&name) => inner,
            _ => return (t, optional),
        };
        optional |= name == "Option";
        t = inner.to_string();
    }
}

/// The kind a field of the Rust type `type_name` reads as, and whether
/// it is an `Option` (its nil is a value).
pub(crate) fn kind_of(type_name: &str) -> (Kind, bool) {
    let (t, optional) = unwrap(type_name);
    if t.starts_with('[') || (t.starts_with('(') && t != "()") {
        return (Kind::Nested, optional);
    }
    let (head, generic) = match t.split_once('<') {
        Some((head, _)) => (head, true),
        None => (t.as_str(), false),
    };
    let name = head.rsplit("::").next().unwrap_or(head);
    let kind = match (name, generic) {
        ("i8", false) => Kind::I8,
        ("i16", false) => Kind::I16,
        ("i32", false) => Kind::I32,
        ("i64" | "isize", false) => Kind::I64,
        ("i128", false) => Kind::I128,
        ("u8", false) => Kind::U8,
        ("u16", false) => Kind::U16,
        ("u32", false) => Kind::U32,
        ("u64" | "usize", false) => Kind::U64,
        ("u128", false) => Kind::U128,
        ("f32", false) => Kind::F32,
        ("f64", false) => Kind::F64,
        ("bool", false) => Kind::Bool,
        ("char", false) => Kind::Char,
        ("String" | "str", false) => Kind::Str,
        ("ByteBuf" | "Bytes", false) => Kind::Bytes,
        (
            "Vec" | "VecDeque" | "LinkedList" | "BinaryHeap" | "HashMap" | "BTreeMap" | "HashSet"
            | "BTreeSet" | "IndexMap" | "IndexSet" | "SmallVec",
            _,
        ) => Kind::Nested,
        _ => Kind::Auto,
    };
    (kind, optional)
}

/// A float as text: its shortest form that reads back as the same value
/// of its own width (`0.9` for the `f32` nearest 0.9, on every store).
pub(crate) fn float_text<F: std::fmt::Debug + std::fmt::Display>(v: F, finite: bool) -> String {
    if finite {
        format!("{v:?}")
    } else {
        v.to_string()
    }
}

/// A scalar `kind` read from `de` as text; `None` for the kinds read by
/// their bytes (`Bytes`, `Nested`, `Auto`).
fn scalar<'de, D: serde::Deserializer<'de>>(kind: Kind, de: D) -> Option<Result<String, D::Error>> {
    fn text<'de, T: Deserialize<'de> + ToString, D: serde::Deserializer<'de>>(
        de: D,
    ) -> Result<String, D::Error> {
        T::deserialize(de).map(|v| v.to_string())
    }
    Some(match kind {
        Kind::I8 => text::<i8, D>(de),
        Kind::I16 => text::<i16, D>(de),
        Kind::I32 => text::<i32, D>(de),
        Kind::I64 => text::<i64, D>(de),
        Kind::I128 => text::<i128, D>(de),
        Kind::U8 => text::<u8, D>(de),
        Kind::U16 => text::<u16, D>(de),
        Kind::U32 => text::<u32, D>(de),
        Kind::U64 => text::<u64, D>(de),
        Kind::U128 => text::<u128, D>(de),
        Kind::F32 => f32::deserialize(de).map(|v| float_text(v, v.is_finite())),
        Kind::F64 => f64::deserialize(de).map(|v| float_text(v, v.is_finite())),
        Kind::Bool => text::<bool, D>(de),
        Kind::Char => char::deserialize(de).map(|c| quoted(&c.to_string())),
        Kind::Str => String::deserialize(de).map(|s| quoted(&s)),
        Kind::Bytes | Kind::Nested | Kind::Auto => return None,
    })
}

/// A string in JSON quotes and escapes.
pub(crate) fn quoted(s: &str) -> String {
    serde_json::Value::String(s.to_string()).to_string()
}

/// A Bigtable cell of a scalar kind as text, read as the typed read reads
/// it; `None` for the kinds read by their bytes.
pub(crate) fn cell_scalar(kind: Kind, cell: &[u8]) -> Option<Result<String, String>> {
    let trail = Trail::default();
    scalar(kind, Track::new(CellDeserializer::new(cell), &trail))
        .map(|r| r.map_err(|e| e.to_string()))
}

/// A MessagePack item (`raw`, its whole encoding) of a scalar kind as
/// text, read as the typed read reads it; `None` for the other kinds.
pub(crate) fn item_scalar(
    kind: Kind,
    item: Item<'_>,
    raw: &[u8],
) -> Option<Result<String, String>> {
    let trail = Trail::default();
    let read = scalar(kind, Track::new(ItemDeserializer::new(item, raw), &trail));
    read.map(|r| r.map_err(|e| misfit::message("", raw, &trail, &misfit::reader_words(&e), None)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_as_the_python_package_names_them() {
        let cases = [
            ("u32", Kind::U32, false),
            ("Option<u128>", Kind::U128, true),
            ("std::option::Option<Box<f32>>", Kind::F32, true),
            ("usize", Kind::U64, false),
            ("String", Kind::Str, false),
            ("Box<str>", Kind::Str, false),
            ("serde_bytes::ByteBuf", Kind::Bytes, false),
            ("Vec<u8>", Kind::Nested, false),
            ("Option<Vec<String>>", Kind::Nested, true),
            ("[u8; 4]", Kind::Nested, false),
            ("(u8, String)", Kind::Nested, false),
            ("()", Kind::Auto, false),
            ("serde_json::Value", Kind::Auto, false),
            ("Cents", Kind::Auto, false),
            ("Wrapper<u8>", Kind::Auto, false),
        ];
        for (text, kind, optional) in cases {
            assert_eq!(kind_of(text), (kind, optional), "{text}");
        }
    }

    #[test]
    fn cells_read_as_the_typed_read_reads_them() {
        let eight = |n: u64| n.to_be_bytes().to_vec();
        let ok = |kind, cell: &[u8]| cell_scalar(kind, cell).and_then(Result::ok);
        assert_eq!(ok(Kind::U32, &eight(7)), Some("7".into()));
        assert_eq!(ok(Kind::U32, b"5"), None);
        assert_eq!(ok(Kind::U32, &eight(1 << 40)), None);
        assert_eq!(ok(Kind::I64, &[0, 0, 0, 5]), None);
        let big = u128::MAX - 1;
        assert_eq!(ok(Kind::U128, &big.to_be_bytes()), Some(big.to_string()));
        assert_eq!(ok(Kind::I128, &(-3i128).to_be_bytes()), Some("-3".into()));
        let widened = f64::from(0.9f32).to_be_bytes();
        assert_eq!(ok(Kind::F32, &widened), Some("0.9".into()));
        assert_eq!(ok(Kind::Bool, b"true"), Some("true".into()));
        assert_eq!(ok(Kind::Char, "é".as_bytes()), Some("\"é\"".into()));
        let said = cell_scalar(Kind::U32, b"5")
            .and_then(Result::err)
            .unwrap_or_default();
        assert!(said.contains("the cell holds the text \"5\""), "{said}");
    }
}
