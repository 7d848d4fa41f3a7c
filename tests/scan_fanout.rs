//! Remote fan-out on the Bigtable emulator and dynalite: an async scan over
//! many salt buckets keeps at most `concurrency` requests in flight, reads
//! an unordered page's buckets lazily, returns exactly what the sync scan
//! of the same rows on the memory store returns, and pages with a cursor
//! the size of one key, also across a page boundary between two rows of the
//! same key after the salt in two buckets (another program's salt). (How
//! much faster concurrency is: `cargo bench
//! --bench scan --all-features`.)
#![cfg(all(feature = "bigtable", feature = "dynamodb"))]

mod common;

use common::watch::Watch;
use common::{dynalite, emulator};
use futures_util::{Stream, StreamExt};
use keyschema::store::bigtable::BigtableStore;
use keyschema::store::{AsyncStore, MemoryStore, Mutation, RowError, RowStore, Store};
use keyschema::{Cursor, RowKey};

#[derive(RowKey, Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
#[rowkey(salt = hash(tenant, id) % 64, then = (tenant), id, seq)]
struct Spread {
    tenant: String,
    id: u32,
    seq: u32,
}

/// DynamoDB's write-sharding at its upper range: 1,000 random suffixes.
#[derive(RowKey, Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
#[rowkey(salt = random % 1000, then = (tenant), seq)]
struct Sharded {
    tenant: String,
    seq: u32,
}

fn spread_rows() -> Vec<Spread> {
    (0..320u32)
        .flat_map(|id| {
            (0..2).map(move |seq| Spread {
                tenant: "t".into(),
                id,
                seq,
            })
        })
        .collect()
}

async fn all<T, E: std::fmt::Debug>(rows: impl Stream<Item = Result<(T, Vec<u8>), E>>) -> Vec<T> {
    rows.map(|r| r.expect("row").0).collect().await
}

/// Every mode and concurrency against the sync scan of the same rows on
/// the memory store; the most streams waiting at once never above the
/// concurrency; a merged scan needs every bucket, an unordered page few.
async fn fan_out<S: AsyncStore + Send + Sync>(store: S, requests: impl Fn(&S) -> u64)
where
    S::Error: std::fmt::Debug,
{
    let memory = MemoryStore::new();
    memory
        .put_rows(spread_rows().iter().map(|r| (r, b"v")))
        .expect("memory");
    // Another program's copy of the 7th row under the last bucket's salt:
    // the same key after the salt in two buckets, merged by bucket, on
    // either side of the first page boundary when paged by 7 below.
    let mut foreign = Spread::get_key("t", 3, 0);
    foreign[0] = if foreign[0] == 63 { 62 } else { 63 };
    let put = Mutation::Put {
        key: foreign,
        value: b"v".to_vec(),
    };
    memory
        .write_batch(std::slice::from_ref(&put))
        .expect("memory");
    store
        .write_for(Spread::schema(), vec![put])
        .await
        .expect("the foreign row");
    let expected_merged: Vec<Spread> = Spread::scan()
        .tenant("t")
        .run(&memory)
        .map(|r| r.expect("row").0)
        .collect();
    let expected_unordered: Vec<Spread> = Spread::scan()
        .tenant("t")
        .unordered()
        .run(&memory)
        .map(|r| r.expect("row").0)
        .collect();
    let store = Watch::new(store);
    for concurrency in [1, 4, 16] {
        let rows = all(Spread::scan()
            .tenant("t")
            .concurrency(concurrency)
            .stream(&store))
        .await;
        assert_eq!(rows, expected_merged, "merged, concurrency {concurrency}");
        let (most, polled) = store.take();
        assert!(
            most <= concurrency,
            "{most} streams waited at once, concurrency {concurrency}"
        );
        assert_eq!(polled, 64, "a merged scan reads every bucket");

        let rows = all(Spread::scan()
            .tenant("t")
            .unordered()
            .concurrency(concurrency)
            .stream(&store))
        .await;
        assert_eq!(
            rows, expected_unordered,
            "unordered, concurrency {concurrency}"
        );
        let (most, _) = store.take();
        assert!(
            most <= concurrency,
            "{most} streams waited at once, concurrency {concurrency}"
        );
    }

    // An unordered page of 5 rows reads the buckets it needs, and a few ahead.
    let before = requests(&store.inner);
    let mut page = Spread::scan()
        .tenant("t")
        .unordered()
        .limit(5)
        .stream(&store);
    let mut got = 0;
    while let Some(row) = page.next().await {
        row.expect("row");
        got += 1;
    }
    assert_eq!(got, 5);
    let needed = {
        let mut n = 0;
        let mut rows = 0;
        while rows < 5 {
            rows += expected_unordered
                .iter()
                .filter(|r| Spread::get_key(&r.tenant, r.id, r.seq)[0] == n)
                .count();
            n += 1;
        }
        usize::from(n)
    };
    let (_, polled) = store.take();
    println!("an unordered page of 5 over 64 buckets: {polled} buckets read, {needed} needed");
    assert!(
        polled <= needed + 3,
        "{polled} buckets read for a page that needs {needed}"
    );
    assert!(requests(&store.inner) - before <= polled as u64 + 1);

    // Paging by 7, merged and unordered: every row once, cursors of one key.
    for ordered in [true, false] {
        let mut cursor: Option<Cursor> = None;
        let mut seen = Vec::new();
        loop {
            let mut request = Spread::scan().tenant("t").limit(7).concurrency(4);
            if !ordered {
                request = request.unordered();
            }
            if let Some(c) = cursor.take() {
                request = request.after(c);
            }
            let mut page = request.stream(&store);
            let mut n = 0;
            while let Some(row) = page.next().await {
                seen.push(row.expect("row").0);
                n += 1;
            }
            let next = page.cursor();
            assert!(
                next.to_bytes().len() <= 19 + 4 + 8,
                "cursor of {} bytes",
                next.to_bytes().len()
            );
            if n == 0 || next.is_finished() {
                break;
            }
            cursor = Some(next);
        }
        let expected = if ordered {
            &expected_merged
        } else {
            &expected_unordered
        };
        assert_eq!(&seen, expected, "paged, ordered: {ordered}");
    }
}

