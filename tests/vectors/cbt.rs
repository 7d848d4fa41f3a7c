//! The `cbt` format file of a row type (`docs/ENCODING.md`, "Value fields on
//! Bigtable", table `cbt_format`): what
//! `keyschema::record::cells::cbt_format_file` writes for `cbt read ...
//! format-file=PATH`, for three row types of the other vectors. Python
//! writes the same file from the schema document
//! (`Schema.cbt_format_file`, `test_cbt_format.py`).

use super::items::Numbers;
use super::record;
use super::rows::Floats;
use super::values::Catalog;
use keyschema::record::cells::cbt_format_file;
use keyschema::{RowKey, Schema};
use serde_json::json;

fn one(schema: &Schema) -> String {
    let file = cbt_format_file(schema);
    let document: serde_json::Value = serde_json::from_str(&schema.to_json()).expect("JSON");
    record(
        "cbt_format",
        json!({"schema": document, "file": file}).to_string(),
    );
    format!(
        "| `{}` | `{}` |",
        schema.name(),
        file.replace('\n', "\\n").replace('|', "\\|")
    )
}

/// The `cbt_format` table.
pub fn format_rows() -> Vec<String> {
    vec![
        one(Catalog::schema()),
        one(Floats::schema()),
        one(Numbers::schema()),
    ]
}
