//! Every key layout of the examples and the tests, declared once with what
//! the dynamic-schema and cross-language checks need: the field values as
//! [`Value`]s, a strategy for random rows, and the ranges of the typed scans
//! that bind each prefix of the fields.
//!
//! `SOURCE` names the example that declares the same layout (checked by
//! `tests/dynamic.rs`, so the two cannot drift apart).

use chrono::{DateTime, NaiveDate, NaiveDateTime, Utc};
use keyschema::dynamic::Value;
use keyschema::store::MemoryStore;
use keyschema::{Cursor, KeyComponent, RowKey, ScanRangeSet};
use proptest::prelude::*;
use proptest::strategy::BoxedStrategy;
use time::{OffsetDateTime, PrimitiveDateTime};
use uuid::Uuid;

/// Runs `test` on `cases` values of `strategy` for the layout `K`; a
/// failure panics naming the layout's declaration.
pub fn check_layout<K: Sample, S: Strategy>(
    cases: u32,
    strategy: S,
    test: impl Fn(S::Value) -> Result<(), proptest::test_runner::TestCaseError>,
) {
    let mut runner = proptest::test_runner::TestRunner::new(proptest::test_runner::Config {
        cases,
        ..proptest::test_runner::Config::default()
    });
    if let Err(e) = runner.run(&strategy, test) {
        panic!("{}: {e}", K::DECLARATION);
    }
}

/// A layout of the catalog.
pub trait Sample: RowKey + Clone + std::fmt::Debug + 'static {
    /// The example file declaring the layout, or `""`.
    const SOURCE: &'static str;
    /// The declaration, as written in `#[rowkey(...)]`.
    const DECLARATION: &'static str;
    /// The key fields as `name: type`.
    const FIELDS: &'static [&'static str];
    /// The key fields, in key order.
    fn values(&self) -> Vec<Value>;
    /// Random rows.
    fn strategy() -> BoxedStrategy<Self>;
    /// `K::scan()` binding 0, 1, ... n fields of `self` by equality.
    fn prefix_ranges(&self) -> Vec<ScanRangeSet>;
    /// A page of 3 rows of an unbound scan after `after` (each row as
    /// `{:?}`), and its cursor.
    fn scan_page(
        store: &MemoryStore,
        reverse: bool,
        after: Option<Cursor>,
    ) -> (Vec<String>, Cursor);
}

/// Floats as JSON carries them: any bit pattern but NaN payloads (a NaN is
/// the canonical one, of either sign).
pub fn f64_json() -> impl Strategy<Value = f64> {
    any::<f64>().prop_map(|v| if v.is_nan() { f64::NAN.copysign(v) } else { v })
}

/// See [`f64_json`].
pub fn f32_json() -> impl Strategy<Value = f32> {
    any::<f32>().prop_map(|v| if v.is_nan() { f32::NAN.copysign(v) } else { v })
}

/// A derived enum, ordered by discriminant (declared out of order).
#[derive(KeyComponent, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[repr(i16)]
pub enum Priority {
    High = 300,
    Low = -2,
    Normal = 0,
}

impl From<Priority> for Value {
    fn from(p: Priority) -> Value {
        Value::Enum(format!("{p:?}"))
    }
}

/// A derived newtype over `String`.
#[derive(KeyComponent, Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct UserId(pub String);

impl From<UserId> for Value {
    fn from(u: UserId) -> Value {
        Value::String(u.0)
    }
}

/// Every UUID.
pub fn uuids() -> impl Strategy<Value = Uuid> {
    any::<u128>().prop_map(Uuid::from_u128)
}

/// Every `DateTime<Utc>`, leap seconds included.
pub fn instants() -> impl Strategy<Value = DateTime<Utc>> {
    let (lo, hi) = (
        DateTime::<Utc>::MIN_UTC.timestamp(),
        DateTime::<Utc>::MAX_UTC.timestamp(),
    );
    (
        prop_oneof![lo..=hi, -100_000i64..100_000],
        0u32..2_000_000_000,
    )
        .prop_map(|(s, n)| {
            // A leap second follows a :59.
            let s = if n >= 1_000_000_000 {
                s - s.rem_euclid(60) + 59
            } else {
                s
            };
            DateTime::from_timestamp(s, n).expect("in chrono's range")
        })
}

/// Every `NaiveDateTime`.
pub fn naive_times() -> impl Strategy<Value = NaiveDateTime> {
    instants().prop_map(|at| at.naive_utc())
}

/// Every `NaiveDate`.
pub fn dates() -> impl Strategy<Value = NaiveDate> {
    (NaiveDate::MIN.to_epoch_days()..=NaiveDate::MAX.to_epoch_days())
        .prop_map(|d| NaiveDate::from_epoch_days(d).expect("in range"))
}

