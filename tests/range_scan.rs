//! `RangeScan`, the library's merged scan of given key ranges on an
//! `AsyncStore` (what the command line tool's `scan` reads through),
//! against a model of merged order: every row of the ranges, sorted by the
//! key after the header, ties (a `random % N` row's copies) in range
//! order, reversed for `reverse()`; with limits, concurrency, a per-range
//! ask, and cursors that page through without repeating or skipping a
//! row. The store is the memory store behind an async face whose streams
//! answer `Pending` before every row, as a remote store's do.

use futures_util::{stream, StreamExt};
use keyschema::dynamic::{DynSchema, Value};
use keyschema::store::{
    AsyncStore, BoxFuture, BoxRowStream, Cas, Direction, MemoryStore, Mutation, Row, Store,
};
use keyschema::{KeyRange, KeyTooLong, RangeScan, RowKey, Schema};
use std::sync::Mutex;

/// A row with copies: each written in one to three of its 4 buckets.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(prefix = "v", salt = random % 4, then = user_id, rev(ts))]
struct Visit {
    user_id: String,
    ts: u64,
}

/// The memory store as an async one; each stream's `limit` is recorded.
struct Slow {
    inner: MemoryStore,
    asked: Mutex<Vec<Option<usize>>>,
}

impl AsyncStore for Slow {
    type Error = KeyTooLong;

    fn scan_stream(
        &self,
        range: &KeyRange,
        direction: Direction,
        limit: Option<usize>,
    ) -> BoxRowStream<KeyTooLong> {
        self.asked.lock().expect("lock").push(limit);
        let rows: Vec<Result<Row, KeyTooLong>> = match self.inner.scan(range, direction) {
            Ok(rows) => rows.take(limit.unwrap_or(usize::MAX)).collect(),
            Err(e) => vec![Err(e)],
        };
        stream::iter(rows)
            .then(|row| async move {
                tokio::task::yield_now().await;
                row
            })
            .boxed()
    }

    fn get_many(&self, keys: Vec<Vec<u8>>) -> BoxFuture<'_, Result<Vec<Row>, KeyTooLong>> {
        Box::pin(async move {
            let found = Store::get_many(&self.inner, &keys)?;
            Ok(keys
                .into_iter()
                .zip(found)
                .filter_map(|(k, v)| v.map(|v| (k, v)))
                .collect())
        })
    }

    fn write(&self, batch: Vec<Mutation>) -> BoxFuture<'_, Result<(), KeyTooLong>> {
        Box::pin(async move { self.inner.write_batch(&batch) })
    }

    fn compare_and_write(&self, _: Vec<Cas>) -> BoxFuture<'_, Result<Vec<bool>, KeyTooLong>> {
        Box::pin(async { Ok(Vec::new()) })
    }
}

/// A small generator, the same on every run.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n
    }
}

/// A store holding `n` visits of 5 users, each in 1 to 3 buckets (a
/// copy's value names its bucket), and every row written.
fn filled(layout: &DynSchema, seed: u64, n: u64) -> (Slow, Vec<(u32, Row)>) {
    let mut rng = Lcg(seed);
    let mut rows = Vec::new();
    for i in 0..n {
        let user = format!("u{}", rng.below(5));
        let ts = rng.below(40) + i % 3;
        let values = [Value::from(user.as_str()), Value::U64(ts)];
        let copies = 1 + rng.below(3);
        for _ in 0..copies {
            let bucket = rng.below(4) as u32;
            let key = layout.encode_in(&values, bucket).expect("key");
            rows.push((bucket, (key, vec![bucket as u8])));
        }
    }
    rows.sort();
    rows.dedup_by(|a, b| a.1 .0 == b.1 .0);
    let store = MemoryStore::new();
    let puts = rows
        .iter()
        .map(|(_, (key, value))| Mutation::Put {
            key: key.clone(),
            value: value.clone(),
        })
        .collect::<Vec<_>>();
    store.write_batch(&puts).expect("write");
    (
        Slow {
            inner: store,
            asked: Mutex::new(Vec::new()),
        },
        rows,
    )
}

/// The model: the rows of `ranges` (by bucket) in merged order.
fn model(
    rows: &[(u32, Row)],
    ranges: &[KeyRange],
    header: usize,
    reverse: bool,
) -> Vec<(u32, Vec<u8>)> {
    let mut inside: Vec<(usize, u32, Vec<u8>)> = Vec::new();
    for (i, r) in ranges.iter().enumerate() {
        for (_, (key, _)) in rows.iter().filter(|(_, (k, _))| r.contains(k)) {
            inside.push((i, r.bucket(), key.clone()));
        }
    }
    inside.sort_by(|a, b| {
        let by_body = a.2[header..].cmp(&b.2[header..]);
        let by_body = if reverse { by_body.reverse() } else { by_body };
        by_body.then(a.0.cmp(&b.0))
    });
    inside.into_iter().map(|(_, b, k)| (b, k)).collect()
}

