//! Indexes (issue 20), side by side in one run on redb, 100,000 whole rows
//! (two value fields) and a by-site index:
//!
//! - writes: the rows alone (the floor); the rows with the index
//!   (`put_records`: one transaction reads each row's old value, writes it
//!   and its entry); what a user writes instead, two hand-written key types
//!   (the row and a by-site copy of it, both in one batch, nothing read);
//! - reads of one site's rows (about 20,000): through the index
//!   (`.rows()`: each entry's row read and checked); the hand-written copy's
//!   scan (its rows carry the values, nothing checked); a primary-key scan
//!   of as many rows (the floor of reading rows whole).
//!
//! Run: `cargo bench --bench index`.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use keyschema::store::{RecordStore, RedbStore};
use keyschema::RowKey;
use std::hint::black_box;
use std::time::Duration;

/// The row with its index.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(
    salt = hash(user_id, site) % 8,
    then = user_id, site, rev(timestamp),
    index(VisitBySite, prefix = "s", salt = hash(site, user_id) % 8, then = (site), rev(timestamp), user_id),
)]
struct Visit {
    user_id: String,
    site: String,
    timestamp: u64,
    #[rowkey(value)]
    action: String,
    #[rowkey(value)]
    amount: u64,
}

/// The same row without an index: the rows-alone floor, and the first of
/// the two hand-written key types.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = hash(user_id, site) % 8, then = user_id, site, rev(timestamp))]
struct Plain {
    user_id: String,
    site: String,
    timestamp: u64,
    #[rowkey(value)]
    action: String,
    #[rowkey(value)]
    amount: u64,
}

/// The hand-written by-site copy: the whole row again under the site layout.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(prefix = "h", salt = hash(site, user_id) % 8, then = (site), rev(timestamp), user_id)]
struct SiteCopy {
    site: String,
    timestamp: u64,
    user_id: String,
    #[rowkey(value)]
    action: String,
    #[rowkey(value)]
    amount: u64,
}

const ROWS: usize = 100_000;
const ACTIONS: [&str; 4] = ["view", "click", "add_to_cart", "purchase"];

fn rows() -> Vec<Visit> {
    let mut state = 0x5EEDu64;
    (0..ROWS)
        .map(|i| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            Visit {
                user_id: format!("user{:05}", (state >> 40) % 100_000),
                site: format!("site{}.example", (state >> 20) % 5),
                timestamp: 1_700_000_000 + i as u64,
                action: ACTIONS[(state >> 8) as usize % ACTIONS.len()].to_string(),
                amount: state % 10_000,
            }
        })
        .collect()
}

fn plain(v: &Visit) -> Plain {
    Plain {
        user_id: v.user_id.clone(),
        site: v.site.clone(),
        timestamp: v.timestamp,
        action: v.action.clone(),
        amount: v.amount,
    }
}

fn copy(v: &Visit) -> SiteCopy {
    SiteCopy {
        site: v.site.clone(),
        timestamp: v.timestamp,
        user_id: v.user_id.clone(),
        action: v.action.clone(),
        amount: v.amount,
    }
}

fn fresh() -> (tempfile::TempDir, RedbStore) {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = RedbStore::open(dir.path()).expect("redb");
    (dir, store)
}

fn writes(c: &mut Criterion) {
    let visits = rows();
    let plains: Vec<Plain> = visits.iter().map(plain).collect();
    let copies: Vec<SiteCopy> = visits.iter().map(copy).collect();
    let mut group = c.benchmark_group("index_write_100k");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10))
        .throughput(Throughput::Elements(ROWS as u64));
    group.bench_function("rows_alone", |b| {
        b.iter_batched(
            fresh,
            |(_dir, store)| {
                for chunk in plains.chunks(10_000) {
                    store.put_records(chunk).expect("write");
                }
            },
            BatchSize::PerIteration,
        )
    });
    group.bench_function("rows_with_index", |b| {
        b.iter_batched(
            fresh,
            |(_dir, store)| {
                for chunk in visits.chunks(10_000) {
                    store.put_records(chunk).expect("write");
                }
            },
            BatchSize::PerIteration,
        )
    });
    group.bench_function("two_hand_written_key_types", |b| {
        b.iter_batched(
            fresh,
            |(_dir, store)| {
                for (rows, sites) in plains.chunks(10_000).zip(copies.chunks(10_000)) {
                    let mut batch = Vec::with_capacity(2 * rows.len());
                    for (row, site) in rows.iter().zip(sites) {
                        let value = keyschema::record::encode_values(row).expect("values");
                        batch.push(keyschema::store::Mutation::Put {
                            key: row.encode(),
                            value,
                        });
                        let value = keyschema::record::encode_values(site).expect("values");
                        batch.push(keyschema::store::Mutation::Put {
                            key: site.encode(),
                            value,
                        });
                    }
                    keyschema::store::Store::write_batch(&store, &batch).expect("write");
                }
            },
            BatchSize::PerIteration,
        )
    });
    group.finish();
}

fn touch(user_id: &str, site: &str, action: &str, timestamp: u64, amount: u64) -> usize {
    user_id.len() + site.len() + action.len() + (timestamp ^ amount) as usize
}

fn reads(c: &mut Criterion) {
    let visits = rows();
    let (_dir, store) = fresh();
    for chunk in visits.chunks(10_000) {
        store.put_records(chunk).expect("write");
        let copies: Vec<SiteCopy> = chunk.iter().map(copy).collect();
        store.put_records(&copies).expect("write");
    }
    let site = "site0.example";
    let n = visits.iter().filter(|v| v.site == site).count();
    let mut group = c.benchmark_group("index_read_one_site");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10))
        .throughput(Throughput::Elements(n as u64));
    group.bench_function("through_the_index", |b| {
        b.iter(|| {
            let mut sum = 0;
            for row in VisitBySite::scan().site(site).run(&store).rows() {
                let v = row.expect("row");
                sum += touch(&v.user_id, &v.site, &v.action, v.timestamp, v.amount);
            }
            black_box(sum)
        })
    });
    group.bench_function("hand_written_copy_scan", |b| {
        b.iter(|| {
            let mut sum = 0;
            for row in SiteCopy::scan().site(site).run(&store).records() {
                let v = row.expect("row");
                sum += touch(&v.user_id, &v.site, &v.action, v.timestamp, v.amount);
            }
            black_box(sum)
        })
    });
    group.bench_function("primary_scan_same_count", |b| {
        b.iter(|| {
            let mut sum = 0;
            for row in Visit::scan().request().limit(n).run(&store).records() {
                let v = row.expect("row");
                sum += touch(&v.user_id, &v.site, &v.action, v.timestamp, v.amount);
            }
            black_box(sum)
        })
    });
    group.finish();
}

criterion_group!(benches, writes, reads);
criterion_main!(benches);