/// Every `time::OffsetDateTime`, at offsets from -25:59:59 to +25:59:59.
pub fn offset_times() -> impl Strategy<Value = OffsetDateTime> {
    let lo = time::Date::MIN.midnight().assume_utc().unix_timestamp();
    let hi = time::Date::MAX
        .with_hms(23, 59, 59)
        .expect("a time")
        .assume_utc()
        .unix_timestamp();
    (lo..=hi, 0u32..1_000_000_000, -93_599i32..=93_599).prop_map(|(s, n, off)| {
        let at = OffsetDateTime::from_unix_timestamp(s)
            .and_then(|at| at.replace_nanosecond(n))
            .expect("in time's range");
        let offset = time::UtcOffset::from_whole_seconds(off).expect("an offset");
        at.checked_to_offset(offset).unwrap_or(at)
    })
}

/// Every `time::PrimitiveDateTime`.
pub fn primitive_times() -> impl Strategy<Value = PrimitiveDateTime> {
    offset_times().prop_map(|at| PrimitiveDateTime::new(at.date(), at.time()))
}

/// Every `time::Date`.
pub fn time_dates() -> impl Strategy<Value = time::Date> {
    (time::Date::MIN.to_julian_day()..=time::Date::MAX.to_julian_day())
        .prop_map(|d| time::Date::from_julian_day(d).expect("in range"))
}

/// Every variant.
pub fn priorities() -> impl Strategy<Value = Priority> {
    prop_oneof![
        Just(Priority::High),
        Just(Priority::Low),
        Just(Priority::Normal)
    ]
}

/// Any user id.
pub fn user_ids() -> impl Strategy<Value = UserId> {
    any::<String>().prop_map(UserId)
}

/// What [`for_each`] calls.
pub trait Visit {
    /// Called once per layout.
    fn visit<K: Sample>(&mut self);
}

macro_rules! strategy_or_any {
    ($ty:ty) => {
        any::<$ty>().boxed()
    };
    ($ty:ty, $strat:expr) => {
        ($strat).boxed()
    };
}

macro_rules! prefix_scans {
    ($k:ident, $v:ident, $out:ident; [$($done:ident)*]) => {};
    ($k:ident, $v:ident, $out:ident; [$($done:ident)*] $next:ident $($rest:ident)*) => {
        $out.push($k::scan()$(.$done($v.$done.clone()))*.$next($v.$next.clone()).ranges());
        prefix_scans!($k, $v, $out; [$($done)* $next] $($rest)*);
    };
}

macro_rules! catalog {
    ($( $name:ident [$source:literal] ( $($attr:tt)* ) { $($field:ident : $ty:ty $(= $strat:expr)?),* $(,)? } )*) => {
        $(
            #[derive(RowKey, Debug, Clone, PartialEq)]
            #[rowkey($($attr)*)]
            pub struct $name { $(pub $field: $ty),* }

            impl Sample for $name {
                const SOURCE: &'static str = $source;
                const DECLARATION: &'static str = stringify!($($attr)*);
                const FIELDS: &'static [&'static str] = &[$(concat!(stringify!($field), ": ", stringify!($ty))),*];
                fn values(&self) -> Vec<Value> {
                    vec![$(Value::from(self.$field.clone())),*]
                }
                fn strategy() -> BoxedStrategy<Self> {
                    ($(strategy_or_any!($ty $(, $strat)?),)*)
                        .prop_map(|($($field,)*)| $name { $($field),* })
                        .boxed()
                }
                fn scan_page(store: &MemoryStore, reverse: bool, after: Option<Cursor>) -> (Vec<String>, Cursor) {
                    let mut scan = $name::scan().limit(3);
                    if reverse {
                        scan = scan.reverse();
                    }
                    if let Some(c) = after {
                        scan = scan.after(c);
                    }
                    let mut page = scan.run(store);
                    let rows = page.by_ref().map(|r| format!("{:?}", r.expect("row").0)).collect();
                    (rows, page.cursor())
                }
                fn prefix_ranges(&self) -> Vec<ScanRangeSet> {
                    let v = self;
                    let mut out = vec![$name::scan().ranges()];
                    prefix_scans!($name, v, out; [] $($field)*);
                    out
                }
            }
        )*

        /// Calls `visitor` with each layout of the catalog.
        pub fn for_each(visitor: &mut impl Visit) {
            $( visitor.visit::<$name>(); )*
        }
    };
}

