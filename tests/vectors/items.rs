//! DynamoDB's limits on an item, as vectors (`docs/ENCODING.md`, "Value
//! fields on DynamoDB"): each float's `N` text at the edges of DynamoDB's
//! number range and the refusal of every number beyond it, and the nesting
//! limit's edge (table `dynamodb_items`), and the item size DynamoDB counts, at its 400 KB
//! limit and one byte over (table `dynamodb_sizes`). Written from the Rust
//! code (`KEYSCHEMA_BLESS=1`) and read back here; Python writes the same
//! items and refuses the same rows with the same messages
//! (`python/tests/test_item_vectors.py`).

use super::record;
use super::values::model::{fields_model, item_json, item_of, unhex};
use keyschema::record::{decode_values, encode_values};
use keyschema::store::dynamodb::DynamoStore;
use keyschema::RowKey;
use serde_json::json;

/// A row of numbers in every place a float goes: an `f64` and an `f32`
/// field, a self-describing one, and text (what fills an item).
#[derive(RowKey, Debug, Clone, PartialEq, Default)]
#[rowkey(prefix = "n", then = (id))]
pub struct Numbers {
    id: u32,
    #[rowkey(value)]
    double: f64,
    #[rowkey(value)]
    single: f32,
    #[rowkey(value)]
    any: serde_json::Value,
    #[rowkey(value)]
    text: String,
}

/// A store that builds items and writes none.
fn dynamodb() -> DynamoStore {
    DynamoStore::connect_local::<Numbers>("http://127.0.0.1:1", "numbers").expect("a store")
}

fn schema() -> serde_json::Value {
    serde_json::from_str(&Numbers::schema().to_json()).expect("JSON")
}

fn row(id: u32, double: f64, single: f32, any: serde_json::Value) -> Numbers {
    Numbers {
        id,
        double,
        single,
        any,
        text: String::new(),
    }
}

/// The number rows, each with what it shows.
fn number_rows() -> Vec<(&'static str, Numbers)> {
    let below_max = f64::from_bits(1e126f64.to_bits() - 1);
    vec![
        ("zero and -0.0: both 0", row(1, -0.0, 0.0, json!(0.0))),
        (
            "1e-130, DynamoDB's smallest magnitude, held",
            row(2, 1e-130, -1e-7, json!(-1e-130)),
        ),
        (
            "the largest f64 below 1e126, held (no f64 lies between it and DynamoDB's largest)",
            row(3, below_max, f32::MAX, json!([-below_max])),
        ),
        (
            "plain from 1e-7 up to 1e21, exponent form outside",
            row(4, 1e21, 0.1, json!([1e-7, 9.99e20, 1.5e-9])),
        ),
        ("1e126, beyond the range", row(10, 1e126, 0.0, json!(null))),
        (
            "-1e126, beyond the range",
            row(11, -1e126, 0.0, json!(null)),
        ),
        (
            "1e-131, nonzero below the range",
            row(12, 1e-131, 0.0, json!(null)),
        ),
        (
            "-5e-324, the smallest subnormal, below the range",
            row(13, -5e-324, 0.0, json!(null)),
        ),
        ("NaN", row(14, f64::NAN, 0.0, json!(null))),
        ("inf", row(15, f64::INFINITY, 0.0, json!(null))),
        (
            "-inf in an f32",
            row(16, 0.0, f32::NEG_INFINITY, json!(null)),
        ),
        (
            "a number beyond the range nested in a self-describing field",
            row(17, 0.0, 0.0, json!({"k": [1, 1.5e200]})),
        ),
        (
            "31 nested lists around a number: the number at level 32, held",
            row(18, 0.0, 0.0, (0..31).fold(json!(1), |v, _| json!([v]))),
        ),
        (
            "32 nested lists: refused",
            row(19, 0.0, 0.0, (0..32).fold(json!(1), |v, _| json!([v]))),
        ),
    ]
}

/// Every number vector, as the document's rows.
pub fn number_table() -> Vec<String> {
    let store = dynamodb();
    number_rows()
        .iter()
        .map(|(what, row)| {
            let key = row.encode();
            let map = encode_values(row).expect("encodes");
            let (dynamodb, shown) = match store.item_for(&key, &map) {
                Ok(item) => {
                    let item = item_json(&item);
                    let shown = ["double", "single", "any"]
                        .iter()
                        .map(|f| match item.get(*f) {
                            Some(a) => format!("`{a}`"),
                            None => "(none)".to_string(),
                        })
                        .collect::<Vec<_>>()
                        .join(", ");
                    (json!({ "item": item }), shown)
                }
                Err(e) => (json!({ "error": e.to_string() }), e.to_string()),
            };
            record(
                "dynamodb_items",
                json!({
                    "what": what,
                    "schema": schema(),
                    "fields": {"id": row.id},
                    "key": super::plain_hex(&key),
                    "values": fields_model(&map),
                    "dynamodb": dynamodb,
                })
                .to_string(),
            );
            format!("| {what} | {} |", shown.replace('|', "\\|"))
        })
        .collect()
}

