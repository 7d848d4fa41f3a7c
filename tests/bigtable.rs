//! The Bigtable store against the real emulator (`cbtemulator`), started by
//! the tests themselves when `BIGTABLE_EMULATOR_HOST` is not set.
#![cfg(feature = "bigtable")]

mod common;

use common::schemas::Event;
use common::{emulator, proxy};

use common::model::{logical_cmp, request, row, Eight, One, Request, Row3, Wide};
use proptest::prelude::*;
use std::sync::OnceLock;

use futures_util::StreamExt;
use keyschema::store::bigtable::{BigtableError, BigtableStore, RowStream};
use keyschema::store::{Direction, Mutation};
use keyschema::RowKey;

async fn store(prefix: &str) -> BigtableStore {
    let store = BigtableStore::connect_emulator(
        &emulator::host(),
        "keyschema",
        "test",
        &emulator::fresh_table(prefix),
    )
    .await
    .expect("connect to the emulator");
    store
        .create_table_for::<Event>()
        .await
        .expect("create table");
    store
}

fn puts(keys: &[Vec<u8>]) -> Vec<Mutation> {
    keys.iter()
        .map(|k| Mutation::Put {
            key: k.clone(),
            value: [b"v:".as_slice(), k].concat(),
        })
        .collect()
}

async fn collect(stream: RowStream) -> Vec<Vec<u8>> {
    stream.map(|r| r.expect("row").0).collect().await
}

#[tokio::test]
async fn writes_gets_and_scans_both_ways() {
    let store = store("basic").await;
    let keys: Vec<Vec<u8>> = (0..50u64).map(|t| Event::get_key("u1", "s", t)).collect();
    store.write_batch(&puts(&keys)).await.expect("batch");
    assert_eq!(
        store.get(&keys[7]).await.unwrap(),
        Some([b"v:".as_slice(), &keys[7]].concat())
    );
    assert_eq!(store.get(b"absent").await.unwrap(), None);

    let range = Event::scan()
        .user_id("u1")
        .site("s")
        .ranges()
        .iter()
        .next()
        .unwrap()
        .clone();
    let forward = collect(store.scan(&range, Direction::Forward, None)).await;
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(forward, sorted);
    let backward = collect(store.scan(&range, Direction::Reverse, None)).await;
    sorted.reverse();
    assert_eq!(
        backward, sorted,
        "reverse scans carry the bigtable-features header"
    );
    let limited = collect(store.scan(&range, Direction::Forward, Some(5))).await;
    assert_eq!(limited.len(), 5);

    // A put replaces the value (timestamp 0), a delete removes the row.
    store.put(&keys[0], b"new").await.unwrap();
    assert_eq!(store.get(&keys[0]).await.unwrap(), Some(b"new".to_vec()));
    store
        .write_batch(&[Mutation::Delete {
            key: keys[0].clone(),
        }])
        .await
        .unwrap();
    assert_eq!(store.get(&keys[0]).await.unwrap(), None);
}

#[tokio::test]
async fn one_request_for_a_whole_range_set() {
    let store = store("rowset").await;
    let keys: Vec<Vec<u8>> = (0..40u64)
        .map(|t| Event::get_key(&format!("u{}", t % 4), &format!("s{}", t % 3), t))
        .collect();
    store.write_batch(&puts(&keys)).await.unwrap();
    let set = Event::scan().user_id("u1").ranges();
    assert_eq!(set.len(), 8);
    let got = collect(store.scan_set(&set, Direction::Forward, None)).await;
    let mut expected: Vec<Vec<u8>> = keys.iter().filter(|k| set.contains(k)).cloned().collect();
    expected.sort();
    assert_eq!(got, expected);
}

