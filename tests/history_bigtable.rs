//! A layout change on the Bigtable emulator: the scan law across a
//! cut-over (typed async scans over tables in any migration state return
//! exactly the brute-force answer), and a backfill whose connection is cut
//! mid-copy, resumed from its checkpoint, losing and duplicating nothing.
#![cfg(feature = "bigtable")]

mod common;

use common::history::{expected, request, requests, tables, Event, Request, Table, T};
use common::{emulator, proxy};
use futures_util::StreamExt;
use keyschema::backfill::{Backfill, BackfillError};
use keyschema::history::Phase;
use keyschema::store::bigtable::BigtableStore;
use keyschema::store::{AsyncStore, Mutation, RowError};
use keyschema::{Cursor, DecodeError, KeyRange, RowKey};
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::TestRunner;

async fn store(host: &str, table: &str) -> BigtableStore {
    BigtableStore::connect_emulator(host, "keyschema", "test", table)
        .await
        .expect("connect")
}

/// The table as the older binary (before the cut-over) and `put_row_in`
/// in `Split` (from it) wrote it, with the copies the
/// backfill would have made; rows whose key would be ambiguous are refused.
async fn load(store: &BigtableStore, t: &mut Table) {
    let mut kept = Vec::new();
    for (row, &copied) in t.rows.iter().zip(&t.copied) {
        // Rows before the cut-over as the older binary wrote them.
        let phase = if row.timestamp < T {
            Phase::Old
        } else {
            Phase::Split
        };
        match AsyncStore::put_row_in(store, phase, row, b"v").await {
            Ok(()) => {}
            Err(RowError::Decode {
                source: DecodeError::AmbiguousLayout { .. },
                ..
            }) => continue,
            Err(e) => panic!("{e}"),
        }
        if row.timestamp < T && (copied || t.phase == Phase::New) {
            AsyncStore::put_row_in(store, Phase::New, row, b"v")
                .await
                .expect("copy");
        }
        kept.push(row.clone());
    }
    t.rows = kept;
}

