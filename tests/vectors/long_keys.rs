//! Over-long keys rendered (`docs/ENCODING.md`, "Limits", table
//! `render_long`): keys beyond `MAX_KEY_LEN` (and one at it), as
//! `K::render` shows them. The rendering is not abbreviated: it shows
//! every byte, so a vector writes the key as its first bytes and a fill
//! byte repeated (`fill`, as the rejection vectors do) and the rendering as
//! its head, a piece repeated and its tail (`rendered_fill`). Python's
//! `Schema.render` gives the same text (`test_render_long.py`).

use super::{plain_hex, record};
use crate::common::schemas::Event;
use keyschema::dynamic::Value;
use keyschema::RowKey;

/// The rendering as head, `unit` repeated `count` times (the longest run
/// of it), and tail.
fn runs<'a>(text: &'a str, unit: &str) -> (&'a str, usize, &'a str) {
    let (mut best, mut at) = (0, 0);
    let mut i = 0;
    while i < text.len() {
        let mut n = 0;
        while text[i + n * unit.len()..].starts_with(unit) {
            n += 1;
        }
        if n > best {
            (best, at) = (n, i);
        }
        i += (n * unit.len()).max(1);
        while !text.is_char_boundary(i) {
            i += 1;
        }
    }
    (&text[..at], best, &text[at + best * unit.len()..])
}

/// One vector: `head` then `fill` up to `len` bytes, rendered.
fn long(what: &str, head: &[u8], fill: u8, len: usize, unit: &str) -> String {
    let mut key = head.to_vec();
    key.resize(len, fill);
    let rendered = Event::render(&key);
    let (start, count, end) = runs(&rendered, unit);
    assert_eq!(format!("{start}{}{end}", unit.repeat(count)), rendered);
    record(
        "render_long",
        format!(
            r#"{{"schema":{},"what":{},"key":"{}","fill":{{"byte":"{fill:02x}","length":{len}}},"rendered_head":{},"rendered_fill":{{"text":{},"count":{count}}},"rendered_tail":{}}}"#,
            Event::schema().to_json(),
            Value::from(what).to_json(),
            plain_hex(head),
            Value::from(start).to_json(),
            Value::from(unit).to_json(),
            Value::from(end).to_json()
        ),
    );
    let cell = |s: &str| s.replace('|', "\\|");
    format!(
        "| {what} | `{}` then `{fill:02x}` up to {len} bytes | `{}` then `{unit}` {count} times, then `{}` |",
        super::hex(head),
        cell(start),
        cell(end)
    )
}

/// Every over-long key, as the document's rows.
pub fn long_rows() -> Vec<String> {
    let good = Event::get_key("u1", "s", 1_700_000_000);
    let mut rows = Vec::new();
    // A `user_id` of `a`s: the salt byte, the text and its terminator,
    // `site` and the timestamp take 12 bytes besides the `a`s.
    for (what, len) in [
        (
            "a user_id of 65,524 `a`s: 65,536 bytes, at the limit",
            65_536,
        ),
        ("a user_id of 65,525 `a`s: 65,537 bytes, one over", 65_537),
    ] {
        let key = Event::get_key(&"a".repeat(len - 12), "s", 7);
        assert_eq!(key.len(), len);
        rows.push(long_whole(what, &key, 'a'));
    }
    rows.push(long(
        "a whole key, then 0x00 up to 65,537 bytes",
        &good,
        0x00,
        65_537,
        "00",
    ));
    rows
}

/// A key that is not a head and a fill (a long component in the middle):
/// the vector holds it as hex runs too, `key` its head up to the run and
/// `key_tail` the bytes after it.
fn long_whole(what: &str, key: &[u8], c: char) -> String {
    let byte = c as u8;
    let start = key.iter().position(|&b| b == byte).expect("the run");
    let run = key[start..].iter().take_while(|&&b| b == byte).count();
    let rendered = Event::render(key);
    let unit = c.to_string();
    let (head, count, end) = runs(&rendered, &unit);
    assert_eq!(format!("{head}{}{end}", unit.repeat(count)), rendered);
    record(
        "render_long",
        format!(
            r#"{{"schema":{},"what":{},"key":"{}","fill":{{"byte":"{byte:02x}","length":{}}},"key_tail":"{}","rendered_head":{},"rendered_fill":{{"text":{},"count":{count}}},"rendered_tail":{}}}"#,
            Event::schema().to_json(),
            Value::from(what).to_json(),
            plain_hex(&key[..start]),
            start + run,
            plain_hex(&key[start + run..]),
            Value::from(head).to_json(),
            Value::from(unit.as_str()).to_json(),
            Value::from(end).to_json()
        ),
    );
    let cell = |s: &str| s.replace('|', "\\|");
    format!(
        "| {what} | `{}` then `{byte:02x}` up to {} bytes, then `{}` | `{}` then `{unit}` {count} times, then `{}` |",
        super::hex(&key[..start]),
        start + run,
        super::hex(&key[start + run..]),
        cell(head),
        cell(end)
    )
}
