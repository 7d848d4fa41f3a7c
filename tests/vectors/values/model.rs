//! The value vectors' JSON forms: a MessagePack value as its data model
//! (`docs/ENCODING.md`, "Vectors for whole rows": `null`, booleans,
//! integers and strings as themselves, `{"f32": text}` and `{"f64": text}`,
//! `{"bytes": hex}`, arrays, `{"map": [[key, value], ...]}`), and a
//! DynamoDB item as the low-level API's JSON (`B` in base64).

use keyschema::store::dynamodb::sdk::primitives::Blob;
use keyschema::store::dynamodb::sdk::types::AttributeValue;
use serde::de::{Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{json, Map, Value as Json};
use std::collections::HashMap;
use std::fmt;

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub fn unhex(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).expect("hex"))
        .collect()
}

struct Model;

impl<'de> Visitor<'de> for Model {
    type Value = Json;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a MessagePack value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Json, E> {
        Ok(json!(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Json, E> {
        Ok(json!(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Json, E> {
        Ok(json!(v))
    }
    fn visit_f32<E>(self, v: f32) -> Result<Json, E> {
        Ok(json!({ "f32": format!("{v:?}") }))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Json, E> {
        Ok(json!({ "f64": format!("{v:?}") }))
    }
    fn visit_str<E>(self, v: &str) -> Result<Json, E> {
        Ok(json!(v))
    }
    fn visit_bytes<E>(self, v: &[u8]) -> Result<Json, E> {
        Ok(json!({ "bytes": hex(v) }))
    }
    fn visit_unit<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }
    fn visit_none<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut out = Vec::new();
        while let Some(v) = seq.next_element_seed(Seed)? {
            out.push(v);
        }
        Ok(Json::Array(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let mut out = Vec::new();
        while let Some(k) = map.next_key_seed(Seed)? {
            let v = map.next_value_seed(Seed)?;
            out.push(json!([k, v]));
        }
        Ok(json!({ "map": out }))
    }
}

struct Seed;

impl<'de> serde::de::DeserializeSeed<'de> for Seed {
    type Value = Json;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Json, D::Error> {
        d.deserialize_any(Model)
    }
}

/// One MessagePack value (the whole of `bytes`) as its data model.
pub fn model(bytes: &[u8]) -> Json {
    let mut de = rmp_serde::Deserializer::from_read_ref(bytes);
    de.deserialize_any(Model).expect("MessagePack")
}

/// The value fields of a row's map, by name, each as its data model.
pub fn fields_model(map: &[u8]) -> Json {
    match model(map) {
        Json::Object(mut o) => {
            let mut out = Map::new();
            for pair in o
                .remove("map")
                .and_then(|m| m.as_array().cloned())
                .unwrap_or_default()
            {
                let name = pair[0].as_str().expect("a field name").to_string();
                out.insert(name, pair[1].clone());
            }
            Json::Object(out)
        }
        other => panic!("not a map: {other}"),
    }
}

const B64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn base64(bytes: &[u8]) -> String {
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(B64[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn unbase64(text: &str) -> Vec<u8> {
    let mut out = Vec::new();
    let digits: Vec<u32> = text
        .bytes()
        .filter(|&c| c != b'=')
        .map(|c| B64.iter().position(|&d| d == c).expect("base64") as u32)
        .collect();
    for chunk in digits.chunks(4) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &d)| n | d << (18 - 6 * i));
        for i in 0..chunk.len().saturating_sub(1) {
            out.push((n >> (16 - 8 * i)) as u8);
        }
    }
    out
}

/// An attribute as DynamoDB's low-level JSON.
pub fn attribute_json(v: &AttributeValue) -> Json {
    match v {
        AttributeValue::N(n) => json!({ "N": n }),
        AttributeValue::S(s) => json!({ "S": s }),
        AttributeValue::B(b) => json!({ "B": base64(b.as_ref()) }),
        AttributeValue::Bool(b) => json!({ "BOOL": b }),
        AttributeValue::Null(_) => json!({ "NULL": true }),
        AttributeValue::L(l) => json!({ "L": l.iter().map(attribute_json).collect::<Vec<_>>() }),
        AttributeValue::M(m) => json!({ "M": item_json(m) }),
        other => panic!("not written by keyschema: {other:?}"),
    }
}

/// An item as DynamoDB's low-level JSON, attributes by name.
pub fn item_json(item: &HashMap<String, AttributeValue>) -> Json {
    let mut out = Map::new();
    for (k, v) in item {
        out.insert(k.clone(), attribute_json(v));
    }
    Json::Object(out)
}

/// The item of its low-level JSON.
pub fn item_of(json: &Json) -> HashMap<String, AttributeValue> {
    json.as_object()
        .expect("an item")
        .iter()
        .map(|(k, v)| (k.clone(), attribute_of(v)))
        .collect()
}

fn attribute_of(json: &Json) -> AttributeValue {
    let (tag, v) = json
        .as_object()
        .and_then(|o| o.iter().next())
        .expect("{TYPE: value}");
    match tag.as_str() {
        "N" => AttributeValue::N(v.as_str().expect("N").to_string()),
        "S" => AttributeValue::S(v.as_str().expect("S").to_string()),
        "B" => AttributeValue::B(Blob::new(unbase64(v.as_str().expect("B")))),
        "BOOL" => AttributeValue::Bool(v.as_bool().expect("BOOL")),
        "NULL" => AttributeValue::Null(true),
        "L" => AttributeValue::L(v.as_array().expect("L").iter().map(attribute_of).collect()),
        "M" => AttributeValue::M(item_of(v)),
        other => panic!("{other}"),
    }
}
