//! Where a page that ends on the last row leaves its cursor on the async
//! stores (the Bigtable emulator and dynalite), as `tests/page_end.rs` checks
//! on the embedded ones: each bucket is asked for one row past the limit,
//! and once the page is full the bucket of its last row is read once more,
//! so a merged page that ends on the last row has a finished cursor (no
//! empty page, which would send a request to every bucket), and an
//! unordered one when its last bucket ran out. The requests a full page
//! sends are counted: the row past the limit comes with the bucket's
//! answer, never as a request of its own.
#![cfg(all(feature = "bigtable", feature = "dynamodb"))]

mod common;

use common::{dynalite, emulator};
use futures_util::StreamExt;
use keyschema::store::bigtable::BigtableStore;
use keyschema::store::AsyncStore;
use keyschema::{Cursor, RowKey};

#[derive(RowKey, Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
#[rowkey(salt = hash(tenant, id) % 8, then = (tenant), id)]
struct Spread {
    tenant: String,
    id: u32,
}

const ROWS: u32 = 24;

fn rows() -> Vec<Spread> {
    (0..ROWS)
        .map(|id| Spread {
            tenant: "t".into(),
            id,
        })
        .collect()
}

/// Pages through every row `n` at a time until a page is empty or its
/// cursor is finished: the number of pages and the rows in order.
async fn page_through<S: AsyncStore>(store: &S, n: usize, unordered: bool) -> (usize, Vec<u32>)
where
    S::Error: std::fmt::Debug,
{
    let (mut after, mut pages, mut seen) = (None::<Cursor>, 0, Vec::new());
    loop {
        let mut request = Spread::scan().tenant("t").limit(n);
        if unordered {
            request = request.unordered();
        }
        if let Some(cursor) = after.take() {
            request = request.after(cursor);
        }
        let mut page = request.stream(store);
        let mut got = 0;
        while let Some(row) = page.next().await {
            seen.push(row.expect("row").0.id);
            got += 1;
        }
        let cursor = page.cursor();
        pages += 1;
        assert!(pages <= 100, "paging does not end");
        if got == 0 || cursor.is_finished() {
            return (pages, seen);
        }
        after = Some(cursor);
    }
}

async fn check<S: AsyncStore>(store: S, requests: impl Fn(&S) -> u64)
where
    S::Error: std::fmt::Debug,
{
    let mut merged: Vec<u32> = (0..ROWS).collect();
    merged.sort();
    for n in [1usize, 4, 6, 8, 24, 25] {
        let (pages, seen) = page_through(&store, n, false).await;
        assert_eq!(seen, merged, "merged by {n}");
        assert_eq!(
            pages,
            (ROWS as usize).div_ceil(n),
            "merged by {n}: no empty page"
        );
        let (pages, mut seen) = page_through(&store, n, true).await;
        seen.sort();
        assert_eq!(seen, merged, "unordered by {n}");
        assert!(
            pages <= (ROWS as usize).div_ceil(n) + 1,
            "unordered by {n}: {pages} pages"
        );
    }
    // A full merged page: one request per bucket, the row past the limit
    // included in each bucket's answer.
    let before = requests(&store);
    let mut page = Spread::scan()
        .tenant("t")
        .limit(ROWS as usize)
        .stream(&store);
    let mut got = 0;
    while let Some(row) = page.next().await {
        row.expect("row");
        got += 1;
    }
    assert_eq!(got, ROWS as usize);
    assert!(page.cursor().is_finished());
    assert_eq!(requests(&store) - before, u64::from(Spread::BUCKETS));
}

#[tokio::test]
async fn bigtable_pages_end_with_a_finished_cursor() {
    let store = BigtableStore::connect_emulator(
        &emulator::host(),
        "p",
        "i",
        &emulator::fresh_table("pageend"),
    )
    .await
    .expect("connect");
    store.create_table_for::<Spread>().await.expect("create");
    store
        .put_rows(rows().iter().map(|r| (r, b"v")))
        .await
        .expect("write");
    check(store, BigtableStore::read_rows_calls).await;
}

#[tokio::test]
async fn dynamodb_pages_end_with_a_finished_cursor() {
    let store = dynalite::store::<Spread>("pageend").await;
    store
        .put_rows(rows().iter().map(|r| (r, b"v")))
        .await
        .expect("write");
    check(store, |s| s.requests().query).await;
}