async fn pages(store: &BigtableStore, t: &Table, r: &Request) -> Vec<Event> {
    let mut all = Vec::new();
    let mut after: Option<Cursor> = None;
    loop {
        let mut scan = request(r, t.phase);
        if let Some(c) = after.take() {
            scan = scan.after(c);
        }
        let mut rows = scan.stream(store);
        let mut page = 0;
        while let Some(row) = rows.next().await {
            all.push(row.expect("row").0);
            page += 1;
        }
        if r.limit.is_none() || page < r.limit.unwrap_or(0) {
            return all;
        }
        after = Some(rows.cursor());
        assert!(all.len() <= 200, "the scan does not end");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scans_across_a_cut_over_return_exactly_the_rows_on_the_emulator() {
    let mut runner = TestRunner::deterministic();
    let (mut tables_checked, mut requests_checked) = (0, 0);
    for case in 0..12 {
        let mut t = tables().new_tree(&mut runner).expect("table").current();
        let table = emulator::fresh_table(&format!("law{case}"));
        let s = store(&emulator::host(), &table).await;
        s.create_table_for::<Event>().await.expect("create");
        load(&s, &mut t).await;
        for _ in 0..16 {
            let r = requests().new_tree(&mut runner).expect("request").current();
            assert_eq!(
                pages(&s, &t, &r).await,
                expected(&t, &r),
                "{t:?}\n{r:?}\n{:?}",
                request(&r, t.phase).ranges()
            );
            requests_checked += 1;
        }
        tables_checked += 1;
    }
    println!("{tables_checked} tables, {requests_checked} requests: every answer exact");
}

/// 3,000 events around T with 100-byte values: 1,500 before it, unsalted.
fn events() -> Vec<Event> {
    (0..3_000u64)
        .map(|i| Event {
            user_id: format!("user{:03}", i % 89),
            site: ["a", "b", "c"][(i % 3) as usize].into(),
            timestamp: T - 1_500 + i,
        })
        .collect()
}

/// The keys of each layout in the table.
async fn layouts(store: &BigtableStore) -> (usize, usize) {
    let all = KeyRange::new(Vec::new(), None, 0);
    let mut rows = store.scan_stream(&all, keyschema::store::Direction::Forward, None);
    let (mut declared, mut older) = (0, 0);
    while let Some(row) = rows.next().await {
        let (key, _) = row.expect("row");
        match Event::decode_stored(&key) {
            Ok((_, false)) => older += 1,
            _ => declared += 1,
        }
    }
    (declared, older)
}

async fn all_rows(store: &BigtableStore, phase: Phase) -> Vec<Event> {
    let mut rows: Vec<Event> = Event::scan()
        .phase(phase)
        .stream(store)
        .map(|r| r.expect("row").0)
        .collect()
        .await;
    rows.sort_by_key(|e| (e.user_id.clone(), e.site.clone(), e.timestamp));
    rows
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backfill_cut_off_mid_copy_resumes_from_its_checkpoint_and_loses_nothing() {
    let table = emulator::fresh_table("backfill");
    let direct = store(&emulator::host(), &table).await;
    direct.create_table_for::<Event>().await.expect("create");
    let events = events();
    let batch: Vec<Mutation> = events
        .iter()
        .map(|e| Mutation::Put {
            key: if e.past_cut_over() {
                e.encode()
            } else {
                e.encode_older().expect("history")
            },
            value: vec![b'v'; 100],
        })
        .collect();
    direct.write_batch(&batch).await.expect("load");
    let mut want = events.clone();
    want.sort_by_key(|e| (e.user_id.clone(), e.site.clone(), e.timestamp));
    assert_eq!(all_rows(&direct, Phase::Split).await, want);

    let dir = tempfile::tempdir().expect("temp dir");
    let checkpoint = dir.path().join("backfill.checkpoint");
    // Run 1: three batches, then the process dies.
    {
        let mut backfill = Backfill::<Event>::new()
            .expect("history")
            .batch(200)
            .checkpoint(&checkpoint);
        for _ in 0..3 {
            backfill.copy_batch_async(&direct).await.expect("batch");
        }
    }
    let (after_run1, _) = layouts(&direct).await;
    // Run 2: through a proxy that cuts the connection 40 KB into the
    // server's answers and refuses every connection after.
    let faults = std::sync::Arc::new(proxy::Faults::default());
    faults.cuts.store(1, std::sync::atomic::Ordering::SeqCst);
    faults
        .cut_after
        .store(40 * 1024, std::sync::atomic::Ordering::SeqCst);
    faults
        .refuse_after_cut
        .store(true, std::sync::atomic::Ordering::SeqCst);
    let host = proxy::start(emulator::host(), faults).await;
    let retry = keyschema::store::bigtable::RetryPolicy {
        attempts: 2,
        backoff: std::time::Duration::from_millis(10),
    };
    let cut = store(&host, &table).await.with_retry(retry);
    let err = Backfill::<Event>::new()
        .expect("history")
        .batch(200)
        .checkpoint(&checkpoint)
        .copy_async(&cut)
        .await
        .expect_err("the connection is cut");
    assert!(matches!(err, BackfillError::Store(_)), "{err}");
    let (after_run2, _) = layouts(&direct).await;
    // Run 3: resumed on a good connection.
    let mut backfill = Backfill::<Event>::new()
        .expect("history")
        .batch(200)
        .checkpoint(&checkpoint);
    let done = backfill.copy_async(&direct).await.expect("resume");
    assert!(done.finished);
    assert_eq!(
        done.rows_done, 1_500,
        "every older row once, over the three runs"
    );
    println!(
        "declared keys after run 1: {after_run1}, after the cut run: {after_run2} ({err}), after the resume: {}; the resumed copy ran at {:.0} rows/s",
        layouts(&direct).await.0,
        done.rows_per_second
    );
    assert_eq!(layouts(&direct).await, (3_000, 1_500));
    let verified = backfill.verify_async(&direct).await.expect("verify");
    assert!(verified.matches(), "{verified:?}");
    assert_eq!(all_rows(&direct, Phase::New).await, want);
    let deleted = backfill
        .delete_older_async(&direct, &verified)
        .await
        .expect("delete");
    assert_eq!(deleted.rows_done, 1_500);
    assert_eq!(layouts(&direct).await, (3_000, 0));
    assert_eq!(all_rows(&direct, Phase::New).await, want);
}
