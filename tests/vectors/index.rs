//! Index entries as vectors (`docs/ENCODING.md`, "Indexes" and "Indexes on
//! DynamoDB", table `index_entries`): for each row, every index's entry key
//! on the ordered stores and Bigtable (or none: a `None` field) with its
//! rendering, and the DynamoDB item a put writes, with the encoded indexes'
//! `Name_pk`/`Name_sk` and the native index's own attributes. Written from
//! the Rust code (`KEYSCHEMA_BLESS=1`) and read back here; Python makes
//! the same entries and item attributes from the schema document
//! (`python/tests/test_index_vectors.py`).

use super::record;
use super::values::model::{fields_model, hex, item_json, item_of, unhex};
use keyschema::dynamic::DynSchema;
use keyschema::record::{decode_values, encode_values};
use keyschema::store::dynamodb::DynamoStore;
use keyschema::{Index, RowKey};
use serde_json::json;

/// A visit, by site (encoded, salted, newest first), by score (native:
/// its shard, a negated `rev` and a `bucket`), by referrer (encoded,
/// sparse) and by site and user (declaring no form: native, as it can be,
/// which the schema document says).
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(
    prefix = "v",
    then = (user), ts,
    index(VisitBySite, prefix = "s", salt = hash(site) % 4, then = (site), rev(ts), user, dynamodb = encoded),
    index(VisitByScore, prefix = "p", salt = hash(site) % 2, then = (site), rev(score), bucket(ts, 100), ts, user, dynamodb = native),
    index(VisitByReferrer, prefix = "r", then = (referrer), ts, user, dynamodb = encoded),
    index(VisitBySiteUser, prefix = "u", then = (site), user, ts),
)]
pub struct Visit {
    user: String,
    ts: i64,
    #[rowkey(value)]
    site: String,
    #[rowkey(value)]
    score: i32,
    #[rowkey(value)]
    referrer: Option<String>,
}

fn rows() -> Vec<(&'static str, Visit)> {
    let visit = |user: &str, ts, site: &str, score, referrer: Option<&str>| Visit {
        user: user.into(),
        ts,
        site: site.into(),
        score,
        referrer: referrer.map(String::from),
    };
    vec![
        (
            "every index has an entry",
            visit("u1", 1_700_000_123, "shop", 7, Some("ads")),
        ),
        (
            "a None referrer: no VisitByReferrer entry, nor its attributes",
            visit("u2", -250, "docs", -3, None),
        ),
    ]
}

/// A store that builds items and writes none.
/// A store with no table behind it: the items a put writes on a table
/// `create_table` makes (each index in its declared form).
fn dynamodb() -> DynamoStore {
    DynamoStore::connect_local::<Visit>("http://127.0.0.1:1", "visits")
        .expect("a store")
        .with_declared_forms()
}

/// Each index's name, DynamoDB form, entry key (if any) and its rendering.
fn entries(row: &Visit) -> Vec<(&'static str, &'static str, Option<Vec<u8>>, String)> {
    let one = |name, form, key: Option<Vec<u8>>, render: fn(&[u8]) -> String| {
        let shown = key.as_deref().map(render).unwrap_or_default();
        (name, form, key, shown)
    };
    vec![
        one(
            "VisitBySite",
            "encoded",
            VisitBySite::entry_key(row),
            VisitBySite::render,
        ),
        one(
            "VisitByScore",
            "native",
            VisitByScore::entry_key(row),
            VisitByScore::render,
        ),
        one(
            "VisitByReferrer",
            "encoded",
            VisitByReferrer::entry_key(row),
            VisitByReferrer::render,
        ),
        one(
            "VisitBySiteUser",
            "native",
            VisitBySiteUser::entry_key(row),
            VisitBySiteUser::render,
        ),
    ]
}