#[tokio::test]
async fn a_failing_entry_is_reported_and_the_others_land() {
    let store = store("partial").await;
    let good = Event::get_key("u1", "s", 1);
    // Bigtable rejects an empty row key, entry by entry.
    let batch = vec![
        Mutation::Put {
            key: good.clone(),
            value: b"ok".to_vec(),
        },
        Mutation::Put {
            key: Vec::new(),
            value: b"bad".to_vec(),
        },
        Mutation::Put {
            key: Event::get_key("u2", "s", 1),
            value: b"ok".to_vec(),
        },
        Mutation::Put {
            key: Vec::new(),
            value: b"bad again".to_vec(),
        },
    ];
    let err = store
        .write_batch(&batch)
        .await
        .expect_err("the empty keys fail");
    let BigtableError::PartialBatch { failed, total } = &err else {
        panic!("expected a partial batch, got {err}");
    };
    assert_eq!(*total, 4);
    let indexes: Vec<usize> = failed.iter().map(|f| f.index).collect();
    assert_eq!(indexes, [1, 3], "every failed entry, and only those");
    assert!(
        err.to_string().contains("Row keys must be non-empty"),
        "{err}"
    );
    // The good entries landed.
    assert_eq!(store.get(&good).await.unwrap(), Some(b"ok".to_vec()));
    assert_eq!(
        store.get(&Event::get_key("u2", "s", 1)).await.unwrap(),
        Some(b"ok".to_vec())
    );
}

fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("runtime")
    })
}

/// The typed-scan model of `tests/typed_scan.rs`, on Bigtable: every request
/// ordered, limited, unordered and resumed at every position, against the
/// brute-force answer.
macro_rules! check_bigtable_model {
    ($k:ident, $rows:expr, $req:expr) => {{
        let rows: &[Row3] = $rows;
        let req: &Request = $req;
        let store = BigtableStore::connect_emulator(
            &emulator::host(),
            "keyschema",
            "test",
            &emulator::fresh_table("model"),
        )
        .await
        .expect("connect");
        store.create_table_for::<$k>().await.expect("create table");
        let mut batch: Vec<Mutation> = rows
            .iter()
            .map(|r| Mutation::Put {
                key: $k::from(r).encode(),
                value: format!("{r:?}").into_bytes(),
            })
            .collect();
        batch.dedup_by(|a, b| a == b);
        if !batch.is_empty() {
            store.write_batch(&batch).await.expect("write");
        }
        let expected = req.expected(rows);
        let base = crate::scan_for!($k, req);
        async fn collect<S>(mut s: S) -> (Vec<Row3>, S)
        where
            S: futures_util::Stream<
                    Item = Result<($k, Vec<u8>), keyschema::store::RowError<BigtableError>>,
                > + Unpin,
        {
            let mut out = Vec::new();
            while let Some(r) = s.next().await {
                let (k, v) = r.expect("scan row");
                let row = Row3::from(k);
                assert_eq!(v, format!("{row:?}").into_bytes());
                out.push(row);
            }
            (out, s)
        }
        let (all, s) = collect(base.stream(&store)).await;
        assert_eq!(all, expected, "ordered scan of {req:?}");
        assert!(s.cursor().is_finished());
        if let Some(n) = req.limit {
            let (got, _) = collect(base.clone().limit(n).stream(&store)).await;
            assert_eq!(
                got,
                expected[..n.min(expected.len())],
                "limit {n} of {req:?}"
            );
        }
        let (mut unordered, _) = collect(base.clone().unordered().stream(&store)).await;
        unordered.sort_by(logical_cmp);
        let mut sorted = expected.clone();
        sorted.sort_by(logical_cmp);
        assert_eq!(unordered, sorted, "unordered scan of {req:?}");
        for k in 0..=expected.len() {
            let (head, first) = collect(base.clone().limit(k).stream(&store)).await;
            let (tail, _) = collect(base.clone().after(first.cursor()).stream(&store)).await;
            assert_eq!(
                [head, tail].concat(),
                expected,
                "resume after {k} rows of {req:?}"
            );
        }
    }};
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn bigtable_matches_the_model(rows in prop::collection::vec(row(), 0..16), req in request()) {
        runtime().block_on(async {
            check_bigtable_model!(One, &rows, &req);
            check_bigtable_model!(Eight, &rows, &req);
            check_bigtable_model!(Wide, &rows, &req);
        });
    }
}

