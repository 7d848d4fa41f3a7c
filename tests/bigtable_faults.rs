//! The Bigtable store when things fail: a connection cut mid-scan or gone,
//! TLS and credentials that fail, an emulator stopped mid-scan or during a
//! batch. The emulator is started by the tests themselves when
//! `BIGTABLE_EMULATOR_HOST` is not set.
#![cfg(feature = "bigtable")]

mod common;

use common::bigtable_store::{faults, puts};
use common::schemas::Event;
use common::{emulator, proxy};

use futures_util::StreamExt;
use keyschema::store::bigtable::{BigtableError, BigtableStore};
use keyschema::store::Mutation;
use keyschema::RowKey;

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
