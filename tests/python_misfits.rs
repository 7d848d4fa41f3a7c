//! Bad values nested in a row's value fields are refused alike by the Rust
//! reader and the Python package (issue 40): an integer list holding a
//! float, a string or `u64::MAX`, a float beyond an `f32` in a nested
//! `f32`, a tuple of the wrong length, a map key of the wrong type, a
//! nested `Option` given the wrong kind, bytes for a string and a string
//! for bytes, at every depth. Each stored value is written byte by byte
//! (another program's) in every form Python reads: the ordered stores'
//! MessagePack map, Bigtable's cells, and the DynamoDB item (boto3's
//! low-level form, and its resource form, which Python makes of it). Rust
//! reads each and says why it refuses; `python/tests/cross_misfits.py`
//! must refuse each form with the same message, path included.
#![cfg(feature = "dynamodb")]

mod common;
#[path = "python_misfits/shapes.rs"]
mod shapes;

use keyschema::record::{cells, decode_values, Record};
use keyschema::store::dynamodb::sdk::types::AttributeValue;
use keyschema::store::dynamodb::DynamoStore;
use keyschema::RowKey;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value as Json};
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

/// Bytes as `serde_bytes::ByteBuf` reads and writes them (a MessagePack
/// bin, a DynamoDB `B`); its name is the one the schema document's type
/// text gives a reader (`ByteBuf`: bytes).
#[derive(Debug, Clone, PartialEq, Default)]
struct ByteBuf(Vec<u8>);

impl Serialize for ByteBuf {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(&self.0)
    }
}

impl<'de> Deserialize<'de> for ByteBuf {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Bytes;
        impl serde::de::Visitor<'_> for Bytes {
            type Value = ByteBuf;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("bytes")
            }
            fn visit_bytes<E>(self, v: &[u8]) -> Result<ByteBuf, E> {
                Ok(ByteBuf(v.to_vec()))
            }
        }
        d.deserialize_byte_buf(Bytes)
    }
}

/// Nested values of the standard types, each field with a default (a row
/// of one field reads).
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(then = (id))]
struct Nested {
    id: u64,
    #[rowkey(value, default)]
    scores: Vec<i64>,
    #[rowkey(value, default)]
    gauges: Vec<f32>,
    #[rowkey(value, default)]
    pair: (u8, String),
    #[rowkey(value, default)]
    tally: BTreeMap<String, u32>,
    #[rowkey(value, default)]
    by_id: BTreeMap<u8, String>,
    #[rowkey(value, default)]
    maybe: Vec<Option<u32>>,
    #[rowkey(value, default)]
    names: Vec<String>,
    #[rowkey(value, default)]
    blobs: Vec<ByteBuf>,
    #[rowkey(value, default)]
    deep: Vec<Vec<bool>>,
    #[rowkey(value, default)]
    letters: Vec<char>,
    #[rowkey(value, default)]
    small: Option<Vec<i8>>,
    #[rowkey(value, default)]
    grid: [u16; 2],
    #[rowkey(value, default)]
    huge: Vec<u128>,
    #[rowkey(value, default)]
    wide: Vec<i128>,
    #[rowkey(value, default)]
    big: u128,
    #[rowkey(value, default)]
    signed: i128,
}