fn run(scan: &RangeScan, store: &Slow) -> (Vec<(u32, Vec<u8>)>, keyschema::Cursor) {
    futures_executor_block_on(async {
        let mut rows = scan.stream(store);
        let mut got = Vec::new();
        while let Some(row) = rows.next().await {
            let (bucket, (key, value)) = row.expect("row");
            assert_eq!(value, vec![bucket as u8], "the copy of its own bucket");
            got.push((bucket, key));
        }
        (got, rows.cursor())
    })
}

fn futures_executor_block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime")
        .block_on(f)
}

#[test]
fn range_scan_merges_like_the_model() {
    let document = Visit::schema().to_json();
    let layout = DynSchema::from_json(&document).expect("layout");
    let schema: &'static Schema = Schema::from_document(&document).expect("schema");
    let header = schema.header_len();
    for seed in 0..6u64 {
        let (store, rows) = filled(&layout, seed, 60);
        for binding in [vec![], vec![Value::from("u1")]] {
            let ranges: Vec<KeyRange> = layout
                .ranges(&binding, None)
                .expect("ranges")
                .iter()
                .cloned()
                .collect();
            for reverse in [false, true] {
                let want = model(&rows, &ranges, header, reverse);
                for concurrency in [1, 3, 16] {
                    let mut scan = RangeScan::new(schema, ranges.clone()).concurrency(concurrency);
                    if reverse {
                        scan = scan.reverse();
                    }
                    let (all, cursor) = run(&scan, &store);
                    assert_eq!(
                        all, want,
                        "seed {seed}, reverse {reverse}, {concurrency} at once"
                    );
                    assert!(cursor.is_finished());

                    // Pages of 7, each resumed from the last one's cursor:
                    // the same rows, none twice.
                    let mut paged = Vec::new();
                    let mut after: Option<keyschema::Cursor> = None;
                    loop {
                        store.asked.lock().expect("lock").clear();
                        let mut page = scan.clone().limit(7);
                        if let Some(c) = after.take() {
                            page = page.after(c);
                        }
                        let (rows, cursor) = run(&page, &store);
                        assert!(rows.len() <= 7);
                        // Each range is asked for one row past the page.
                        assert!(store
                            .asked
                            .lock()
                            .expect("lock")
                            .iter()
                            .all(|a| *a == Some(8)));
                        paged.extend(rows);
                        if cursor.is_finished() {
                            break;
                        }
                        after = Some(cursor);
                    }
                    assert_eq!(paged, want, "paged: seed {seed}, reverse {reverse}");
                }
            }
            // A per-range ask bounds each range's stream, whatever the limit.
            store.asked.lock().expect("lock").clear();
            let scan = RangeScan::new(schema, ranges.clone()).limit(3).per_range(2);
            let (got, _) = run(&scan, &store);
            let want = model(&rows, &ranges, header, false);
            let mut bounded: Vec<(u32, Vec<u8>)> = Vec::new();
            for r in &ranges {
                bounded.extend(want.iter().filter(|(_, k)| r.contains(k)).take(2).cloned());
            }
            let bounded = model(
                &bounded
                    .into_iter()
                    .map(|(b, k)| (b, (k, vec![b as u8])))
                    .collect::<Vec<_>>(),
                &ranges,
                header,
                false,
            );
            assert_eq!(got, bounded.into_iter().take(3).collect::<Vec<_>>());
            assert!(store
                .asked
                .lock()
                .expect("lock")
                .iter()
                .all(|a| *a == Some(2)));
        }
    }
}

#[test]
fn a_cursor_of_other_ranges_is_refused() {
    let document = Visit::schema().to_json();
    let layout = DynSchema::from_json(&document).expect("layout");
    let schema: &'static Schema = Schema::from_document(&document).expect("schema");
    let (store, _) = filled(&layout, 9, 30);
    let all: Vec<KeyRange> = layout
        .ranges(&[], None)
        .expect("ranges")
        .iter()
        .cloned()
        .collect();
    let (_, cursor) = run(&RangeScan::new(schema, all).limit(2), &store);
    let one: Vec<KeyRange> = layout
        .ranges(&[Value::from("u1")], None)
        .expect("ranges")
        .iter()
        .cloned()
        .collect();
    let mut rows = futures_executor_block_on(async {
        let mut rows = RangeScan::new(schema, one).after(cursor).stream(&store);
        let first = rows.next().await;
        (first, rows.next().await)
    });
    assert!(
        matches!(
            rows.0.take(),
            Some(Err(keyschema::store::RowError::Cursor(
                keyschema::CursorError::OtherRequest { .. }
            )))
        ),
        "{:?}",
        rows.0
    );
    assert!(rows.1.is_none(), "nothing is read after the refusal");
}
