//! More whole-row vectors, in the `values` table's shape (`docs/ENCODING.md`,
//! "Vectors for whole rows"): `f32`s nested in sequences, tuples, Options
//! and structs (table `values_f32`, with the refusals of a nested `f32`
//! beyond its range in `value_f32_refusals`), and every time type as a
//! value field and as a key field (table `values_times`). Written from the
//! Rust code (`KEYSCHEMA_BLESS=1`) and read back here; Python reads and
//! writes each (`python/tests/test_row_vectors.py`).

use super::record;
use super::values::model::{fields_model, hex, item_json, item_of, unhex};
use chrono::{DateTime, NaiveDate, NaiveDateTime, Utc};
use keyschema::dynamic::DynSchema;
use keyschema::record::{cells, decode_values, encode_values, Record};
use keyschema::store::dynamodb::DynamoStore;
use keyschema::store::{RecordStore, RedbStore};
use keyschema::{OneLayout, RowKey};
use serde::{Deserialize, Serialize};
use serde_json::json;

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
pub struct Inner {
    x: f32,
}

/// `f32`s inside other values.
#[derive(RowKey, Debug, Clone, PartialEq, Default)]
#[rowkey(prefix = "f", then = (id))]
pub struct Floats {
    id: u32,
    #[rowkey(value)]
    list: Vec<f32>,
    #[rowkey(value)]
    pair: (f32, f64),
    #[rowkey(value)]
    maybe: Option<f32>,
    #[rowkey(value)]
    inner: Inner,
}

fn float_rows() -> Vec<(&'static str, Floats)> {
    vec![
        (
            "f32s in a list, a tuple, an Option and a struct",
            Floats {
                id: 1,
                list: vec![0.1, -0.0, f32::MAX, f32::MIN_POSITIVE, 1e-45],
                pair: (0.1, 0.1),
                maybe: Some(-2.5),
                inner: Inner { x: 16_777_217.0 },
            },
        ),
        (
            "an empty list and None",
            Floats {
                id: 2,
                ..Floats::default()
            },
        ),
    ]
}

/// Instants, civil times and dates of chrono and time, as value fields
/// and as key fields.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(prefix = "t", then = (day), at)]
pub struct Times {
    day: NaiveDate,
    at: DateTime<Utc>,
    #[rowkey(value)]
    utc: DateTime<Utc>,
    #[rowkey(value)]
    naive: NaiveDateTime,
    #[rowkey(value)]
    date: NaiveDate,
    #[rowkey(value)]
    offset: Option<time::OffsetDateTime>,
    #[rowkey(value)]
    primitive: Option<time::PrimitiveDateTime>,
    #[rowkey(value)]
    tdate: Option<time::Date>,
}

fn time_rows() -> Vec<(&'static str, Times)> {
    let at = DateTime::from_timestamp(1_700_000_000, 500_000_000).expect("a time");
    let day = NaiveDate::from_ymd_opt(2023, 11, 14).expect("a date");
    let offset = time::OffsetDateTime::from_unix_timestamp_nanos(1_700_000_000_500_000_000)
        .expect("a time")
        .to_offset(time::UtcOffset::from_hms(5, 30, 0).expect("an offset"));
    let before = DateTime::from_timestamp(-1, 999_999_999).expect("a time");
    let leap = NaiveDate::from_ymd_opt(2016, 12, 31)
        .and_then(|d| d.and_hms_nano_opt(23, 59, 59, 1_500_000_000))
        .expect("a leap second");
    vec![
        (
            "an instant at +05:30 (time keeps the offset in a value), a civil time, dates",
            Times {
                day,
                at,
                utc: at,
                naive: at.naive_utc(),
                date: day,
                offset: Some(offset),
                primitive: Some(time::PrimitiveDateTime::new(
                    time::Date::from_calendar_date(2023, time::Month::November, 14)
                        .expect("a date"),
                    time::Time::from_hms_nano(22, 13, 20, 500_000_000).expect("a time"),
                )),
                tdate: time::Date::from_calendar_date(-1, time::Month::January, 1).ok(),
            },
        ),
        (
            "before 1970 and a leap second",
            Times {
                day: NaiveDate::from_ymd_opt(1969, 12, 31).expect("a date"),
                at: before,
                utc: leap.and_utc(),
                naive: leap,
                date: NaiveDate::from_ymd_opt(1969, 12, 31).expect("a date"),
                offset: Some(time::OffsetDateTime::UNIX_EPOCH),
                primitive: Some(time::PrimitiveDateTime::MIN),
                tdate: Some(time::Date::MAX),
            },
        ),
    ]
}

/// A store that builds items and writes none.
fn dynamodb<K: RowKey>() -> DynamoStore {
    DynamoStore::connect_local::<K>("http://127.0.0.1:1", "rows").expect("a store")
}

