//! Scan range vectors (`docs/ENCODING.md`, "Scan ranges"): for a key
//! layout and a binding (equality on leading fields, maybe a range on the
//! next), the key ranges a scan reads, per bucket. They cover every hashed
//! bucket, `rev` and two-sided ranges, text keys, `bucket(...)` fields with
//! and without a hashed bucket, and `reverse(...)`. Python's reader
//! reproduces each (`test_ranges`).

use super::constructs::{Bucketed, BucketedDesc, HashedBucket, Reversed};
use super::types::{StampedText, STAMPED_TEXT};
use super::{plain_hex, record, Event, KarteEvent};
use keyschema::dynamic::{DynSchema, Value};
use keyschema::RowKey;
use std::ops::Bound;

type Range = Option<(Bound<Value>, Bound<Value>)>;

fn bound_json(b: &Bound<Value>) -> (String, bool) {
    match b {
        Bound::Included(v) => (v.to_json(), true),
        Bound::Excluded(v) => (v.to_json(), false),
        Bound::Unbounded => ("null".into(), true),
    }
}

fn bound_text(b: &Bound<Value>, lo: bool) -> String {
    match (b, lo) {
        (Bound::Included(v), true) => format!("{} <=", v.to_json()),
        (Bound::Excluded(v), true) => format!("{} <", v.to_json()),
        (Bound::Included(v), false) => format!("<= {}", v.to_json()),
        (Bound::Excluded(v), false) => format!("< {}", v.to_json()),
        (Bound::Unbounded, _) => String::new(),
    }
}

fn case<K: RowKey>(rows: &mut Vec<String>, declaration: &str, equal: &[Value], range: Range) {
    case_in::<K>("ranges", rows, declaration, equal, range);
}

