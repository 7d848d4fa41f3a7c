//! Typed scans against what a user would write instead, side by side in one
//! run, over 1,000,000 rows on redb and in memory:
//!
//! * `raw`: the store's own scan of the same 8 bucket ranges (`Store::scan`,
//!   owned rows: the floor a caller of the store's scan has);
//! * `raw_hand_decode`: the raw scan plus a hand-written key decoder, bucket
//!   after bucket (what a user writes without keyschema);
//! * `raw_lent`: the rows the store lends (`Store::scan_into`), nothing
//!   decoded: below any caller of `scan`;
//! * `raw_lent_hand_decode`: the lent rows and a hand-written decoder into
//!   one reused event (the tightest loop a user can write);
//! * `typed_unordered_lent` and `typed_ordered_lent`: `Event::scan()` read
//!   with `next_ref` (each row decoded into one reused `Event`, its value
//!   lent), bucket after bucket and merged into key order;
//! * `typed_unordered` and `typed_ordered`: the same through the iterator
//!   (an owned `Event` and value per row);
//! * `unsalted_one_range`: the same logical rows unsalted, one range.
//!
//! Every variant reads every field of every row (a sum over the strings'
//! lengths, the timestamp and the value's length), so no decoding is
//! deferred. Then the heaviest user's latest 10 events, and an unbound first
//! page over 65,536 buckets with its cursor's size (`scan/many_buckets.rs`);
//! and with `--all-features`, remote fan-out concurrent against one request
//! after another on the Bigtable emulator and dynalite (`scan/remote.rs`).
//!
//! Run: `cargo bench --bench scan --all-features` (about five minutes).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use keyschema::store::{Direction, MemoryStore, Mutation, RedbStore, RowSource, Store};
use keyschema::{RowKey, TypedRows};
use std::hint::black_box;
use std::time::Duration;

#[allow(dead_code)]
#[path = "../tests/common/schemas.rs"]
mod schemas;
use schemas::Event;

#[path = "common/hand.rs"]
mod hand;
#[path = "scan/many_buckets.rs"]
mod many_buckets;
#[cfg(all(feature = "bigtable", feature = "dynamodb"))]
#[path = "scan/remote.rs"]
mod remote;

/// Remote fan-out on the emulator and dynalite (with `--all-features`).
fn remote(c: &mut Criterion) {
    #[cfg(all(feature = "bigtable", feature = "dynamodb"))]
    remote::bench(c);
    #[cfg(not(all(feature = "bigtable", feature = "dynamodb")))]
    {
        let _ = c;
        println!("remote fan-out skipped: run with --all-features");
    }
}

/// The same rows, unsalted: one range covers them, in key order.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(then = user_id, site, rev(timestamp))]
struct PlainEvent {
    user_id: String,
    site: String,
    timestamp: u64,
}

const ROWS: usize = 1_000_000;
const SITES: [&str; 5] = [
    "shop.example",
    "news.example",
    "blog.example",
    "docs.example",
    "mail.example",
];

fn rows() -> Vec<Event> {
    // Deterministic skew: user k gets about 1/k of the traffic of user 1.
    let mut state = 0x5EEDu64;
    (0..ROWS)
        .map(|i| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let u = (state >> 33) as f64 / (1u64 << 31) as f64;
            let user = ((100_000f64).powf(u) as usize).saturating_sub(1);
            Event {
                user_id: format!("user{user:05}"),
                site: SITES[(state >> 13) as usize % SITES.len()].to_string(),
                timestamp: 1_700_000_000 + i as u64,
            }
        })
        .collect()
}

fn load<S: Store>(store: &S, keys: impl Iterator<Item = Vec<u8>>) {
    let mut batch = Vec::with_capacity(50_000);
    for key in keys {
        batch.push(Mutation::Put {
            key,
            value: b"payload-16-bytes".to_vec(),
        });
        if batch.len() == 50_000 {
            store.write_batch(&batch).expect("load");
            batch.clear();
        }
    }
    store.write_batch(&batch).expect("load");
}

/// Every field of a typed row, read.
fn fields(event: &Event, value: &[u8]) -> usize {
    event.user_id.len() + event.site.len() + event.timestamp as usize + value.len()
}

/// Reads every row of a typed scan's fields; the sum.
fn typed<I, E>(rows: I) -> usize
where
    I: Iterator<Item = Result<(Event, Vec<u8>), E>>,
    E: std::fmt::Debug,
{
    rows.fold(0, |n, r| {
        let (event, value) = r.expect("row");
        n.wrapping_add(fields(&event, &value))
    })
}

/// Reads every field of every row a typed scan lends (`next_ref`).
fn typed_lent<S: Store>(mut rows: TypedRows<'_, Event, S>) -> usize {
    let mut n = 0usize;
    while let Some(row) = rows.next_ref() {
        let (event, value) = row.expect("row");
        n = n.wrapping_add(fields(event, value));
    }
    n
}

/// The store's rows lent where they lie (`scan_into`), nothing decoded:
/// below what any caller of `scan` can reach.
fn raw_lent<S: Store>(store: &S) -> usize {
    let mut n = 0usize;
    for range in Event::scan().ranges().iter() {
        let mut rows = store.scan_into(range, Direction::Forward).expect("scan");
        while rows.advance().expect("row") {
            n = n.wrapping_add(rows.key().len() + rows.value().len());
        }
    }
    n
}

