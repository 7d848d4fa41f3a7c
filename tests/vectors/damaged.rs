//! More damaged keys, rendered (`docs/ENCODING.md`, "Each type's
//! rendering", table `render_damaged_types`): a key with no salt, and an
//! error inside a `char`, an `Option`, a timestamp and an enum of `u16`
//! (whose whole key renders the variant's name). Python renders each alike
//! (`test_damaged_renderings`).

use super::{hex, plain_hex, record};
use chrono::{DateTime, Utc};
use keyschema::dynamic::Value;
use keyschema::RowKey;

/// An enum of another width than `i8`'s.
#[derive(keyschema::KeyComponent, Debug, Clone, Copy, PartialEq)]
#[repr(u16)]
pub enum Stage {
    Draft = 1,
    Sent = 300,
}

#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = hash(id) % 4, then = id, letter, maybe, at, stage)]
struct Parcel {
    id: u32,
    letter: char,
    maybe: Option<u8>,
    at: DateTime<Utc>,
    stage: Stage,
}

const PARCEL: &str = "salt = hash(id) % 4, then = id, letter, maybe, at, stage";

fn damaged(rows: &mut Vec<String>, what: &str, key: &[u8]) {
    let rendered = Parcel::render(key);
    record(
        "render_damaged_types",
        format!(
            r#"{{"declaration":{},"schema":{},"what":{},"key":"{}","rendered":{}}}"#,
            Value::from(PARCEL).to_json(),
            Parcel::schema().to_json(),
            Value::from(what).to_json(),
            plain_hex(key),
            Value::from(rendered.as_str()).to_json()
        ),
    );
    rows.push(format!(
        "| {what} | `{}` | {} |",
        if key.is_empty() {
            "(none)".to_string()
        } else {
            hex(key)
        },
        rendered.replace('|', "\\|")
    ));
}

/// The `render_damaged_types` table.
pub fn damaged_rows() -> Vec<String> {
    let good = Parcel {
        id: 5,
        letter: 'k',
        maybe: Some(9),
        at: DateTime::from_timestamp(1_700_000_000, 500_000_000).expect("a time"),
        stage: Stage::Sent,
    }
    .encode();
    // salt (0), id (1..5), letter (5..9), maybe's tag (9) and value (10),
    // at (11..23, its nanoseconds 19..23), stage (23..25).
    let with = |at: usize, bytes: &[u8]| {
        let mut key = good.clone();
        key[at..at + bytes.len()].copy_from_slice(bytes);
        key
    };
    let mut rows = Vec::new();
    damaged(
        &mut rows,
        "undamaged: the enum renders its variant's name",
        &good,
    );
    damaged(&mut rows, "empty: no salt", &[]);
    damaged(
        &mut rows,
        "a char that is a surrogate",
        &with(5, &[0, 0, 0xd8, 0]),
    );
    damaged(&mut rows, "Option tag 02", &with(9, &[2]));
    damaged(
        &mut rows,
        "a timestamp of 2,000,000,000 nanoseconds",
        &with(19, &2_000_000_000u32.to_be_bytes()),
    );
    damaged(&mut rows, "a timestamp cut short", &good[..15]);
    damaged(&mut rows, "u16 enum 7, no variant's", &with(23, &[0, 7]));
    rows
}
