//! The rendering of every base type (`docs/ENCODING.md`, "Rendering a
//! key"): the bytes of one component and the text `render` shows for it,
//! escapes, extremes and the float values that have no decimal form
//! included. Python's reader reproduces each (`test_renderings`).

use super::constructs::Bucketed;
use super::{hex, plain_hex, record, rendered_component, Event, KarteEvent, Prefixed};
use keyschema::dynamic::Value;
use keyschema::KeyComponent;

fn one<T: KeyComponent>(rows: &mut Vec<String>, type_name: &str, values: &[T]) {
    rows.extend(
        values
            .iter()
            .map(|v| rendered_component("render_base", type_name, v)),
    );
}

/// Every base type's renderings.
pub fn render_rows() -> Vec<String> {
    let mut rows = Vec::new();
    one::<u8>(&mut rows, "u8", &[0, 255]);
    one::<u64>(&mut rows, "u64", &[0, u64::MAX]);
    one::<i32>(&mut rows, "i32", &[i32::MIN, -1, 0, i32::MAX]);
    one::<i128>(&mut rows, "i128", &[i128::MIN]);
    one::<bool>(&mut rows, "bool", &[false, true]);
    one::<char>(
        &mut rows,
        "char",
        &['a', '|', '\\', '\n', '\u{0}', '\u{1F600}'],
    );
    one::<String>(
        &mut rows,
        "String",
        &[
            String::new(),
            "u1".into(),
            "a|b".into(),
            "back\\slash".into(),
            "tab\there".into(),
            "nul\u{0}one\u{1}".into(),
            "caf\u{e9} \u{1F600}".into(),
            "del\u{7f}".into(),
            // Unicode's control characters (Cc: C0, DEL and C1) are escaped;
            // other invisible characters (U+00A0, U+200B) are not.
            "c1\u{85}\u{9f}".into(),
            "nbsp\u{a0}zw\u{200b}".into(),
        ],
    );
    one::<Vec<u8>>(
        &mut rows,
        "Vec<u8>",
        &[
            Vec::new(),
            b"ab".to_vec(),
            vec![0, 1, 0x7f, 0x80, 0xff],
            b"|\\".to_vec(),
        ],
    );
    one::<[u8; 3]>(&mut rows, "[u8; 3]", &[[0x00, 0x41, 0xff]]);
    one::<f64>(
        &mut rows,
        "f64",
        &[
            0.0,
            -0.0,
            1.5,
            -2.25,
            1e300,
            5e-324,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            -f64::NAN,
            // Plain from 1e-4 up to (not including) 1e16, else exponent form.
            1e-4,
            9.999_999_999_999_999e-5,
            1e15,
            9_999_999_999_999_998.0,
            1e16,
            -1.5e16,
        ],
    );
    one::<f32>(
        &mut rows,
        "f32",
        &[0.1, -f32::MAX, f32::NAN, 1e-4, 9.999_999e-5, 1e15, 1e16],
    );
    one::<Option<String>>(
        &mut rows,
        "Option<String>",
        &[None, Some(String::new()), Some("x".into())],
    );
    one::<Option<Option<u8>>>(
        &mut rows,
        "Option<Option<u8>>",
        &[None, Some(None), Some(Some(7))],
    );
    rows
}

/// Keys that do not decode, rendered (the two damaged forms of "Rendering a
/// key"), under `K`.
fn damaged<K: keyschema::RowKey>(
    rows: &mut Vec<String>,
    declaration: &str,
    what: &str,
    key: &[u8],
) {
    let rendered = K::render(key);
    record(
        "render_damaged",
        format!(
            r#"{{"declaration":{},"schema":{},"what":{},"key":"{}","rendered":{}}}"#,
            Value::from(declaration).to_json(),
            K::schema().to_json(),
            Value::from(what).to_json(),
            plain_hex(key),
            Value::from(rendered.as_str()).to_json()
        ),
    );
    rows.push(format!(
        "| `{declaration}` | {what} | `{}` | {} |",
        hex(key),
        rendered.replace('|', "\\|")
    ));
}

/// Damaged keys of four layouts, each form of rendering.
pub fn damaged_rows() -> Vec<String> {
    let mut rows = Vec::new();
    let event = "salt = hash(user_id, site) % 8, then = user_id, site, rev(timestamp)";
    let good = Event::get_key("u1", "s", 1_700_000_000);
    let mut other_salt = good.clone();
    other_salt[0] = (good[0] + 1) % 8;
    damaged::<Event>(&mut rows, event, "another salt", &other_salt);
    damaged::<Event>(&mut rows, event, "cut inside site", &good[..5]);
    let mut trailing = good.clone();
    trailing.push(0xab);
    damaged::<Event>(&mut rows, event, "a trailing byte", &trailing);
    let mut out_of_range = good.clone();
    out_of_range[0] = 9;
    damaged::<Event>(&mut rows, event, "salt 9 of 8", &out_of_range);
    let prefixed = "prefix = \"ev\", then = user_id, timestamp";
    damaged::<Prefixed>(&mut rows, prefixed, "another prefix", b"ew\x00u1\x00");
    let bucketed = "then = hotel_id, bucket(day, 30), day";
    let mut key = Bucketed::get_key(7, 40);
    key[7] = 2;
    damaged::<Bucketed>(&mut rows, bucketed, "bucket 2 for day 40", &key);
    let karte =
        "format = text(sep = '_'), salt = hash(user_id) % 16, then = user_id, rev(timestamp)";
    damaged::<KarteEvent>(
        &mut rows,
        karte,
        "another salt",
        b"03_user42_99999999998299999999",
    );
    damaged::<KarteEvent>(
        &mut rows,
        karte,
        "not UTF-8",
        b"02_us\xffer42_99999999998299999999",
    );
    damaged::<KarteEvent>(&mut rows, karte, "cut inside timestamp", b"02_user42_9999");
    rows
}
