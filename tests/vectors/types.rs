//! The vectors of the `uuid`, `timestamp`, `datetime`, `date` and enum
//! encodings (`docs/ENCODING.md`, "Identifiers, times and enums"): each
//! type's bytes, renderings and text forms, a whole key of them, and the
//! bytes a decoder must refuse. The types are those of the `uuid` and
//! `chrono` crates and a derived enum; the `time` crate's write the same
//! bytes (`tests/time_types.rs`).

use super::{component, hex, rejected, rendered, rendered_component, text_component};
use chrono::{DateTime, NaiveDate, NaiveDateTime, Utc};
use keyschema::dynamic::{DynSchema, Value};
use keyschema::{KeyComponent, RowKey};
use uuid::Uuid;

/// A derived enum with explicit discriminants, one negative.
#[derive(keyschema::KeyComponent, Debug, Clone, Copy, PartialEq)]
#[repr(i8)]
pub enum Priority {
    Low = -1,
    Normal = 0,
    High = 10,
}

impl From<Priority> for Value {
    fn from(p: Priority) -> Value {
        Value::Enum(format!("{p:?}"))
    }
}

/// A derived newtype: its bytes are the `String`'s.
#[derive(keyschema::KeyComponent, Debug, Clone, PartialEq)]
pub struct UserId(pub String);

/// A key of every new type, one of them `rev`.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = hash(id) % 8, then = id, rev(at), day, local, priority, user)]
pub struct Stamped {
    pub id: Uuid,
    pub at: DateTime<Utc>,
    pub day: NaiveDate,
    pub local: NaiveDateTime,
    pub priority: Priority,
    pub user: UserId,
}

/// The same fields in a text key.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(format = text(sep = "#"), then = id, at, day, local, priority, user)]
pub struct StampedText {
    pub id: Uuid,
    pub at: DateTime<Utc>,
    pub day: NaiveDate,
    pub local: NaiveDateTime,
    pub priority: Priority,
    pub user: UserId,
}

pub const STAMPED: &str = "salt = hash(id) % 8, then = id, rev(at), day, local, priority, user";
pub const STAMPED_TEXT: &str =
    "format = text(sep = \"#\"), then = id, at, day, local, priority, user";
pub const TYPES: &str = "(Uuid, DateTime<Utc>, NaiveDate, NaiveDateTime, Priority, UserId)";

fn at(seconds: i64, nanos: u32) -> DateTime<Utc> {
    DateTime::from_timestamp(seconds, nanos).expect("in chrono's range")
}

fn naive(seconds: i64, nanos: u32) -> NaiveDateTime {
    at(seconds, nanos).naive_utc()
}

fn day(y: i32, m: u32, d: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(y, m, d).expect("a date")
}

pub fn uuids() -> [Uuid; 3] {
    [
        Uuid::nil(),
        Uuid::from_u128(0x0192_d4e8_7c3a_7b1e_9f00_1234_5678_9abc),
        Uuid::max(),
    ]
}

pub fn instants() -> [DateTime<Utc>; 6] {
    [
        DateTime::<Utc>::MIN_UTC,
        at(-1, 999_999_999),
        DateTime::<Utc>::UNIX_EPOCH,
        at(1_700_000_000, 500_000_000),
        // A leap second: 2016-12-31T23:59:60.5Z.
        at(1_483_228_799, 1_500_000_000),
        DateTime::<Utc>::MAX_UTC,
    ]
}

pub fn civil() -> [NaiveDateTime; 3] {
    [
        naive(-62_198_755_200, 0),
        naive(0, 0),
        naive(1_700_000_000, 123_456_789),
    ]
}

pub fn days() -> [NaiveDate; 5] {
    [
        NaiveDate::MIN,
        day(1969, 12, 31),
        day(1970, 1, 1),
        day(2024, 2, 29),
        NaiveDate::MAX,
    ]
}

pub const PRIORITIES: [Priority; 3] = [Priority::Low, Priority::Normal, Priority::High];

fn enum_name() -> String {
    Priority::ENCODING.expect("derived").to_string()
}

/// Rows of the component table.
pub fn component_rows(rows: &mut Vec<String>) {
    component::<Uuid>(rows, "uuid", &uuids());
    component::<DateTime<Utc>>(rows, "timestamp", &instants());
    component::<NaiveDateTime>(rows, "datetime", &civil());
    component::<NaiveDate>(rows, "date", &days());
    component::<Priority>(rows, &enum_name(), &PRIORITIES);
}

