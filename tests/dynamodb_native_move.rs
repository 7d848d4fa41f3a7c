//! Moving an encoded index to the native form on a live DynamoDB table with
//! writers running (issue 41): the documented step (ENCODING.md, "Indexes
//! on DynamoDB"; the guide's indexes chapter) is declaring the index again
//! under a new name, native and `building`, and `add_indexes`, which
//! creates its GSI and waits for DynamoDB to fill it from the items'
//! attributes; an index keyed only on fields the items hold needs no
//! backfill, so `verify` matches at once and the index is read. A writer
//! keeps putting, replacing and deleting rows all along; every index scan
//! (the encoded one before, during and after; the native one once ACTIVE)
//! equals a plain map of the rows, read while no write is in flight.
//!
//! It needs a server with multi-attribute GSI keys (DynamoDB Local 3.3 or
//! later): ignored in the README's test command, run by
//! `.ci/dynamodb-local` with `--include-ignored`.
#![cfg(feature = "dynamodb")]

mod common;

use common::dynalite::{endpoint, fresh_table};
use common::native_table::{visit, SITES};
use futures_util::StreamExt;
use keyschema::index::IndexBackfill;
use keyschema::store::dynamodb::{DynamoStore, IndexForm};
use keyschema::store::AsyncRecordStore;
use keyschema::{Index, RowKey};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use tokio::sync::RwLock;

/// Before: the encoded index only.
#[allow(dead_code)]
mod before {
    super::visit!(index(
        Old,
        prefix = "s",
        then = (site),
        user,
        ts,
        dynamodb = encoded
    ));
}
/// The move: the same index again, native and `building`.
#[allow(dead_code)]
mod moving {
    super::visit!(
        index(
            Old,
            prefix = "s",
            then = (site),
            user,
            ts,
            dynamodb = encoded
        ),
        index(
            BySite,
            building,
            prefix = "t",
            then = (site),
            user,
            ts,
            dynamodb = native
        )
    );
}
/// After `verify` matched: both read.
#[allow(dead_code)]
mod moved {
    super::visit!(
        index(
            Old,
            prefix = "s",
            then = (site),
            user,
            ts,
            dynamodb = encoded
        ),
        index(
            BySite,
            prefix = "t",
            then = (site),
            user,
            ts,
            dynamodb = native
        )
    );
}

/// The rows as the map holds them: (user, ts) to (site, n).
type Model = Arc<RwLock<BTreeMap<(String, i64), (String, u32)>>>;

/// The map's rows of `site`, in the index's order (user's bytes, then ts).
fn want(model: &BTreeMap<(String, i64), (String, u32)>, site: &str) -> Vec<(String, i64, u32)> {
    model
        .iter()
        .filter(|(_, (s, _))| s == site)
        .map(|((u, ts), (_, n))| (u.clone(), *ts, *n))
        .collect()
}

/// Every site's rows through an index, each scan with no write in flight
/// (the map's read lock held), compared with the map.
async fn check<I, F>(model: &Model, scan: F, store: &DynamoStore, what: &str)
where
    I: Index,
    I::Row: RowKey,
    F: Fn(&str) -> keyschema::ScanRequest<I>,
    I::Row: Into<(String, i64, u32)>,
{
    for site in SITES {
        let map = model.read().await;
        let mut rows = scan(site).stream_rows(store);
        let mut got = Vec::new();
        while let Some(row) = rows.next().await {
            got.push(row.expect("a row").into());
        }
        assert_eq!(got, want(&map, site), "{what}: site {site}");
    }
}

macro_rules! into_tuple {
    ($($m:ident),*) => {$(
        impl From<$m::Visit> for (String, i64, u32) {
            fn from(v: $m::Visit) -> Self {
                (v.user, v.ts, v.n)
            }
        }
    )*};
}
into_tuple!(before, moved);

