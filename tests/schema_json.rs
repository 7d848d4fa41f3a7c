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

/// A key type with value fields: its document carries `values` (name,
/// Rust type as written, whether a row must hold it) and the Bigtable
/// `family`, after the components; still version 2, and the key readers
/// (`DynSchema`) read it as the same layout.
#[derive(RowKey)]
#[rowkey(then = (invoice_id), line_no, family = "ledger")]
struct Line {
    invoice_id: String,
    line_no: u16,
    #[rowkey(value)]
    amount: i64,
    #[rowkey(value)]
    note: Option<String>,
    #[rowkey(value, default)]
    tags: std::collections::BTreeMap<String, Vec<u8>>,
    #[rowkey(skip)]
    _cache: u8,
}

#[test]
fn the_json_of_value_fields() {
    let json = Line::schema().to_json();
    assert_eq!(
        json,
        concat!(
            r##"{"keyschema":2,"name":"Line","format":{"kind":"binary"},"prefix":"","salt":null,"partition":1,"components":["##,
            r##"{"name":"invoice_id","type":"String","order":"asc","transform":"plain","encoding":"String","fixed_width":null},"##,
            r##"{"name":"line_no","type":"u16","order":"asc","transform":"plain","encoding":"u16","fixed_width":2}],"##,
            r##""values":[{"name":"amount","type":"i64","required":true},"##,
            r##"{"name":"note","type":"Option<String>","required":false,"nil":true},"##,
            r##"{"name":"tags","type":"std::collections::BTreeMap<String, Vec<u8>>","required":false}],"##,
            r##""family":"ledger","row_format":1}"##
        )
    );
    let parsed: serde_json::Value = serde_json::from_str(&json).expect("valid JSON");
    let values = parsed["values"].as_array().expect("values");
    for (v, j) in Line::schema().values().iter().zip(values) {
        assert_eq!(j["name"], v.name);
        assert_eq!(j["type"], v.type_name);
        assert_eq!(j["required"], v.refused_if_missing());
        assert_eq!(j["nil"].as_bool().unwrap_or(false), (v.reads_nil)());
    }
    // A reader of keys ignores them: the same layout as without them.
    let with = keyschema::dynamic::DynSchema::from_json(&json).expect("reads");
    let key = Line::get_key("INV-1", 2);
    assert_eq!(
        with.decode(&key).expect("decodes").len(),
        2,
        "the key's two fields"
    );
    // A key type without value fields writes neither member.
    assert!(!Event::schema().to_json().contains("\"values\""));
    assert!(!Event::schema().to_json().contains("\"family\""));
}

/// Required value fields whose types read nil (`serde_json::Value`, `()`,
/// a newtype of an `Option`): Bigtable keeps no cell and DynamoDB no
/// attribute for their nil, and the typed read takes a missing one as nil,
/// so the document says a row need not hold them (`"required": false`) and
/// why (`"nil": true`); a document reader keeps both.
#[test]
fn a_field_whose_type_reads_nil_is_not_required_in_the_document() {
    #[derive(serde::Serialize, serde::Deserialize, Default)]
    struct Maybe(Option<i32>);
    #[derive(RowKey)]
    #[rowkey(then = id)]
    #[allow(dead_code)]
    struct Loose {
        id: u32,
        #[rowkey(value)]
        doc: serde_json::Value,
        #[rowkey(value)]
        unit: (),
        #[rowkey(value)]
        maybe: Maybe,
        #[rowkey(value)]
        n: u32,
    }
    let json = Loose::schema().to_json();
    assert!(
        json.contains(concat!(
            r##""values":[{"name":"doc","type":"serde_json::Value","required":false,"nil":true,"self_describing":true},"##,
            r##"{"name":"unit","type":"()","required":false,"nil":true},"##,
            r##"{"name":"maybe","type":"Maybe","required":false,"nil":true},"##,
            r##"{"name":"n","type":"u32","required":true}]"##
        )),
        "{json}"
    );
    // Declared required all the same: the typed read gives them nil.
    assert!(Loose::schema().values().iter().all(|v| v.required));
    let read = keyschema::Schema::from_document(&json).expect("reads");
    assert_eq!(read.values(), Loose::schema().values());
    assert_eq!(read.to_json(), json);
    let bad = json.replacen("\"nil\":true", "\"nil\":1", 1);
    let err = keyschema::Schema::from_document(&bad).expect_err("nil: 1");
    assert!(
        err.to_string().starts_with("schema `values[0].nil`"),
        "{err}"
    );
}