/// Records the ranges of one binding under `table` (or, when the binding
/// is refused, `"ranges": null` and the refusal's message as `"error"`)
/// and pushes its row in the document.
pub(super) fn case_in<K: RowKey>(
    table: &'static str,
    rows: &mut Vec<String>,
    declaration: &str,
    equal: &[Value],
    range: Range,
) {
    let doc = K::schema().to_json();
    let schema = DynSchema::from_json(&doc).expect("schema reads back");
    let result = schema.ranges(equal, range.clone());
    let names: Vec<&str> = schema.fields().iter().map(|f| f.name()).collect();
    let mut binding: Vec<String> = equal
        .iter()
        .zip(&names)
        .map(|(v, n)| format!("{n} = {}", v.to_json()))
        .collect();
    let range_json = match &range {
        None => "null".to_string(),
        Some((lo, hi)) => {
            let name = names.get(equal.len()).copied().unwrap_or("(no field)");
            binding.push(
                format!("{} {name} {}", bound_text(lo, true), bound_text(hi, false))
                    .trim()
                    .to_string(),
            );
            let ((lo, lo_inc), (hi, hi_inc)) = (bound_json(lo), bound_json(hi));
            format!(r#"{{"lo":{lo},"lo_inclusive":{lo_inc},"hi":{hi},"hi_inclusive":{hi_inc}}}"#)
        }
    };
    let set = match result {
        Ok(set) => set,
        Err(e) => {
            let equal_json: Vec<String> = equal.iter().map(Value::to_json).collect();
            record(
                table,
                format!(
                    r#"{{"declaration":{},"schema":{doc},"equal":[{}],"range":{range_json},"ranges":null,"error":{}}}"#,
                    Value::from(declaration).to_json(),
                    equal_json.join(","),
                    Value::from(e.to_string()).to_json()
                ),
            );
            rows.push(format!(
                "| `{declaration}` | `{}` | refused: {} |",
                binding.join(", "),
                e.to_string().replace('|', "\\|")
            ));
            return;
        }
    };
    let ranges: Vec<String> = set
        .iter()
        .map(|r| {
            format!(
                r#"{{"bucket":{},"start":"{}","end":{}}}"#,
                r.bucket(),
                plain_hex(r.start()),
                r.end()
                    .map_or("null".into(), |e| format!("\"{}\"", plain_hex(e)))
            )
        })
        .collect();
    let equal_json: Vec<String> = equal.iter().map(Value::to_json).collect();
    record(
        table,
        format!(
            r#"{{"declaration":{},"schema":{doc},"equal":[{}],"range":{range_json},"ranges":[{}]}}"#,
            Value::from(declaration).to_json(),
            equal_json.join(","),
            ranges.join(",")
        ),
    );
    let shown: Vec<String> = set
        .iter()
        .map(|r| {
            format!(
                "{}: {} .. {}",
                r.bucket(),
                plain_hex(r.start()),
                r.end().map_or("(end)".into(), plain_hex)
            )
        })
        .collect();
    rows.push(format!(
        "| `{declaration}` | `{}` | {} |",
        binding.join(", "),
        if shown.is_empty() {
            "(none: empty)".to_string()
        } else {
            shown
                .iter()
                .map(|s| format!("`{s}`"))
                .collect::<Vec<_>>()
                .join("<br>")
        }
    ));
}

fn s(v: &str) -> Value {
    Value::String(v.into())
}

/// Every range vector, as the document's rows.
pub fn range_rows() -> Vec<String> {
    use Bound::{Excluded, Included, Unbounded};
    let mut rows = Vec::new();
    let event = "salt = hash(user_id, site) % 8, then = user_id, site, rev(timestamp)";
    case::<Event>(&mut rows, event, &[s("u1")], None);
    case::<Event>(&mut rows, event, &[s("u1"), s("s")], None);
    let both = Some((Included(Value::U64(100)), Included(Value::U64(200))));
    case::<Event>(&mut rows, event, &[s("u1"), s("s")], both);
    let open = Some((Excluded(Value::U64(100)), Excluded(Value::U64(200))));
    case::<Event>(&mut rows, event, &[s("u1"), s("s")], open);
    let empty = Some((Included(Value::U64(200)), Excluded(Value::U64(100))));
    case::<Event>(&mut rows, event, &[s("u1"), s("s")], empty);
    let site = Some((Included(s("a")), Excluded(s("m"))));
    case::<Event>(&mut rows, event, &[s("u1")], site);

    let karte =
        "format = text(sep = '_'), salt = hash(user_id) % 16, then = user_id, rev(timestamp)";
    case::<KarteEvent>(&mut rows, karte, &[s("u1")], None);
    let later = Some((Excluded(Value::U64(5)), Included(Value::U64(500))));
    case::<KarteEvent>(&mut rows, karte, &[s("u1")], later);
    let from = Some((Included(Value::U64(5)), Unbounded));
    case::<KarteEvent>(&mut rows, karte, &[s("u1")], from);
    // Every component bound, the last fixed-width: no separator follows it
    // in the key, so none ends `P` (the range is the one key).
    case::<KarteEvent>(&mut rows, karte, &[s("u1"), Value::U64(5)], None);
    // A range on a timestamp in a text key: its text form (hex of the
    // binary encoding) sorts as its value, so the range is exact.
    let id = Value::Uuid([
        0x01, 0x92, 0xd4, 0xe8, 0x7c, 0x3a, 0x7b, 0x1e, 0x9f, 0x00, 0x12, 0x34, 0x56, 0x78, 0x9a,
        0xbc,
    ]);
    let day = Some((
        Included(Value::Timestamp(1_700_000_000, 500_000_000)),
        Excluded(Value::Timestamp(1_700_006_400, 0)),
    ));
    case::<StampedText>(&mut rows, STAMPED_TEXT, std::slice::from_ref(&id), day);
    // A range on an enum in a text key: by discriminant, as text.
    let at = Value::Timestamp(1_700_000_000, 500_000_000);
    let local = Value::DateTime(1_700_000_000, 123_456_789);
    let priority = Some((Included(Value::Enum("Normal".into())), Unbounded));
    let bound = [id, at, Value::Date(19_782), local];
    case::<StampedText>(&mut rows, STAMPED_TEXT, &bound, priority);

    let days = Some((Included(Value::U32(25)), Excluded(Value::U32(65))));
    let bucketed = "then = hotel_id, bucket(day, 30), day";
    case::<Bucketed>(&mut rows, bucketed, &[Value::U32(7)], days.clone());
    case::<Bucketed>(&mut rows, bucketed, &[Value::U32(7), Value::U32(40)], None);
    let desc = "then = hotel_id, bucket(day, 30), rev(day)";
    case::<BucketedDesc>(&mut rows, desc, &[Value::U32(7)], days.clone());
    let hashed =
        "salt = hash(hotel_id, bucket(day, 30)) % 64, then = (hotel_id, bucket(day, 30)), day";
    case::<HashedBucket>(&mut rows, hashed, &[Value::U32(7)], days);
    // An excluded end on a bucket's first value (60 = 2 * 30) leaves that
    // bucket out; an excluded start on a bucket's last value (29) too.
    let boundary = Some((Included(Value::U32(25)), Excluded(Value::U32(60))));
    case::<HashedBucket>(&mut rows, hashed, &[Value::U32(7)], boundary);
    let inner = Some((Excluded(Value::U32(29)), Included(Value::U32(59))));
    case::<HashedBucket>(&mut rows, hashed, &[Value::U32(7)], inner);

    let reversed = "then = reverse(order_id), line";
    case::<Reversed>(&mut rows, reversed, &[Value::U64(258)], None);
    let lines = Some((Included(Value::U16(2)), Excluded(Value::U16(5))));
    case::<Reversed>(&mut rows, reversed, &[Value::U64(258)], lines);
    rows
}