/// Puts, replaces and deletes rows as `moving::Visit` (the binary with
/// the new index declared) until `stop`, each write and its map update
/// under the map's write lock; returns how many it made.
async fn writer(store: DynamoStore, model: Model, stop: Arc<AtomicBool>, done: Arc<AtomicUsize>) {
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    while !stop.load(Ordering::Relaxed) {
        let r = next();
        let user = format!("u{}", r % 5);
        let ts = (r >> 8) as i64 % 12 - 6;
        let row = moving::Visit {
            user: user.clone(),
            ts,
            site: SITES[(r >> 16) as usize % 3].into(),
            n: (r >> 24) as u32 % 100,
        };
        let mut map = model.write().await;
        match (r >> 32) % 5 {
            0 => {
                store.delete_row(&row).await.expect("delete");
                map.remove(&(user, ts));
            }
            1 => {
                store.replace_record(&row).await.expect("replace");
                map.insert((user, ts), (row.site, row.n));
            }
            _ => {
                store.put_record(&row).await.expect("put");
                map.insert((user, ts), (row.site, row.n));
            }
        }
        drop(map);
        done.fetch_add(1, Ordering::Relaxed);
        tokio::task::yield_now().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs multi-attribute GSIs: DynamoDB Local 3.3 (.ci/dynamodb-local)"]
async fn an_encoded_index_moves_to_native_with_writers_running() {
    let table = fresh_table("native-move");
    let old = DynamoStore::connect_local::<before::Visit>(&endpoint(), &table).expect("a store");
    assert!(old.create_table().await.expect("create"));
    let rows: Vec<before::Visit> = (0..40u32)
        .map(|i| before::Visit {
            user: format!("u{}", i % 7),
            ts: i64::from(i) * 3 - 60,
            site: SITES[i as usize % 3].into(),
            n: i,
        })
        .collect();
    old.put_records(&rows).await.expect("older rows");
    let model: Model = Arc::new(RwLock::new(
        rows.iter()
            .map(|v| ((v.user.clone(), v.ts), (v.site.clone(), v.n)))
            .collect(),
    ));
    let old_scan = |site: &str| before::Old::scan().site(site).request();
    check(&model, old_scan, &old, "before").await;

    let moving = DynamoStore::connect_local::<moving::Visit>(&endpoint(), &table).expect("a store");
    assert!(matches!(
        moving.index_forms().iter().find(|(n, _)| *n == "BySite"),
        Some((_, IndexForm::Native { .. }))
    ));
    let stop = Arc::new(AtomicBool::new(false));
    let writes = Arc::new(AtomicUsize::new(0));
    let writing = tokio::spawn(writer(
        DynamoStore::connect_local::<moving::Visit>(&endpoint(), &table).expect("a store"),
        model.clone(),
        stop.clone(),
        writes.clone(),
    ));

    // The writer is running before the move starts.
    while writes.load(Ordering::Relaxed) < 5 {
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    let before_add = writes.load(Ordering::Relaxed);

    // During: the GSI created and filled by DynamoDB while the writer
    // writes and the encoded index is read (the new one is `building`).
    let adding = tokio::spawn({
        let moving =
            DynamoStore::connect_local::<moving::Visit>(&endpoint(), &table).expect("a store");
        async move { moving.add_indexes().await }
    });
    let mut during = 0;
    while !adding.is_finished() || during == 0 {
        check(&model, old_scan, &old, "during").await;
        during += 1;
    }
    let created = adding.await.expect("the task").expect("add_indexes");
    assert_eq!(created, ["BySite"]);
    let before_verify = writes.load(Ordering::Relaxed);

    // No backfill: every item already holds site, user and ts. (`verify`
    // reads the rows and the entries in two passes: run with no write in
    // flight, which a live table gets by running it again until it
    // matches.)
    let paused = model.read().await;
    let verified = IndexBackfill::<moving::BySite>::new()
        .verify_async(&moving)
        .await
        .expect("verify");
    assert!(verified.matches(), "{verified:?}");
    assert_eq!(verified.rows as usize, paused.len(), "{verified:?}");
    drop(paused);

    // After: the new index read (and the old one still), writer running.
    let done = DynamoStore::connect_local::<moved::Visit>(&endpoint(), &table).expect("a store");
    done.check_table().await.expect("the table fits");
    let new_scan = |site: &str| moved::BySite::scan().site(site).request();
    let old_scan_after = |site: &str| moved::Old::scan().site(site).request();
    for _ in 0..3 {
        check(&model, new_scan, &done, "after, native").await;
        check(&model, old_scan_after, &done, "after, encoded").await;
    }
    stop.store(true, Ordering::Relaxed);
    writing.await.expect("the writer");
    check(&model, new_scan, &done, "at the end, native").await;
    let total = writes.load(Ordering::Relaxed);
    println!(
        "{during} encoded scans during add_indexes; writes: {before_add} before it, {before_verify} when it returned, {total} in all"
    );
    assert!(
        total > before_verify,
        "the writer wrote before the move ({before_add}), through it ({before_verify}) and after ({total})"
    );
}
