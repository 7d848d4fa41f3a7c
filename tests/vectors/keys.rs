//! The key tables of `docs/ENCODING.md`: each type's component bytes
//! (`components`), whole keys (`keys`), text keys (`text`), each type's text
//! form (`text_components`) and the `Event` decoder's rejections (`reject`).

use super::{hex, plain_hex, record, recorded, rejected, rendered, types};
use crate::common::schemas::Event;
use keyschema::dynamic::Value;
use keyschema::encode_value;
use keyschema::{KeyComponent, RowKey};
use std::fmt::Debug;

pub fn component<T: KeyComponent + Debug + Clone + Into<Value>>(
    rows: &mut Vec<String>,
    type_name: &str,
    values: &[T],
) {
    for v in values {
        let asc = encode_value::<T>(v.as_key_ref());
        let desc: Vec<u8> = asc.iter().map(|b| !b).collect();
        record(
            "components",
            format!(
                r#"{{"type":"{type_name}","value":{},"asc":"{}","desc":"{}"}}"#,
                v.clone().into().to_json(),
                plain_hex(&asc),
                plain_hex(&desc)
            ),
        );
        let shown = format!("{v:?}").replace('|', "\\|");
        rows.push(format!(
            "| `{type_name}` | `{shown}` | `{}` | `{}` |",
            hex(&asc),
            hex(&desc)
        ));
    }
}

pub fn component_rows() -> Vec<String> {
    let mut rows = Vec::new();
    component::<u8>(&mut rows, "u8", &[0, 1, 255]);
    component::<u16>(&mut rows, "u16", &[1, 0x1234]);
    component::<u32>(&mut rows, "u32", &[1, 0xDEAD_BEEF]);
    component::<u64>(&mut rows, "u64", &[0, 1, 1_700_000_000, u64::MAX]);
    component::<u128>(&mut rows, "u128", &[1]);
    component::<i8>(&mut rows, "i8", &[i8::MIN, -1, 0, 1, i8::MAX]);
    component::<i16>(&mut rows, "i16", &[-1, 1]);
    component::<i32>(&mut rows, "i32", &[-2, 5]);
    component::<i64>(&mut rows, "i64", &[i64::MIN, -1, 0, 1, i64::MAX]);
    component::<i128>(&mut rows, "i128", &[-1]);
    component::<bool>(&mut rows, "bool", &[false, true]);
    component::<char>(&mut rows, "char", &['a', 'é', '😀']);
    component::<String>(
        &mut rows,
        "String",
        &["", "a", "a\0", "a\u{1}", "a\u{2}", "u1", "u10", "日本"].map(String::from),
    );
    component::<Vec<u8>>(
        &mut rows,
        "Vec<u8>",
        &[vec![], vec![0x00], vec![0x01, 0x02, 0xFF]],
    );
    component::<[u8; 4]>(&mut rows, "[u8; 4]", &[[0xDE, 0xAD, 0xBE, 0xEF]]);
    component::<f32>(&mut rows, "f32", &[-1.0, -0.0, 0.0, 1.5]);
    component::<f64>(
        &mut rows,
        "f64",
        &[
            f64::NEG_INFINITY,
            -1.0,
            -0.0,
            0.0,
            1.0,
            f64::INFINITY,
            f64::NAN,
        ],
    );
    component::<Option<u16>>(&mut rows, "Option<u16>", &[None, Some(1)]);
    component::<Option<String>>(
        &mut rows,
        "Option<String>",
        &[None, Some(String::new()), Some("a".into())],
    );
    types::component_rows(&mut rows);
    rows
}

#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = hash(user_id) % 1000, then = user_id, timestamp)]
pub struct WideEvent {
    user_id: String,
    timestamp: u64,
}

#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = hash(*) % 16, then = rev(score), name)]
pub struct Ranking {
    score: i32,
    name: String,
}

#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(prefix = "ev", then = user_id, timestamp)]
pub struct Prefixed {
    user_id: String,
    timestamp: u64,
}

/// A prefix that extends `Prefixed`'s: the two never meet.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(prefix = "evx", then = user_id, timestamp)]
pub struct PrefixedX {
    user_id: String,
    timestamp: u64,
}

/// A prefix holding the bytes a string escapes.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(prefix = b"k\x00\x01", then = user_id, timestamp)]
pub struct PrefixedEscaped {
    user_id: String,
    timestamp: u64,
}