catalog! {
    // The examples.
    Event ["examples/events.rs"] (salt = hash(user_id, site) % 8, then = user_id, site, rev(timestamp)) {
        user_id: String, site: String, timestamp: u64,
    }
    EventSpread ["examples/events.rs"] (salt = hash(*) % 8, then = user_id, site, rev(timestamp)) {
        user_id: String, site: String, timestamp: u64,
    }
    TimeFirst ["examples/metrics.rs"] (then = timestamp, metric, host) {
        timestamp: u64, metric: String, host: String,
    }
    ByMetric ["examples/metrics.rs"] (salt = hash(metric) % 8, then = metric, timestamp, host) {
        metric: String, timestamp: u64, host: String,
    }
    Spread ["examples/metrics.rs"] (salt = hash(*) % 8, then = metric, timestamp, host) {
        metric: String, timestamp: u64, host: String,
    }
    PerHotel ["examples/hotel_availability.rs"] (then = (hotel_id), day, room_number) {
        hotel_id: String, day: u32, room_number: u16,
    }
    Availability ["examples/hotel_availability.rs"] (salt = hash(hotel_id, bucket(day, 30)) % 64, then = (hotel_id, bucket(day, 30)), day, room_number) {
        hotel_id: String, day: u32, room_number: u16,
    }
    Transaction ["examples/invoices.rs"] (salt = random % 10, then = (invoice_id), transaction_id) {
        invoice_id: String, transaction_id: u32,
    }
    // tests/common/schemas.rs.
    Line [""] (salt = random % 10, then = (invoice_id), rev(created_at), line_no) {
        invoice_id: String, created_at: u64, line_no: u16,
    }
    // docs/ENCODING.md's vectors.
    WideEvent [""] (salt = hash(user_id) % 1000, then = user_id, timestamp) {
        user_id: String, timestamp: u64,
    }
    Ranking [""] (salt = hash(*) % 16, then = rev(score), name) {
        score: i32, name: String,
    }
    Prefixed [""] (prefix = "ev", then = user_id, timestamp) {
        user_id: String, timestamp: u64,
    }
    KarteEvent [""] (format = text(sep = "_"), salt = hash(user_id) % 16, then = user_id, rev(timestamp)) {
        user_id: String, timestamp: u64,
    }
    TextMixed [""] (format = text(sep = "#"), prefix = "ev", then = site, delta, flag, score, tag, blob, letter) {
        site: String, delta: i32, flag: bool, score: f64 = f64_json(), tag: Option<String>, blob: Vec<u8>, letter: char,
    }
    Ranked [""] (format = text(sep = "/"), salt = hash(*) % 1000, then = rev(score), id, reverse(seq)) {
        score: i64, id: [u8; 4], seq: u32,
    }
    Reversed [""] (then = reverse(order_id), line) {
        order_id: u64, line: u16,
    }
    SaltedReversed [""] (salt = hash(order_id) % 16, then = reverse(order_id), line) {
        order_id: u64, line: u16,
    }
    Bucketed [""] (then = hotel_id, bucket(day, 30), day) {
        hotel_id: u32, day: u32,
    }
    BucketedDesc [""] (then = hotel_id, bucket(day, 30), rev(day)) {
        hotel_id: u32, day: u32,
    }
    SignedBuckets [""] (salt = hash(bucket(at, 7)) % 4, then = bucket(at, 7), rev(at), who) {
        at: i64, who: u8,
    }
    PrefixSalt [""] (prefix = "ev", salt = hash(user_id) % 4, then = user_id) {
        user_id: String,
    }
    OneBucket [""] (salt = hash(user_id) % 1, then = user_id) {
        user_id: String,
    }
    Buckets257 [""] (salt = hash(user_id) % 257, then = user_id) {
        user_id: String,
    }
    Nested [""] (then = maybe, x) {
        maybe: Option<Option<u8>>, x: f32 = f32_json(),
    }
    Mixed [""] (salt = hash(a, b) % 8, then = a, rev(b), c, d) {
        a: String, b: i32, c: Option<u16>, d: Vec<u8>,
    }
    Stay [""] (salt = hash(hotel, bucket(day, 7)) % 16, then = hotel, bucket(day, 7), day, room) {
        hotel: String, day: u32, room: u16,
    }
    Everything [""] (format = text(sep = "#"), prefix = "ev\"1", salt = random % 10, then = (invoice_id), reverse(order_id), bucket(day, 30), rev(day)) {
        invoice_id: String, order_id: u64, day: u32,
    }
    EveryType [""] (prefix = "t", salt = hash(*) % 300, then = a, rev(b), c, rev(d), e, rev(f), g, rev(h), i, rev(j)) {
        a: u8, b: u128, c: i16, d: i128, e: bool, f: char, g: [u8; 3], h: f64 = f64_json(), i: Option<Vec<u8>>, j: Option<Option<String>>,
    }
    TextTypes [""] (format = text(sep = "|"), salt = hash(a, c) % 10, then = a, rev(b), c, d, e, reverse(f), g) {
        a: u128, b: i8, c: Option<i64>, d: [u8; 2], e: f32 = f32_json(), f: i16, g: Option<Option<char>>,
    }
    // The uuid, chrono and time types, a derived enum and a derived newtype.
    Stamped [""] (salt = hash(id, priority) % 8, then = id, rev(at), day, local, priority, user) {
        id: Uuid = uuids(), at: DateTime<Utc> = instants(), day: NaiveDate = dates(), local: NaiveDateTime = naive_times(), priority: Priority = priorities(), user: UserId = user_ids(),
    }
    StampedText [""] (format = text(sep = "#"), salt = hash(user) % 4, then = (priority), id, at, day, local, user) {
        priority: Priority = priorities(), id: Uuid = uuids(), at: DateTime<Utc> = instants(), day: NaiveDate = dates(), local: NaiveDateTime = naive_times(), user: UserId = user_ids(),
    }
    TimeStamped [""] (salt = hash(*) % 16, then = day, rev(at), local, maybe) {
        day: time::Date = time_dates(), at: OffsetDateTime = offset_times(), local: PrimitiveDateTime = primitive_times(), maybe: Option<Uuid> = proptest::option::of(uuids()),
    }
}
