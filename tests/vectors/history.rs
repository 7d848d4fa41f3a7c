//! The layout-history vectors of `docs/ENCODING.md` ("Layout histories"):
//! keys of both layouts of two key types with a history, the layout
//! `decode_stored` reads each in, and the schema document (version 3) that
//! carries the history. `DynSchema` must read each the same way.

use keyschema::dynamic::{DynSchema, Layout, Value};
use keyschema::{DecodeError, RowKey};

/// A cut-over by field: unsalted before `ts = 100`, salted from it.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = hash(user_id) % 8, then = user_id, ts)]
#[rowkey_was(salt = none, until = ts >= 100)]
pub struct Visit {
    pub user_id: String,
    pub ts: u64,
}

/// A migration of the bucket count, `% 4` to `% 16`.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = hash(id) % 16, then = id, seq)]
#[rowkey_was(salt = hash(id) % 4, until = migration)]
pub struct Thing {
    pub id: u64,
    pub seq: u32,
}

const VISIT: &str =
    "salt = hash(user_id) % 8, then = user_id, ts; was salt = none, until = ts >= 100";
const THING: &str =
    "salt = hash(id) % 16, then = id, seq; was salt = hash(id) % 4, until = migration";

fn hex(bytes: &[u8]) -> String {
    let parts: Vec<String> = bytes.iter().map(|b| format!("{b:02x}")).collect();
    parts.join(" ")
}

/// One row of the table and its JSON entry: the key, read by the derived
/// `decode_stored` and by `DynSchema` from the schema document.
/// A key that reads as a row in both layouts and that the cut-over does not
/// decide is `ambiguous` (`DecodeError::AmbiguousLayout`).
fn row<K: RowKey>(decl: &str, fields: &str, key: Vec<u8>) -> (String, String) {
    let layout = match K::decode_stored(&key) {
        Ok((_, true)) => "declared",
        Ok((_, false)) => "older",
        Err(DecodeError::AmbiguousLayout { .. }) => "ambiguous",
        Err(e) => panic!("a vector decodes: {e}"),
    };
    let schema = DynSchema::from_json(&K::schema().to_json()).expect("the document reads back");
    let read = schema.decode_stored(&key);
    let dyn_layout = match &read {
        Ok((_, Layout::Declared)) => "declared",
        Ok((_, Layout::Older)) => "older",
        Err(DecodeError::AmbiguousLayout { .. }) => "ambiguous",
        Err(e) => panic!("DynSchema reads it: {e}"),
    };
    assert_eq!(dyn_layout, layout, "{decl} {fields}");
    // The fields as written (an ambiguous key has no one reading).
    let values = match read {
        Ok((values, _)) => values,
        Err(_) => schema.decode(&key).expect("reads as declared"),
    };
    let doc_row = format!("| `{decl}` | `{fields}` | `{}` | {layout} |", hex(&key));
    let entry = format!(
        r#"{{"declaration":{},"schema":{},"fields":{},"key":"{}","layout":"{layout}"}}"#,
        Value::from(decl).to_json(),
        K::schema().to_json(),
        super::common::fields_json(&schema, &values),
        hex(&key).replace(' ', "")
    );
    (doc_row, entry)
}

/// The table rows and their JSON entries.
pub fn history_rows() -> Vec<(String, String)> {
    let visit = |user: &str, ts: u64| Visit {
        user_id: user.into(),
        ts,
    };
    let mut rows = Vec::new();
    for (v, older) in [
        (visit("u1", 7), true),
        // The declared key of a row before the cut-over (a backfilled
        // copy) also reads as an older row of user "\x06u1": ambiguous.
        (visit("u1", 7), false),
        (visit("u1", 100), false),
        // An older binary's row past the cut-over (a rolling deploy).
        (visit("u1", 100), true),
    ] {
        let key = if older {
            v.encode_older().expect("a history")
        } else {
            v.encode()
        };
        rows.push(row::<Visit>(
            VISIT,
            &format!("(\"{}\", {})", v.user_id, v.ts),
            key,
        ));
    }
    // A key whose salt is the same under % 4 and % 16 reads in both
    // layouts as the same row: declared. One whose salt is not is older.
    let mut same = None;
    let mut moved = None;
    for id in 0u64.. {
        let t = Thing { id, seq: 1 };
        let both = t.encode() == t.encode_older().expect("a history");
        match (both, &same, &moved) {
            (true, None, _) => same = Some(t),
            (false, _, None) => moved = Some(t),
            _ => {}
        }
        if same.is_some() && moved.is_some() {
            break;
        }
    }
    if let Some(t) = same {
        let fields = format!("({}, {})", t.id, t.seq);
        rows.push(row::<Thing>(THING, &fields, t.encode()));
    }
    if let Some(t) = moved {
        let fields = format!("({}, {})", t.id, t.seq);
        rows.push(row::<Thing>(
            THING,
            &fields,
            t.encode_older().expect("a history"),
        ));
        rows.push(row::<Thing>(THING, &fields, t.encode()));
    }
    rows
}