/// The `index_entries` table.
pub fn entry_table() -> Vec<String> {
    let store = dynamodb();
    let json = Visit::schema().to_json();
    let schema = DynSchema::from_json(&json).expect("reads back");
    let mut out = Vec::new();
    for (what, row) in rows() {
        let key = row.encode();
        let map = encode_values(&row).expect("encodes");
        let item = store.item_for(&key, &map).expect("an item");
        let mut shown_entries = Vec::new();
        let list: Vec<serde_json::Value> = entries(&row)
            .into_iter()
            .map(|(name, form, entry, shown)| {
                shown_entries.push(match &entry {
                    Some(e) => format!(
                        "{name} ({form}): `{}` `{}`",
                        hex(e),
                        shown.replace('|', "\\|")
                    ),
                    None => format!("{name} ({form}): none"),
                });
                json!({
                    "index": name,
                    "dynamodb": form,
                    "entry": entry.as_deref().map(hex),
                    "rendered": entry.map(|_| shown),
                })
            })
            .collect();
        let fields = crate::common::fields_json(&schema, &schema.decode(&key).expect("a key"));
        record(
            "index_entries",
            json!({
                "what": what,
                "schema": serde_json::from_str::<serde_json::Value>(&json).expect("JSON"),
                "fields": serde_json::from_str::<serde_json::Value>(&fields).expect("JSON"),
                "key": hex(&key),
                "values": fields_model(&map),
                "entries": list,
                "dynamodb": {"item": item_json(&item)},
            })
            .to_string(),
        );
        let attributes: Vec<String> = item_json(&item)
            .as_object()
            .expect("an item")
            .iter()
            .filter(|(name, _)| name.starts_with("Visit"))
            .map(|(name, v)| format!("`{name}` `{v}`"))
            .collect();
        out.push(format!(
            "| {what} | {} | {} |",
            shown_entries.join("; "),
            attributes.join(", ")
        ));
    }
    out
}

/// Each vector's entries are its row's, each decodes to an entry whose row
/// key is the row's, and the item (read back into the row) is written
/// again the same.
pub fn check_entries(vectors: &serde_json::Value) {
    let store = dynamodb();
    // The form each index has on the store (its items' attributes) is the
    // one the vectors name and the schema document says, read back by the
    // document reader.
    let schema = DynSchema::from_json(&Visit::schema().to_json()).expect("reads back");
    let forms: Vec<(&str, &str)> = store
        .index_forms()
        .into_iter()
        .map(|(name, form)| {
            (
                name,
                if form.is_native() {
                    "native"
                } else {
                    "encoded"
                },
            )
        })
        .collect();
    let named: Vec<(&str, &str)> = entries(&rows()[0].1)
        .iter()
        .map(|(name, form, _, _)| (*name, *form))
        .collect();
    assert_eq!(forms, named, "the store's forms");
    let documented: Vec<(&str, keyschema::DynamoForm)> = schema
        .indexes()
        .iter()
        .map(|i| (i.name(), i.dynamodb_form()))
        .collect();
    let native = |form| match form {
        "native" => keyschema::DynamoForm::Native,
        _ => keyschema::DynamoForm::Encoded,
    };
    let named_forms: Vec<_> = named.iter().map(|(n, f)| (*n, native(f))).collect();
    assert_eq!(documented, named_forms, "the document's forms");
    for v in vectors["index_entries"].as_array().expect("the table") {
        let key = unhex(v["key"].as_str().expect("key"));
        let item = item_of(&v["dynamodb"]["item"]);
        let value = store.value_of_item(&key, &item).expect("a field map");
        let mut row = Visit::decode(&key).expect("the key");
        decode_values(&mut row, &value).expect("the item reads");
        let again = store
            .item_for(&key, &encode_values(&row).expect("encodes"))
            .expect("an item");
        assert_eq!(again, item, "{}", v["what"]);
        for (e, (name, _, made, _)) in v["entries"]
            .as_array()
            .expect("entries")
            .iter()
            .zip(entries(&row))
        {
            assert_eq!(e["index"], name);
            let stored = e["entry"].as_str().map(unhex);
            assert_eq!(stored, made, "{name}");
            let Some(stored) = stored else { continue };
            let row_key = match name {
                "VisitBySite" => VisitBySite::decode(&stored).map(|e| e.row_key()),
                "VisitByScore" => VisitByScore::decode(&stored).map(|e| e.row_key()),
                "VisitBySiteUser" => VisitBySiteUser::decode(&stored).map(|e| e.row_key()),
                _ => VisitByReferrer::decode(&stored).map(|e| e.row_key()),
            };
            assert_eq!(row_key, Ok(key.clone()), "{name}");
        }
    }
}