#[tokio::test]
async fn typed_scans_merge_the_buckets_concurrently() {
    let store = store("typed").await;
    let events: Vec<Event> = (0..400u64)
        .map(|t| Event {
            user_id: format!("u{}", t % 5),
            site: format!("s{}", t % 3),
            timestamp: t,
        })
        .collect();
    store
        .put_rows(events.iter().map(|e| (e, format!("at {}", e.timestamp))))
        .await
        .unwrap();
    let (row, value) = store
        .get_row::<Event>(&events[7].encode())
        .await
        .unwrap()
        .expect("typed get");
    assert_eq!((row, value), (events[7].clone(), b"at 7".to_vec()));
    let got: Vec<Event> = Event::scan()
        .user_id("u1")
        .request()
        .stream(&store)
        .map(|r| r.unwrap().0)
        .collect()
        .await;
    let mut expected: Vec<Event> = events
        .iter()
        .filter(|e| e.user_id == "u1")
        .cloned()
        .collect();
    expected.sort_by(|a, b| a.site.cmp(&b.site).then(b.timestamp.cmp(&a.timestamp)));
    assert_eq!(got, expected);
    let newest: Vec<u64> = Event::scan()
        .user_id("u1")
        .site("s0")
        .limit(3)
        .stream(&store)
        .map(|r| r.unwrap().0.timestamp)
        .collect()
        .await;
    assert_eq!(newest, [396, 381, 366]);
    let oldest: Vec<u64> = Event::scan()
        .user_id("u1")
        .site("s0")
        .reverse()
        .limit(3)
        .stream(&store)
        .map(|r| r.unwrap().0.timestamp)
        .collect()
        .await;
    assert_eq!(oldest, [6, 21, 36]);
}

/// Writes `n` rows of 1 KB directly, then returns a store reading the same
/// table through a proxy with the given faults.
async fn through_proxy(
    n: u64,
    faults: std::sync::Arc<proxy::Faults>,
) -> (BigtableStore, Vec<Event>) {
    let table = emulator::fresh_table("cut");
    let direct = BigtableStore::connect_emulator(&emulator::host(), "keyschema", "test", &table)
        .await
        .unwrap();
    direct.create_table_for::<Event>().await.unwrap();
    let events: Vec<Event> = (0..n)
        .map(|t| Event {
            user_id: "u1".into(),
            site: "s".into(),
            timestamp: t,
        })
        .collect();
    for chunk in events.chunks(500) {
        let batch: Vec<Mutation> = chunk
            .iter()
            .map(|e| Mutation::Put {
                key: e.encode(),
                value: vec![7; 1024],
            })
            .collect();
        direct.write_batch(&batch).await.unwrap();
    }
    let host = proxy::start(emulator::host(), faults).await;
    let retry = keyschema::store::bigtable::RetryPolicy {
        attempts: 4,
        backoff: std::time::Duration::from_millis(10),
    };
    let proxied = BigtableStore::connect_emulator(&host, "keyschema", "test", &table)
        .await
        .unwrap()
        .with_retry(retry);
    (proxied, events)
}

fn faults(cuts: usize, cut_after: usize, refuse_after_cut: bool) -> std::sync::Arc<proxy::Faults> {
    use std::sync::atomic::Ordering::SeqCst;
    let f = proxy::Faults::default();
    f.cuts.store(cuts, SeqCst);
    f.cut_after.store(cut_after, SeqCst);
    f.refuse_after_cut.store(refuse_after_cut, SeqCst);
    std::sync::Arc::new(f)
}

