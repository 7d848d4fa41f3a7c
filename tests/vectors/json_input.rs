//! Key fields read from JSON (`docs/ENCODING.md`, "Values as JSON", table
//! `json_value_refusals`): one key type with a field of most encodings,
//! its fields as JSON read (integers beyond 64 bits, an integer for a
//! float, nested Options) or refused one way per class, each refusal with
//! the Rust reader's message (`DynSchema::fields_from_json`). Python's
//! `Schema.fields_from_json` reads and refuses the same ones with the same
//! words (`test_json_input.py`).

use super::{plain_hex, record};
use keyschema::dynamic::{DynSchema, Value};
use keyschema::RowKey;

/// A derived enum for the `status` field.
#[derive(keyschema::KeyComponent, Debug, Clone, Copy, PartialEq)]
#[repr(u8)]
pub enum Stage {
    Draft = 0,
    Paid = 1,
}

/// A key with a field of most encodings (the others read as one of these:
/// the integers as `n` and `big`, the times as `at`).
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(prefix = "j", then = n, big, x, single, flag, c, name, tag, id, at, status, maybe)]
pub struct JsonKey {
    n: u8,
    big: i128,
    x: f64,
    single: f32,
    flag: bool,
    c: char,
    name: String,
    tag: [u8; 2],
    id: uuid::Uuid,
    at: chrono::DateTime<chrono::Utc>,
    status: Stage,
    maybe: Option<Option<u8>>,
}

