//! Rows made of the `uuid`, `chrono` and `time` types and of derived enums
//! and newtypes, end to end on the memory store: keys encode, decode,
//! render (a variant by name, an instant in RFC 3339) and scan (ranges of
//! instants and dates, newest first under `rev`); and the types as
//! `#[rowkey(value)]` fields, through `put_record` and `get_record`.

use chrono::{DateTime, NaiveDate, NaiveDateTime, Utc};
use keyschema::store::{MemoryStore, RecordStore, RowStore};
use keyschema::{KeyComponent, RowKey};
use serde::{Deserialize, Serialize};
use time::{OffsetDateTime, PrimitiveDateTime, UtcOffset};
use uuid::Uuid;

#[derive(KeyComponent, Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Tenant(String);

#[derive(KeyComponent, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
enum Status {
    Open = 1,
    Paid = 2,
    Refunded = 9,
}

/// Orders of a tenant, newest first, by status.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = hash(tenant) % 4, then = tenant, status, rev(at), id)]
struct Order {
    tenant: Tenant,
    status: Status,
    at: DateTime<Utc>,
    id: Uuid,
    #[rowkey(value)]
    placed_on: NaiveDate,
    #[rowkey(value)]
    local: NaiveDateTime,
}

fn acme() -> Tenant {
    Tenant("acme".into())
}

fn at(seconds: i64) -> DateTime<Utc> {
    DateTime::from_timestamp(seconds, 250_000_000).expect("in range")
}

fn order(n: u32, status: Status) -> Order {
    let at = at(1_700_000_000 + i64::from(n) * 3_600);
    Order {
        tenant: Tenant("acme".into()),
        status,
        at,
        id: Uuid::from_u128(u128::from(n) << 64 | 0x7000),
        placed_on: at.date_naive(),
        local: at.naive_utc(),
    }
}