pub fn key_rows() -> Vec<String> {
    let mut rows = Vec::new();
    let mut row = |decl: &str, value: &str, key: Vec<u8>, rendered: String| {
        rows.push(format!(
            "| `{decl}` | `{value}` | `{}` | `{}` |",
            hex(&key),
            rendered.replace('|', "\\|")
        ));
    };
    let event = "salt = hash(user_id, site) % 8, then = user_id, site, rev(timestamp)";
    for (u, s, t) in [
        ("u1", "s", 1_700_000_000u64),
        ("u1", "s", 1_700_000_001),
        ("u10", "s", 1_700_000_000),
    ] {
        let key = Event::get_key(u, s, t);
        row(
            event,
            &format!("(\"{u}\", \"{s}\", {t})"),
            key.clone(),
            rendered::<Event>("keys", &key),
        );
    }
    let wide = "salt = hash(user_id) % 1000, then = user_id, timestamp";
    let key = WideEvent::get_key("u1", 1_700_000_000);
    row(
        wide,
        "(\"u1\", 1700000000)",
        key.clone(),
        rendered::<WideEvent>("keys", &key),
    );
    let ranking = "salt = hash(*) % 16, then = rev(score), name";
    let key = Ranking::get_key(-5, "ann");
    row(
        ranking,
        "(-5, \"ann\")",
        key.clone(),
        rendered::<Ranking>("keys", &key),
    );
    let prefixed = "prefix = \"ev\", then = user_id, timestamp";
    for user in ["u1", "xu1"] {
        let key = Prefixed::get_key(user, 7);
        row(
            prefixed,
            &format!("(\"{user}\", 7)"),
            key.clone(),
            rendered::<Prefixed>("keys", &key),
        );
    }
    let key = PrefixedX::get_key("u1", 7);
    row(
        "prefix = \"evx\", then = user_id, timestamp",
        "(\"u1\", 7)",
        key.clone(),
        rendered::<PrefixedX>("keys", &key),
    );
    let key = PrefixedEscaped::get_key("u1", 7);
    row(
        "prefix = b\"k\\x00\\x01\", then = user_id, timestamp",
        "(\"u1\", 7)",
        key.clone(),
        rendered::<PrefixedEscaped>("keys", &key),
    );
    rows
}

#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(format = text(sep = "_"), salt = hash(user_id) % 16, then = user_id, rev(timestamp))]
pub struct KarteEvent {
    user_id: String,
    timestamp: u64,
}

#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(format = text(sep = "#"), prefix = "ev", then = site, delta, flag, score, tag, blob)]
pub struct TextMixed {
    site: String,
    delta: i32,
    flag: bool,
    score: f64,
    tag: Option<String>,
    blob: Vec<u8>,
}

pub fn text_rows() -> Vec<String> {
    let mut rows = Vec::new();
    let mut row = |decl: &str, value: &str, key: Vec<u8>| {
        let text = String::from_utf8(key).expect("text keys are UTF-8");
        rows.push(format!(
            "| `{decl}` | `{value}` | `{}` |",
            text.replace('|', "\\|")
        ));
    };
    let karte =
        "format = text(sep = \"_\"), salt = hash(user_id) % 16, then = user_id, rev(timestamp)";
    for (u, t) in [
        ("user42", 1_700_000_000u64),
        ("user42", 1_700_000_001),
        ("a_b%", 0),
    ] {
        row(
            karte,
            &format!("({u:?}, {t})"),
            recorded::<KarteEvent>("text", KarteEvent::get_key(u, t)),
        );
    }
    let mixed =
        "format = text(sep = \"#\"), prefix = \"ev\", then = site, delta, flag, score, tag, blob";
    row(
        mixed,
        "(\"s#1\", -42, true, -1.5, Some(\"x\"), [0, 255])",
        recorded::<TextMixed>(
            "text",
            TextMixed::get_key("s#1", -42, true, -1.5, Some("x"), &[0, 255]),
        ),
    );
    row(
        mixed,
        "(\"\", i32::MIN, false, 0.0, None, [])",
        recorded::<TextMixed>(
            "text",
            TextMixed::get_key("", i32::MIN, false, 0.0, None, &[]),
        ),
    );
    types::text_row(&mut rows);
    rows
}

pub fn text_component<T: keyschema::TextComponent + Debug + Clone + Into<Value>>(
    rows: &mut Vec<String>,
    type_name: &str,
    values: &[T],
) {
    for v in values {
        let mut text = Vec::new();
        T::encode_text(v.as_key_ref(), &mut text, b'#');
        record(
            "text_components",
            format!(
                r#"{{"type":"{type_name}","value":{},"text":{}}}"#,
                v.clone().into().to_json(),
                Value::from(String::from_utf8_lossy(&text).into_owned()).to_json()
            ),
        );
        let width = match T::TEXT_WIDTH {
            Some(w) => format!("fixed, {w}"),
            None => "variable".to_string(),
        };
        let shown = format!("{v:?}").replace('|', "\\|");
        let text = String::from_utf8(text).expect("text forms are UTF-8");
        rows.push(format!(
            "| `{type_name}` | {width} | `{shown}` | `{}` |",
            text.replace('|', "\\|")
        ));
    }
}

