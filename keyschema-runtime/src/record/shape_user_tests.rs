//! Tests of [`super`]: values of the user's types read by the traced
//! `types` on the ordered stores' MessagePack, each compared with what the
//! typed read of the Rust type says of the same bytes.

use crate::record::{render_values, traced, UserTypesOf, ValueField, ValueReader};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Tree {
    value: u32,
    #[serde(default)]
    kids: Vec<Tree>,
    label: Option<String>,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
enum Shape {
    Dot,
    Circle { r: f64 },
    Named(String),
}

fn no() -> bool {
    false
}

fn field<T: serde::de::DeserializeOwned + 'static>(type_name: &'static str) -> ValueField {
    ValueField {
        name: "v",
        type_name,
        required: true,
        self_describing: no,
        reads_nil: no,
        user_types: UserTypesOf::Traced(traced::<T>),
    }
}

/// `{"v": value}` in MessagePack by name.
fn map<T: Serialize>(value: &T) -> Vec<u8> {
    rmp_serde::to_vec_named(&BTreeMap::from([("v", value)])).expect("msgpack")
}

/// The text the tool's read prints, or its error.
fn said<T: serde::de::DeserializeOwned + 'static>(
    value: &[u8],
    type_name: &'static str,
) -> Result<String, String> {
    render_values(value, &[field::<T>(type_name)])
        .map(|f| f[0].1.clone())
        .map_err(|e| e.to_string())
}

/// What the typed read of `T` says of field `v`: `Ok` or its error.
fn typed<T: serde::de::DeserializeOwned>(value: &[u8]) -> Result<(), String> {
    let mut reader = crate::record::msgpack::MapReader::new(value).expect("a map");
    assert_eq!(reader.next_field(&["v"]).expect("reads"), Some(0));
    reader
        .value::<T>("v")
        .map(|_| ())
        .map_err(|e| e.to_string())
}

#[test]
fn good_values_print_as_their_types() {
    let tree = Tree {
        value: 1,
        kids: vec![Tree {
            value: 2,
            kids: vec![],
            label: Some("b".into()),
        }],
        label: None,
    };
    assert_eq!(
        said::<Tree>(&map(&tree), "Tree").as_deref(),
        Ok("{\"value\": 1, \"kids\": [{\"value\": 2, \"kids\": [], \"label\": \"b\"}], \"label\": null}")
    );
    let shapes = vec![
        Shape::Dot,
        Shape::Circle { r: 1.5 },
        Shape::Named("n".into()),
    ];
    assert_eq!(
        said::<Vec<Shape>>(&map(&shapes), "Vec<Shape>").as_deref(),
        Ok("[\"Dot\", {\"Circle\": {\"r\": 1.5}}, {\"Named\": \"n\"}]")
    );
    // Members the struct does not name are skipped; optional ones may be
    // missing; the typed read agrees.
    let loose = map(&BTreeMap::from([("value", 3u32), ("extra", 9)]));
    assert_eq!(typed::<Tree>(&loose), Ok(()));
    assert_eq!(
        said::<Tree>(&loose, "Tree").as_deref(),
        Ok("{\"value\": 3}")
    );
}

#[test]
fn bad_values_are_refused_with_the_typed_reads_words() {
    #[derive(Serialize)]
    struct NoValue {
        label: Option<String>,
    }
    #[derive(Serialize)]
    enum Other {
        Square,
    }
    #[derive(Serialize)]
    struct Deep {
        value: u32,
        kids: Vec<Deep>,
        label: u8,
    }
    // A duplicate `value`, as another writer might store it.
    let mut twice = vec![0x81, 0xa1, b'v', 0x82];
    for _ in 0..2 {
        twice.extend(rmp_serde::to_vec("value").expect("msgpack"));
        twice.push(0x01);
    }
    let deep = Deep {
        value: 1,
        kids: vec![Deep {
            value: 2,
            kids: vec![],
            label: 7,
        }],
        label: 0,
    };
    // The bytes, the field's type, the typed read's answer, words both say.
    type Case = (Vec<u8>, &'static str, Result<(), String>, &'static str);
    let cases: Vec<Case> = vec![
        (
            map(&NoValue { label: None }),
            "Tree",
            typed::<Tree>(&map(&NoValue { label: None })),
            "missing field `value`",
        ),
        (
            map(&Other::Square),
            "Shape",
            typed::<Shape>(&map(&Other::Square)),
            "unknown variant `Square`",
        ),
        (
            map(&vec![Other::Square]),
            "Vec<Shape>",
            typed::<Vec<Shape>>(&map(&vec![Other::Square])),
            "v[0]",
        ),
        (
            twice.clone(),
            "Tree",
            typed::<Tree>(&twice),
            "duplicate field `value`",
        ),
        (
            map(&deep),
            "Tree",
            typed::<Tree>(&map(&deep)),
            "v.kids[0].label",
        ),
        (
            map(&7u8),
            "Tree",
            typed::<Tree>(&map(&7u8)),
            "expected a map",
        ),
    ];
    for (bytes, type_name, typed, words) in cases {
        let typed = typed.expect_err("the typed read refuses it");
        assert!(typed.contains(words), "{typed}");
        let said = match type_name {
            "Tree" => said::<Tree>(&bytes, type_name),
            "Shape" => said::<Shape>(&bytes, type_name),
            _ => said::<Vec<Shape>>(&bytes, type_name),
        }
        .expect_err("the tool refuses it");
        assert!(said.contains(words), "{said} (typed: {typed})");
        // The typed read's detail after its field's words.
        let detail = typed.rsplit(": ").next().unwrap_or(&typed);
        assert!(said.contains(detail), "{said} (typed: {typed})");
    }
}