#[test]
fn a_key_of_each_type_encodes_decodes_and_renders_by_name() {
    let o = order(1, Status::Paid);
    let key = o.encode();
    let back = Order::decode(&key).expect("decodes");
    assert_eq!(
        (back.tenant, back.status, back.at, back.id),
        (o.tenant.clone(), o.status, o.at, o.id)
    );
    assert_eq!(Order::get_key("acme", &Status::Paid, o.at, o.id), key);
    let rendered = Order::render(&key);
    let salt = rendered.split('|').next().expect("a salt");
    assert_eq!(
        rendered,
        format!("{salt}|acme|Paid|~2023-11-14T23:13:20.25Z|00000000-0000-0001-0000-000000007000")
    );
    // The schema document names the variants, so tools render them too.
    let doc = Order::schema().to_json();
    assert!(
        doc.contains(r#""encoding":"enum u8 {Open = 1, Paid = 2, Refunded = 9}""#),
        "{doc}"
    );
    assert!(doc.contains(r#""encoding":"timestamp""#) && doc.contains(r#""encoding":"uuid""#));
    let dynamic = keyschema::dynamic::DynSchema::from_json(&doc).expect("reads back");
    assert_eq!(dynamic.render(&key), rendered);
}

#[test]
fn scans_over_instants_run_newest_first_and_stop_at_the_range() {
    let store = MemoryStore::new();
    for n in 0..10 {
        store.put_record(&order(n, Status::Paid)).expect("put");
        store
            .put_record(&order(n + 100, Status::Open))
            .expect("put");
    }
    // Paid orders between hour 2 (included) and hour 6 (excluded).
    let rows: Vec<Order> = Order::scan()
        .tenant(&acme())
        .status(Status::Paid)
        .at(order(2, Status::Paid).at..order(6, Status::Paid).at)
        .run(&store)
        .records()
        .collect::<Result<_, _>>()
        .expect("scan");
    let hours: Vec<i64> = rows
        .iter()
        .map(|o| (o.at.timestamp() - 1_700_000_000) / 3_600)
        .collect();
    assert_eq!(hours, [5, 4, 3, 2]);
    // Whole rows: the value fields came back.
    assert!(rows
        .iter()
        .all(|o| o.placed_on == o.at.date_naive() && o.local == o.at.naive_utc()));
    // Every paid order, by enum variant (a reference or the value).
    let paid = Order::scan()
        .tenant(&acme())
        .status(&Status::Paid)
        .run(&store)
        .count();
    assert_eq!(paid, 10);
    let open = Order::scan()
        .tenant(&acme())
        .status(Status::Open..=Status::Open)
        .run(&store)
        .count();
    assert_eq!(open, 10);
}

/// The time crate's types, by day then newest first.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(then = day, rev(at), local)]
struct Reading {
    day: time::Date,
    at: OffsetDateTime,
    local: PrimitiveDateTime,
    #[rowkey(value)]
    celsius: f64,
}

#[test]
fn time_keys_scan_by_date_and_keep_the_instant_not_the_offset() {
    let store = MemoryStore::new();
    let base = OffsetDateTime::from_unix_timestamp(1_700_000_000).expect("in range");
    let plus_two = UtcOffset::from_hms(2, 0, 0).expect("an offset");
    for i in 0..6i64 {
        let at = (base + time::Duration::hours(i * 10)).to_offset(plus_two);
        let r = Reading {
            day: at.to_offset(UtcOffset::UTC).date(),
            at,
            local: PrimitiveDateTime::new(at.date(), at.time()),
            celsius: i as f64,
        };
        store.put_record(&r).expect("put");
        let back = store
            .get_record::<Reading>(&r.encode())
            .expect("get")
            .expect("a row");
        // Equal as instants; decoded at UTC, so not the same offset.
        assert_eq!(back.at, r.at);
        assert_eq!(back.at.offset(), UtcOffset::UTC);
        assert_eq!(back.local, r.local);
        assert_eq!(back.celsius, r.celsius);
    }
    // 2023-11-15 holds hours 10 and 20 (2023-11-14T22:13:20Z is hour 0).
    let day = (base + time::Duration::hours(10)).date();
    let rows: Vec<Reading> = Reading::scan()
        .day(day)
        .run(&store)
        .records()
        .collect::<Result<_, _>>()
        .expect("scan");
    let hours: Vec<i64> = rows.iter().map(|r| (r.at - base).whole_hours()).collect();
    assert_eq!(hours, [20, 10], "newest first within the day");
    let next_days = Reading::scan()
        .day(day.next_day().expect("a day")..)
        .run(&store)
        .count();
    assert_eq!(next_days, 3);
    let rendered = Reading::render(&Reading::get_key(
        base.date(),
        base,
        PrimitiveDateTime::new(base.date(), base.time()),
    ));
    assert_eq!(
        rendered,
        "2023-11-14|~2023-11-14T22:13:20Z|2023-11-14T22:13:20"
    );
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
struct Audit {
    by: Uuid,
    at: DateTime<Utc>,
}

/// Each type as a value field. time's types have no `Default` (a key
/// decoded alone fills value fields with it), so they are `Option`s.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(then = id)]
struct Document {
    id: Uuid,
    #[rowkey(value)]
    owner: Uuid,
    #[rowkey(value)]
    created: DateTime<Utc>,
    #[rowkey(value)]
    due: NaiveDate,
    #[rowkey(value)]
    wall_clock: NaiveDateTime,
    #[rowkey(value)]
    seen: Option<OffsetDateTime>,
    #[rowkey(value)]
    archived_on: Option<time::Date>,
    #[rowkey(value)]
    reminder: Option<PrimitiveDateTime>,
    #[rowkey(value)]
    audit: Vec<Audit>,
}

#[test]
fn each_type_is_a_value_field_that_round_trips_through_the_store() {
    let store = MemoryStore::new();
    let created = DateTime::from_timestamp(1_483_228_799, 1_000_000_007).expect("a leap second");
    let seen = OffsetDateTime::from_unix_timestamp_nanos(1_700_000_000_123_456_789)
        .expect("in range")
        .to_offset(UtcOffset::from_hms(-5, -30, 0).expect("an offset"));
    let doc = Document {
        id: Uuid::from_u128(7),
        owner: Uuid::from_u128(u128::MAX - 1),
        created,
        due: NaiveDate::MIN,
        wall_clock: NaiveDateTime::MAX,
        seen: Some(seen),
        archived_on: Some(time::Date::MIN),
        reminder: Some(PrimitiveDateTime::MAX),
        audit: vec![Audit {
            by: Uuid::nil(),
            at: DateTime::<Utc>::MAX_UTC,
        }],
    };
    store.put_record(&doc).expect("put");
    let back = store
        .get_record::<Document>(&doc.encode())
        .expect("get")
        .expect("a row");
    assert_eq!(back, doc);
    // serde keeps the offset of a value field (unlike a key component).
    assert_eq!(back.seen.map(|s| s.offset()), Some(seen.offset()));
    // Empty options and defaults.
    let bare = Document {
        id: Uuid::from_u128(8),
        owner: Uuid::nil(),
        created: DateTime::<Utc>::default(),
        due: NaiveDate::default(),
        wall_clock: NaiveDateTime::default(),
        seen: None,
        archived_on: None,
        reminder: None,
        audit: Vec::new(),
    };
    store.put_record(&bare).expect("put");
    assert_eq!(
        store.get_record::<Document>(&bare.encode()).expect("get"),
        Some(bare.clone())
    );
    // A key decoded alone fills the value fields with their defaults.
    assert_eq!(Document::decode(&doc.encode()).map(|d| d.id), Ok(doc.id));
    // RowStore still sees plain bytes under the key.
    assert!(store.get_row::<Document>(&doc.encode()).is_ok());
}
