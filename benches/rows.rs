//! Whole rows against keys alone (issue 19): 1,000,000 rows on redb with two
//! value fields (an action and an amount), read in one run by
//!
//! - the raw store scan of the same bytes, every bucket's range (the floor);
//! - the key-only typed scan (key fields decoded, the value left as bytes);
//! - the whole-row typed scan (`.records()`: key and value fields decoded),
//!
//! each ordered (the 8-bucket merge) and unordered. Every field of every row
//! is read by the benchmark. Run: `cargo bench --bench rows`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use keyschema::record::encode_values;
use keyschema::store::{Direction, Mutation, RedbStore, Store};
use keyschema::RowKey;
use std::hint::black_box;
use std::time::Duration;

#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = hash(user_id, site) % 8, then = user_id, site, rev(timestamp))]
struct Visit {
    user_id: String,
    site: String,
    timestamp: u64,
    #[rowkey(value)]
    action: String,
    #[rowkey(value)]
    amount: u64,
}

const ROWS: usize = 1_000_000;
const ACTIONS: [&str; 4] = ["view", "click", "add_to_cart", "purchase"];

fn rows() -> impl Iterator<Item = Visit> {
    let mut state = 0x5EEDu64;
    (0..ROWS).map(move |i| {
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
}

/// Reads every field, so that nothing is left undecoded.
fn touch(v: &Visit) -> usize {
    v.user_id.len() + v.site.len() + v.action.len() + (v.timestamp ^ v.amount) as usize
}

fn whole_rows(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = RedbStore::open(dir.path()).expect("redb");
    let mut batch = Vec::with_capacity(50_000);
    for row in rows() {
        batch.push(Mutation::Put {
            key: row.encode(),
            value: encode_values(&row).expect("values"),
        });
        if batch.len() == 50_000 {
            store.write_batch(&batch).expect("load");
            batch.clear();
        }
    }
    store.write_batch(&batch).expect("load");
    let ranges: Vec<_> = Visit::scan().ranges().iter().cloned().collect();

    let mut group = c.benchmark_group("rows_1m");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10))
        .throughput(Throughput::Elements(ROWS as u64));
    group.bench_function("redb/raw_scan", |b| {
        b.iter(|| {
            let mut n = 0usize;
            for range in &ranges {
                for row in store.scan(range, Direction::Forward).expect("scan") {
                    let (key, value) = row.expect("row");
                    n += key.len() + value.len();
                }
            }
            black_box(n)
        })
    });
    for (name, ordered) in [("ordered", true), ("unordered", false)] {
        let request = || {
            let r = Visit::scan().request();
            if ordered {
                r
            } else {
                r.unordered()
            }
        };
        group.bench_function(format!("redb/{name}/key_only"), |b| {
            b.iter(|| {
                let mut n = 0usize;
                for row in request().run(&store) {
                    let (visit, value) = row.expect("row");
                    n += touch(&visit) + value.len();
                }
                black_box(n)
            })
        });
        group.bench_function(format!("redb/{name}/whole_rows"), |b| {
            b.iter(|| {
                let mut n = 0usize;
                for row in request().run(&store).records() {
                    n += touch(&row.expect("row"));
                }
                black_box(n)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, whole_rows);
criterion_main!(benches);