/// The redb store's stored bytes of a row, as another program reads its file.
fn redb_stored<K: OneLayout + Record>(row: &K) -> Vec<u8> {
    let dir = tempfile::tempdir().expect("a directory");
    {
        let store = RedbStore::open(dir.path()).expect("opens");
        store.put_records([row]).expect("writes");
    }
    const ROWS: redb::TableDefinition<&[u8], &[u8]> = redb::TableDefinition::new("keyschema_rows");
    let db = redb::Database::open(dir.path().join("keyschema.redb")).expect("the file");
    let read = redb::ReadableDatabase::begin_read(&db).expect("a read");
    let table = read.open_table(ROWS).expect("the table");
    let value = table
        .get(&row.encode()[..])
        .expect("a read")
        .expect("the row")
        .value()
        .to_vec();
    value
}

fn cells_json<K: Record>(map: &[u8]) -> serde_json::Value {
    let mut cells = cells::cells_of(map, K::schema().values()).expect("cells");
    cells.sort();
    let list: Vec<serde_json::Value> = cells
        .iter()
        .map(|(q, c)| json!([String::from_utf8(q.clone()).expect("a name"), hex(c)]))
        .collect();
    serde_json::Value::Array(list)
}

/// Records `rows` under `table`, in the `values` table's shape, and
/// returns the document's rows: each row's map and its redb CRC.
fn table_rows<K: OneLayout + Record>(table: &'static str, rows: &[(&str, K)]) -> Vec<String> {
    let store = dynamodb::<K>();
    let json = K::schema().to_json();
    let schema = DynSchema::from_json(&json).expect("reads back");
    rows.iter()
        .map(|(what, row)| {
            let key = row.encode();
            let map = encode_values(row).expect("encodes");
            let redb = redb_stored(row);
            let dynamodb = match store.item_for(&key, &map) {
                Ok(item) => json!({ "item": item_json(&item) }),
                Err(e) => json!({ "error": e.to_string() }),
            };
            let fields = crate::common::fields_json(&schema, &schema.decode(&key).expect("a key"));
            record(
                table,
                json!({
                    "what": what,
                    "schema": serde_json::from_str::<serde_json::Value>(&json).expect("JSON"),
                    "fields": serde_json::from_str::<serde_json::Value>(&fields).expect("JSON"),
                    "key": hex(&key),
                    "values": fields_model(&map),
                    "memory": hex(&map),
                    "redb": hex(&redb),
                    "dynamodb": dynamodb,
                    "bigtable": cells_json::<K>(&map),
                })
                .to_string(),
            );
            format!(
                "| {what} | `{}` | `{}` |",
                hex(&map),
                &hex(&redb)[2 * map.len()..]
            )
        })
        .collect()
}

/// The `values_f32` table.
pub fn float_table() -> Vec<String> {
    table_rows("values_f32", &float_rows())
}

/// The `values_times` table.
pub fn time_table() -> Vec<String> {
    table_rows("values_times", &time_rows())
}

/// Reads each vector of `table` back into the row it was written from:
/// memory, redb (CRC checked), the cells, and the item (which writes the
/// same item again).
fn check_table<K: OneLayout + Record>(
    vectors: &serde_json::Value,
    table: &str,
    rows: &[(&str, K)],
) {
    let store = dynamodb::<K>();
    for v in vectors[table].as_array().expect("the table") {
        let key = unhex(v["key"].as_str().expect("key"));
        let (what, expected) = rows.iter().find(|(_, r)| r.encode() == key).expect("a row");
        let same = |read: &K| {
            encode_values(read).expect("encodes") == encode_values(expected).expect("encodes")
        };
        let memory = unhex(v["memory"].as_str().expect("memory"));
        let mut read = K::decode(&key).expect("the key");
        decode_values(&mut read, &memory).expect("reads");
        assert!(same(&read), "{what}: memory");
        let redb = unhex(v["redb"].as_str().expect("redb"));
        let (value, crc) = redb.split_at(redb.len() - 4);
        let mut summed = key.clone();
        summed.extend_from_slice(value);
        let sum = crc32fast::hash(&summed).to_be_bytes();
        assert_eq!(crc, sum, "{what}: redb CRC");
        assert_eq!(value, &memory[..], "{what}: redb value");
        let cells: Vec<(Vec<u8>, Vec<u8>)> = v["bigtable"]
            .as_array()
            .expect("cells")
            .iter()
            .map(|c| {
                let q = c[0].as_str().expect("q").as_bytes().to_vec();
                (q, unhex(c[1].as_str().expect("cell")))
            })
            .collect();
        let map = cells::cell_map(cells.iter().map(|(q, c)| (&q[..], &c[..])));
        let mut read = K::decode(&key).expect("the key");
        decode_values(&mut read, &map).expect("cells read");
        assert!(same(&read), "{what}: cells");
        let item = item_of(&v["dynamodb"]["item"]);
        let value = store.value_of_item(&key, &item).expect("a field map");
        let mut read = K::decode(&key).expect("the key");
        decode_values(&mut read, &value).expect("the item reads");
        let again = store
            .item_for(&key, &encode_values(&read).expect("encodes"))
            .expect("writes");
        assert_eq!(again, item, "{what}: item");
    }
}