#[tokio::test]
async fn bigtable_fan_out_is_bounded_lazy_and_exact() {
    let store = BigtableStore::connect_emulator(
        &emulator::host(),
        "p",
        "i",
        &emulator::fresh_table("fanout"),
    )
    .await
    .expect("connect");
    store.create_table_for::<Spread>().await.expect("create");
    store
        .put_rows(spread_rows().iter().map(|r| (r, b"v")))
        .await
        .expect("write");
    fan_out(store, BigtableStore::read_rows_calls).await;
}

#[tokio::test]
async fn dynamodb_fan_out_is_bounded_lazy_and_exact() {
    let store = dynalite::store::<Spread>("fanout").await;
    store
        .put_rows(spread_rows().iter().map(|r| (r, b"v")))
        .await
        .expect("write");
    fan_out(store, |s| s.requests().query).await;
}

/// 1,000 random suffixes: an unordered page of 10 reads a few partitions
/// (before: a Query to every one of the 1,000), and paging through by 100
/// returns every row once.
#[tokio::test]
async fn a_thousand_write_shards_page_lazily_on_dynamodb() {
    let store = dynalite::store::<Sharded>("shards").await;
    let rows: Vec<Sharded> = (0..3000)
        .map(|seq| Sharded {
            tenant: "acme".into(),
            seq,
        })
        .collect();
    store
        .put_rows(rows.iter().map(|r| (r, b"v")))
        .await
        .expect("write");
    let before = store.requests().query;
    let page: Vec<Sharded> = all(Sharded::scan()
        .tenant("acme")
        .unordered()
        .limit(10)
        .stream(&store))
    .await;
    assert_eq!(page.len(), 10);
    let queries = store.requests().query - before;
    println!("an unordered page of 10 over 1,000 partitions: {queries} Query calls");
    assert!(
        queries <= 40,
        "{queries} Query calls for a page of 10 over 1,000 partitions"
    );

    let mut cursor: Option<Cursor> = None;
    let mut seen = Vec::new();
    loop {
        let mut request = Sharded::scan().tenant("acme").unordered().limit(100);
        if let Some(c) = cursor.take() {
            request = request.after(c);
        }
        let mut stream = request.stream(&store);
        let mut n = 0;
        while let Some(row) = stream.next().await {
            let row: Result<_, RowError<_>> = row;
            seen.push(row.expect("row").0);
            n += 1;
        }
        let next = stream.cursor();
        assert!(
            next.to_bytes().len() < 64,
            "cursor of {} bytes",
            next.to_bytes().len()
        );
        if n == 0 || next.is_finished() {
            break;
        }
        cursor = Some(next);
    }
    seen.sort();
    assert_eq!(seen, rows);
}