#[derive(Serialize, Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct Strict {
    #[serde(alias = "a")]
    b: u8,
}

#[derive(Serialize, Deserialize, Debug)]
enum Kind {
    A,
    #[serde(other)]
    Other,
}

#[derive(Serialize, Deserialize, Debug)]
#[serde(transparent)]
struct Wrapped {
    inner: u16,
}

#[derive(Serialize, Deserialize, Debug)]
#[serde(rename = "Addr")]
struct Address {
    city: String,
}

/// What the tool's read and the typed read say of `value` as `T`: both
/// read it (the tool's text), or both refuse it with the same words.
fn alike<T: serde::de::DeserializeOwned + std::fmt::Debug + 'static>(
    value: &[u8],
    type_name: &'static str,
) -> Result<String, String> {
    let said = said::<T>(value, type_name);
    let typed = typed::<T>(value);
    match (&said, &typed) {
        (Ok(_), Ok(())) => {}
        (Err(s), Err(t)) => {
            let detail = t.rsplit(": ").next().unwrap_or(t);
            assert!(s.contains(detail), "{s} (typed: {t})");
        }
        _ => panic!("the tool says {said:?}, the typed read {typed:?}"),
    }
    said
}

#[test]
fn serde_attributes_read_as_the_typed_read_reads_them() {
    // An alias reads as the field; a member the struct does not name is
    // refused by a closed struct.
    let aliased = map(&BTreeMap::from([("a", 5u8)]));
    assert_eq!(
        alike::<Strict>(&aliased, "Strict").as_deref(),
        Ok("{\"b\": 5}")
    );
    let extra = map(&BTreeMap::from([("b", 5u8), ("x", 1)]));
    let refused = alike::<Strict>(&extra, "Strict").expect_err("refused");
    assert!(
        refused.contains("unknown field `x`, expected `a` or `b`"),
        "{refused}"
    );
    // A tag the enum lacks reads as its `other` variant.
    assert_eq!(
        alike::<Kind>(&map(&"Zed"), "Kind").as_deref(),
        Ok("\"Zed\"")
    );
    // A transparent struct reads as its field: 70000 is no u16.
    assert_eq!(alike::<Wrapped>(&map(&7u32), "Wrapped").as_deref(), Ok("7"));
    alike::<Wrapped>(&map(&70_000u32), "Wrapped").expect_err("refused");
    // A renamed struct is read by the name serde gives it.
    let no_city = map(&BTreeMap::from([("town", "x")]));
    let refused =
        alike::<Vec<Address>>(&map(&vec![BTreeMap::from([("town", "x")])]), "Vec<Address>")
            .expect_err("refused");
    assert!(refused.contains("missing field `city`"), "{refused}");
    alike::<Address>(&no_city, "Address").expect_err("refused");
}

#[derive(Serialize, Deserialize, Debug, Default)]
#[serde(default)]
struct Opts {
    a: u32,
    b: String,
}

#[test]
fn a_struct_with_defaults_reads_a_short_sequence() {
    let short = map(&vec![1u32]);
    assert_eq!(alike::<Opts>(&short, "Opts").as_deref(), Ok("{\"a\": 1}"));
    alike::<Tree>(&map(&Vec::<u8>::new()), "Tree").expect_err("refused");
}