/// [`check_table`] for each table of this module.
pub fn check_rows_read_back(vectors: &serde_json::Value) {
    check_table(vectors, "values_f32", &float_rows());
    check_table(vectors, "values_times", &time_rows());
    check_f32_refusals(vectors);
}

/// A nested `f32` stored beyond its range (another program's), on each
/// store's form: `(what, store, input, error)`.
fn f32_refusals() -> Vec<(&'static str, &'static str, serde_json::Value, String)> {
    let row = Floats {
        id: 3,
        ..Floats::default()
    };
    let key = row.encode();
    let mut out = Vec::new();
    // `list` holds the float 64 1e39 (cb ...), the rest as written.
    let mut memory = vec![0x84];
    memory.extend_from_slice(b"\xa4list\x91\xcb");
    memory.extend_from_slice(&1e39f64.to_be_bytes());
    memory.extend_from_slice(b"\xa4pair\x92\x00\x00\xa5maybe\xc0\xa5inner\x81\xa1x\x00");
    let mut read = Floats::decode(&key).expect("the key");
    let err = decode_values(&mut read, &memory).expect_err("refused");
    out.push((
        "a float 64 of 1e39 in a Vec<f32>",
        "memory",
        json!({"key": hex(&key), "memory": hex(&memory)}),
        err.to_string(),
    ));
    let store = dynamodb::<Floats>();
    let mut item = store
        .item_for(&key, &encode_values(&row).expect("encodes"))
        .expect("an item");
    item.insert(
        "inner".into(),
        item_of(&json!({"inner": {"M": {"x": {"N": "-1e39"}}}}))["inner"].clone(),
    );
    let value = store.value_of_item(&key, &item).expect("a field map");
    let mut read = Floats::decode(&key).expect("the key");
    let err = decode_values(&mut read, &value).expect_err("refused");
    out.push((
        "the number -1e39 in a struct's f32",
        "dynamodb",
        json!({"item": item_json(&item)}),
        err.to_string(),
    ));
    let mut cells = cells::cells_of(
        &encode_values(&row).expect("encodes"),
        Floats::schema().values(),
    )
    .expect("cells");
    cells.push((b"maybe".to_vec(), 1e39f64.to_be_bytes().to_vec()));
    cells.sort();
    let map = cells::cell_map(cells.iter().map(|(q, c)| (&q[..], &c[..])));
    let mut read = Floats::decode(&key).expect("the key");
    let err = decode_values(&mut read, &map).expect_err("refused");
    let list: Vec<serde_json::Value> = cells
        .iter()
        .map(|(q, c)| json!([String::from_utf8(q.clone()).expect("a name"), hex(c)]))
        .collect();
    out.push((
        "the double 1e39 in an Option<f32> cell",
        "bigtable",
        json!({"key": hex(&key), "cells": list}),
        err.to_string(),
    ));
    out
}

/// The `value_f32_refusals` table.
pub fn f32_refusal_table() -> Vec<String> {
    let schema: serde_json::Value =
        serde_json::from_str(&Floats::schema().to_json()).expect("JSON");
    f32_refusals()
        .into_iter()
        .map(|(what, store, input, error)| {
            record(
                "value_f32_refusals",
                json!({"what": what, "schema": schema, "store": store, "input": input, "error": error})
                    .to_string(),
            );
            format!("| {what} | {store} | {} |", error.replace('|', "\\|"))
        })
        .collect()
}

/// Reads each refusal's input, as another program would have stored it,
/// and gets the vector's error.
fn check_f32_refusals(vectors: &serde_json::Value) {
    let store = dynamodb::<Floats>();
    for v in vectors["value_f32_refusals"].as_array().expect("the table") {
        let input = &v["input"];
        let what = v["what"].as_str().expect("what");
        let (key, value) = match v["store"].as_str().expect("a store") {
            "memory" => {
                let key = unhex(input["key"].as_str().expect("key"));
                (key, unhex(input["memory"].as_str().expect("memory")))
            }
            "dynamodb" => {
                let item = item_of(&input["item"]);
                let key = match &item["pk"] {
                    keyschema::store::dynamodb::sdk::types::AttributeValue::B(b) => {
                        b.as_ref().to_vec()
                    }
                    other => panic!("{what}: pk {other:?}"),
                };
                let value = store.value_of_item(&key, &item).expect("a field map");
                (key, value)
            }
            _ => {
                let key = unhex(input["key"].as_str().expect("key"));
                let cells: Vec<(Vec<u8>, Vec<u8>)> = input["cells"]
                    .as_array()
                    .expect("cells")
                    .iter()
                    .map(|c| {
                        let q = c[0].as_str().expect("q").as_bytes().to_vec();
                        (q, unhex(c[1].as_str().expect("cell")))
                    })
                    .collect();
                (
                    key,
                    cells::cell_map(cells.iter().map(|(q, c)| (&q[..], &c[..]))),
                )
            }
        };
        let mut read = Floats::decode(&key).expect("the key");
        let err = decode_values(&mut read, &value).expect_err(what);
        assert_eq!(
            Some(err.to_string().as_str()),
            v["error"].as_str(),
            "{what}"
        );
    }
}