#[tokio::test]
async fn a_cut_stream_resumes_after_the_last_row_without_repeats_or_gaps() {
    // The scan's connection is cut 400 KB into the server's answer: mid-stream.
    let faults = faults(1, 400 * 1024, false);
    let (store, events) = through_proxy(3_000, faults.clone()).await;
    let got: Vec<u64> = Event::scan()
        .user_id("u1")
        .site("s")
        .stream(&store)
        .map(|r| r.expect("row").0.timestamp)
        .collect()
        .await;
    assert_eq!(
        faults.cuts.load(std::sync::atomic::Ordering::SeqCst),
        0,
        "the connection was cut"
    );
    let expected: Vec<u64> = events.iter().rev().map(|e| e.timestamp).collect();
    assert_eq!(got.len(), expected.len());
    assert_eq!(
        got, expected,
        "every row exactly once, newest first, across the cut"
    );
}

#[tokio::test]
async fn a_connection_that_does_not_come_back_is_an_error_not_a_short_result() {
    let faults = faults(1, 400 * 1024, true);
    let (store, events) = through_proxy(3_000, faults).await;
    let mut scan = Event::scan().user_id("u1").site("s").stream(&store);
    let mut got = Vec::new();
    let mut errors = Vec::new();
    while let Some(row) = scan.next().await {
        match row {
            Ok((e, _)) => got.push(e.timestamp),
            Err(e) => errors.push(e.to_string()),
        }
    }
    assert_eq!(errors.len(), 1, "the loss is reported once: {errors:?}");
    assert!(
        errors[0].contains("ReadRows failed after 4 attempt(s)"),
        "{}",
        errors[0]
    );
    assert!(
        !got.is_empty() && got.len() < events.len(),
        "some rows came before the cut: {}",
        got.len()
    );
    // On a healthy connection, the cursor resumes exactly after the rows returned.
    let healthy = BigtableStore::connect_emulator(
        &emulator::host(),
        "keyschema",
        "test",
        store.table_name().rsplit('/').next().unwrap(),
    )
    .await
    .unwrap();
    let rest: Vec<u64> = Event::scan()
        .user_id("u1")
        .site("s")
        .after(scan.cursor())
        .stream(&healthy)
        .map(|r| r.expect("row").0.timestamp)
        .collect()
        .await;
    got.extend(rest);
    let expected: Vec<u64> = events.iter().rev().map(|e| e.timestamp).collect();
    assert_eq!(got, expected);
}

struct FailingTokens;

impl keyschema::store::bigtable::TokenSource for FailingTokens {
    fn token(
        &self,
    ) -> std::pin::Pin<
        Box<
            dyn std::future::Future<Output = Result<String, keyschema::store::bigtable::TokenError>>
                + Send
                + '_,
        >,
    > {
        Box::pin(async { Err("no credentials in this test".into()) })
    }
}

#[tokio::test]
async fn tls_and_credentials_fail_with_typed_errors() {
    // TLS to the plaintext emulator: the handshake fails, as a connect error.
    let tls = BigtableStore::connect_endpoint(
        &format!("https://{}", emulator::host()),
        "p",
        "i",
        "t",
        None,
    )
    .await;
    assert!(matches!(tls, Err(BigtableError::Connect { .. })), "{tls:?}");
    // A token source that fails: every request reports it, none is sent without credentials.
    let tokens: std::sync::Arc<dyn keyschema::store::bigtable::TokenSource> =
        std::sync::Arc::new(FailingTokens);
    let store = BigtableStore::connect_endpoint(
        &format!("http://{}", emulator::host()),
        "keyschema",
        "test",
        "t",
        Some(tokens),
    )
    .await
    .expect("plaintext connect");
    let err = store.get(b"k").await.expect_err("no token, no request");
    assert!(matches!(err, BigtableError::Credentials(_)), "{err}");
    assert_eq!(
        err.to_string(),
        "cannot get Bigtable credentials: no credentials in this test"
    );
    let err = store.put(b"k", b"v").await.expect_err("no token, no write");
    assert!(matches!(err, BigtableError::Credentials(_)), "{err}");
}

