//! The test vectors of `docs/ENCODING.md`, checked byte for byte in both
//! directions: every row the code produces is in the document, and every row
//! in the document is one the code produces.
//!
//! `KEYSCHEMA_BLESS=1 cargo test --test vectors` rewrites the tables.
//! It needs the `dynamodb` feature (the items are the DynamoDB store's);
//! the test command runs it with `--all-features`.
#![cfg(feature = "dynamodb")]

mod cbt;
#[path = "../common/mod.rs"]
mod common;
mod constructs;
mod damaged;
mod documents;
mod history;
mod history_render;
mod index;
mod items;
mod json_input;
mod keys;
mod long_keys;
mod partition;
mod projections;
mod ranges;
mod ranges_more;
mod reject;
mod render;
mod rows;
mod salt;
mod split;
mod text_more;
mod text_reject;
mod types;
mod values;

use common::schemas::Event;
use keys::{component, text_component, KarteEvent, Prefixed};
use keyschema::dynamic::{DynSchema, Value};
use keyschema::encode_value;
use keyschema::{KeyComponent, RowKey};
use std::cell::RefCell;

fn hex(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

thread_local! {
    /// The vectors as JSON entries, by table: what `docs/vectors.json` holds.
    static JSON: RefCell<Vec<(&'static str, String)>> = const { RefCell::new(Vec::new()) };
}

fn record(table: &'static str, entry: String) {
    JSON.with(|j| j.borrow_mut().push((table, entry)));
}

fn plain_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Records a whole-key vector (its schema document, fields, bucket, key and
/// rendering) and returns the key.
fn recorded<K: RowKey>(table: &'static str, key: Vec<u8>) -> Vec<u8> {
    let schema = DynSchema::from_json(&K::schema().to_json()).expect("schema reads back");
    let values = schema.decode(&key).expect("a vector decodes");

    let bucket = match schema.salt() {
        Some(s) if s.is_random() => K::schema().bucket_of(&key).expect("salt").to_string(),
        _ => "null".to_string(),
    };
    record(
        table,
        format!(
            r#"{{"declaration":{},"schema":{},"fields":{},"bucket":{bucket},"key":"{}","rendered":{}}}"#,
            Value::from(K::schema().to_string()).to_json(),
            K::schema().to_json(),
            common::fields_json(&schema, &values),
            plain_hex(&key),
            Value::from(K::render(&key)).to_json()
        ),
    );
    key
}

/// [`recorded`], returning the rendering.
fn rendered<K: RowKey>(table: &'static str, key: &[u8]) -> String {
    recorded::<K>(table, key.to_vec());
    K::render(key)
}

const VECTORS_JSON: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/vectors.json");

/// The recorded vectors as one JSON document, an entry per line.
fn vectors_json() -> String {
    let entries = JSON.with(|j| j.borrow().clone());
    let mut tables: Vec<&str> = Vec::new();
    for (t, _) in &entries {
        if !tables.contains(t) {
            tables.push(t);
        }
    }
    let mut out = String::from("{\n  \"about\": \"The test vectors of docs/ENCODING.md as JSON, written and checked by tests/vectors/main.rs (KEYSCHEMA_BLESS=1 rewrites it). Values as in 'Values as JSON'.\",\n");
    for (n, t) in tables.iter().enumerate() {
        out.push_str(&format!("  \"{t}\": [\n"));
        let rows: Vec<&String> = entries
            .iter()
            .filter(|(x, _)| x == t)
            .map(|(_, e)| e)
            .collect();
        for (i, e) in rows.iter().enumerate() {
            out.push_str("    ");
            out.push_str(e);
            out.push_str(if i + 1 < rows.len() { ",\n" } else { "\n" });
        }
        out.push_str(if n + 1 < tables.len() {
            "  ],\n"
        } else {
            "  ]\n"
        });
    }
    out.push_str("}\n");
    out
}

/// The layout-history table; its entries go to `docs/vectors.json`.
fn history_table() -> Vec<String> {
    history::history_rows()
        .into_iter()
        .map(|(row, entry)| {
            record("history", entry);
            row
        })
        .collect()
}

/// Records a rejection vector of `K` under `table` (its schema, what was
/// damaged, the key and the error) and returns its row in the document.
fn rejected<K: RowKey>(
    table: &'static str,
    what: &str,
    bytes: &[u8],
    err: &keyschema::DecodeError,
) -> String {
    record(
        table,
        format!(
            r#"{{"schema":{},"what":{},"key":"{}","error":{}}}"#,
            K::schema().to_json(),
            Value::from(what).to_json(),
            plain_hex(bytes),
            Value::from(err.to_string()).to_json()
        ),
    );
    format!(
        "| {what} | `{}` | {} |",
        hex(bytes),
        err.to_string().replace('|', "\\|")
    )
}

/// [`rejected`] for a key too long to print: `head`, then `fill` repeated
/// up to `len` bytes (the vector's `fill`: `{"byte": "00", "length": N}`).
fn rejected_long<K: RowKey>(
    table: &'static str,
    what: &str,
    head: &[u8],
    fill: u8,
    len: usize,
    err: &keyschema::DecodeError,
) -> String {
    record(
        table,
        format!(
            r#"{{"schema":{},"what":{},"key":"{}","fill":{{"byte":"{fill:02x}","length":{len}}},"error":{}}}"#,
            K::schema().to_json(),
            Value::from(what).to_json(),
            plain_hex(head),
            Value::from(err.to_string()).to_json()
        ),
    );
    format!(
        "| {what} | `{}` then `{fill:02x}` up to {len} bytes | {} |",
        hex(head),
        err.to_string().replace('|', "\\|")
    )
}

/// Records how one component of type `T` renders under `table` (the type's
/// name, its bytes and the rendering) and returns its row in the document.
fn rendered_component<T: KeyComponent>(table: &'static str, type_name: &str, value: &T) -> String {
    let bytes = encode_value::<T>(value.as_key_ref());
    let mut out = String::new();
    T::render_key(&mut keyschema::Reader::new(&bytes), &mut out).expect("renders");
    record(
        table,
        format!(
            r#"{{"type":{},"asc":"{}","rendered":{}}}"#,
            Value::from(type_name).to_json(),
            plain_hex(&bytes),
            Value::from(out.as_str()).to_json()
        ),
    );
    format!(
        "| `{type_name}` | `{}` | `{}` |",
        if bytes.is_empty() {
            "(none)".to_string()
        } else {
            hex(&bytes)
        },
        out.replace('|', "\\|").replace('`', "\\`")
    )
}

const DOC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/ENCODING.md");

/// The table rows between `<!-- vectors:NAME -->` and `<!-- end -->`.
fn doc_rows(doc: &str, name: &str) -> Vec<String> {
    let begin = format!("<!-- vectors:{name} -->");
    let start = doc
        .find(&begin)
        .unwrap_or_else(|| panic!("{DOC} has no {begin} marker"));
    let body = &doc[start + begin.len()..];
    let end = body
        .find("<!-- end -->")
        .expect("vectors table has an end marker");
    // The rows after each table's header and its `|---|` line.
    let lines: Vec<&str> = body[..end].lines().collect();
    lines
        .iter()
        .enumerate()
        .filter(|(i, l)| {
            l.starts_with("| ")
                && !lines
                    .get(i + 1)
                    .is_some_and(|next| next.starts_with("|---"))
        })
        .map(|(_, l)| l.to_string())
        .collect()
}

fn bless(doc: &str, name: &str, header: &str, rows: &[String]) -> String {
    let begin = format!("<!-- vectors:{name} -->");
    let start = doc.find(&begin).expect("marker") + begin.len();
    let end = start + doc[start..].find("<!-- end -->").expect("end marker");
    format!(
        "{}\n{header}\n{}\n{}",
        &doc[..start],
        rows.join("\n"),
        &doc[end..]
    )
}

#[test]
fn encoding_md_vectors_match_the_code() {
    let tables = [
        ("components", "| type | value | ascending | descending (`rev`) |\n|---|---|---|---|", keys::component_rows()),
        ("salt", "| hashed fields | hash input | SHA-256[0..8] | bucket for N = 8 / 256 / 1000 / 65536 |\n|---|---|---|---|", salt::salt_rows()),
        ("keys", "| declaration | key fields | key | rendered |\n|---|---|---|---|", keys::key_rows()),
        ("text", "| declaration | key fields | key (text) |\n|---|---|---|", keys::text_rows()),
        ("constructs", "| declaration | field types | key fields | key | rendered |\n|---|---|---|---|---|", constructs::construct_rows()),
        ("reject", "| input | bytes | error |\n|---|---|---|", keys::reject_rows()),
        ("history", "| declaration | key fields | key | layout |\n|---|---|---|---|", history_table()),
        ("text_components", "| type | width | value | text form (`sep = \"#\"`) |\n|---|---|---|---|", keys::text_component_rows()),
        ("render", "| type | bytes | rendered |\n|---|---|---|", types::render_rows()),
        ("reject_types", "| input | bytes | error |\n|---|---|---|", types::reject_rows()),
        ("render_base", "| type | bytes | rendered |\n|---|---|---|", render::render_rows()),
        ("ranges", "| declaration | binding | ranges (bucket: start .. end) |\n|---|---|---|", ranges::range_rows()),
        ("ranges_more", "| declaration | binding | ranges (bucket: start .. end), or the refusal |\n|---|---|---|", ranges_more::range_rows()),
        ("reject_classes", "| input | bytes | error |\n|---|---|---|", reject::reject_rows()),
        ("documents", "| document | a reader |\n|---|---|", documents::document_rows()),
        ("render_damaged", "| declaration | damage | key | rendered |\n|---|---|---|---|", render::damaged_rows()),
        ("dynamodb_items", "| row | `double`, `single`, `any` as DynamoDB attributes, or the refusal |\n|---|---|", items::number_table()),
        ("dynamodb_sizes", "| row | the item DynamoDB counts |\n|---|---|", items::size_table()),
        ("render_damaged_types", "| damage | key | rendered |\n|---|---|---|", damaged::damaged_rows()),
        ("render_prefix", "| key type | split point | bytes | rendered |\n|---|---|---|---|", split::prefix_rows()),
        ("history_render", "| key | in the declared layout | in the older layout | the tool's rendering | layout, or the error |\n|---|---|---|---|---|", history_render::render_rows()),
        ("text_constructs", "| declaration | key (text) |\n|---|---|", text_more::text_rows()),
        ("reject_text", "| input | bytes | error |\n|---|---|---|", text_reject::reject_rows()),
        ("index_entries", "| row | each index's entry key (ordered stores, Bigtable) and rendering | the item's index attributes (DynamoDB) |\n|---|---|---|", index::entry_table()),
        ("cbt_format", "| row type | the format file |\n|---|---|", cbt::format_rows()),
        ("values_f32", "| row | MessagePack value (memory, and redb before its CRC) | redb's CRC-32 |\n|---|---|---|", rows::float_table()),
        ("value_f32_refusals", "| input | store | error |\n|---|---|---|", rows::f32_refusal_table()),
        ("values_times", "| row | MessagePack value (memory, and redb before its CRC) | redb's CRC-32 |\n|---|---|---|", rows::time_table()),
        ("values", "| row | MessagePack value (memory, and redb before its CRC) | redb's CRC-32 |\n|---|---|---|", values::value_rows()),
        ("value_refusals", "| input | store | error |\n|---|---|---|", values::refusal_rows()),
        ("render_long", "| key | bytes | rendered |\n|---|---|---|", long_keys::long_rows()),
        ("partition_split", "| declaration | key fields | partition part | sort part |\n|---|---|---|---|", partition::split_rows()),
        ("projections", "| projection (value fields) | DynamoDB: `ProjectionExpression` with `ExpressionAttributeNames` | Bigtable: the `RowFilter` | the cells Bigtable returns | read |\n|---|---|---|---|---|", projections::projection_rows()),
        ("json_value_refusals", "| case | the member changed | a reader |\n|---|---|---|", json_input::json_rows()),
    ];
    let mut doc = std::fs::read_to_string(DOC).expect("docs/ENCODING.md exists");
    if std::env::var_os("KEYSCHEMA_BLESS").is_some() {
        for (name, header, rows) in &tables {
            doc = bless(&doc, name, header, rows);
        }
        std::fs::write(DOC, &doc).expect("write docs/ENCODING.md");
        std::fs::write(VECTORS_JSON, vectors_json()).expect("write docs/vectors.json");
    }
    let json = std::fs::read_to_string(VECTORS_JSON).unwrap_or_default();
    assert!(
        json == vectors_json(),
        "docs/vectors.json differs from the vectors the code produces; KEYSCHEMA_BLESS=1 rewrites it"
    );
    for (name, _, rows) in &tables {
        let documented = doc_rows(&doc, name);
        for row in rows {
            assert!(
                documented.contains(row),
                "docs/ENCODING.md ({name}) lacks the row\n{row}"
            );
        }
        for row in &documented {
            assert!(
                rows.contains(row),
                "docs/ENCODING.md ({name}) has a row the code does not produce\n{row}"
            );
        }
    }
}

#[test]
fn item_vectors_read_back_or_are_refused() {
    let json = std::fs::read_to_string(VECTORS_JSON).expect("docs/vectors.json");
    let vectors: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    items::check_items_read_back(&vectors);
}

#[test]
fn index_vectors_are_the_rows_entries() {
    let json = std::fs::read_to_string(VECTORS_JSON).expect("docs/vectors.json");
    let vectors: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    index::check_entries(&vectors);
}

#[test]
fn row_vectors_read_back_or_are_refused() {
    let json = std::fs::read_to_string(VECTORS_JSON).expect("docs/vectors.json");
    let vectors: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    rows::check_rows_read_back(&vectors);
}

#[test]
fn value_vectors_read_back_into_their_rows() {
    let json = std::fs::read_to_string(VECTORS_JSON).expect("docs/vectors.json");
    let vectors: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    values::check_values_read_back(&vectors);
}