/// What a reader of rows needs that the key does not say (issue 42): which
/// value fields are self-describing (their Bigtable cells are `c1` and
/// MessagePack), the stored rows' version and each index's layout; an
/// older document without them still reads, with the defaults
/// `docs/ENCODING.md` ("The schema as JSON") states.
#[test]
fn the_document_says_which_fields_are_self_describing_and_lists_the_indexes() {
    use keyschema::dynamic::DynSchema;
    use keyschema::Schema;
    /// A self-describing type whose name is not `Value`.
    #[derive(serde::Serialize, serde::Deserialize, Default)]
    #[serde(untagged)]
    enum Loose {
        #[default]
        Nothing,
        Number(i64),
    }
    /// A struct named `Value`, which reads by its shape.
    #[derive(serde::Serialize, serde::Deserialize, Default)]
    struct Value {
        n: i64,
    }
    #[derive(RowKey)]
    #[rowkey(prefix = "r", then = id, ts, index(ByTs, prefix = "t", then = ts, id))]
    #[allow(dead_code)]
    struct Row {
        id: u32,
        ts: u64,
        #[rowkey(value)]
        loose: Loose,
        #[rowkey(value)]
        shaped: Value,
    }
    let json = Row::schema().to_json();
    assert!(
        json.contains(
            r#"{"name":"loose","type":"Loose","required":false,"nil":true,"self_describing":true}"#
        ),
        "{json}"
    );
    assert!(
        json.contains(r#"{"name":"shaped","type":"Value","required":true}"#),
        "{json}"
    );
    assert!(
        json.contains(r#""family":"f","row_format":1,"indexes":[{"keyschema":2,"name":"ByTs","#),
        "{json}"
    );
    let read = Schema::from_document(&json).expect("reads");
    let described: Vec<bool> = read
        .values()
        .iter()
        .map(|v| (v.self_describing)())
        .collect();
    assert_eq!(
        described,
        [true, false],
        "as the document says, not by the type's name"
    );
    let layout = DynSchema::from_json(&json).expect("reads");
    let names: Vec<&str> = layout.indexes().iter().map(DynSchema::name).collect();
    assert_eq!(names, ["ByTs"]);
    let entry = layout.indexes()[0]
        .encode(&[5u64.into(), 1u32.into()])
        .expect("an entry key");
    assert_eq!(entry, ByTs::get_key(5, 1));
    // ByTs declares no DynamoDB form and can be native: its document says
    // so; one written before the member reads as encoded.
    assert!(json.ends_with(r#","dynamodb":"native"}]}"#), "{json}");
    assert_eq!(
        layout.indexes()[0].dynamodb_form(),
        keyschema::DynamoForm::Native
    );
    assert_eq!(layout.dynamodb_form(), keyschema::DynamoForm::Undeclared);
    let unsaid = DynSchema::from_json(&json.replace(r#","dynamodb":"native""#, "")).expect("reads");
    assert_eq!(
        unsaid.indexes()[0].dynamodb_form(),
        keyschema::DynamoForm::Encoded
    );
    // An older document (no `row_format`, no `self_describing`): the type
    // text decides, as readers did before the member.
    let older = json
        .replace(r#","self_describing":true"#, "")
        .replace(r#","row_format":1"#, "");
    let read = Schema::from_document(&older).expect("reads");
    let described: Vec<bool> = read
        .values()
        .iter()
        .map(|v| (v.self_describing)())
        .collect();
    assert_eq!(described, [false, true]);
}
