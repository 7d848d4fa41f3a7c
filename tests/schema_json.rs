//! The schema as a JSON document: golden output for every construct, and
//! for the shared schemas a parse that agrees with the runtime `Schema`.

mod common;

use common::schemas::Event;
use keyschema::{Order, RowKey};

#[derive(RowKey)]
#[rowkey(format = text(sep = "#"), prefix = "ev\"1", salt = random % 10, then = (invoice_id), reverse(order_id), bucket(day, 30), rev(day))]
struct Everything {
    invoice_id: String,
    order_id: u64,
    day: u32,
}

#[test]
fn the_json_of_every_construct() {
    assert_eq!(
        Everything::schema().to_json(),
        concat!(
            r##"{"keyschema":2,"name":"Everything","format":{"kind":"text","sep":"#"},"prefix":"65762231","##,
            r##""salt":{"kind":"random","buckets":10},"partition":1,"components":["##,
            r##"{"name":"invoice_id","type":"String","order":"asc","transform":"plain","encoding":"String","fixed_width":null},"##,
            r##"{"name":"order_id","type":"u64","order":"asc","transform":"reverse","encoding":"u64","fixed_width":8},"##,
            r##"{"name":"day","type":"u32","order":"desc","transform":{"bucket":30},"encoding":"u32","fixed_width":4},"##,
            r##"{"name":"day","type":"u32","order":"desc","transform":"plain","encoding":"u32","fixed_width":4}]}"##
        )
    );
}

#[test]
fn the_json_parses_and_agrees_with_the_schema() {
    let schema = Event::schema();
    let json: serde_json::Value = serde_json::from_str(&schema.to_json()).expect("valid JSON");
    assert_eq!(json["keyschema"], 2);
    assert_eq!(json["name"], "Event");
    assert_eq!(json["salt"]["kind"], "hash");
    assert_eq!(json["salt"]["buckets"], 8);
    assert_eq!(json["salt"]["hashed"], serde_json::json!([0, 1]));
    assert_eq!(json["partition"], serde_json::Value::Null);
    let components = json["components"].as_array().expect("components");
    assert_eq!(components.len(), schema.components().len());
    for (c, j) in schema.components().iter().zip(components) {
        assert_eq!(j["name"], c.name());
        assert_eq!(j["type"], c.type_name());
        let order = if c.order() == Order::Descending {
            "desc"
        } else {
            "asc"
        };
        assert_eq!(j["order"], order);
    }
}