/// A store on a test's own emulator, retrying 3 times 20 ms apart.
async fn private_store(emulator: &emulator::Private, table: &str) -> BigtableStore {
    let retry = keyschema::store::bigtable::RetryPolicy {
        attempts: 3,
        backoff: std::time::Duration::from_millis(20),
    };
    BigtableStore::connect_emulator(&emulator.host(), "keyschema", "test", table)
        .await
        .expect("connect")
        .with_retry(retry)
}

/// 8 sites x 400 rows of 8 KB for user `u1`: a typed scan over the user
/// merges 8 bucket streams, too much for the client to have buffered.
async fn load_stopped_table(store: &BigtableStore) -> Vec<Event> {
    store
        .create_table_for::<Event>()
        .await
        .expect("create table");
    let events: Vec<Event> = (0..8)
        .flat_map(|s| {
            (0..400u64).map(move |t| Event {
                user_id: "u1".into(),
                site: format!("s{s}"),
                timestamp: t,
            })
        })
        .collect();
    for chunk in events.chunks(100) {
        let batch: Vec<Mutation> = chunk
            .iter()
            .map(|e| Mutation::Put {
                key: e.encode(),
                value: vec![b'v'; 8 * 1024],
            })
            .collect();
        store.write_batch(&batch).await.expect("load");
    }
    events
}

#[tokio::test]
async fn an_emulator_stopped_mid_scan_is_an_error_and_the_cursor_resumes_after_restart() {
    let mut emulator = emulator::Private::start();
    let store = private_store(&emulator, "stopped").await;
    // Merged key order: site, then newest first (the salt is not part of it).
    let mut expected: Vec<(String, u64)> = load_stopped_table(&store)
        .await
        .into_iter()
        .map(|e| (e.site, e.timestamp))
        .collect();
    expected.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));

    let mut scan = Event::scan().user_id("u1").stream(&store);
    let mut got = Vec::new();
    let mut errors = Vec::new();
    while let Some(row) = scan.next().await {
        match row {
            Ok((e, value)) => {
                assert_eq!(value.len(), 8 * 1024);
                got.push((e.site, e.timestamp));
                if got.len() == 200 {
                    emulator.stop();
                }
            }
            Err(e) => errors.push(e.to_string()),
        }
    }
    assert!(
        !errors.is_empty(),
        "the scan ended after {} of {} rows with no error: a short result that looks complete",
        got.len(),
        expected.len()
    );
    assert!(
        got.len() < expected.len(),
        "the emulator was stopped before the end"
    );
    assert_eq!(
        got[..],
        expected[..got.len()],
        "the rows before the error are the first ones, in key order"
    );

    // The emulator keeps nothing: after the restart, load the same rows again
    // (as a durable Bigtable would still have them), then resume.
    emulator.restart();
    load_stopped_table(&store).await;
    let rest: Vec<(String, u64)> = Event::scan()
        .user_id("u1")
        .after(scan.cursor())
        .stream(&store)
        .map(|r| {
            let (e, _) = r.expect("row after restart");
            (e.site, e.timestamp)
        })
        .collect()
        .await;
    println!(
        "stopped after {} rows ({} error(s): {}); resumed with {} rows",
        got.len(),
        errors.len(),
        errors[0],
        rest.len()
    );
    got.extend(rest);
    assert_eq!(got, expected, "every row exactly once across the stop");
}

