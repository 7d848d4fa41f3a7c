//! Vectors for whole rows (`docs/ENCODING.md`, "Vectors for whole rows"):
//! a catalog of value-field types, each row's value as the ordered stores
//! keep it (memory; redb with its CRC), as a DynamoDB item and as Bigtable
//! cells, and the refusals. Written from the Rust code (`KEYSCHEMA_BLESS=1`)
//! and read back here into the typed row; Python reads and writes each
//! from the schema document alone (`test_value_vectors.py`).

pub mod model;
mod user_types;

use super::record;
use chrono::{DateTime, NaiveDate, Utc};
use keyschema::record::{cells, decode_values, encode_values};
use keyschema::store::dynamodb::sdk::types::AttributeValue;
use keyschema::store::dynamodb::DynamoStore;
use keyschema::store::{RecordStore, RedbStore};
use keyschema::RowKey;
use model::{fields_model, hex, item_json, item_of, unhex};
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::collections::BTreeMap;
use uuid::Uuid;

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
pub struct Address {
    city: String,
    zip: Option<String>,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
pub enum Status {
    #[default]
    Draft,
    Paid {
        on: u64,
    },
    Note(String),
}

/// A row of every kind of value field.
#[derive(RowKey, Debug, Clone, PartialEq, Default)]
#[rowkey(prefix = "c", then = (id))]
pub struct Catalog {
    id: u32,
    #[rowkey(value)]
    small: i8,
    #[rowkey(value)]
    big: i64,
    #[rowkey(value)]
    huge: u64,
    #[rowkey(value)]
    wide: i128,
    #[rowkey(value)]
    uwide: u128,
    #[rowkey(value)]
    single: f32,
    #[rowkey(value)]
    double: f64,
    #[rowkey(value)]
    flag: bool,
    #[rowkey(value)]
    letter: char,
    #[rowkey(value)]
    text: String,
    #[rowkey(value)]
    uuid: Uuid,
    #[rowkey(value)]
    at: DateTime<Utc>,
    #[rowkey(value)]
    day: NaiveDate,
    #[rowkey(value)]
    raw: Vec<u8>,
    #[rowkey(value)]
    tags: Vec<String>,
    #[rowkey(value)]
    counts: BTreeMap<String, u32>,
    #[rowkey(value)]
    maybe_list: Vec<Option<u8>>,
    #[rowkey(value)]
    pair: (u8, String),
    #[rowkey(value)]
    address: Address,
    #[rowkey(value)]
    status: Status,
    #[rowkey(value)]
    extra: serde_json::Value,
    #[rowkey(value)]
    note: Option<String>,
    #[rowkey(value)]
    count: Option<u16>,
}

fn base(id: u32) -> Catalog {
    Catalog {
        id,
        small: -5,
        big: i64::MIN,
        huge: u64::MAX,
        wide: i128::MIN,
        uwide: u128::MAX,
        single: 0.1,
        double: 0.25,
        flag: true,
        letter: 'é',
        text: "rent 2".into(),
        uuid: Uuid::from_u128(0x0192_d4e8_7c3a_7b1e_9f00_1234_5678_9abc),
        at: DateTime::from_timestamp(1_700_000_000, 500_000_000).expect("a time"),
        day: NaiveDate::from_ymd_opt(2024, 2, 29).expect("a date"),
        raw: vec![0, 255],
        tags: vec!["home".into(), "monthly".into()],
        counts: [("views".to_string(), 3), ("clicks".to_string(), 300)].into(),
        maybe_list: vec![Some(1), None],
        pair: (7, "x".into()),
        address: Address {
            city: "Oslo".into(),
            zip: None,
        },
        status: Status::Paid { on: 1_700_000_000 },
        extra: json!({"k": [1, "two", null]}),
        note: Some("n".into()),
        count: Some(65535),
    }
}

/// The catalog's rows, each with what it shows.
pub fn rows() -> Vec<(&'static str, Catalog)> {
    let edge = Catalog {
        id: 2,
        single: -0.0,
        double: -0.0,
        letter: '\u{0}',
        uuid: Uuid::from_u128(u128::MAX),
        at: DateTime::from_timestamp(0, 0).expect("the epoch"),
        day: NaiveDate::from_ymd_opt(1970, 1, 1).expect("a date"),
        address: Address {
            city: String::new(),
            zip: Some(String::new()),
        },
        extra: serde_json::Value::Null,
        ..Catalog::default()
    };
    let mut rows = vec![
        ("every kind of field", base(1)),
        (
            "zeros, -0.0, empty strings, sequences and maps, None, a unit variant, null",
            edge,
        ),
    ];
    let mut far = base(3);
    far.double = 1e21;
    far.single = f32::MAX;
    far.big = 1 << 40;
    far.small = -128;
    far.status = Status::Note("x".into());
    far.text = "a string of more than 31 bytes: str8".into();
    rows.push(("floats in exponent form, a newtype variant, a str8", far));
    let kinds: [(&'static str, serde_json::Value); 6] = [
        ("serde_json::Value true", json!(true)),
        ("serde_json::Value 5", json!(5)),
        ("serde_json::Value -1.5", json!(-1.5)),
        ("serde_json::Value 1.0 (a whole float)", json!(1.0)),
        ("serde_json::Value \"5\" (a string)", json!("5")),
        ("serde_json::Value [1, \"a\"]", json!([1, "a"])),
    ];
    for (i, (what, extra)) in kinds.into_iter().enumerate() {
        let mut row = base(10 + i as u32);
        row.extra = extra;
        rows.push((what, row));
    }
    let mut nan = base(20);
    nan.double = f64::NAN;
    nan.single = f32::NEG_INFINITY;
    rows.push((
        "NaN and -inf: kept by the ordered stores and Bigtable, refused by DynamoDB",
        nan,
    ));
    rows
}

/// A store that builds items and writes none.
fn dynamodb() -> DynamoStore {
    DynamoStore::connect_local::<Catalog>("http://127.0.0.1:1", "catalog").expect("a store")
}

/// The redb store's stored bytes of each row, as another program reads its
/// file (`docs/ENCODING.md`, "As redb stores it").
fn redb_stored(rows: &[Catalog]) -> Vec<(Vec<u8>, Vec<u8>)> {
    let dir = tempfile::tempdir().expect("a directory");
    {
        let store = RedbStore::open(dir.path()).expect("opens");
        store.put_records(rows).expect("writes");
    }
    const ROWS: redb::TableDefinition<&[u8], &[u8]> = redb::TableDefinition::new("keyschema_rows");
    let db = redb::Database::open(dir.path().join("keyschema.redb")).expect("the file");
    let read = redb::ReadableDatabase::begin_read(&db).expect("a read");
    let table = read.open_table(ROWS).expect("the table");
    redb::ReadableTable::iter(&table)
        .expect("a scan")
        .map(|e| {
            let (k, v) = e.expect("a row");
            (k.value().to_vec(), v.value().to_vec())
        })
        .collect()
}

/// The cells of a row's map, in qualifier order: `[[qualifier, hex], ...]`.
fn cells_json(map: &[u8]) -> serde_json::Value {
    let mut cells = cells::cells_of(map, Catalog::schema().values()).expect("cells");
    cells.sort();
    let list: Vec<serde_json::Value> = cells
        .iter()
        .map(|(q, c)| json!([String::from_utf8(q.clone()).expect("a name"), hex(c)]))
        .collect();
    serde_json::Value::Array(list)
}

/// Every row vector, as the document's rows.
pub fn value_rows() -> Vec<String> {
    let rows = rows();
    let typed: Vec<Catalog> = rows.iter().map(|(_, r)| r.clone()).collect();
    let stored = redb_stored(&typed);
    let store = dynamodb();
    let schema = Catalog::schema().to_json();
    rows.iter()
        .map(|(what, row)| {
            let key = row.encode();
            let map = encode_values(row).expect("encodes");
            let redb = &stored.iter().find(|(k, _)| *k == key).expect("stored").1;
            let dynamodb = match store.item_for(&key, &map) {
                Ok(item) => json!({ "item": item_json(&item) }),
                Err(e) => json!({ "error": e.to_string() }),
            };
            let entry = json!({
                "what": what,
                "schema": serde_json::from_str::<serde_json::Value>(&schema).expect("JSON"),
                "fields": {"id": row.id},
                "key": hex(&key),
                "values": fields_model(&map),
                "memory": hex(&map),
                "redb": hex(redb),
                "dynamodb": dynamodb,
                "bigtable": cells_json(&map),
            });
            record("values", entry.to_string());
            format!(
                "| {what} | `{}` | `{}` |",
                hex(&map),
                &hex(redb)[2 * map.len()..]
            )
        })
        .collect()
}

/// Reads each vector's forms back into the typed row it was written from:
/// the memory bytes, the redb bytes (CRC checked, then dropped), the cells
/// and the DynamoDB item (whose row writes the same item again: DynamoDB
/// keeps no `-0.0` and no float kind, so the row may differ from the one
/// written, never its item).
pub fn check_values_read_back(vectors: &serde_json::Value) {
    let rows = rows();
    let store = dynamodb();
    for v in vectors["values"].as_array().expect("the values table") {
        let key = unhex(v["key"].as_str().expect("key"));
        let (what, expected) = rows
            .iter()
            .find(|(_, r)| r.encode() == key)
            .expect("a catalog row");
        let same = |read: &Catalog| {
            encode_values(read).expect("encodes") == encode_values(expected).expect("encodes")
        };
        let memory = unhex(v["memory"].as_str().expect("memory"));
        let mut read = Catalog::decode(&key).expect("the key");
        decode_values(&mut read, &memory).expect("reads");
        assert!(same(&read), "{what}: memory");
        let redb = unhex(v["redb"].as_str().expect("redb"));
        let (value, crc) = redb.split_at(redb.len() - 4);
        let mut summed = key.clone();
        summed.extend_from_slice(value);
        assert_eq!(
            crc,
            crc32fast::hash(&summed).to_be_bytes(),
            "{what}: redb CRC"
        );
        assert_eq!(value, &memory[..], "{what}: redb value");
        let cells: Vec<(Vec<u8>, Vec<u8>)> = v["bigtable"]
            .as_array()
            .expect("cells")
            .iter()
            .map(|c| {
                (
                    c[0].as_str().expect("q").as_bytes().to_vec(),
                    unhex(c[1].as_str().expect("cell")),
                )
            })
            .collect();
        let map = cells::cell_map(cells.iter().map(|(q, c)| (&q[..], &c[..])));
        let mut read = Catalog::decode(&key).expect("the key");
        decode_values(&mut read, &map).expect("cells read");
        assert!(same(&read), "{what}: cells");
        if let Some(item) = v["dynamodb"].get("item") {
            let item = item_of(item);
            let value = store.value_of_item(&key, &item).expect("a field map");
            let mut read = Catalog::decode(&key).expect("the key");
            decode_values(&mut read, &value).expect("the item reads");
            let again = store
                .item_for(&key, &encode_values(&read).expect("encodes"))
                .expect("writes");
            assert_eq!(again, item, "{what}: item");
        }
    }
}

/// The refusal vectors, as the document's rows.
pub fn refusal_rows() -> Vec<String> {
    let store = dynamodb();
    let schema: serde_json::Value =
        serde_json::from_str(&Catalog::schema().to_json()).expect("JSON");
    let mut out = Vec::new();
    let mut push = |what: &str, store_name: &str, input: serde_json::Value, error: String| {
        record(
            "value_refusals",
            json!({"what": what, "schema": schema, "store": store_name, "input": input, "error": error}).to_string(),
        );
        out.push(format!(
            "| {what} | {store_name} | {} |",
            error.replace('|', "\\|")
        ));
    };
    let refused = |row: &Catalog| {
        store
            .item_for(&row.encode(), &encode_values(row).expect("encodes"))
            .expect_err("refused")
            .to_string()
    };
    let mut deep = base(30);
    deep.extra = (0..33).fold(json!(1), |v, _| json!([v]));
    let map = encode_values(&deep).expect("encodes");
    push(
        "33 nested lists",
        "dynamodb",
        json!({"key": hex(&deep.encode()), "values": fields_model(&map)}),
        refused(&deep),
    );
    let mut empty_key = base(31);
    empty_key.counts = [(String::new(), 1)].into();
    let map = encode_values(&empty_key).expect("encodes");
    push(
        "a map key that is the empty string",
        "dynamodb",
        json!({"key": hex(&empty_key.encode()), "values": fields_model(&map)}),
        refused(&empty_key),
    );
    let row = base(1);
    let good = encode_values(&row).expect("encodes");
    let mut cells = cells::cells_of(&good, Catalog::schema().values()).expect("cells");
    let cell_case = |cells: &[(Vec<u8>, Vec<u8>)]| {
        let map = cells::cell_map(cells.iter().map(|(q, c)| (&q[..], &c[..])));
        let mut read = Catalog::decode(&row.encode()).expect("the key");
        let err = decode_values(&mut read, &map)
            .expect_err("refused")
            .to_string();
        let list: Vec<serde_json::Value> = cells
            .iter()
            .map(|(q, c)| json!([String::from_utf8(q.clone()).expect("a name"), hex(c)]))
            .collect();
        (json!({"key": hex(&row.encode()), "cells": list}), err)
    };
    let big = cells.iter().position(|(q, _)| q == b"big").expect("big");
    cells[big].1 = vec![0, 0, 0, 5];
    let (input, err) = cell_case(&cells);
    push("a 4-byte cell for an i64", "bigtable", input, err);
    cells[big].1 = b"5".to_vec();
    let (input, err) = cell_case(&cells);
    push("the text 5 in an i64 cell", "bigtable", input, err);
    let wide = cells.iter().position(|(q, _)| q == b"wide").expect("wide");
    cells[big].1 = vec![0; 8];
    cells[wide].1 = vec![0; 12];
    let (input, err) = cell_case(&cells);
    push("a 12-byte cell for an i128", "bigtable", input, err);
    for (what, bytes) in [
        ("the empty map", vec![0x80]),
        (
            "a map of `small` alone: the first required field it lacks is named",
            {
                let mut m = vec![0x81];
                m.extend_from_slice(b"\xa5small\x05");
                m
            },
        ),
        ("`flag` an integer", {
            let mut m = vec![0x81];
            m.extend_from_slice(b"\xa4flag\x01");
            m
        }),
    ] {
        let mut read = Catalog::decode(&row.encode()).expect("the key");
        let err = decode_values(&mut read, &bytes)
            .expect_err("refused")
            .to_string();
        push(
            what,
            "memory",
            json!({"key": hex(&row.encode()), "memory": hex(&bytes)}),
            err,
        );
    }
    nested_refusals(&row, cells.clone(), &mut push);
    user_types::user_type_refusals(&row, cells, &mut push);
    out
}

/// Values nested in a field that do not read as its type, at the path
/// the message names, and a negative number for a `u128`: in the map, a
/// cell and a DynamoDB item.
fn nested_refusals(
    row: &Catalog,
    mut cells: Vec<(Vec<u8>, Vec<u8>)>,
    push: &mut impl FnMut(&str, &str, serde_json::Value, String),
) {
    let key = row.encode();
    let refused = |value: &[u8]| {
        let mut read = Catalog::decode(&key).expect("the key");
        decode_values(&mut read, value)
            .expect_err("refused")
            .to_string()
    };
    for (what, field, item) in [
        (
            "`tags` holding an integer",
            "tags",
            vec![0x92, 0xa1, b'a', 0x07],
        ),
        (
            "`counts` holding -1, beyond u32",
            "counts",
            b"\x81\xa3a b\xff".to_vec(),
        ),
        (
            "`counts` with an integer key",
            "counts",
            vec![0x81, 0x05, 0x01],
        ),
        (
            "`maybe_list` holding a string",
            "maybe_list",
            vec![0x92, 0x01, 0xa1, b'x'],
        ),
        (
            "`pair` of three elements",
            "pair",
            vec![0x93, 0x01, 0xa1, b'a', 0x02],
        ),
        (
            "`uwide` -1: a negative integer is no u128",
            "uwide",
            vec![0xff],
        ),
    ] {
        let mut map = vec![0x81, 0xa0 | field.len() as u8];
        map.extend(field.as_bytes());
        map.extend(item);
        let input = json!({"key": hex(&key), "memory": hex(&map)});
        push(what, "memory", input, refused(&map));
    }
    let big = cells.iter().position(|(q, _)| q == b"big").expect("big");
    let wide = cells.iter().position(|(q, _)| q == b"wide").expect("wide");
    cells[big].1 = vec![0; 8];
    cells[wide].1 = vec![0; 16];
    let tags = cells.iter().position(|(q, _)| q == b"tags").expect("tags");
    // The reading limits of a self-describing cell (`c1`, then
    // MessagePack): nesting past MAX_NESTING levels, and a length its bytes cannot
    // hold, refused before anything is allocated or recursed into.
    let extra = cells
        .iter()
        .position(|(q, _)| q == b"extra")
        .expect("extra");
    let kept = cells[extra].1.clone();
    for (what, cell) in [
        (
            "an `extra` cell of 129 nested arrays: deeper than MAX_NESTING (128) levels",
            {
                let mut c = vec![0xc1];
                c.extend(std::iter::repeat_n(0x91, 129));
                c.push(0x01);
                c
            },
        ),
        (
            "an `extra` cell whose array claims 2^32 - 1 elements",
            vec![0xc1, 0xdd, 0xff, 0xff, 0xff, 0xff, 0x01],
        ),
    ] {
        cells[extra].1 = cell;
        let map = cells::cell_map(cells.iter().map(|(q, c)| (&q[..], &c[..])));
        let list: Vec<serde_json::Value> = cells
            .iter()
            .map(|(q, c)| json!([String::from_utf8(q.clone()).expect("a name"), hex(c)]))
            .collect();
        push(
            what,
            "bigtable",
            json!({"key": hex(&key), "cells": list}),
            refused(&map),
        );
    }
    cells[extra].1 = kept;
    for (what, cell) in [
        ("a `tags` cell of text, not MessagePack", b"home".to_vec()),
        ("a `tags` cell holding an integer", vec![0x91, 0x07]),
    ] {
        cells[tags].1 = cell;
        let map = cells::cell_map(cells.iter().map(|(q, c)| (&q[..], &c[..])));
        let list: Vec<serde_json::Value> = cells
            .iter()
            .map(|(q, c)| json!([String::from_utf8(q.clone()).expect("a name"), hex(c)]))
            .collect();
        push(
            what,
            "bigtable",
            json!({"key": hex(&key), "cells": list}),
            refused(&map),
        );
    }
    let store = dynamodb();
    let good = store
        .item_for(&key, &encode_values(row).expect("encodes"))
        .expect("an item");
    let n = |text: &str| AttributeValue::N(text.into());
    for (what, field, attribute) in [
        (
            "an item's `tags` holding a number",
            "tags",
            AttributeValue::L(vec![AttributeValue::S("home".into()), n("7")]),
        ),
        (
            "an item's `counts` holding 1.5",
            "counts",
            AttributeValue::M([("views".to_string(), n("1.5"))].into()),
        ),
        ("an item's `uwide` holding -1", "uwide", n("-1")),
        (
            "an item's `pair` holding 300 for a u8",
            "pair",
            AttributeValue::L(vec![n("300"), AttributeValue::S("x".into())]),
        ),
    ] {
        let mut item = good.clone();
        item.insert(field.to_string(), attribute);
        let value = store.value_of_item(&key, &item).expect("a field map");
        let input = json!({"key": hex(&key), "item": item_json(&item)});
        push(what, "dynamodb", input, refused(&value));
    }
}
