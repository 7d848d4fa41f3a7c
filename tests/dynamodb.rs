//! The DynamoDB store against a real DynamoDB-API server the tests start
//! themselves (dynalite, or the server named by `DYNAMODB_ENDPOINT`).
#![cfg(feature = "dynamodb")]

mod common;

use common::dynalite;
use common::dynalite::store;
use common::schemas::{line, Line, TextLine};
use futures_util::StreamExt;
use keyschema::store::dynamodb::{DynamoError, DynamoStore, MAX_PARTITION_KEY, MAX_SORT_KEY};
use keyschema::store::{Mutation, RowError};
use keyschema::RowKey;

#[tokio::test]
async fn writes_gets_and_deletes_in_batches_of_25() {
    let store = store::<Line>("basic").await;
    // A second create is fine and keeps the table.
    assert!(!store.create_table_for::<Line>().await.unwrap());
    let err = store.create_table_for::<TextLine>().await.unwrap_err();
    assert!(
        err.to_string()
            .contains("made for `Line` rows, not `TextLine`"),
        "{err}"
    );
    let lines: Vec<Line> = (0..100).map(|i| line("INV-1", i, (i % 7) as u16)).collect();
    store
        .put_rows(lines.iter().map(|l| (l, l.created_at.to_be_bytes())))
        .await
        .expect("100 rows in 4 requests");
    for l in [&lines[0], &lines[57], &lines[99]] {
        let got = Line::get_async(&store, &l.invoice_id, l.created_at, l.line_no)
            .await
            .unwrap();
        assert_eq!(got, Some((l.clone(), l.created_at.to_be_bytes().to_vec())));
    }
    assert_eq!(
        Line::get_async(&store, "INV-1", 1000, 0).await.unwrap(),
        None
    );
    store.delete_row(&lines[57]).await.unwrap();
    assert_eq!(Line::get_async(&store, "INV-1", 57, 1).await.unwrap(), None);
}

#[tokio::test]
async fn keys_and_items_over_dynamodbs_limits_are_refused_before_sending() {
    let store = store::<Line>("limits").await;
    let long_invoice = "x".repeat(MAX_PARTITION_KEY);
    let err = store
        .put_row(&line(&long_invoice, 1, 1), b"v")
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            DynamoError::Limit {
                what: "partition key",
                max: 2048,
                ..
            }
        ),
        "{err}"
    );
    let huge = vec![0u8; 400 * 1024];
    let err = store.put_row(&line("I", 1, 1), &huge).await.unwrap_err();
    assert!(
        matches!(err, DynamoError::Limit { what: "item", .. }),
        "{err}"
    );
    // Nothing of a refused batch is sent.
    let batch = vec![
        Mutation::Put {
            key: line("OK", 1, 1).encode(),
            value: b"v".to_vec(),
        },
        Mutation::Put {
            key: line(&long_invoice, 1, 1).encode(),
            value: b"v".to_vec(),
        },
    ];
    let err = store.write_batch(&batch).await.unwrap_err();
    assert!(matches!(err, DynamoError::Limit { index: 1, .. }), "{err}");
    assert_eq!(Line::get_async(&store, "OK", 1, 1).await.unwrap(), None);
    assert_eq!(MAX_SORT_KEY, 1024);
}

/// The article's read: all 10 suffixes queried at once, merged in key order.
#[tokio::test]
async fn typed_scans_query_every_bucket_and_merge() {
    let store = store::<Line>("scan").await;
    let mut lines = Vec::new();
    for invoice in ["INV-1", "INV-2", "INV-3"] {
        for t in 0..80u64 {
            lines.push(line(invoice, 1_700_000_000 + t / 2, (t % 2) as u16));
        }
    }
    store
        .put_rows(lines.iter().map(|l| (l, b"")))
        .await
        .unwrap();
    // Key order: created_at descending, then line_no ascending.
    let mut expected: Vec<(u64, u16)> = lines
        .iter()
        .filter(|l| l.invoice_id == "INV-2")
        .map(|l| (l.created_at, l.line_no))
        .collect();
    expected.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));

    let request = Line::scan().invoice_id("INV-2");
    assert_eq!(request.ranges().len(), 10, "one Query per suffix");
    let got: Vec<(u64, u16)> = request
        .stream(&store)
        .map(|r| r.map(|(l, _)| (l.created_at, l.line_no)))
        .collect::<Vec<_>>()
        .await
        .into_iter()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(got, expected);

    // Limit, reverse, a range on the sort key, and a resumed page.
    let mut first = Line::scan().invoice_id("INV-2").limit(7).stream(&store);
    let mut page = Vec::new();
    while let Some(row) = first.next().await {
        page.push(row.unwrap().0.created_at);
    }
    assert_eq!(page.len(), 7);
    let rest: Vec<u64> = Line::scan()
        .invoice_id("INV-2")
        .after(first.cursor())
        .stream(&store)
        .map(|r| r.unwrap().0.created_at)
        .collect()
        .await;
    assert_eq!(page.len() + rest.len(), 80);
    let oldest: Vec<(u64, u16)> = Line::scan()
        .invoice_id("INV-2")
        .reverse()
        .limit(3)
        .stream(&store)
        .map(|r| r.map(|(l, _)| (l.created_at, l.line_no)).unwrap())
        .collect()
        .await;
    assert_eq!(
        oldest,
        [(1_700_000_000, 1), (1_700_000_000, 0), (1_700_000_001, 1)]
    );
    let window: Vec<u64> = Line::scan()
        .invoice_id("INV-2")
        .created_at(1_700_000_010..1_700_000_013)
        .stream(&store)
        .map(|r| r.unwrap().0.created_at)
        .collect()
        .await;
    assert_eq!(
        window,
        [
            1_700_000_012,
            1_700_000_012,
            1_700_000_011,
            1_700_000_011,
            1_700_000_010,
            1_700_000_010
        ]
    );
}