/// The text form of every type, under `sep = "#"`.
pub fn text_component_rows() -> Vec<String> {
    let mut rows = Vec::new();
    text_component::<u8>(&mut rows, "u8", &[0, 255]);
    text_component::<u16>(&mut rows, "u16", &[7]);
    text_component::<u32>(&mut rows, "u32", &[1_700_000_000]);
    text_component::<u64>(&mut rows, "u64", &[42, u64::MAX]);
    text_component::<u128>(&mut rows, "u128", &[1]);
    text_component::<i8>(&mut rows, "i8", &[i8::MIN, -1, 0]);
    text_component::<i16>(&mut rows, "i16", &[-1]);
    text_component::<i32>(&mut rows, "i32", &[-42, i32::MAX]);
    text_component::<i64>(&mut rows, "i64", &[-1, 0]);
    text_component::<i128>(&mut rows, "i128", &[0]);
    text_component::<bool>(&mut rows, "bool", &[false, true]);
    text_component::<char>(&mut rows, "char", &['a', '#', '%', 'é']);
    text_component::<String>(
        &mut rows,
        "String",
        &["", "user42", "s#1", "50%", "日本"].map(String::from),
    );
    text_component::<Vec<u8>>(&mut rows, "Vec<u8>", &[vec![], vec![0x00, 0xFF]]);
    text_component::<[u8; 2]>(&mut rows, "[u8; 2]", &[[0xAB, 0x01]]);
    text_component::<f32>(&mut rows, "f32", &[-1.5, f32::NAN]);
    text_component::<f64>(&mut rows, "f64", &[-1.5, 0.0, f64::INFINITY]);
    text_component::<Option<u8>>(&mut rows, "Option<u8>", &[None, Some(5)]);
    text_component::<Option<String>>(&mut rows, "Option<String>", &[None, Some("x".into())]);
    types::text_component_rows(&mut rows);
    rows
}

/// Byte strings the `Event` decoder must reject, with the error each gets.
pub fn reject_rows() -> Vec<String> {
    let good = Event::get_key("u1", "s", 1_700_000_000);
    let mut salt_out_of_range = good.clone();
    salt_out_of_range[0] = 8;
    let mut salt_mismatch = good.clone();
    salt_mismatch[0] = (good[0] + 1) % 8;
    let mut trailing = good.clone();
    trailing.push(0);
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("empty", Vec::new()),
        ("cut inside user_id", good[..3].to_vec()),
        ("cut inside timestamp", good[..good.len() - 1].to_vec()),
        ("a byte after the key", trailing),
        ("salt 8 of 8 buckets", salt_out_of_range),
        ("salt of another bucket", salt_mismatch),
        (
            "escape byte followed by 0x02",
            vec![
                good[0], b'u', 0x01, 0x02, 0x00, b's', 0x00, 0xff, 0xff, 0xff, 0xff, 0x9a, 0xac,
                0x0e, 0xff,
            ],
        ),
        (
            "user_id not UTF-8",
            vec![
                good[0], 0xc3, 0x28, 0x00, b's', 0x00, 0xff, 0xff, 0xff, 0xff, 0x9a, 0xac, 0x0e,
                0xff,
            ],
        ),
    ];
    cases
        .into_iter()
        .map(|(what, bytes)| {
            let err = Event::decode(&bytes).expect_err(what);
            rejected::<Event>("reject", what, &bytes, &err)
        })
        .collect()
}

#[test]
pub fn key_vectors_decode_back() {
    let e = Event {
        user_id: "u1".into(),
        site: "s".into(),
        timestamp: 1_700_000_000,
    };
    assert_eq!(
        Event::decode(&Event::get_key("u1", "s", 1_700_000_000)),
        Ok(e)
    );
    let w = WideEvent {
        user_id: "u1".into(),
        timestamp: 1_700_000_000,
    };
    assert_eq!(WideEvent::decode(&w.encode()), Ok(w));
    let r = Ranking {
        score: -5,
        name: "ann".into(),
    };
    assert_eq!(Ranking::decode(&r.encode()), Ok(r));
    let p = Prefixed {
        user_id: "u1".into(),
        timestamp: 7,
    };
    assert_eq!(Prefixed::decode(&p.encode()), Ok(p));
}

#[test]
pub fn a_prefix_that_extends_another_never_reads_its_keys() {
    // Before the terminator these were the same bytes, `ev` `xu1\0` ... and
    // `evx` `u1\0` ...: writing one overwrote the other.
    let ev = Prefixed::get_key("xu1", 2);
    let evx = PrefixedX::get_key("u1", 2);
    assert_ne!(ev, evx);
    assert!(Prefixed::decode(&evx).is_err());
    assert!(PrefixedX::decode(&ev).is_err());
    assert!(!Prefixed::scan().ranges().contains(&evx));
    assert!(!PrefixedX::scan().ranges().contains(&ev));
    let e = PrefixedEscaped {
        user_id: "u1".into(),
        timestamp: 7,
    };
    assert_eq!(PrefixedEscaped::decode(&e.encode()), Ok(e));
}