#[tokio::test]
async fn a_batch_written_while_the_emulator_is_down_reports_every_row() {
    let mut emulator = emulator::Private::start();
    let store = private_store(&emulator, "down").await;
    store
        .create_table_for::<Event>()
        .await
        .expect("create table");
    let keys: Vec<Vec<u8>> = (0..20u64).map(|t| Event::get_key("u1", "s", t)).collect();
    let batch = puts(&keys);
    emulator.stop();
    let err = store
        .write_batch(&batch)
        .await
        .expect_err("nothing can be written");
    let BigtableError::PartialBatch { failed, total } = &err else {
        panic!("expected every row reported, got {err}");
    };
    assert_eq!(*total, 20);
    let indexes: Vec<usize> = failed.iter().map(|f| f.index).collect();
    assert_eq!(indexes, (0..20).collect::<Vec<_>>(), "every row, in order");
    assert!(failed.iter().zip(&keys).all(|(f, k)| &f.key == k));
    assert!(
        failed[0].message.contains("not confirmed") && failed[0].message.contains("Unavailable"),
        "{}",
        failed[0].message
    );

    // Back up (empty: the emulator keeps nothing): the reported rows, written
    // again, are all there.
    emulator.restart();
    store
        .create_table_for::<Event>()
        .await
        .expect("create table");
    let again: Vec<Mutation> = failed.iter().map(|f| batch[f.index].clone()).collect();
    store.write_batch(&again).await.expect("rewrite");
    for key in &keys {
        assert!(store.get(key).await.expect("get").is_some());
    }
}

/// The DynamoDB article's write sharding, on Bigtable: `random % 10`.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = random % 10, then = invoice_id, line)]
struct Line {
    invoice_id: String,
    line: u32,
}

#[tokio::test]
async fn random_salt_delete_replace_and_get_cover_every_bucket() {
    let store = BigtableStore::connect_emulator(
        &emulator::host(),
        "keyschema",
        "test",
        &emulator::fresh_table("random"),
    )
    .await
    .unwrap();
    store.create_table_for::<Line>().await.unwrap();
    let line = |n: u32| Line {
        invoice_id: "INV-1".into(),
        line: n,
    };
    let all = || async {
        let range = keyschema::KeyRange::new(Vec::new(), None, 0);
        collect(store.scan(&range, Direction::Forward, None)).await
    };
    // Writes land in buckets 3, 6, 9, 2, ...: never twice in a row in one.
    let mut next = 0u32;
    keyschema::salt::set_chooser(Some(Box::new(move |n| {
        next = (next + 3) % n;
        next
    })));

    // Seen before the fix: the delete removed a freshly drawn bucket, not the row.
    for n in 0..10 {
        store.put_row(&line(n), b"v").await.unwrap();
    }
    for n in 0..10 {
        store.delete_row(&line(n)).await.unwrap();
        assert_eq!(Line::get_async(&store, "INV-1", n).await.unwrap(), None);
    }
    assert!(all().await.is_empty(), "every copy deleted");

    // replace_row upserts: one copy, the newest value.
    store.replace_row(&line(1), b"10 EUR").await.unwrap();
    store.replace_row(&line(1), b"12 EUR").await.unwrap();
    assert_eq!(all().await.len(), 1);
    let (row, value) = Line::get_async(&store, "INV-1", 1).await.unwrap().unwrap();
    assert_eq!((row, value), (line(1), b"12 EUR".to_vec()));

    // put_row inserts: a second, differing copy is a conflict, not a pick.
    store.put_row(&line(1), b"99 EUR").await.unwrap();
    assert_eq!(all().await.len(), 2);
    let err = Line::get_async(&store, "INV-1", 1).await.unwrap_err();
    assert!(
        matches!(&err, keyschema::store::RowError::Conflict { buckets, .. } if buckets.len() == 2),
        "{err}"
    );
    // The untyped key a user holds works the same way.
    let by_key = store.get_row::<Line>(&Line::get_keys("INV-1", 1)[4]).await;
    assert!(matches!(
        by_key,
        Err(keyschema::store::RowError::Conflict { .. })
    ));
    store.delete_row(&line(1)).await.unwrap();
    assert!(all().await.is_empty());
    keyschema::salt::set_chooser(None);
}

