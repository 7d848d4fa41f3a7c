//! The Bigtable store against the real emulator (`cbtemulator`), started by
//! the tests themselves when `BIGTABLE_EMULATOR_HOST` is not set: writes,
//! gets and scans, batches and their limits, salted rows and table creation.
//! The typed-scan model on Bigtable is `tests/bigtable_model.rs`; cut
//! connections, a stopped emulator and credentials are `tests/bigtable_faults.rs`.
#![cfg(feature = "bigtable")]

mod common;

use common::bigtable_store::{collect, faults, puts, store};
use common::schemas::Event;
use common::{emulator, proxy};

use futures_util::StreamExt;
use keyschema::store::bigtable::{BigtableError, BigtableStore};
use keyschema::store::{Direction, Mutation};
use keyschema::RowKey;

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
