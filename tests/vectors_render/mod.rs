//! The rendering of every base type (`docs/ENCODING.md`, "Rendering a
//! key"): the bytes of one component and the text `render` shows for it,
//! escapes, extremes and the float values that have no decimal form
//! included. Python's reader reproduces each (`test_renderings`).

use super::{hex, plain_hex, record};
use keyschema::dynamic::Value;
use keyschema::{KeyComponent, Reader};

fn one<T: KeyComponent>(rows: &mut Vec<String>, type_name: &str, values: &[T]) {
    for v in values {
        let bytes = keyschema::encode_value::<T>(v.as_key_ref());
        let mut out = String::new();
        T::render_key(&mut Reader::new(&bytes), &mut out).expect("renders");
        record(
            "render_base",
            format!(
                r#"{{"type":{},"asc":"{}","rendered":{}}}"#,
                Value::from(type_name).to_json(),
                plain_hex(&bytes),
                Value::from(out.as_str()).to_json()
            ),
        );
        rows.push(format!(
            "| `{type_name}` | `{}` | `{}` |",
            if bytes.is_empty() {
                "(none)".to_string()
            } else {
                hex(&bytes)
            },
            out.replace('|', "\\|").replace('`', "\\`")
        ));
    }
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
        ],
    );
    one::<f32>(&mut rows, "f32", &[0.1, -f32::MAX, f32::NAN]);
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