#[tokio::test]
async fn a_scan_that_does_not_bind_the_partition_is_refused_not_a_table_scan() {
    let store = store::<Line>("unbound").await;
    store.put_row(&line("INV-1", 1, 1), b"").await.unwrap();
    let mut all = Line::scan().request().stream(&store);
    let first = all.next().await.expect("an item");
    let Err(RowError::Store(DynamoError::UnboundPartition { fields })) = first else {
        panic!("expected a refusal, got {first:?}");
    };
    assert_eq!(fields, ["invoice_id"]);
    let mut ranged = Line::scan()
        .invoice_id("A".to_string().."Z".to_string())
        .stream(&store);
    assert!(matches!(
        ranged.next().await,
        Some(Err(RowError::Store(DynamoError::UnboundPartition { .. })))
    ));
}

#[tokio::test]
async fn random_salt_replace_delete_and_conflicts() {
    let store = store::<Line>("random").await;
    let mut next = 0u32;
    keyschema::salt::set_chooser(Some(Box::new(move |n| {
        next = (next + 3) % n;
        next
    })));
    let l = line("INV-9", 5, 1);
    store.replace_row(&l, b"10").await.unwrap();
    store.replace_row(&l, b"12").await.unwrap();
    assert_eq!(
        Line::get_async(&store, "INV-9", 5, 1)
            .await
            .unwrap()
            .map(|(_, v)| v),
        Some(b"12".to_vec())
    );
    store.put_row(&l, b"99").await.unwrap();
    assert!(matches!(
        Line::get_async(&store, "INV-9", 5, 1).await,
        Err(RowError::Conflict { .. })
    ));
    store.delete_row(&l).await.unwrap();
    assert_eq!(Line::get_async(&store, "INV-9", 5, 1).await.unwrap(), None);
    keyschema::salt::set_chooser(None);
}

#[tokio::test]
async fn text_keys_use_string_attributes() {
    let store = store::<TextLine>("text").await;
    let rows: Vec<TextLine> = (0..30)
        .map(|i| TextLine {
            invoice_id: 42,
            line_no: i,
        })
        .collect();
    store.put_rows(rows.iter().map(|r| (r, b""))).await.unwrap();
    let got: Vec<u16> = TextLine::scan()
        .invoice_id(42)
        .line_no(10..20)
        .stream(&store)
        .map(|r| r.unwrap().0.line_no)
        .collect()
        .await;
    assert_eq!(got, (10..20).collect::<Vec<_>>());
    let key = TextLine::get_key(42, 3);
    assert_eq!(
        TextLine::schema().split_key(&key).unwrap(),
        (&b"INVOICE#0000000042#"[..], &b"00003"[..])
    );
}

/// A store reading and writing through the fault-injecting proxy.
async fn through_faults<K: RowKey>(
    prefix: &str,
) -> (DynamoStore, std::sync::Arc<common::http_faults::Faults>) {
    let faults = std::sync::Arc::new(common::http_faults::Faults::default());
    let endpoint = common::http_faults::start(&dynalite::endpoint(), faults.clone()).await;
    let store = DynamoStore::connect_local::<K>(&endpoint, &dynalite::fresh_table(prefix))
        .expect("a store")
        .with_retry(keyschema::store::dynamodb::RetryPolicy {
            attempts: 3,
            backoff: std::time::Duration::from_millis(1),
        });
    store.create_table().await.expect("create table");
    (store, faults)
}

