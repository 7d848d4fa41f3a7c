//! Schema documents a reader must accept or refuse (`docs/ENCODING.md`,
//! "Reading it"): one valid document of a salted key with a `bucket(...)`
//! field, and variants of it, each accepted or refused with the Rust
//! reader's message. Python's reader accepts and refuses the same ones
//! (`test_documents`).

use super::record;
use keyschema::dynamic::Value;
use keyschema::{RowKey, Schema};

/// A row type with value fields (one self-describing) and an index: what
/// its document adds to a key's (`values`, `family`, `row_format`,
/// `indexes`).
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(
    salt = hash(user_id) % 4,
    then = user_id, ts,
    index(VisitByTs, prefix = "t", then = ts, user_id),
)]
pub struct Visit {
    user_id: String,
    ts: u64,
    #[rowkey(value)]
    url: String,
    #[rowkey(value)]
    extra: serde_json::Value,
}

/// `Visit`'s document with `from` replaced by `to` (once).
fn row_variant(from: &str, to: &str) -> String {
    let doc = Visit::schema().to_json();
    assert!(doc.contains(from), "{from}");
    doc.replacen(from, to, 1)
}

const BASE: &str = r#"{"keyschema":2,"name":"Stay","format":{"kind":"binary"},"prefix":"","salt":{"kind":"hash","buckets":8,"hashed":[0]},"partition":null,"components":[{"name":"hotel","type":"String","order":"asc","transform":"plain","encoding":"String","fixed_width":null},{"name":"day","type":"u32","order":"asc","transform":{"bucket":7},"encoding":"u32","fixed_width":4},{"name":"day","type":"u32","order":"asc","transform":"plain","encoding":"u32","fixed_width":4}]}"#;

/// `BASE` with `from` replaced by `to` (once).
fn variant(from: &str, to: &str) -> String {
    assert!(BASE.contains(from), "{from}");
    BASE.replacen(from, to, 1)
}

