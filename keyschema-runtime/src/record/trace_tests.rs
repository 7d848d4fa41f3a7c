//! Tracing user types from their `Deserialize` ([`super::traced`]).

use super::traced;
use super::user_types::{UserField, UserType, UserVariant, VariantForm};
use serde::Deserialize;
use std::collections::BTreeMap;

#[derive(Deserialize)]
#[allow(dead_code)]
struct Point {
    x: i64,
    label: Option<String>,
    #[serde(default)]
    tags: Vec<String>,
    #[serde(rename = "colour")]
    color: Color,
}

#[derive(Deserialize)]
#[allow(dead_code)]
enum Color {
    Red,
    Rgb(u8, u8, u8),
    Named { name: String, alpha: Option<f32> },
    Wrapped(Meters),
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct Meters(f64);

fn field(name: &str, type_name: &str, optional: bool) -> UserField {
    UserField {
        name: name.into(),
        type_name: type_name.into(),
        optional,
        aliases: vec![],
    }
}

fn variant(name: &str, form: VariantForm) -> UserVariant {
    UserVariant {
        name: name.into(),
        form,
    }
}

#[test]
fn a_struct_its_enum_and_newtype() {
    let types = traced::<Vec<Point>>();
    let mut want = BTreeMap::new();
    want.insert(
        "Point".to_string(),
        UserType::Struct(vec![
            field("x", "i64", false),
            field("label", "Option<String>", true),
            field("tags", "Vec<String>", true),
            field("colour", "Color", false),
        ]),
    );
    want.insert(
        "Color".to_string(),
        UserType::Enum(vec![
            variant("Red", VariantForm::Unit),
            variant(
                "Rgb",
                VariantForm::Tuple(vec!["u8".into(), "u8".into(), "u8".into()]),
            ),
            variant(
                "Named",
                VariantForm::Struct(vec![
                    field("name", "String", false),
                    field("alpha", "Option<f32>", true),
                ]),
            ),
            variant("Wrapped", VariantForm::Newtype("Meters".into())),
        ]),
    );
    want.insert("Meters".to_string(), UserType::Newtype("f64".into()));
    assert_eq!(types.types, want);
    assert_eq!(types.root(), Some("Vec<Point>"));
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct Tree {
    value: u32,
    kids: Vec<Tree>,
    parent: Option<Box<Tree>>,
    named: BTreeMap<String, Tree>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
enum Expr {
    Add(Box<Expr>, Box<Expr>),
    Lit(i64),
}

#[test]
fn recursive_types() {
    let types = traced::<Tree>();
    assert_eq!(
        types.get("Tree"),
        Some(&UserType::Struct(vec![
            field("value", "u32", false),
            field("kids", "Vec<Tree>", false),
            field("parent", "Option<Tree>", true),
            field("named", "BTreeMap<String, Tree>", false),
        ]))
    );
    let types = traced::<Expr>();
    assert_eq!(
        types.get("Expr"),
        Some(&UserType::Enum(vec![
            variant(
                "Add",
                VariantForm::Tuple(vec!["Expr".into(), "Expr".into()])
            ),
            variant("Lit", VariantForm::Newtype("i64".into())),
        ]))
    );
}

#[cfg(feature = "uuid")]
#[derive(Deserialize)]
#[allow(dead_code)]
struct Stamped {
    id: uuid::Uuid,
    count: std::num::NonZeroU32,
    pair: (u8, String),
    one: (bool,),
    big: u128,
}

#[cfg(feature = "uuid")]
#[test]
fn validating_types_take_other_samples() {
    let types = traced::<Stamped>();
    assert_eq!(
        types.get("Stamped"),
        Some(&UserType::Struct(vec![
            field("id", "ByteBuf", false),
            field("count", "u32", false),
            field("pair", "(u8, String)", false),
            field("one", "(bool,)", false),
            field("big", "u128", false),
        ]))
    );
}

#[derive(Deserialize)]
#[allow(dead_code)]
#[serde(untagged)]
enum Loose {
    A(u32),
    B(String),
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct HoldsLoose {
    loose: Loose,
}

#[test]
fn self_describing_types_trace_to_none() {
    assert!(traced::<serde_json::Value>().is_empty());
    assert!(traced::<HoldsLoose>().is_empty());
    assert!(traced::<Vec<i64>>().is_empty());
}

#[derive(Deserialize)]
#[allow(dead_code)]
#[serde(deny_unknown_fields)]
struct Strict {
    #[serde(alias = "a", alias = "zz")]
    b: u8,
    c: Option<u8>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
enum Kind {
    A,
    B(u8),
    #[serde(other)]
    Other,
}

#[derive(Deserialize)]
#[allow(dead_code)]
#[serde(transparent)]
struct Wrapped {
    inner: u16,
}

#[derive(Deserialize)]
#[allow(dead_code)]
#[serde(rename = "Addr")]
struct Address {
    city: String,
}

#[test]
fn aliases_closed_structs_other_variants_and_the_root() {
    let types = traced::<Strict>();
    let mut b = field("b", "u8", false);
    b.aliases = vec!["a".into(), "zz".into()];
    assert_eq!(
        types.get("Strict"),
        Some(&UserType::Struct(vec![b, field("c", "Option<u8>", true)]))
    );
    assert!(types.is_closed("Strict"));
    let types = traced::<Kind>();
    assert!(types.has_other("Kind"));
    assert!(!traced::<Color>().has_other("Color"));
    assert!(!traced::<Point>().is_closed("Point"));
    // A transparent struct reads as its field; a renamed one by its name.
    assert_eq!(traced::<Wrapped>().root(), Some("u16"));
    assert_eq!(
        super::shape_text("Wrapped", traced::<Wrapped>()).as_deref(),
        Some("u16")
    );
    assert_eq!(
        super::shape_text("Vec<Address>", traced::<Vec<Address>>()).as_deref(),
        Some("Vec<Addr>")
    );
    assert_eq!(
        super::shape_text("Vec<Point>", traced::<Vec<Point>>()),
        None
    );
}

mod as_text {
    use serde::{Deserialize, Deserializer};

    pub fn deserialize<'de, D: Deserializer<'de>>(de: D) -> Result<u64, D::Error> {
        let text = String::deserialize(de)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct Parsed {
    #[serde(deserialize_with = "as_text::deserialize")]
    count: u64,
    city: String,
}

#[test]
fn a_field_read_through_a_function_that_parses_its_sample_is_traced() {
    let types = traced::<Parsed>();
    assert_eq!(
        types.get("Parsed"),
        Some(&UserType::Struct(vec![
            field("count", "String", false),
            field("city", "String", false),
        ]))
    );
}
