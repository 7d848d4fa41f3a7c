//! Google's 48 ReadRows conformance cases against keyschema's chunk merger.
#![cfg(feature = "bigtable")]

use keyschema::store::bigtable::readrows::{Chunk, RowMerger};
use serde_json::Value;

const CASES: &str = include_str!("data/bigtable/readrows.json");

fn base64(text: &str) -> Vec<u8> {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = Vec::new();
    let (mut acc, mut bits) = (0u32, 0);
    for c in text.bytes().filter(|&c| c != b'=') {
        let v = ALPHABET.iter().position(|&a| a == c).expect("base64 digit") as u32;
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    out
}

fn chunk(json: &Value) -> Chunk {
    let bytes = |k: &str| json.get(k).and_then(Value::as_str).map(base64);
    Chunk {
        row_key: bytes("rowKey").unwrap_or_default(),
        family_name: json
            .get("familyName")
            .and_then(Value::as_str)
            .map(String::from),
        qualifier: bytes("qualifier"),
        timestamp_micros: json
            .get("timestampMicros")
            .and_then(Value::as_str)
            .map_or(0, |t| t.parse().expect("ts")),
        labels: json
            .get("labels")
            .and_then(Value::as_array)
            .map(|l| {
                l.iter()
                    .filter_map(Value::as_str)
                    .map(String::from)
                    .collect()
            })
            .unwrap_or_default(),
        value: bytes("value").unwrap_or_default(),
        value_size: json
            .get("valueSize")
            .and_then(Value::as_i64)
            .map_or(0, |v| v as i32),
        reset_row: json
            .get("resetRow")
            .and_then(Value::as_bool)
            .unwrap_or(false),
        commit_row: json
            .get("commitRow")
            .and_then(Value::as_bool)
            .unwrap_or(false),
    }
}

/// A result line as the cases print it: key, family, qualifier, ts, value, label; or "error".
fn expected_line(json: &Value) -> String {
    if json.get("error").and_then(Value::as_bool) == Some(true) {
        return "error".into();
    }
    let s = |k: &str| {
        json.get(k)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    let ts = json
        .get("timestampMicros")
        .and_then(Value::as_str)
        .unwrap_or("0");
    format!(
        "{}|{}|{}|{}|{}|{}",
        s("rowKey"),
        s("familyName"),
        s("qualifier"),
        ts,
        s("value"),
        s("label")
    )
}

fn run(chunks: &[Value]) -> Vec<String> {
    let mut merger = RowMerger::new(false);
    let mut lines = Vec::new();
    for c in chunks {
        match merger.push(chunk(c)) {
            Ok(Some(row)) => {
                for cell in row.cells {
                    lines.push(format!(
                        "{}|{}|{}|{}|{}|{}",
                        String::from_utf8_lossy(&row.key),
                        cell.family,
                        String::from_utf8_lossy(&cell.qualifier),
                        cell.timestamp_micros,
                        String::from_utf8_lossy(&cell.value),
                        cell.labels.first().map(String::as_str).unwrap_or("")
                    ));
                }
            }
            Ok(None) => {}
            Err(_) => {
                lines.push("error".into());
                return lines;
            }
        }
    }
    if merger.finish().is_err() {
        lines.push("error".into());
    }
    lines
}

#[test]
fn all_conformance_cases_pass() {
    let doc: Value = serde_json::from_str(CASES).expect("conformance JSON");
    let cases = doc["readRowsTests"].as_array().expect("cases");
    assert_eq!(cases.len(), 48);
    let mut failures = Vec::new();
    for case in cases {
        let name = case["description"].as_str().unwrap_or("?");
        let chunks = case["chunks"].as_array().cloned().unwrap_or_default();
        let expected: Vec<String> = case
            .get("results")
            .and_then(Value::as_array)
            .map(|r| r.iter().map(expected_line).collect())
            .unwrap_or_default();
        let got = run(&chunks);
        if got != expected {
            failures.push(format!(
                "{name}:\n  expected {expected:?}\n  got      {got:?}"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of 48 cases fail:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn rows_split_across_messages_survive() {
    // The same chunks delivered one per "message": the merger keeps its state.
    let mut merger = RowMerger::new(false);
    let parts = [
        Chunk {
            row_key: b"k".to_vec(),
            family_name: Some("f".into()),
            qualifier: Some(b"q".to_vec()),
            value: b"he".to_vec(),
            value_size: 5,
            ..Chunk::default()
        },
        Chunk {
            value: b"ll".to_vec(),
            value_size: 5,
            ..Chunk::default()
        },
        Chunk {
            value: b"o".to_vec(),
            commit_row: true,
            ..Chunk::default()
        },
    ];
    let rows: Vec<_> = parts
        .into_iter()
        .filter_map(|c| merger.push(c).expect("valid"))
        .collect();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].cells[0].value, b"hello");
    assert_eq!(merger.last_committed(), Some(&b"k"[..]));
}

#[test]
fn reversed_scans_expect_decreasing_keys() {
    let row = |k: &[u8]| Chunk {
        row_key: k.to_vec(),
        family_name: Some("f".into()),
        qualifier: Some(vec![]),
        commit_row: true,
        ..Chunk::default()
    };
    let mut merger = RowMerger::new(true);
    assert!(merger.push(row(b"b")).unwrap().is_some());
    assert!(merger.push(row(b"a")).unwrap().is_some());
    assert!(
        merger.push(row(b"c")).is_err(),
        "an increasing key in a reversed scan"
    );
}