/// Rows of the text-form table.
pub fn text_component_rows(rows: &mut Vec<String>) {
    text_component::<Uuid>(rows, "uuid", &uuids()[1..2]);
    text_component::<DateTime<Utc>>(rows, "timestamp", &instants()[2..4]);
    text_component::<NaiveDateTime>(rows, "datetime", &civil()[2..]);
    text_component::<NaiveDate>(rows, "date", &days()[1..3]);
    text_component::<Priority>(rows, &enum_name(), &PRIORITIES[..1]);
}

fn render_one<T: KeyComponent>(rows: &mut Vec<String>, type_name: &str, values: &[T]) {
    rows.extend(
        values
            .iter()
            .map(|v| rendered_component("render", type_name, v)),
    );
}

/// Every rendering of the new types.
pub fn render_rows() -> Vec<String> {
    let mut rows = Vec::new();
    render_one::<Uuid>(&mut rows, "uuid", &uuids()[1..2]);
    render_one::<DateTime<Utc>>(&mut rows, "timestamp", &instants());
    render_one::<NaiveDateTime>(&mut rows, "datetime", &civil());
    render_one::<NaiveDate>(&mut rows, "date", &days());
    render_one::<Priority>(&mut rows, &enum_name(), &PRIORITIES);
    rows
}

fn stamped() -> Stamped {
    Stamped {
        id: uuids()[1],
        at: instants()[3],
        day: days()[3],
        local: civil()[2],
        priority: Priority::High,
        user: UserId("u1".into()),
    }
}

/// Whole keys of every new type, binary and text.
pub fn construct_rows(rows: &mut Vec<String>) {
    let s = stamped();
    let key = s.encode();
    let shown = format!("({}, {}, {}, {}, High, \"u1\")", s.id, s.at, s.day, s.local);
    rows.push(format!(
        "| `{STAMPED}` | `{TYPES}` | `{shown}` | `{}` | `{}` |",
        hex(&key),
        rendered::<Stamped>("constructs", &key).replace('|', "\\|")
    ));
}

/// A text key of the same fields.
pub fn text_row(rows: &mut Vec<String>) {
    let s = stamped();
    let t = StampedText {
        id: s.id,
        at: s.at,
        day: s.day,
        local: s.local,
        priority: s.priority,
        user: s.user,
    };
    let key = t.encode();
    super::recorded::<StampedText>("text", key.clone());
    let shown = format!("({}, {}, {}, {}, High, \"u1\")", t.id, t.at, t.day, t.local);
    rows.push(format!(
        "| `{STAMPED_TEXT}` | `{shown}` | `{}` |",
        String::from_utf8(key)
            .expect("text keys are UTF-8")
            .replace('|', "\\|")
    ));
}

/// Bytes of `Stamped` that a decoder must refuse; `DynSchema` refuses each
/// with the same error.
pub fn reject_rows() -> Vec<String> {
    let good = stamped().encode();
    // The layout: salt (1), id (16), rev(at) (12: seconds 8, nanos 4), day
    // (4), local (12), priority (1), user.
    let at = 17;
    let nanos = at + 8;
    let local = at + 12 + 4;
    let priority = local + 12;
    let with = |edits: &[(usize, &[u8])]| {
        let mut key = good.clone();
        for (offset, bytes) in edits {
            key[*offset..*offset + bytes.len()].copy_from_slice(bytes);
        }
        key
    };
    let inverted = |bytes: [u8; 4]| bytes.map(|b| !b);
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("cut inside at", good[..at + 5].to_vec()),
        (
            "at with 2000000000 nanoseconds",
            with(&[(nanos, &inverted(2_000_000_000u32.to_be_bytes()))]),
        ),
        (
            "local with a leap second after :20",
            with(&[(local + 8, &1_000_000_000u32.to_be_bytes())]),
        ),
        ("priority 5, no variant's", with(&[(priority, &[0x85])])),
        ("cut inside id", good[..9].to_vec()),
    ];
    let dynamic = DynSchema::from_json(&Stamped::schema().to_json()).expect("reads back");
    cases
        .into_iter()
        .map(|(what, bytes)| {
            let err = Stamped::decode(&bytes).expect_err(what);
            let dyn_err = dynamic.decode(&bytes).expect_err(what);
            assert_eq!(dyn_err.to_string(), err.to_string(), "{what}");
            rejected::<Stamped>("reject_types", what, &bytes, &err)
        })
        .collect()
}