/// `BASE` with `n` components `c0`, `c1`, ... of `u8` instead of its own
/// (the salt hashes `c0`).
fn with_components(n: usize) -> String {
    let head = &BASE[..BASE.find(r#""components":"#).expect("components")];
    let components: Vec<String> = (0..n)
        .map(|i| {
            format!(
                r#"{{"name":"c{i}","type":"u8","order":"asc","transform":"plain","encoding":"u8","fixed_width":1}}"#
            )
        })
        .collect();
    format!(r#"{head}"components":[{}]}}"#, components.join(","))
}

/// Every document vector, as the document's rows.
pub fn document_rows() -> Vec<String> {
    let day = r#"{"name":"day","type":"u32","order":"asc","transform":"plain","encoding":"u32","fixed_width":4}"#;
    let cases: Vec<(&str, String)> = vec![
        ("the document as written", BASE.to_string()),
        (
            "a member no version defines (ignored)",
            variant(r#""partition":null"#, r#""partition":null,"note":"x""#),
        ),
        (
            "`fixed_width` null on a fixed-width encoding",
            variant(r#""fixed_width":4}]"#, r#""fixed_width":null}]"#),
        ),
        (
            "an empty schema name (names are only told apart)",
            variant(r#""name":"Stay""#, r#""name":"""#),
        ),
        (
            "an empty key field name (names are only told apart)",
            variant(r#""name":"hotel""#, r#""name":"""#),
        ),
        (
            "a bucket followed by its field stored `reverse`",
            variant(
                r#""transform":"plain","encoding":"u32","fixed_width":4}]"#,
                r#""transform":"reverse","encoding":"u32","fixed_width":4}]"#,
            ),
        ),
        (
            "bucket width 2^64 - 1",
            variant(r#"{"bucket":7}"#, r#"{"bucket":18446744073709551615}"#),
        ),
        (
            "version 2.0",
            variant(r#""keyschema":2"#, r#""keyschema":2.0"#),
        ),
        (
            "version 1 (an unterminated prefix)",
            variant(r#""keyschema":2"#, r#""keyschema":1"#),
        ),
        (
            "prefix in uppercase hex",
            variant(r#""prefix":"""#, r#""prefix":"4A""#),
        ),
        (
            "prefix of an odd number of hex digits",
            variant(r#""prefix":"""#, r#""prefix":"4""#),
        ),
        ("`partition` missing", variant(r#""partition":null,"#, "")),
        (
            "`fixed_width` that disagrees with the encoding",
            variant(r#""fixed_width":4}]"#, r#""fixed_width":8}]"#),
        ),
        (
            "a field named twice",
            variant(
                r#"{"name":"hotel","type":"String","order":"asc","transform":"plain","encoding":"String","fixed_width":null}"#,
                day,
            ),
        ),
        (
            "bucket width 0",
            variant(r#"{"bucket":7}"#, r#"{"bucket":0}"#),
        ),
        (
            "bucket width 2^64",
            variant(r#"{"bucket":7}"#, r#"{"bucket":18446744073709551616}"#),
        ),
        (
            "a bucket not followed by its field",
            variant(
                r#","encoding":"u32","fixed_width":4}]"#,
                r#","encoding":"u64","fixed_width":8}]"#,
            ),
        ),
        (
            "65,537 buckets",
            variant(r#""buckets":8"#, r#""buckets":65537"#),
        ),
        (
            "`hashed` naming no component",
            variant(r#""hashed":[0]"#, r#""hashed":[]"#),
        ),
        (
            "`hashed` out of range",
            variant(r#""hashed":[0]"#, r#""hashed":[3]"#),
        ),
        (
            "`partition` past the components",
            variant(r#""partition":null"#, r#""partition":4"#),
        ),
        (
            "an encoding no reader knows",
            variant(r#""encoding":"String""#, r#""encoding":"str""#),
        ),
        (
            "no encoding (a user type that names none)",
            variant(r#""encoding":"String""#, r#""encoding":null"#),
        ),
        (
            "a text key's separator `-`",
            variant(r#"{"kind":"binary"}"#, r#"{"kind":"text","sep":"-"}"#),
        ),
        ("64 `u8` components (`MAX_COMPONENTS`)", with_components(64)),
        ("65 `u8` components", with_components(65)),
        (
            "8 nested Options (the most a key encoding nests)",
            variant(
                r#""encoding":"String""#,
                &format!(
                    r#""encoding":"{}String{}""#,
                    "Option<".repeat(8),
                    ">".repeat(8)
                ),
            ),
        ),
        (
            "9 nested Options",
            variant(
                r#""encoding":"String""#,
                &format!(
                    r#""encoding":"{}String{}""#,
                    "Option<".repeat(9),
                    ">".repeat(9)
                ),
            ),
        ),
    ];
    let visit = Visit::schema().to_json();
    let older = row_variant(r#","self_describing":true"#, "").replacen(r#","row_format":1"#, "", 1);
    let older = older[..older.find(r#","indexes""#).expect("indexes")].to_string() + "}";
    let older = older.as_str();
    let cases = cases.into_iter().chain([
        (
            "a row type's document: value fields, a self-describing one, an index",
            visit,
        ),
        (
            "the same without `row_format`, `self_describing` and `indexes` (an older document)",
            older.to_string(),
        ),
        (
            "`row_format` 2",
            row_variant(r#""row_format":1"#, r#""row_format":2"#),
        ),
        (
            "`row_format` a string",
            row_variant(r#""row_format":1"#, r#""row_format":"1""#),
        ),
        (
            "`self_describing` not a boolean",
            row_variant(r#""self_describing":true"#, r#""self_describing":1"#),
        ),
        (
            "a value field with an empty name",
            row_variant(r#""name":"url""#, r#""name":"""#),
        ),
        (
            "`indexes` not an array",
            format!(r#"{},"indexes":"VisitByTs"}}"#, &older[..older.len() - 1]),
        ),
        (
            "an index's `dynamodb` neither `native` nor `encoded`",
            row_variant(r#""dynamodb":""#, r#""dynamodb":"x"#),
        ),
        (
            "an index's document with a prefix in uppercase hex",
            row_variant(r#""prefix":"74""#, r#""prefix":"7A""#),
        ),
    ]);
    cases
        .map(|(what, doc)| {
            // The reader of a store's schema: the key layout, the value
            // fields and the indexes.
            let read = Schema::from_document(&doc);
            let (accepted, error) = match &read {
                Ok(_) => (true, String::new()),
                Err(e) => (false, e.to_string()),
            };
            record(
                "documents",
                format!(
                    r#"{{"what":{},"document":{},"accepted":{accepted},"error":{}}}"#,
                    Value::from(what).to_json(),
                    Value::from(doc.as_str()).to_json(),
                    Value::from(error.as_str()).to_json()
                ),
            );
            let outcome = if accepted {
                "accepted".to_string()
            } else {
                format!("refused: {}", error.replace('|', "\\|"))
            };
            format!("| {what} | {outcome} |")
        })
        .collect()
}