#[tokio::test]
async fn async_typed_get_reads_one_row() {
    let store = store("get-async").await;
    let e = Event {
        user_id: "u1".into(),
        site: "s".into(),
        timestamp: 7,
    };
    store.put_row(&e, b"payload").await.unwrap();
    let got = Event::get_async(&store, "u1", "s", 7).await.unwrap();
    assert_eq!(got, Some((e, b"payload".to_vec())));
    assert_eq!(Event::get_async(&store, "u1", "s", 8).await.unwrap(), None);
}

#[tokio::test]
async fn create_table_for_is_safe_to_call_on_every_start() {
    let table = emulator::fresh_table("create");
    let store = BigtableStore::connect_emulator(&emulator::host(), "keyschema", "test", &table)
        .await
        .unwrap();
    // Seen before the fix: AlreadyExists on the second run.
    assert!(store.create_table_for::<Event>().await.unwrap(), "created");
    store
        .put(&Event::get_key("u", "s", 1), b"kept")
        .await
        .unwrap();
    assert!(!store.create_table_for::<Event>().await.unwrap(), "existed");
    assert_eq!(
        store.get(&Event::get_key("u", "s", 1)).await.unwrap(),
        Some(b"kept".to_vec()),
        "an existing table is left as it is"
    );
    // The strict call still says the table is there.
    let err = store.create_table(&[]).await.unwrap_err();
    assert!(err.to_string().contains("AlreadyExists"), "{err}");
}

#[tokio::test]
async fn cells_carry_the_servers_time_not_zero() {
    let store = store("timestamps").await;
    let key = Event::get_key("u1", "s", 1);
    let before = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_micros() as i64;
    store.put(&key, b"one").await.unwrap();
    // Seen before the fix: 0, which an age-based GC rule deletes at once.
    let written = store.written_at(&key).await.unwrap().expect("written");
    let minute = 60_000_000;
    assert!(
        (before - minute..before + minute).contains(&written),
        "cell time {written} us is not within a minute of the write ({before} us)"
    );
    // A second put replaces the value: reads see the newest cell.
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    store.put(&key, b"two").await.unwrap();
    assert_eq!(store.get(&key).await.unwrap(), Some(b"two".to_vec()));
    assert!(store.written_at(&key).await.unwrap().unwrap() >= written);
}

#[tokio::test]
async fn batches_are_cut_to_the_request_limits_and_failures_keep_their_index() {
    use std::sync::atomic::Ordering::SeqCst;
    let table = emulator::fresh_table("limits");
    let direct = BigtableStore::connect_emulator(&emulator::host(), "keyschema", "test", &table)
        .await
        .unwrap();
    direct.create_table_for::<Event>().await.unwrap();
    let faults = faults(0, 0, false);
    let host = proxy::start(emulator::host(), faults.clone()).await;
    let store = BigtableStore::connect_emulator(&host, "keyschema", "test", &table)
        .await
        .unwrap();

    // Cloud Bigtable refuses more than 100,000 mutations per MutateRows (the
    // emulator does not): 100,001 puts of one mutation each go in 2 requests.
    let keys: Vec<Vec<u8>> = (0..100_001u64)
        .map(|t| Event::get_key("u1", "s", t))
        .collect();
    let batch: Vec<Mutation> = keys
        .iter()
        .map(|k| Mutation::Put {
            key: k.clone(),
            value: b"v".to_vec(),
        })
        .collect();
    faults.calls.store(0, SeqCst);
    store.write_batch(&batch).await.unwrap();
    assert_eq!(
        faults.calls.load(SeqCst),
        2,
        "MutateRows requests for 100,001 puts"
    );
    assert_eq!(
        store.get(&keys[100_000]).await.unwrap(),
        Some(b"v".to_vec())
    );

    // Smaller limits: 10 rows in requests of 3 mutations make 4 requests, and a
    // failing entry in the third keeps its index in the whole batch.
    // (One attempt: the emulator's answer to an empty key is a retryable INTERNAL.)
    let once = keyschema::store::bigtable::RetryPolicy {
        attempts: 1,
        backoff: std::time::Duration::from_millis(1),
    };
    let store = store
        .with_retry(once)
        .with_batch_limits(keyschema::store::bigtable::BatchLimits {
            max_mutations: 3,
            max_bytes: 1 << 20,
        });
    let mut batch = puts(&keys[..10]);
    batch[7] = Mutation::Put {
        key: Vec::new(), // Bigtable refuses an empty row key, entry by entry
        value: b"bad".to_vec(),
    };
    faults.calls.store(0, SeqCst);
    let err = store.write_batch(&batch).await.unwrap_err();
    assert_eq!(
        faults.calls.load(SeqCst),
        4,
        "requests of at most 3 mutations"
    );
    let BigtableError::PartialBatch { failed, total } = &err else {
        panic!("expected a partial batch, got {err}");
    };
    assert_eq!((failed.len(), failed[0].index, *total), (1, 7, 10));

    // And by size: 6 values of 400 KB under a 1 MB cap go 2 to a request.
    let store = store.with_batch_limits(keyschema::store::bigtable::BatchLimits {
        max_mutations: 100_000,
        max_bytes: 1 << 20,
    });
    let big: Vec<Mutation> = keys[..6]
        .iter()
        .map(|k| Mutation::Put {
            key: k.clone(),
            value: vec![1; 400 * 1024],
        })
        .collect();
    faults.calls.store(0, SeqCst);
    store.write_batch(&big).await.unwrap();
    assert_eq!(faults.calls.load(SeqCst), 3);
}

