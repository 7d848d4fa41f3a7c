//! Typed scans over 1,000,000 rows: the ordered 8-bucket merge against
//! unordered reading and against an unsalted single-range scan of the same
//! logical rows, on redb and in memory; and latest-10 queries for one user.
//!
//! Run: `cargo bench --bench scan` (about two minutes; set up takes ~10 s).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use keyschema::store::{MemoryStore, Mutation, RedbStore, Store};
use keyschema::RowKey;
use std::hint::black_box;
use std::time::Duration;

#[allow(dead_code)]
#[path = "../tests/common/schemas.rs"]
mod schemas;
use schemas::Event;

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

fn count<I: Iterator<Item = Result<T, E>>, T, E: std::fmt::Debug>(rows: I) -> usize {
    rows.fold(0, |n, r| {
        black_box(r.expect("row"));
        n + 1
    })
}

fn scans(c: &mut Criterion) {
    let rows = rows();
    let salted_dir = tempfile::tempdir().expect("temp dir");
    let plain_dir = tempfile::tempdir().expect("temp dir");
    let salted = RedbStore::open(salted_dir.path()).expect("redb");
    let plain = RedbStore::open(plain_dir.path()).expect("redb");
    let memory_salted = MemoryStore::new();
    let memory_plain = MemoryStore::new();
    load(&salted, rows.iter().map(RowKey::encode));
    load(&memory_salted, rows.iter().map(RowKey::encode));
    let plain_keys = || {
        rows.iter()
            .map(|e| PlainEvent::get_key(&e.user_id, &e.site, e.timestamp))
    };
    load(&plain, plain_keys());
    load(&memory_plain, plain_keys());

    let mut group = c.benchmark_group("scan_1m_rows");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(8))
        .throughput(Throughput::Elements(ROWS as u64));
    group.bench_function("redb/ordered_8_buckets", |b| {
        b.iter(|| count(Event::scan().run(&salted)))
    });
    group.bench_function("redb/unordered_8_buckets", |b| {
        b.iter(|| count(Event::scan().unordered().run(&salted)))
    });
    group.bench_function("redb/unsalted_one_range", |b| {
        b.iter(|| count(PlainEvent::scan().run(&plain)))
    });
    group.bench_function("memory/ordered_8_buckets", |b| {
        b.iter(|| count(Event::scan().run(&memory_salted)))
    });
    group.bench_function("memory/unordered_8_buckets", |b| {
        b.iter(|| count(Event::scan().unordered().run(&memory_salted)))
    });
    group.bench_function("memory/unsalted_one_range", |b| {
        b.iter(|| count(PlainEvent::scan().run(&memory_plain)))
    });
    group.finish();

    // The heaviest user's latest 10 events: on one site (one range) and on
    // every site (8 buckets merged), against the unsalted table.
    let heavy = "user00000";
    let mut group = c.benchmark_group("latest_10");
    group.bench_function("redb/one_site", |b| {
        b.iter(|| {
            count(
                Event::scan()
                    .user_id(heavy)
                    .site(SITES[0])
                    .limit(10)
                    .run(&salted),
            )
        })
    });
    group.bench_function("redb/one_site_unsalted", |b| {
        b.iter(|| {
            count(
                PlainEvent::scan()
                    .user_id(heavy)
                    .site(SITES[0])
                    .limit(10)
                    .run(&plain),
            )
        })
    });
    group.bench_function("redb/all_sites_8_buckets", |b| {
        b.iter(|| count(Event::scan().user_id(heavy).limit(10).run(&salted)))
    });
    group.bench_function("redb/all_sites_unsalted", |b| {
        b.iter(|| count(PlainEvent::scan().user_id(heavy).limit(10).run(&plain)))
    });
    group.finish();
}

criterion_group!(benches, scans);
criterion_main!(benches);
