//! Typed scans on the Bigtable emulator: the 8-bucket merged stream (one
//! ReadRows per bucket, concurrent) against one request carrying the whole
//! RowSet, and MutateRows ingest. Starts its own emulator.
//!
//! Run: `cargo bench --features bigtable --bench bigtable`

#[path = "../tests/common/emulator.rs"]
mod emulator;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use futures_util::StreamExt;
use keyschema::store::bigtable::BigtableStore;
use keyschema::store::Direction;
use std::time::Duration;

#[allow(dead_code)]
#[path = "../tests/common/schemas.rs"]
mod schemas;
use schemas::Event;

const ROWS: u64 = 20_000;

fn events() -> Vec<Event> {
    (0..ROWS)
        .map(|t| Event {
            user_id: format!("user{:04}", t % 1000),
            site: format!("s{}", t % 5),
            timestamp: t,
        })
        .collect()
}

/// Reads a stream to its end, failing on any error item; returns the count.
async fn count<T, E: std::fmt::Debug>(
    stream: impl futures_util::Stream<Item = Result<T, E>>,
) -> usize {
    stream
        .fold(0usize, |n, r| async move {
            r.expect("row");
            n + 1
        })
        .await
}

fn bigtable(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let host = emulator::host();
    let store = runtime.block_on(async {
        let store = BigtableStore::connect_emulator(
            &host,
            "bench",
            "bench",
            &emulator::fresh_table("bench"),
        )
        .await
        .expect("connect");
        store.create_table_for::<Event>().await.expect("create");
        store
    });
    let events = events();

    let mut group = c.benchmark_group("bigtable_emulator");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10))
        .throughput(Throughput::Elements(ROWS));
    group.bench_function("mutate_rows_20k_in_batches_of_1000", |b| {
        b.iter(|| {
            runtime.block_on(async {
                for chunk in events.chunks(1000) {
                    store
                        .put_rows(chunk.iter().map(|e| (e, b"0123456789abcdef")))
                        .await
                        .expect("write");
                }
            })
        })
    });
    group.bench_function("typed_stream_8_buckets_merged", |b| {
        b.iter(|| {
            runtime.block_on(async {
                let n = count(Event::scan().stream(&store)).await;
                assert_eq!(n as u64, ROWS);
            })
        })
    });
    group.bench_function("typed_stream_8_buckets_unordered", |b| {
        b.iter(|| {
            runtime.block_on(async {
                let n = count(Event::scan().unordered().stream(&store)).await;
                assert_eq!(n as u64, ROWS);
            })
        })
    });
    group.bench_function("one_request_rowset_raw", |b| {
        b.iter(|| {
            runtime.block_on(async {
                let n =
                    count(store.scan_set(&Event::scan().ranges(), Direction::Forward, None)).await;
                assert_eq!(n as u64, ROWS);
            })
        })
    });
    group.finish();
}

criterion_group!(benches, bigtable);
criterion_main!(benches);