#[tokio::test]
async fn keys_and_values_over_bigtables_limits_are_refused_before_sending() {
    use keyschema::store::bigtable::{MAX_ROW_KEY, MAX_VALUE};
    let store = store("too-large").await;
    let ok = Mutation::Put {
        key: b"ok".to_vec(),
        value: b"v".to_vec(),
    };
    let long_key = Mutation::Put {
        key: vec![b'k'; MAX_ROW_KEY + 1],
        value: b"v".to_vec(),
    };
    let err = store
        .write_batch(&[ok.clone(), long_key])
        .await
        .unwrap_err();
    assert!(
        matches!(err, BigtableError::TooLarge { index: 1, what: "row key", len, max: 4096, .. } if len == 4097),
        "{err}"
    );
    assert_eq!(store.get(b"ok").await.unwrap(), None, "nothing was sent");
    let huge = Mutation::Put {
        key: b"huge".to_vec(),
        value: vec![0; MAX_VALUE + 1],
    };
    let err = store.write_batch(&[huge]).await.unwrap_err();
    assert!(
        matches!(err, BigtableError::TooLarge { what: "value", .. }),
        "{err}"
    );
    // A key of exactly 4 KiB is fine.
    store.put(&vec![b'k'; MAX_ROW_KEY], b"v").await.unwrap();
}

#[tokio::test]
async fn an_async_scan_refuses_another_requests_cursor() {
    let store = store("cursor").await;
    for user in ["u", "v"] {
        for t in 0..5u64 {
            let e = Event {
                user_id: user.into(),
                site: "s".into(),
                timestamp: t,
            };
            store.put_row(&e, b"").await.unwrap();
        }
    }
    let mut page = Event::scan().user_id("u").limit(2).stream(&store);
    while let Some(row) = page.next().await {
        row.unwrap();
    }
    let cursor = page.cursor();
    let mut other = Event::scan()
        .user_id("v")
        .after(cursor.clone())
        .stream(&store);
    let first = other.next().await.expect("an item");
    assert!(
        matches!(
            first,
            Err(keyschema::store::RowError::Cursor(
                keyschema::CursorError::OtherRequest { .. }
            ))
        ),
        "{first:?}"
    );
    assert!(other.next().await.is_none());
    let rest = Event::scan()
        .user_id("u")
        .after(cursor)
        .stream(&store)
        .count()
        .await;
    assert_eq!(rest, 3);
}
