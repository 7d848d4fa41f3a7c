//! The partition split (`docs/ENCODING.md`, "Partition keys", table
//! `partition_split`): keys of binary and text layouts split into the
//! partition part (prefix, salt and the partition components) and the
//! sort part, as `Schema::split_key` splits them (DynamoDB's `pk` and
//! `sk`); Python's `Schema.split_key` splits them alike
//! (`test_partition_split.py`).

use super::{hex, plain_hex, record};
use keyschema::dynamic::{DynSchema, Value};
use keyschema::RowKey;

/// A salted key partitioned on its first field, then a `rev` and a `u16`.
#[derive(RowKey)]
#[rowkey(salt = hash(invoice_id) % 4, then = (invoice_id), rev(created_at), line_no)]
pub struct Line {
    invoice_id: String,
    created_at: u64,
    line_no: u16,
}

/// A prefixed key partitioned on two fields, then an `Option`.
#[derive(RowKey)]
#[rowkey(prefix = "o", then = (tenant, region), order_id)]
pub struct Order {
    tenant: u32,
    region: String,
    order_id: Option<u64>,
}

/// A partition of a `bucket(...)` and its field.
#[derive(RowKey)]
#[rowkey(then = (sensor, bucket(at, 3600), at), reading)]
pub struct Reading {
    sensor: String,
    at: u64,
    reading: i32,
}

/// A text key: the separator after the partition ends its part.
#[derive(RowKey)]
#[rowkey(format = text(sep = "#"), salt = hash(invoice) % 16, then = (invoice), rev(amount), status)]
pub struct TextLine {
    invoice: String,
    amount: u32,
    status: String,
}

/// A text key whose partition ends with a fixed-width component.
#[derive(RowKey)]
#[rowkey(format = text(sep = "#"), prefix = "d", then = (day), seq)]
pub struct TextDay {
    day: u32,
    seq: u64,
}

/// No partition declared: the whole key is the partition.
#[derive(RowKey)]
#[rowkey(then = user, n)]
pub struct Unsplit {
    user: String,
    n: u8,
}

/// Every component in the partition: the sort part is empty.
#[derive(RowKey)]
#[rowkey(then = (user, n))]
pub struct Whole {
    user: String,
    n: u8,
}

/// One vector: the key's split as `K::schema().split_key` gives it.
fn split<K: RowKey>(key: Vec<u8>) -> String {
    let schema = DynSchema::from_json(&K::schema().to_json()).expect("schema reads back");
    let values = schema.decode(&key).expect("a vector decodes");
    let (partition, sort) = K::schema().split_key(&key).expect("the key splits");
    assert_eq!([partition, sort].concat(), key, "the parts join to the key");
    record(
        "partition_split",
        format!(
            r#"{{"declaration":{},"schema":{},"fields":{},"key":"{}","partition":"{}","sort":"{}"}}"#,
            Value::from(K::schema().to_string()).to_json(),
            K::schema().to_json(),
            crate::common::fields_json(&schema, &values),
            plain_hex(&key),
            plain_hex(partition),
            plain_hex(sort)
        ),
    );
    let shown = |b: &[u8]| match b {
        [] => "(empty)".to_string(),
        b => format!("`{}`", hex(b)),
    };
    format!(
        "| `{}` | `{}` | {} | {} |",
        K::schema().to_string().replace('|', "\\|"),
        crate::common::fields_json(&schema, &values),
        shown(partition),
        shown(sort)
    )
}

/// Every split, as the document's rows.
pub fn split_rows() -> Vec<String> {
    vec![
        split::<Line>(Line::get_key("INV-42", 1_700_000_000, 3)),
        split::<Order>(Order::get_key(7, "eu", Some(12))),
        split::<Order>(Order::get_key(7, "", None)),
        split::<Reading>(Reading::get_key("s1", 7_300, -5)),
        split::<TextLine>(TextLine::get_key("INV#7", 1_700_000_000, "paid")),
        split::<TextDay>(TextDay::get_key(20_240, 9)),
        split::<Unsplit>(Unsplit::get_key("u1", 2)),
        split::<Whole>(Whole::get_key("u1", 2)),
    ]
}
