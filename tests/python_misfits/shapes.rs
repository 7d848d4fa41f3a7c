//! The user-type cases of `python_misfits` (issues 40 and 42): a row whose
//! value fields hold the user's structs, enums, newtypes, tuple structs,
//! a unit struct and a recursive type, which the schema document lists in
//! `types` (docs/ENCODING.md, "User types"). The stored values Rust's
//! typed read refuses (a struct missing a field or holding one of the
//! wrong kind or twice, an unknown variant, a tuple struct of the wrong
//! length, a bad element of a `Vec<Address>` or deep in a `Vec<Tree>`),
//! and those it reads (an unknown member skipped, an optional field
//! missing, a struct as the sequence of its fields): Python must do the
//! same on the same bytes.

use super::V::{self, Arr, Int, Map, Nil, Str};
use keyschema::RowKey;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value as Json};
use std::collections::BTreeMap;

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
pub struct Address {
    street: String,
    zip: u32,
    note: Option<String>,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
pub enum Status {
    #[default]
    Draft,
    Paid(u64),
    Note {
        text: String,
    },
    Moved(u8, u8),
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
pub struct Point(i32, i32);

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
pub struct Cents(i64);

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
pub struct Marker;

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
pub struct Tree {
    name: String,
    kids: Vec<Tree>,
}

/// serde's attributes a reader must follow: an alias, a closed struct.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
#[serde(deny_unknown_fields)]
pub struct Strict {
    #[serde(alias = "a")]
    b: u8,
    c: Option<u8>,
}

/// An enum with an `other` variant.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
pub enum Kind {
    #[default]
    A,
    B(u8),
    #[serde(other)]
    Other,
}

/// A struct serde reads as its one field.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
#[serde(transparent)]
pub struct Wrapped {
    inner: u16,
}

/// A struct serde names otherwise.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
#[serde(rename = "Town")]
pub struct Renamed {
    city: String,
}

/// A row of user types, each field with a default (a row of one reads).
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(then = (id))]
pub struct Shaped {
    id: u64,
    #[rowkey(value, default)]
    home: Address,
    #[rowkey(value, default)]
    status: Status,
    #[rowkey(value, default)]
    points: Vec<Point>,
    #[rowkey(value, default)]
    cents: Cents,
    #[rowkey(value, default)]
    marker: Marker,
    #[rowkey(value, default)]
    tree: Tree,
    #[rowkey(value, default)]
    homes: BTreeMap<String, Address>,
    #[rowkey(value, default)]
    addresses: Vec<Address>,
    #[rowkey(value, default)]
    maybe: Option<Status>,
    #[rowkey(value, default)]
    strict: Strict,
    #[rowkey(value, default)]
    kind: Kind,
    #[rowkey(value, default)]
    wrapped: Wrapped,
    #[rowkey(value, default)]
    renamed: Vec<Renamed>,
}

/// The field `field` of `row`, as serde writes it to JSON.
pub fn show(row: &Shaped, field: &str) -> Json {
    let v = match field {
        "home" => serde_json::to_value(&row.home),
        "status" => serde_json::to_value(&row.status),
        "points" => serde_json::to_value(&row.points),
        "cents" => serde_json::to_value(&row.cents),
        "marker" => serde_json::to_value(&row.marker),
        "tree" => serde_json::to_value(&row.tree),
        "homes" => serde_json::to_value(&row.homes),
        "addresses" => serde_json::to_value(&row.addresses),
        "maybe" => serde_json::to_value(&row.maybe),
        "strict" => serde_json::to_value(&row.strict),
        // A tag the enum lacks reads as its `other` variant; a reader
        // without the Rust type gives the tag as stored (the cases' `Zed`).
        "kind" if row.kind == Kind::Other => Ok(json!("Zed")),
        "kind" => serde_json::to_value(&row.kind),
        "wrapped" => serde_json::to_value(&row.wrapped),
        "renamed" => serde_json::to_value(&row.renamed),
        other => panic!("no field {other}"),
    };
    v.expect("JSON of a value")
}

fn s(text: &'static str) -> V {
    Str(text)
}

fn map(entries: Vec<(&'static str, V)>) -> V {
    Map(entries.into_iter().map(|(k, v)| (Str(k), v)).collect())
}

fn tree(name: V, kids: Vec<V>) -> V {
    map(vec![("name", name), ("kids", Arr(kids))])
}

/// The cases: a field, what it holds, and whether Rust reads it.
pub fn cases() -> Vec<(&'static str, V, bool)> {
    let good = || map(vec![("street", s("Main")), ("zip", Int(1234))]);
    vec![
        // A struct missing a field, holding one of the wrong kind, twice.
        ("home", map(vec![("street", s("Main"))]), false),
        (
            "home",
            map(vec![("street", s("Main")), ("zip", s("x"))]),
            false,
        ),
        (
            "home",
            map(vec![("street", s("Main")), ("zip", Int(-1))]),
            false,
        ),
        (
            "home",
            map(vec![
                ("street", s("a")),
                ("zip", Int(1)),
                ("street", s("b")),
            ]),
            false,
        ),
        ("home", s("Main"), false),
        ("home", Arr(vec![s("Main")]), false),
        ("home", Arr(vec![s("Main"), Int(1), Nil, Int(2)]), false),
        // An unknown member skipped, an optional field missing, the
        // sequence of the fields.
        (
            "home",
            map(vec![
                ("street", s("Main")),
                ("zip", Int(1)),
                ("floor", Int(3)),
            ]),
            true,
        ),
        ("home", good(), true),
        ("home", Arr(vec![s("Main"), Int(1)]), false),
        (
            "home",
            Map(vec![(Int(1), Int(7)), (Str("street"), s("x"))]),
            true,
        ),
        ("home", Arr(vec![s("Main"), Int(1), s("back door")]), true),
        // Enums: unknown variants, the wrong content, a unit variant's
        // map, a variant with content as a name.
        ("status", s("Purple"), false),
        ("status", map(vec![("Purple", Int(1))]), false),
        ("status", map(vec![("Paid", s("x"))]), false),
        ("status", map(vec![("Moved", Arr(vec![Int(1)]))]), false),
        (
            "status",
            map(vec![("Moved", Arr(vec![Int(1), Int(300)]))]),
            false,
        ),
        ("status", map(vec![("Note", map(vec![]))]), false),
        ("status", map(vec![("Paid", Int(1)), ("Draft", Nil)]), false),
        ("status", s("Paid"), false),
        ("status", Int(1), false),
        ("status", map(vec![("Draft", Int(1))]), false),
        (
            "status",
            map(vec![("Moved", Arr(vec![Int(1), Int(2), Int(3)]))]),
            false,
        ),
        ("status", map(vec![("Note", Arr(vec![]))]), false),
        ("status", Arr(vec![s("Draft"), Nil]), false),
        ("status", s("Draft"), true),
        ("status", map(vec![("Draft", Nil)]), true),
        ("status", Map(vec![(Int(1), Int(5))]), true),
        ("status", Map(vec![(Int(9), Int(5))]), false),
        ("status", map(vec![("Note", Arr(vec![s("hi")]))]), true),
        ("status", map(vec![("Paid", Int(5))]), true),
        (
            "status",
            map(vec![("Note", map(vec![("text", s("hi"))]))]),
            true,
        ),
        (
            "status",
            map(vec![("Moved", Arr(vec![Int(1), Int(2)]))]),
            true,
        ),
        // A Vec of tuple structs with a bad element.
        (
            "points",
            Arr(vec![Arr(vec![Int(1), Int(2)]), Arr(vec![Int(1)])]),
            false,
        ),
        (
            "points",
            Arr(vec![Arr(vec![Int(1), Int(2), Int(3)])]),
            false,
        ),
        ("points", Arr(vec![Arr(vec![Int(1), s("2")])]), false),
        ("points", Arr(vec![Arr(vec![Int(1), Int(2)])]), true),
        // A newtype, a unit struct.
        ("cents", s("x"), false),
        ("cents", Int(-5), true),
        ("marker", Int(1), false),
        ("marker", Nil, true),
        ("marker", Arr(vec![]), false),
        ("marker", Arr(vec![Int(1)]), false),
        // A recursive type's bad element, deep.
        (
            "tree",
            tree(
                s("a"),
                vec![tree(s("b"), vec![tree(s("c"), vec![tree(Int(5), vec![])])])],
            ),
            false,
        ),
        (
            "tree",
            tree(s("a"), vec![map(vec![("name", s("b"))])]),
            false,
        ),
        (
            "tree",
            tree(s("a"), vec![tree(s("b"), vec![tree(s("c"), vec![])])]),
            true,
        ),
        // A map of structs; an Option of an enum.
        ("homes", map(vec![("x", map(vec![("zip", Int(1))]))]), false),
        ("homes", map(vec![("x y", good())]), true),
        // A Vec of structs with a bad element.
        (
            "addresses",
            Arr(vec![good(), map(vec![("street", s("x")), ("zip", s("1"))])]),
            false,
        ),
        (
            "addresses",
            Arr(vec![good(), map(vec![("zip", Int(1))])]),
            false,
        ),
        ("addresses", Arr(vec![good(), good()]), true),
        ("maybe", s("Purple"), false),
        ("maybe", s("Draft"), true),
        // serde's attributes: an alias, a closed struct, an `other`
        // variant, a transparent struct, a renamed one.
        ("strict", map(vec![("a", Int(5))]), true),
        ("strict", map(vec![("b", Int(5)), ("c", Int(1))]), true),
        ("strict", map(vec![("b", Int(5)), ("x", Int(1))]), false),
        ("strict", map(vec![("a", Int(1)), ("b", Int(2))]), false),
        ("strict", map(vec![("c", Int(1))]), false),
        ("kind", s("Zed"), true),
        ("kind", map(vec![("Zed", Int(1))]), false),
        ("kind", map(vec![("B", Int(7))]), true),
        ("wrapped", Int(7), true),
        ("wrapped", Int(70_000), false),
        ("renamed", Arr(vec![map(vec![("city", s("x"))])]), true),
        ("renamed", Arr(vec![map(vec![("town", s("x"))])]), false),
    ]
}

/// `Shaped`'s document with `types` replaced by each malformed member (and
/// a few good ones), and what `Schema::from_document` says of it: `None`
/// when it reads.
pub fn documents() -> Vec<(String, Option<String>)> {
    let base: Json = serde_json::from_str(&Shaped::schema().to_json()).expect("JSON");
    let members = [
        json!(5),
        json!(null),
        json!({}),
        json!({"": {"unit": true}}),
        json!({"A": 1}),
        json!({"A": {}}),
        json!({"A": {"unit": true, "enum": []}}),
        json!({"A": {"unit": false}}),
        json!({"A": {"other": 1}}),
        json!({"A": {"fields": 3}}),
        json!({"A": {"fields": [{"type": "u8"}]}}),
        json!({"A": {"fields": [7]}}),
        json!({"A": {"fields": [{"name": "a", "type": "u8"}, {"name": "a", "type": "u8"}]}}),
        json!({"A": {"fields": [{"name": "a"}]}}),
        json!({"A": {"fields": [{"name": "a", "type": ""}]}}),
        json!({"A": {"fields": [{"name": "a", "type": "u8", "optional": "yes"}]}}),
        json!({"A": {"tuple": "u8"}}),
        json!({"A": {"tuple": ["u8", 3]}}),
        json!({"A": {"newtype": 5}}),
        json!({"A": {"enum": {}}}),
        json!({"A": {"enum": [{"name": "X", "newtype": "u8", "tuple": []}]}}),
        json!({"A": {"enum": [{"name": "X"}, {"name": "X"}]}}),
        json!({"A": {"enum": [{"name": "X", "newtype": null}]}}),
        json!({"A": {"enum": [{"name": "X", "fields": [{"name": 1}]}]}}),
        json!({"B": 1, "A": {"unit": 2}}),
        json!({"A": {"enum": [{"name": "X", "tuple": ["u8"]}, {"name": "Y"}]}, "B": {"unit": true}}),
        json!({"A": {"fields": [], "closed": 1}}),
        json!({"A": {"fields": [], "closed": true}}),
        json!({"A": {"unit": true, "closed": true}}),
        json!({"A": {"unit": true, "closed": false}}),
        json!({"A": {"fields": [], "other": true}}),
        json!({"A": {"enum": [], "other": true}}),
        json!({"A": {"enum": [], "other": "yes"}}),
        json!({"A": {"closed": true}}),
        json!({"A": {"enum": [{"name": "X", "closed": true}]}}),
        json!({"A": {"enum": [{"name": "X", "fields": [], "closed": true}]}}),
        json!({"A": {"enum": [{"name": "X", "other": true}]}}),
        json!({"A": {"fields": [{"name": "a", "type": "u8", "aliases": "x"}]}}),
        json!({"A": {"fields": [{"name": "a", "type": "u8", "aliases": ["x", 3]}]}}),
        json!({"A": {"fields": [{"name": "a", "type": "u8", "aliases": ["x"]}]}}),
    ];
    members
        .into_iter()
        .map(|types| {
            let mut doc = base.clone();
            doc["types"] = types;
            let text = doc.to_string();
            let said = keyschema::Schema::from_document(&text)
                .err()
                .map(|e| e.to_string());
            (text, said)
        })
        .collect()
}
