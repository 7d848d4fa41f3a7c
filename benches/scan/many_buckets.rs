//! An unbound scan over 65,536 salt buckets (`salt = hash(id) % 65536`,
//! 100,000 rows in memory): the first page of 10 rows (ordered forwards
//! and backwards, and unordered), its cursor's size, and paging 2,000 rows
//! by 10, ordered and unordered.

use criterion::Criterion;
use keyschema::store::{MemoryStore, RowStore};
use keyschema::RowKey;
use std::time::{Duration, Instant};

#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = hash(id) % 65536, then = id, seq)]
pub struct Wide {
    id: u64,
    seq: u32,
}

const ROWS: u64 = 100_000;

/// Pages of 10 until `rows` rows were read; the cursor's largest size.
fn page_through(store: &MemoryStore, rows: usize, ordered: bool, reverse: bool) -> usize {
    let scan = || {
        let mut scan = Wide::scan().limit(10);
        if !ordered {
            scan = scan.unordered();
        }
        if reverse {
            scan = scan.reverse();
        }
        scan
    };
    let mut read = 0;
    let mut cursor = None;
    let mut largest = 0;
    while read < rows {
        let request = match cursor.take() {
            Some(c) => scan().after(c),
            None => scan(),
        };
        let mut page = request.run(store);
        for row in page.by_ref() {
            row.expect("row");
            read += 1;
        }
        let next = page.cursor();
        largest = largest.max(next.to_bytes().len());
        cursor = Some(next);
    }
    largest
}

pub fn bench(c: &mut Criterion) {
    let store = MemoryStore::new();
    for id in 0..ROWS {
        store.put_row(&Wide { id, seq: 1 }, b"v").expect("put");
    }
    for ordered in [true, false] {
        let mode = if ordered { "ordered" } else { "unordered" };
        let start = Instant::now();
        let first = page_through(&store, 10, ordered, false);
        let first_time = start.elapsed();
        let start = Instant::now();
        let largest = page_through(&store, 2_000, ordered, false);
        println!(
            "65,536 buckets, {mode}: first page of 10 in {:.2} ms, cursor {first} bytes; \
             2,000 rows by 10 in {:.1} ms, largest cursor {largest} bytes",
            first_time.as_secs_f64() * 1e3,
            start.elapsed().as_secs_f64() * 1e3,
        );
    }
    let mut group = c.benchmark_group("buckets_65536");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(5));
    group.bench_function("memory/first_page_ordered", |b| {
        b.iter(|| page_through(&store, 10, true, false))
    });
    // The walk backwards: the last row of each bucket, newest first.
    group.bench_function("memory/first_page_ordered_reverse", |b| {
        b.iter(|| page_through(&store, 10, true, true))
    });
    group.bench_function("memory/first_page_unordered", |b| {
        b.iter(|| page_through(&store, 10, false, false))
    });
    group.finish();
}