/// A row whose item DynamoDB counts as `fill` bytes of text plus the rest.
fn sized(id: u32, fill: usize) -> Numbers {
    Numbers {
        id,
        double: -1.5,
        single: 0.25,
        any: json!([100, 1234, -1, {"k": true}, null, "é"]),
        text: "a".repeat(fill),
    }
}

/// The size vectors: the longest text an item holds, and one more byte,
/// refused with the size DynamoDB counts.
pub fn size_table() -> Vec<String> {
    let store = dynamodb();
    let fits = |n: usize| {
        let row = sized(1, n);
        store
            .item_for(&row.encode(), &encode_values(&row).expect("encodes"))
            .is_ok()
    };
    // The item grows by one byte per byte of text: the longest text held.
    let (mut low, mut high) = (0, 409_600);
    while low + 1 < high {
        let mid = (low + high) / 2;
        if fits(mid) {
            low = mid;
        } else {
            high = mid;
        }
    }
    let over = sized(1, high);
    let err = store
        .item_for(&over.encode(), &encode_values(&over).expect("encodes"))
        .expect_err("one byte over");
    let size = match &err {
        keyschema::store::dynamodb::DynamoError::Limit { len, .. } => *len,
        other => panic!("not a size refusal: {other}"),
    };
    let mut out = Vec::new();
    for (what, length, dynamodb) in [
        (
            "the largest item: 400 KB (409,600 bytes) as DynamoDB counts it",
            low,
            json!({ "size": size - 1 }),
        ),
        (
            "one byte more",
            high,
            json!({ "size": size, "error": err.to_string() }),
        ),
    ] {
        let row = sized(1, length);
        let map = encode_values(&Numbers {
            text: String::new(),
            ..row.clone()
        })
        .expect("encodes");
        let mut values = fields_model(&map);
        values["text"] = json!({"fill": {"char": "a", "length": length}});
        record(
            "dynamodb_sizes",
            json!({
                "what": what,
                "schema": schema(),
                "fields": {"id": row.id},
                "key": super::plain_hex(&row.encode()),
                "values": values,
                "dynamodb": dynamodb,
            })
            .to_string(),
        );
        let told = dynamodb.get("error").map_or_else(
            || format!("held: {} bytes", size - 1),
            |e| e.as_str().unwrap_or_default().to_string(),
        );
        out.push(format!(
            "| {what}: `text` of {length} bytes | {} |",
            told.replace('|', "\\|")
        ));
    }
    out
}

/// Reads each held item back into its row and writes it again (DynamoDB
/// keeps no `-0.0` and no float kind, so the row may differ from the one
/// written, never its item); each refused row is refused again with the
/// vector's message; each sized item is held or refused as its vector says.
pub fn check_items_read_back(vectors: &serde_json::Value) {
    let store = dynamodb();
    let rows = number_rows();
    for v in vectors["dynamodb_items"].as_array().expect("the table") {
        let key = unhex(v["key"].as_str().expect("key"));
        let (what, row) = rows.iter().find(|(_, r)| r.encode() == key).expect("a row");
        let written = store.item_for(&key, &encode_values(row).expect("encodes"));
        match (v["dynamodb"].get("item"), written) {
            (Some(item), Ok(written)) => {
                let item = item_of(item);
                assert_eq!(written, item, "{what}");
                let value = store.value_of_item(&key, &item).expect("a field map");
                let mut read = Numbers::decode(&key).expect("the key");
                decode_values(&mut read, &value).expect("the item reads");
                let again = store
                    .item_for(&key, &encode_values(&read).expect("encodes"))
                    .expect("writes");
                assert_eq!(again, item, "{what}: read back");
            }
            (None, Err(e)) => assert_eq!(
                Some(e.to_string().as_str()),
                v["dynamodb"]["error"].as_str(),
                "{what}"
            ),
            (want, got) => panic!("{what}: the vector says {want:?}, the code {got:?}"),
        }
    }
    for v in vectors["dynamodb_sizes"].as_array().expect("the table") {
        let length = v["values"]["text"]["fill"]["length"]
            .as_u64()
            .expect("a length");
        let row = sized(1, usize::try_from(length).expect("a length"));
        let written = store.item_for(&row.encode(), &encode_values(&row).expect("encodes"));
        match v["dynamodb"].get("error") {
            Some(e) => assert_eq!(
                written.expect_err("refused").to_string(),
                e.as_str().expect("a message")
            ),
            None => {
                let item = written.expect("held");
                let value = store.value_of_item(&row.encode(), &item).expect("a map");
                let mut read = Numbers::decode(&row.encode()).expect("the key");
                decode_values(&mut read, &value).expect("the item reads");
                assert_eq!(read.text.len(), row.text.len());
            }
        }
    }
}
