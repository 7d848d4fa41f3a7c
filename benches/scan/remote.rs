//! Remote fan-out, concurrent against one request after another: the first
//! page of 10 rows of a scan merged over 8 buckets (8 requests before the
//! first row), and a whole scan of 8,000 rows, with `.concurrency(8)` and
//! `.concurrency(1)`, on the Bigtable emulator and on dynalite (each
//! started here), reached directly on loopback and through a proxy that
//! adds 2 ms each way (a client in the service's region).

use criterion::Criterion;
use futures_util::StreamExt;
use keyschema::store::bigtable::BigtableStore;
use keyschema::store::dynamodb::DynamoStore;
use keyschema::store::AsyncStore;
use keyschema::RowKey;
use std::time::Duration;

#[allow(dead_code)]
#[path = "../../tests/common/dynalite.rs"]
mod dynalite;
#[allow(dead_code)]
#[path = "../../tests/common/emulator.rs"]
mod emulator;
#[path = "../../tests/common/latency.rs"]
mod latency;

/// The README's events, with the user as DynamoDB's partition.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = hash(user_id, site) % 8, then = (user_id), site, rev(timestamp))]
pub struct Visit {
    user_id: String,
    site: String,
    timestamp: u64,
}

const ROWS: u64 = 8_000;

fn visits() -> Vec<Visit> {
    (0..ROWS)
        .map(|t| Visit {
            user_id: "u1".into(),
            site: format!("site{}", t % 40),
            timestamp: t,
        })
        .collect()
}

async fn read<S: AsyncStore>(store: &S, concurrency: usize, limit: Option<usize>) -> usize {
    let mut request = Visit::scan().user_id("u1").concurrency(concurrency);
    if let Some(n) = limit {
        request = request.limit(n);
    }
    let mut rows = request.stream(store);
    let mut n = 0;
    while let Some(row) = rows.next().await {
        std::hint::black_box(row.expect("row"));
        n += 1;
    }
    n
}

fn side_by_side<S: AsyncStore>(
    c: &mut Criterion,
    runtime: &tokio::runtime::Runtime,
    name: &str,
    store: &S,
) {
    let mut group = c.benchmark_group(format!("fan_out_8_buckets/{name}"));
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(4));
    for concurrency in [8, 1] {
        group.bench_function(format!("first_page_of_10/concurrency_{concurrency}"), |b| {
            b.iter(|| assert_eq!(runtime.block_on(read(store, concurrency, Some(10))), 10))
        });
        group.bench_function(format!("all_8000_rows/concurrency_{concurrency}"), |b| {
            b.iter(|| {
                assert_eq!(
                    runtime.block_on(read(store, concurrency, None)) as u64,
                    ROWS
                )
            })
        });
    }
    group.finish();
}

pub fn bench(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let delay = Duration::from_millis(2);
    let rows = visits();
    let (bigtable, bigtable_far, dynamo, dynamo_far) = runtime.block_on(async {
        let emulator = emulator::host();
        let table = emulator::fresh_table("fanout");
        let near = BigtableStore::connect_emulator(&emulator, "bench", "bench", &table)
            .await
            .expect("connect");
        near.create_table_for::<Visit>().await.expect("create");
        near.put_rows(rows.iter().map(|r| (r, b"v")))
            .await
            .expect("load");
        let far_host = latency::start(emulator, delay).await;
        let far = BigtableStore::connect_emulator(&far_host, "bench", "bench", &table)
            .await
            .expect("connect");

        let endpoint = dynalite::endpoint();
        let table = dynalite::fresh_table("fanout");
        let dnear = DynamoStore::connect_local::<Visit>(&endpoint, &table).expect("store");
        dnear.create_table().await.expect("create");
        dnear
            .put_rows(rows.iter().map(|r| (r, b"v")))
            .await
            .expect("load");
        let upstream = endpoint.trim_start_matches("http://").to_string();
        let far_endpoint = format!("http://{}", latency::start(upstream, delay).await);
        let dfar = DynamoStore::connect_local::<Visit>(&far_endpoint, &table).expect("store");
        (near, far, dnear, dfar)
    });
    side_by_side(c, &runtime, "emulator", &bigtable);
    side_by_side(c, &runtime, "emulator_2ms", &bigtable_far);
    side_by_side(c, &runtime, "dynalite", &dynamo);
    side_by_side(c, &runtime, "dynalite_2ms", &dynamo_far);
}