/// A stored value, as another program writes it.
#[derive(Debug, Clone)]
enum V {
    Nil,
    Bool(bool),
    Int(i64),
    Uint(u64),
    /// A number that is not an integer of 64 bits: a MessagePack float 64
    /// of it; on DynamoDB an `N` of this text.
    Num(&'static str),
    Str(&'static str),
    Bin(Vec<u8>),
    Arr(Vec<V>),
    Map(Vec<(V, V)>),
}

use V::{Arr, Bin, Bool, Int, Map, Nil, Num, Str, Uint};

impl V {
    /// Its MessagePack encoding (headers in any width a reader takes).
    fn msgpack(&self, out: &mut Vec<u8>) {
        match self {
            Nil => out.push(0xc0),
            Bool(b) => out.push(if *b { 0xc3 } else { 0xc2 }),
            Int(n) if (0..128).contains(n) => out.push(*n as u8),
            Int(n) => {
                out.push(0xd3);
                out.extend(n.to_be_bytes());
            }
            Uint(n) => {
                out.push(0xcf);
                out.extend(n.to_be_bytes());
            }
            Num(text) => {
                out.push(0xcb);
                out.extend(text.parse::<f64>().expect("a number").to_be_bytes());
            }
            Str(s) => {
                out.push(0xd9);
                out.push(u8::try_from(s.len()).expect("a short string"));
                out.extend(s.as_bytes());
            }
            Bin(b) => {
                out.push(0xc4);
                out.push(u8::try_from(b.len()).expect("short bytes"));
                out.extend(b);
            }
            Arr(items) => {
                out.push(0xdc);
                out.extend(u16::try_from(items.len()).expect("short").to_be_bytes());
                for item in items {
                    item.msgpack(out);
                }
            }
            Map(entries) => {
                out.push(0xde);
                out.extend(u16::try_from(entries.len()).expect("short").to_be_bytes());
                for (k, v) in entries {
                    k.msgpack(out);
                    v.msgpack(out);
                }
            }
        }
    }

    fn bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.msgpack(&mut out);
        out
    }

    /// Its DynamoDB attribute and that attribute as boto3's low-level
    /// client gives it (`B` in hex); `None` when DynamoDB has no such
    /// value (a map key that is not a string).
    fn attribute(&self) -> Option<(AttributeValue, Json)> {
        Some(match self {
            Nil => (AttributeValue::Null(true), json!({"NULL": true})),
            Bool(b) => (AttributeValue::Bool(*b), json!({ "BOOL": b })),
            Int(n) => (
                AttributeValue::N(n.to_string()),
                json!({"N": n.to_string()}),
            ),
            Uint(n) => (
                AttributeValue::N(n.to_string()),
                json!({"N": n.to_string()}),
            ),
            Num(text) => (AttributeValue::N(text.to_string()), json!({ "N": text })),
            Str(s) => (AttributeValue::S(s.to_string()), json!({ "S": s })),
            Bin(b) => (
                AttributeValue::B(b.clone().into()),
                json!({"B": b.iter().map(|b| format!("{b:02x}")).collect::<String>()}),
            ),
            Arr(items) => {
                let (attrs, jsons): (Vec<_>, Vec<_>) = items
                    .iter()
                    .map(V::attribute)
                    .collect::<Option<Vec<_>>>()?
                    .into_iter()
                    .unzip();
                (AttributeValue::L(attrs), json!({ "L": jsons }))
            }
            Map(entries) => {
                let mut attrs = HashMap::new();
                let mut jsons = serde_json::Map::new();
                for (k, v) in entries {
                    let Str(k) = k else { return None };
                    let (a, j) = v.attribute()?;
                    attrs.insert(k.to_string(), a);
                    jsons.insert(k.to_string(), j);
                }
                (AttributeValue::M(attrs), json!({ "M": jsons }))
            }
        })
    }
}

/// The bad values: a field and what it holds.
fn cases() -> Vec<(&'static str, V)> {
    vec![
        ("scores", Arr(vec![Int(1), Num("100000000000000000000")])),
        ("scores", Arr(vec![Int(1), Num("1.5")])),
        ("scores", Arr(vec![Int(1), Int(2), Str("7")])),
        ("scores", Arr(vec![Uint(u64::MAX)])),
        ("scores", Arr(vec![Bool(true)])),
        ("scores", Arr(vec![Nil])),
        ("scores", Arr(vec![Arr(vec![])])),
        ("scores", Str("x")),
        ("scores", Bin(vec![1, 2])),
        ("scores", Map(vec![(Str("a"), Int(1))])),
        // DynamoDB gives every number back in plain form.
        (
            "gauges",
            Arr(vec![
                Num("1.5"),
                Num("1000000000000000000000000000000000000000"),
            ]),
        ),
        ("gauges", Arr(vec![Str("1.5")])),
        ("pair", Arr(vec![Int(1), Str("a"), Int(2)])),
        ("pair", Arr(vec![Int(1)])),
        ("pair", Arr(vec![Str("a"), Str("b")])),
        ("pair", Arr(vec![Int(300), Str("a")])),
        ("pair", Arr(vec![Int(1), Int(2)])),
        ("tally", Map(vec![(Str("a b"), Bool(true))])),
        ("tally", Map(vec![(Str("a"), Int(1)), (Str("b"), Int(-1))])),
        ("tally", Map(vec![(Int(5), Int(1))])),
        ("tally", Arr(vec![Int(1)])),
        ("by_id", Map(vec![(Str("a"), Str("x"))])),
        ("by_id", Map(vec![(Int(1), Int(2))])),
        ("by_id", Map(vec![(Int(300), Str("x"))])),
        ("maybe", Arr(vec![Int(1), Nil, Str("x")])),
        ("maybe", Arr(vec![Num("2.5")])),
        ("maybe", Arr(vec![Int(-4)])),
        ("names", Arr(vec![Bin(vec![1, 2])])),
        ("names", Arr(vec![Str("a"), Int(7)])),
        ("blobs", Arr(vec![Str("ab")])),
        ("blobs", Arr(vec![Arr(vec![Int(1), Int(2)])])),
        ("deep", Arr(vec![Arr(vec![Bool(true)]), Arr(vec![Int(1)])])),
        ("deep", Arr(vec![Bool(false)])),
        ("letters", Arr(vec![Str("ab")])),
        ("letters", Arr(vec![Str("")])),
        ("letters", Arr(vec![Int(97)])),
        ("small", Arr(vec![Int(-200)])),
        ("small", Str("x")),
        ("grid", Arr(vec![Int(1), Int(2), Int(3)])),
        ("grid", Arr(vec![Int(1), Int(70000)])),
        // A negative integer is no u128, said as the other ranges are.
        ("huge", Arr(vec![Int(1), Int(-1)])),
        ("huge", Arr(vec![Num("0.5")])),
        ("huge", Arr(vec![Str("1")])),
        ("wide", Arr(vec![Num("1.5")])),
        // A 128-bit integer's bin (DynamoDB's `B`) of another width than
        // 16, nested or not; the cell of another width than 8 or 16.
        ("huge", Arr(vec![Bin(vec![1; 5])])),
        ("wide", Arr(vec![Bin(vec![1; 17])])),
        ("big", Bin(vec![1; 5])),
        ("big", Bin(vec![1; 17])),
        ("signed", Bin(vec![0xff; 5])),
    ]
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// How Rust reads the stored `value` of a row: the field `field` as
/// `show` gives it (JSON), or why it refuses (its whole message).
fn read_row<K: Record>(
    key: &[u8],
    value: &[u8],
    field: &str,
    show: fn(&K, &str) -> Json,
) -> Result<Json, String> {
    let mut row = K::decode(key).expect("a key");
    match decode_values(&mut row, value) {
        Err(e) => Err(e.to_string()),
        Ok(()) => Ok(show(&row, field)),
    }
}

/// The lines of `misfits.jsonl` for `K`: its schema, then one per case
/// with each form of the stored value and what Rust made of each (`said`:
/// why it refused; `read`: the field's value it read, for a case whose
/// `accepted` says it reads, as `show` gives it). Adds the forms to
/// `forms`. `nested`: the values are of standard nested types (a cell
/// says what the map says).
fn case_lines<K: Record>(
    nested: bool,
    key: &[u8],
    cases: Vec<(&'static str, V, bool)>,
    show: fn(&K, &str) -> Json,
    out: &mut String,
    forms: &mut usize,
) {
    let store = DynamoStore::connect_local::<K>("http://127.0.0.1:1", "misfits")
        .expect("a store (no request is sent)");
    let _ = writeln!(out, "{{\"schema\":{}}}", K::schema().to_json());
    for (field, value, accepted) in cases {
        let stored = value.bytes();
        let mut map = vec![0x81, 0xd9, u8::try_from(field.len()).expect("a short name")];
        map.extend(field.as_bytes());
        map.extend(&stored);
        let cell_map = cells::cell_map([(field.as_bytes(), &stored[..])]);
        let mut reads = vec![
            ("memory", read_row::<K>(key, &map, field, show)),
            ("cells", read_row::<K>(key, &cell_map, field, show)),
        ];
        let item = match value.attribute() {
            Some((attribute, low)) => {
                let item = HashMap::from([(field.to_string(), attribute)]);
                let fields = store.value_of_item(key, &item).expect("a field map");
                reads.push(("dynamodb", read_row::<K>(key, &fields, field, show)));
                json!({ field: low })
            }
            None => Json::Null,
        };
        if matches!(value, Arr(_) | Map(_)) && !accepted && nested {
            // A nested value's cell is its MessagePack: said as the map's
            // (an enum's cell is MessagePack when it begins with `81`).
            assert_eq!(reads[1].1, reads[0].1, "{field}: the cell and the map");
        }
        assert_eq!(
            reads[0].1.is_ok(),
            accepted,
            "Rust's read of `{field}` {}: {:?}",
            hex(&stored),
            reads[0].1
        );
        // Each form as Rust reads it (a DynamoDB map holds no key twice).
        let (mut said, mut read) = (serde_json::Map::new(), serde_json::Map::new());
        said.insert("dynamodb".to_string(), Json::Null);
        for (form, outcome) in reads {
            // DynamoDB's item is read in two forms (low-level, resource).
            *forms += if form == "dynamodb" { 2 } else { 1 };
            match outcome {
                Err(e) => said.insert(form.to_string(), Json::String(e)),
                Ok(v) => {
                    said.remove(form);
                    read.insert(form.to_string(), v)
                }
            };
        }
        let line = json!({
            "field": field,
            "memory": hex(&map),
            "cells": [[field, hex(&stored)]],
            "item": item,
            "said": said,
            "read": read,
        });
        let _ = writeln!(out, "{line}");
    }
}

/// Writes `misfits.jsonl`: the nested values of standard types (each
/// refused), then those of user types; returns how many forms it holds.
fn write_cases(dir: &Path) -> usize {
    let mut out = String::new();
    let mut forms = 0;
    let nested = cases().into_iter().map(|(f, v)| (f, v, false)).collect();
    let key = Nested::get_key(7);
    case_lines::<Nested>(true, &key, nested, |_, _| Json::Null, &mut out, &mut forms);
    let key = shapes::Shaped::get_key(7);
    case_lines::<shapes::Shaped>(
        false,
        &key,
        shapes::cases(),
        shapes::show,
        &mut out,
        &mut forms,
    );
    std::fs::write(dir.join("misfits.jsonl"), out).expect("write the cases");
    let documents: Vec<Json> = shapes::documents()
        .into_iter()
        .map(|(document, said)| json!({"document": document, "said": said}))
        .collect();
    let documents = serde_json::to_string(&documents).expect("JSON");
    std::fs::write(dir.join("types.json"), documents).expect("write the documents");
    forms
}

/// Runs `python/tests/cross_misfits.py` under `python`; its standard error.
fn run(python: &Path, dir: &Path, boto3: bool) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut command = Command::new(python);
    command
        .args(["-m", "unittest", "-v", "tests.cross_misfits"])
        .current_dir(root.join("python"))
        .env("KEYSCHEMA_MISFITS_DIR", dir);
    if boto3 {
        command.env("KEYSCHEMA_MISFITS_BOTO3", "1");
    }
    let output = command
        .output()
        .expect("python3 runs (the README's test command needs Python 3.9+)");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(
        output.status.success(),
        "python's unittest failed:\n{stderr}"
    );
    stderr
}

#[test]
fn python_refuses_the_nested_values_rust_refuses_saying_the_same() {
    let dir = tempfile::tempdir().expect("temp dir");
    let forms = write_cases(dir.path());
    let stderr = run(Path::new("python3"), dir.path(), false);
    assert!(
        stderr.contains(&format!("misfits: {forms} forms, {forms} alike")),
        "python did not refuse every form Rust refuses:\n{stderr}"
    );
    let documents = shapes::documents().len();
    assert!(
        stderr.contains(&format!("types documents: {documents}, {documents} alike")),
        "python did not read every `types` member as Rust does:\n{stderr}"
    );
    // boto3's own TypeDeserializer's items too, where the interop venv has
    // it (.ci/run makes it).
    match common::interop::python_if_ready() {
        Some(python) => {
            let stderr = run(&python, dir.path(), true);
            // The items boto3 reads (it raises decimal.Rounded on a number
            // of more than 38 digits, whoever wrote it: ENCODING.md).
            let read = stderr.lines().find_map(|l| {
                let rest = &l[l.find("misfits boto3: ")? + "misfits boto3: ".len()..];
                let (n, alike) = rest.split_once(" items, ")?;
                (alike == format!("{n} refused alike")).then(|| n.parse::<usize>().ok())?
            });
            assert!(
                read.is_some_and(|n| n > forms / 8),
                "python did not refuse every boto3 item Rust refuses:\n{stderr}"
            );
        }
        None => println!("boto3 check skipped: no target/interop-venv (.ci/run makes it)"),
    }
}
