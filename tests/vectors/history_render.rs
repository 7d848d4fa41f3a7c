//! How the keys of a layout history render (`docs/ENCODING.md`, "Layout
//! histories", table `history_render`): each key of the `history` table
//! rendered in the declared layout and in the older one, the rendering the
//! tool shows (`keyschema render`: an older key in its layout, marked
//! `(older layout)`), and the error an ambiguous key gets. Python renders
//! each alike and refuses the ambiguous key with the same message
//! (`test_history_render.py`).

use super::history::history_rows;
use super::record;
use keyschema::dynamic::{DynSchema, Layout};
use serde_json::json;

fn unhex(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).expect("hex"))
        .collect()
}

/// The `history_render` table.
pub fn render_rows() -> Vec<String> {
    history_rows()
        .into_iter()
        .map(|(_, entry)| {
            let entry: serde_json::Value = serde_json::from_str(&entry).expect("JSON");
            let key = unhex(entry["key"].as_str().expect("a key"));
            let schema = DynSchema::from_json(&entry["schema"].to_string()).expect("a document");
            let history = schema.history().expect("a history");
            let declared = schema.render(&key);
            let older = history.older().render(&key);
            let (layout, shown, error) = match schema.decode_stored(&key) {
                Ok((_, Layout::Older)) => ("older", format!("{older} (older layout)"), None),
                Ok((_, Layout::Declared)) => ("declared", declared.clone(), None),
                Err(e) => ("ambiguous", declared.clone(), Some(e.to_string())),
            };
            record(
                "history_render",
                json!({
                    "declaration": entry["declaration"],
                    "schema": entry["schema"],
                    "key": entry["key"],
                    "layout": layout,
                    "declared": declared,
                    "older": older,
                    "rendered": shown,
                    "error": error,
                })
                .to_string(),
            );
            let cell = |s: &str| {
                let s = s.replace('|', "\\|");
                if s.contains('`') {
                    format!("`` {s} ``")
                } else {
                    format!("`{s}`")
                }
            };
            format!(
                "| {} | {} | {} | {} | {} |",
                cell(entry["key"].as_str().unwrap_or_default()),
                cell(&declared),
                cell(&older),
                cell(&shown),
                error.unwrap_or_else(|| layout.to_string())
            )
        })
        .collect()
}