/// The lent rows and a hand-written decoder into one reused event: what
/// a user writes for the fastest loop over the lent rows.
fn raw_lent_hand_decode<S: Store>(store: &S) -> usize {
    let mut n = 0usize;
    let mut event = Event {
        user_id: String::new(),
        site: String::new(),
        timestamp: 0,
    };
    for range in Event::scan().ranges().iter() {
        let mut rows = store.scan_into(range, Direction::Forward).expect("scan");
        while rows.advance().expect("row") {
            hand::decode_into(rows.key(), &mut event).expect("hand decode");
            n = n.wrapping_add(fields(&event, rows.value()));
        }
    }
    n
}

/// The store's own scan of each bucket's range: every key and value's length.
fn raw<S: Store>(store: &S) -> usize {
    let mut n = 0usize;
    for range in Event::scan().ranges().iter() {
        for row in store.scan(range, Direction::Forward).expect("scan") {
            let (key, value) = row.expect("row");
            n = n.wrapping_add(key.len() + value.len());
        }
    }
    n
}

/// The raw scan and a hand-written decoder: what a user writes instead.
fn raw_hand_decode<S: Store>(store: &S) -> usize {
    let mut n = 0usize;
    for range in Event::scan().ranges().iter() {
        for row in store.scan(range, Direction::Forward).expect("scan") {
            let (key, value) = row.expect("row");
            let event = hand::decode(&key).expect("hand decode");
            n = n.wrapping_add(fields(&event, &value));
        }
    }
    n
}

fn full_scans(c: &mut Criterion) {
    let rows = rows();
    let salted_dir = tempfile::tempdir().expect("temp dir");
    let plain_dir = tempfile::tempdir().expect("temp dir");
    let redb = RedbStore::open(salted_dir.path()).expect("redb");
    let redb_plain = RedbStore::open(plain_dir.path()).expect("redb");
    let memory = MemoryStore::new();
    let memory_plain = MemoryStore::new();
    load(&redb, rows.iter().map(RowKey::encode));
    load(&memory, rows.iter().map(RowKey::encode));
    let plain_keys = || {
        rows.iter()
            .map(|e| PlainEvent::get_key(&e.user_id, &e.site, e.timestamp))
    };
    load(&redb_plain, plain_keys());
    load(&memory_plain, plain_keys());
    // The hand decoder reads what the derive writes.
    for event in rows.iter().take(1000) {
        assert_eq!(hand::decode(&event.encode()).as_ref(), Some(event));
    }

    let mut group = c.benchmark_group("scan_1m_rows");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(6))
        .throughput(Throughput::Elements(ROWS as u64));
    macro_rules! side_by_side {
        ($name:literal, $store:expr, $plain:expr) => {
            group.bench_function(concat!($name, "/raw"), |b| {
                b.iter(|| black_box(raw($store)))
            });
            group.bench_function(concat!($name, "/raw_hand_decode"), |b| {
                b.iter(|| black_box(raw_hand_decode($store)))
            });
            group.bench_function(concat!($name, "/raw_lent"), |b| {
                b.iter(|| black_box(raw_lent($store)))
            });
            group.bench_function(concat!($name, "/raw_lent_hand_decode"), |b| {
                b.iter(|| black_box(raw_lent_hand_decode($store)))
            });
            group.bench_function(concat!($name, "/typed_unordered_lent"), |b| {
                b.iter(|| black_box(typed_lent(Event::scan().unordered().run($store))))
            });
            group.bench_function(concat!($name, "/typed_ordered_lent"), |b| {
                b.iter(|| black_box(typed_lent(Event::scan().run($store))))
            });
            group.bench_function(concat!($name, "/typed_unordered"), |b| {
                b.iter(|| black_box(typed(Event::scan().unordered().run($store))))
            });
            group.bench_function(concat!($name, "/typed_ordered"), |b| {
                b.iter(|| black_box(typed(Event::scan().run($store))))
            });
            group.bench_function(concat!($name, "/unsalted_one_range"), |b| {
                b.iter(|| {
                    black_box(PlainEvent::scan().run($plain).fold(0usize, |n, r| {
                        let (e, v) = r.expect("row");
                        n.wrapping_add(
                            e.user_id.len() + e.site.len() + e.timestamp as usize + v.len(),
                        )
                    }))
                })
            });
        };
    }
    side_by_side!("redb", &redb, &redb_plain);
    side_by_side!("memory", &memory, &memory_plain);
    group.finish();

    // The heaviest user's latest 10 events: on one site (one range) and on
    // every site (8 buckets merged), against the unsalted table.
    let heavy = "user00000";
    let mut group = c.benchmark_group("latest_10");
    group.bench_function("redb/one_site", |b| {
        b.iter(|| {
            typed(
                Event::scan()
                    .user_id(heavy)
                    .site(SITES[0])
                    .limit(10)
                    .run(&redb),
            )
        })
    });
    group.bench_function("redb/all_sites_8_buckets", |b| {
        b.iter(|| typed(Event::scan().user_id(heavy).limit(10).run(&redb)))
    });
    group.bench_function("redb/all_sites_unsalted", |b| {
        b.iter(|| {
            PlainEvent::scan()
                .user_id(heavy)
                .limit(10)
                .run(&redb_plain)
                .count()
        })
    });
    group.bench_function("memory/all_sites_8_buckets", |b| {
        b.iter(|| typed(Event::scan().user_id(heavy).limit(10).run(&memory)))
    });
    group.finish();
}

criterion_group!(benches, full_scans, many_buckets::bench, remote);
criterion_main!(benches);