#[tokio::test]
async fn unprocessed_items_are_retried_until_written() {
    use std::sync::atomic::Ordering::SeqCst;
    let (store, faults) = through_faults::<Line>("unprocessed").await;
    // DynamoDB sends back part of a batch when a partition is throttled.
    faults.partial_batches.store(2, SeqCst);
    let lines: Vec<Line> = (0..60).map(|i| line("INV-1", i, 0)).collect();
    store
        .put_rows(lines.iter().map(|l| (l, b"v")))
        .await
        .expect("every item lands");
    // 3 pieces of at most 25; the first two answered half, each retried once.
    assert_eq!(faults.calls("BatchWriteItem"), 5);
    assert_eq!(store.requests().batch_write_item, 5);
    let stored = Line::scan()
        .invoice_id("INV-1")
        .stream(&store)
        .count()
        .await;
    assert_eq!(stored, 60);
    assert_eq!(faults.calls("Query"), 10, "one Query per suffix");
}

#[tokio::test]
async fn items_still_unprocessed_after_the_retries_are_reported_by_index() {
    use std::sync::atomic::Ordering::SeqCst;
    let (store, faults) = through_faults::<Line>("throttled").await;
    faults.partial_batches.store(usize::MAX, SeqCst);
    let lines: Vec<Line> = (0..10).map(|i| line("INV-1", i, 0)).collect();
    let err = store
        .put_rows(lines.iter().map(|l| (l, b"v")))
        .await
        .expect_err("some items stay unprocessed");
    // 3 attempts: 10 -> 5 written, 5 -> 2, 3 -> 1; 2 items fail.
    let DynamoError::PartialBatch { failed, total } = &err else {
        panic!("expected a partial batch, got {err}");
    };
    assert_eq!((failed.len(), *total), (2, 10), "{err}");
    assert!(
        err.to_string()
            .contains("still unprocessed after 3 attempts"),
        "{err}"
    );
    faults.partial_batches.store(0, SeqCst);
    for (i, l) in lines.iter().enumerate() {
        let stored = Line::get_async(&store, &l.invoice_id, l.created_at, l.line_no)
            .await
            .unwrap()
            .is_some();
        let reported = failed.iter().any(|f| f.index == i);
        assert_ne!(stored, reported, "item {i}: stored xor reported");
    }
}

/// 400 lines of 40 KB over 10 suffixes: 1.6 MB a suffix, so every suffix
/// needs a second Query page (dynalite and DynamoDB page at 1 MB).
async fn load_big(store: &DynamoStore) -> Vec<Line> {
    store.create_table().await.expect("create table");
    let lines: Vec<Line> = (0..400)
        .map(|i| line("INV-1", i / 2, (i % 2) as u16))
        .collect();
    let value = vec![7u8; 40 * 1024];
    let mut turn = 0u32;
    keyschema::salt::set_chooser(Some(Box::new(move |n| {
        turn = (turn + 1) % n;
        turn
    })));
    store
        .put_rows(lines.iter().map(|l| (l, value.as_slice())))
        .await
        .expect("load");
    keyschema::salt::set_chooser(None);
    let mut sorted = lines.clone();
    sorted.sort_by(|a, b| {
        b.created_at
            .cmp(&a.created_at)
            .then(a.line_no.cmp(&b.line_no))
    });
    sorted
}

#[tokio::test]
async fn a_server_killed_mid_scan_is_an_error_and_the_cursor_resumes_after_restart() {
    let mut server = dynalite::Private::start();
    let store = DynamoStore::connect_local::<Line>(&server.endpoint(), "killed").expect("a store");
    let expected = load_big(&store).await;
    let mut scan = Line::scan().invoice_id("INV-1").stream(&store);
    let mut seen = Vec::new();
    for _ in 0..50 {
        seen.push(scan.next().await.expect("a row").expect("no error yet").0);
    }
    server.stop();
    let mut failed = false;
    while let Some(row) = scan.next().await {
        match row {
            Ok((l, _)) => seen.push(l),
            Err(e) => {
                assert!(
                    matches!(
                        e,
                        RowError::Store(DynamoError::Request {
                            operation: "Query",
                            ..
                        })
                    ),
                    "{e}"
                );
                failed = true;
                break;
            }
        }
    }
    assert!(
        failed,
        "a stopped server is an error, never a short scan ({} rows)",
        seen.len()
    );
    assert!(seen.len() < expected.len());
    let cursor = scan.cursor();
    // The server kept nothing: load the same rows again, then resume.
    server.restart();
    load_big(&store).await;
    let rest: Vec<Line> = Line::scan()
        .invoice_id("INV-1")
        .after(cursor)
        .stream(&store)
        .map(|r| r.expect("row").0)
        .collect()
        .await;
    seen.extend(rest);
    assert_eq!(
        seen, expected,
        "every row once, in order, across the restart"
    );
}
