//! DynamoDB on dynalite (started here): BatchWriteItem ingest, and the
//! write-sharding read, one Query per suffix, all in flight and merged,
//! against the same Queries one after another.
//!
//! Run: `cargo bench --features dynamodb --bench dynamodb`

#[allow(dead_code)]
#[path = "../tests/common/dynalite.rs"]
mod dynalite;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use futures_util::StreamExt;
use keyschema::store::dynamodb::DynamoStore;
use keyschema::store::Direction;
use keyschema::RowKey;
use std::time::Duration;

/// The invoices example's key: 10 random suffixes.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = random % 10, then = (invoice_id), transaction_id)]
struct Transaction {
    invoice_id: String,
    transaction_id: u32,
}

/// For ingest: a hashed suffix, so rewriting a row overwrites it.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = hash(invoice_id, transaction_id) % 10, then = (invoice_id), transaction_id)]
struct Hashed {
    invoice_id: String,
    transaction_id: u32,
}

const ROWS: u32 = 2_000;

fn dynamodb(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let endpoint = dynalite::endpoint();
    let (reads, writes) = runtime.block_on(async {
        let reads = DynamoStore::connect_local::<Transaction>(
            &endpoint,
            &dynalite::fresh_table("bench-read"),
        )
        .expect("store");
        reads.create_table().await.expect("create");
        let rows: Vec<Transaction> = (0..ROWS)
            .map(|t| Transaction {
                invoice_id: "INV-1".into(),
                transaction_id: t,
            })
            .collect();
        reads
            .put_rows(rows.iter().map(|r| (r, b"12.50")))
            .await
            .expect("load");
        let writes =
            DynamoStore::connect_local::<Hashed>(&endpoint, &dynalite::fresh_table("bench-write"))
                .expect("store");
        writes.create_table().await.expect("create");
        (reads, writes)
    });

    let mut group = c.benchmark_group("dynamodb_ingest");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10));
    let batch: Vec<Hashed> = (0..1_000)
        .map(|t| Hashed {
            invoice_id: "INV-2".into(),
            transaction_id: t,
        })
        .collect();
    group.throughput(Throughput::Elements(batch.len() as u64));
    group.bench_function("batch_write_item_1000_rows", |b| {
        b.iter(|| {
            runtime
                .block_on(writes.put_rows(batch.iter().map(|r| (r, b"12.50"))))
                .expect("write")
        })
    });
    group.finish();

    let request = Transaction::scan().invoice_id("INV-1");
    let ranges = request.ranges();
    let mut group = c.benchmark_group("dynamodb_invoice_read");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10));
    group.throughput(Throughput::Elements(u64::from(ROWS)));
    group.bench_function("10_queries_concurrent_merged", |b| {
        b.iter(|| {
            runtime.block_on(async {
                let n = request.stream(&reads).fold(0usize, |n, r| async move {
                    r.expect("row");
                    n + 1
                });
                assert_eq!(n.await, ROWS as usize);
            })
        })
    });
    group.bench_function("10_queries_one_after_another", |b| {
        b.iter(|| {
            runtime.block_on(async {
                let mut n = 0;
                for range in &ranges {
                    let mut rows = reads.scan(range, Direction::Forward, None);
                    while let Some(row) = rows.next().await {
                        row.expect("row");
                        n += 1;
                    }
                }
                assert_eq!(n, ROWS as usize);
            })
        })
    });
    group.finish();
}

criterion_group!(benches, dynamodb);
criterion_main!(benches);