/// The fields of the row every case changes one way, as JSON members.
const GOOD: [(&str, &str); 12] = [
    ("n", "7"),
    ("big", "-170141183460469231731687303715884105728"),
    ("x", "1.5"),
    ("single", "0.25"),
    ("flag", "true"),
    ("c", r#""é""#),
    ("name", r#""u1""#),
    ("tag", r#""00ff""#),
    ("id", r#""0192d4e8-7c3a-7b1e-9f00-123456789abc""#),
    ("at", r#""2023-11-14T22:13:20.5Z""#),
    ("status", r#""Paid""#),
    ("maybe", r#"{"some":null}"#),
];

/// The good object with `field`'s member written `json` (`None`: left out).
fn with(field: &str, json: Option<&str>) -> String {
    let members: Vec<String> = GOOD
        .iter()
        .filter_map(|(name, v)| {
            let v = if *name == field { json? } else { v };
            Some(format!("\"{name}\":{v}"))
        })
        .collect();
    format!("{{{}}}", members.join(","))
}

/// A case that changes `field`'s member to `json`.
fn case<'a>(what: &'a str, field: &str, json: &str) -> (&'a str, String, String) {
    (
        what,
        format!("`\"{field}\":{json}`"),
        with(field, Some(json)),
    )
}

/// Every case, as the document's rows.
pub fn json_rows() -> Vec<String> {
    let schema = DynSchema::from_json(&JsonKey::schema().to_json()).expect("reads back");
    let upper = r#""0192D4E8-7C3A-7B1E-9F00-123456789ABC""#;
    // (what, the member the document shows, the whole JSON)
    let cases: Vec<(&str, String, String)> = vec![
        (
            "the fields as written",
            "the row's fields".to_string(),
            with("", None),
        ),
        {
            let rest = with("maybe", None);
            let json = format!(
                "{{ \"maybe\" : {{\"some\":null}}, {} }}",
                &rest[1..rest.len() - 1]
            );
            (
                "members in another order, with spaces",
                "`maybe` first, spaces around `:` and `,`".to_string(),
                json,
            )
        },
        case(
            "an i128's greatest value",
            "big",
            "170141183460469231731687303715884105727",
        ),
        case("an integer for a float (reads as 7.0)", "x", "7"),
        case("a float's special string", "x", r#""-inf""#),
        case("Some(Some(5)) of an Option<Option<u8>>", "maybe", "5"),
        case("None of an Option<Option<u8>>", "maybe", "null"),
        case("an integer written 7.0", "n", "7.0"),
        case("an integer written 7e0", "n", "7e0"),
        case("256 for a u8", "n", "256"),
        case("-1 for a u8", "n", "-1"),
        case(
            "an i128's greatest value + 1",
            "big",
            "170141183460469231731687303715884105728",
        ),
        case("an integer as a string", "n", r#""7""#),
        case("true for an integer", "n", "true"),
        case("null for an integer (not an Option)", "n", "null"),
        case("an array for an integer", "n", "[7]"),
        case("a float as a string", "x", r#""1.5""#),
        case("NaN in lowercase", "x", r#""nan""#),
        case("a number beyond f64", "x", "1e400"),
        case("a number beyond f32", "single", "1e39"),
        case("1 for a bool", "flag", "1"),
        case("two characters for a char", "c", r#""ab""#),
        case("a number for a String", "name", "5"),
        case("uppercase hex for bytes", "tag", r#""00FF""#),
        case("hex with 0x", "tag", r#""0x00""#),
        case("one byte for a [u8; 2]", "tag", r#""00""#),
        case("an uppercase uuid", "id", upper),
        case(
            "a timestamp with trailing zeros",
            "at",
            r#""2023-11-14T22:13:20.500Z""#,
        ),
        case(
            "a timestamp with an offset",
            "at",
            r#""2023-11-14T22:13:20.5+00:00""#,
        ),
        case("an enum's name in lowercase", "status", r#""paid""#),
        case("an enum's discriminant", "status", "1"),
        case(
            "an Option's object with another member",
            "maybe",
            r#"{"some":null,"x":2}"#,
        ),
        case(
            "an Option's object named otherwise",
            "maybe",
            r#"{"Some":null}"#,
        ),
        case(
            "{\"some\": v} around a v written alone",
            "maybe",
            r#"{"some":5}"#,
        ),
        case("an integer written 5.0 inside Options", "maybe", "5.0"),
        (
            "a member that is no field",
            "`name` written `nme`".to_string(),
            with("name", None).replace("\"tag\"", "\"nme\":\"u1\",\"tag\""),
        ),
        (
            "a field given twice",
            "`\"n\":7`, then `\"n\":8`".to_string(),
            with("", None).replace("\"big\"", "\"n\":8,\"big\""),
        ),
        ("a field missing", "no `tag`".to_string(), with("tag", None)),
        (
            "a field missing, then one refused (the members first)",
            "no `tag`, and `\"n\":7.0`".to_string(),
            with("tag", None).replace("\"n\":7", "\"n\":7.0"),
        ),
        (
            "an array, not an object",
            "`[7]`".to_string(),
            "[7]".to_string(),
        ),
    ];
    cases
        .into_iter()
        .map(|(what, shown, json)| {
            let head = format!(
                r#"{{"schema":{},"what":{},"json":{}"#,
                JsonKey::schema().to_json(),
                Value::from(what).to_json(),
                Value::from(json.as_str()).to_json()
            );
            let outcome = match schema.fields_from_json(&json) {
                Ok(values) => {
                    let key = schema.encode(&values).expect("the fields encode");
                    record(
                        "json_value_refusals",
                        format!(
                            r#"{head},"fields":{},"key":"{}"}}"#,
                            crate::common::fields_json(&schema, &values),
                            plain_hex(&key)
                        ),
                    );
                    // The changed member as the reader writes it back.
                    let member = shown
                        .strip_prefix("`\"")
                        .and_then(|s| s.split_once('"'))
                        .and_then(|(name, _)| schema.field(name).ok())
                        .map(|(i, f)| format!(": `\"{}\":{}`", f.name(), values[i].to_json()));
                    format!("accepted{}", member.unwrap_or_default())
                }
                Err(e) => {
                    record(
                        "json_value_refusals",
                        format!(
                            r#"{head},"error":{}}}"#,
                            Value::from(e.to_string()).to_json()
                        ),
                    );
                    format!("refused: {e}")
                }
            };
            format!(
                "| {what} | {} | {} |",
                shown.replace('|', "\\|"),
                outcome.replace('|', "\\|")
            )
        })
        .collect()
}
