//! Schema documents a reader must accept or refuse (`docs/ENCODING.md`,
//! "Reading it"): one valid document of a salted key with a `bucket(...)`
//! field, and variants of it, each accepted or refused with the Rust
//! reader's message. Python's reader accepts and refuses the same ones
//! (`test_documents`).

use super::record;
use keyschema::dynamic::{DynSchema, Value};

const BASE: &str = r#"{"keyschema":2,"name":"Stay","format":{"kind":"binary"},"prefix":"","salt":{"kind":"hash","buckets":8,"hashed":[0]},"partition":null,"components":[{"name":"hotel","type":"String","order":"asc","transform":"plain","encoding":"String","fixed_width":null},{"name":"day","type":"u32","order":"asc","transform":{"bucket":7},"encoding":"u32","fixed_width":4},{"name":"day","type":"u32","order":"asc","transform":"plain","encoding":"u32","fixed_width":4}]}"#;

/// `BASE` with `from` replaced by `to` (once).
fn variant(from: &str, to: &str) -> String {
    assert!(BASE.contains(from), "{from}");
    BASE.replacen(from, to, 1)
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
    ];
    cases
        .into_iter()
        .map(|(what, doc)| {
            let read = DynSchema::from_json(&doc);
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
