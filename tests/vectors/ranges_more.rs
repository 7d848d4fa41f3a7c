//! More scan range vectors (`docs/ENCODING.md`, "Scan ranges"): a range
//! whose end is none (nothing follows its start), a descending field
//! whose bucket is hashed, negative buckets, a random salt, and each class
//! of refused binding with its message. Python's range builder reproduces
//! each range and refuses each refused binding with the same message
//! (`test_ranges`).

use super::constructs::{HashedBucket, RandomLine, Reversed};
use super::ranges::case_in;
use super::KarteEvent;
use keyschema::dynamic::Value;
use keyschema::RowKey;
use std::ops::Bound::{Excluded, Included, Unbounded};

/// A key whose first component is all of it: a range up to its last value
/// has no end (`succ` of nothing).
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(then = code, name)]
struct Coded {
    code: u8,
    name: String,
}

/// A descending field whose bucket is hashed into the salt.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = hash(hotel_id, bucket(day, 30)) % 64, then = (hotel_id, bucket(day, 30)), rev(day))]
struct HashedBucketDesc {
    hotel_id: u32,
    day: u32,
}

/// A signed field's buckets: below zero they round toward negative
/// infinity (`-150 / 100` is bucket -2).
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = hash(sensor, bucket(t, 100)) % 16, then = (sensor, bucket(t, 100)), t)]
struct SignedBucket {
    sensor: u16,
    t: i64,
}

fn s(v: &str) -> Value {
    Value::String(v.into())
}

/// Every vector of the `ranges_more` table, as the document's rows.
pub fn range_rows() -> Vec<String> {
    let mut rows = Vec::new();
    let t = "ranges_more";
    let coded = "then = code, name";
    // Nothing bound and no upper bound: the end is none (the last key).
    let from = Some((Included(Value::U8(250)), Unbounded));
    case_in::<Coded>(t, &mut rows, coded, &[], from);
    // The prefix is all `ff`: succ(P) is none.
    case_in::<Coded>(t, &mut rows, coded, &[Value::U8(255)], None);
    let after = Some((Excluded(Value::U8(255)), Unbounded));
    case_in::<Coded>(t, &mut rows, coded, &[], after);

    let desc =
        "salt = hash(hotel_id, bucket(day, 30)) % 64, then = (hotel_id, bucket(day, 30)), rev(day)";
    let days = Some((Included(Value::U32(25)), Excluded(Value::U32(65))));
    case_in::<HashedBucketDesc>(t, &mut rows, desc, &[Value::U32(7)], days);
    case_in::<HashedBucketDesc>(t, &mut rows, desc, &[Value::U32(7), Value::U32(40)], None);

    let signed = "salt = hash(sensor, bucket(t, 100)) % 16, then = (sensor, bucket(t, 100)), t";
    let around = Some((Included(Value::I64(-150)), Excluded(Value::I64(50))));
    case_in::<SignedBucket>(t, &mut rows, signed, &[Value::U16(3)], around);
    let below = Some((Excluded(Value::I64(-101)), Included(Value::I64(-100))));
    case_in::<SignedBucket>(t, &mut rows, signed, &[Value::U16(3)], below);
    case_in::<SignedBucket>(t, &mut rows, signed, &[Value::U16(3), Value::I64(-1)], None);

    let random = "salt = random % 10, then = invoice_id, line";
    case_in::<RandomLine>(t, &mut rows, random, &[s("inv-7")], None);
    let lines = Some((Included(Value::U32(2)), Unbounded));
    case_in::<RandomLine>(t, &mut rows, random, &[s("inv-7")], lines);

    // The refusals, one per class.
    let both = [s("inv-7"), Value::U32(1)];
    let more = Some((Included(Value::U32(1)), Unbounded));
    case_in::<RandomLine>(t, &mut rows, random, &both, more);
    case_in::<RandomLine>(t, &mut rows, random, &[Value::Bool(true)], None);
    let wrong = Some((Included(s("1")), Unbounded));
    case_in::<RandomLine>(t, &mut rows, random, &[s("inv-7")], wrong);
    let reversed = "then = reverse(order_id), line";
    let orders = Some((Included(Value::U64(1)), Excluded(Value::U64(9))));
    case_in::<Reversed>(t, &mut rows, reversed, &[], orders);
    let karte =
        "format = text(sep = '_'), salt = hash(user_id) % 16, then = user_id, rev(timestamp)";
    let users = Some((Included(s("a")), Excluded(s("b"))));
    case_in::<KarteEvent>(t, &mut rows, karte, &[], users);
    let hashed =
        "salt = hash(hotel_id, bucket(day, 30)) % 64, then = (hotel_id, bucket(day, 30)), day";
    let open = Some((Included(Value::U32(25)), Unbounded));
    case_in::<HashedBucket>(t, &mut rows, hashed, &[Value::U32(7)], open);
    let open_start = Some((Unbounded, Excluded(Value::U32(25))));
    case_in::<HashedBucket>(t, &mut rows, hashed, &[Value::U32(7)], open_start);
    let wide = Some((Included(Value::U32(0)), Excluded(Value::U32(30 * 4097))));
    case_in::<HashedBucket>(t, &mut rows, hashed, &[Value::U32(7)], wide);
    rows
}
