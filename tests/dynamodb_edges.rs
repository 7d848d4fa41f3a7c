//! DynamoDB's own edges, against a real DynamoDB-API server (dynalite, or
//! the server named by `DYNAMODB_ENDPOINT`, DynamoDB Local in CI): a store
//! made for one key type refuses another, an existing table with other key
//! attributes is a mismatch, a key named twice is read once, a key DynamoDB
//! cannot hold is refused by reads too, an item another program wrote is
//! reported and read past, and the backfill is refused before any work.
#![cfg(feature = "dynamodb")]

mod common;

use common::dynalite;
use common::dynalite::store;
use common::schemas::{line, Line, TextLine};
use futures_util::StreamExt;
use keyschema::backfill::{Backfill, BackfillError};
use keyschema::history::Phase;
use keyschema::store::dynamodb::sdk::primitives::Blob;
use keyschema::store::dynamodb::sdk::types::AttributeValue;
use keyschema::store::dynamodb::{DynamoError, DynamoStore, MAX_PARTITION_KEY};
use keyschema::store::{AsyncStore, RowError};
use keyschema::RowKey;

/// A key with a partition and no sort part: a table without a sort key.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(then = (invoice_id))]
struct Invoice {
    invoice_id: String,
}

/// A bucket-count change on a partitioned key.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = hash(user) % 8, then = (user), ts)]
#[rowkey_was(salt = hash(user) % 4, until = migration)]
struct Visit {
    user: String,
    ts: u64,
}

fn mismatch<T: std::fmt::Debug>(result: Result<T, DynamoError>) -> String {
    match result {
        Err(e @ DynamoError::TableMismatch { .. }) => e.to_string(),
        other => panic!("expected TableMismatch, got {other:?}"),
    }
}

#[tokio::test]
async fn a_store_refuses_rows_of_another_key_type_on_every_typed_call() {
    let store = store::<Line>("keytype").await;
    let other = TextLine {
        invoice_id: 7,
        line_no: 1,
    };
    let message = mismatch(store.put_row(&other, b"v").await);
    assert!(
        message.contains("made for `Line` rows, not `TextLine`"),
        "{message}"
    );
    mismatch(store.replace_row(&other, b"v").await);
    mismatch(store.delete_row(&other).await);
    mismatch(store.put_rows([(&other, b"v")]).await);
    let through_trait = AsyncStore::put_row_in(&store, Phase::New, &other, b"v").await;
    assert!(
        matches!(
            through_trait,
            Err(RowError::Store(DynamoError::TableMismatch { .. }))
        ),
        "{through_trait:?}"
    );
    let get = TextLine::get_async(&store, 7, 1).await;
    assert!(
        matches!(get, Err(RowError::Store(DynamoError::TableMismatch { .. }))),
        "{get:?}"
    );
    let mut scan = TextLine::scan().invoice_id(7).request().stream(&store);
    let first = scan.next().await;
    assert!(
        matches!(
            first,
            Some(Err(RowError::Store(DynamoError::TableMismatch { .. })))
        ),
        "{first:?}"
    );
    assert!(scan.next().await.is_none(), "the refusal ends the scan");
    // Nothing of the other type was written: the table's own rows still scan.
    store.put_row(&line("INV-1", 1, 1), b"v").await.unwrap();
    let rows: Vec<_> = Line::scan()
        .invoice_id("INV-1")
        .stream(&store)
        .collect()
        .await;
    assert_eq!(rows.len(), 1);
    assert!(rows[0].is_ok(), "{rows:?}");
}

#[tokio::test]
async fn an_existing_table_with_other_key_attributes_is_a_mismatch() {
    let binary = store::<Line>("attrs").await;
    assert!(binary.check_table().await.unwrap(), "its own table matches");
    // Same attribute names and key types, string attributes instead of binary.
    let text = DynamoStore::connect_local::<TextLine>(&dynalite::endpoint(), binary.table())
        .expect("a store");
    let message = mismatch(text.create_table().await);
    assert!(
        message.contains("pk HASH B, sk RANGE B") && message.contains("pk HASH S, sk RANGE S"),
        "{message}"
    );
    mismatch(text.check_table().await);
    // A key without a sort part on a table with a sort key.
    let flat = DynamoStore::connect_local::<Invoice>(&dynalite::endpoint(), binary.table())
        .expect("a store");
    let message = mismatch(flat.create_table().await);
    assert!(message.contains("needs [pk HASH B]"), "{message}");
    // No table yet: nothing to check.
    let missing = DynamoStore::connect_local::<Line>(
        &dynalite::endpoint(),
        &dynalite::fresh_table("missing"),
    )
    .expect("a store");
    assert!(!missing.check_table().await.unwrap());
}

#[tokio::test]
async fn get_many_reads_a_key_given_twice_once() {
    let store = store::<Invoice>("dupes").await;
    let keys: Vec<Vec<u8>> = ["a", "b", "c"]
        .iter()
        .map(|id| Invoice {
            invoice_id: id.to_string(),
        })
        .map(|i| i.encode())
        .collect();
    for key in &keys {
        store.put(key, b"v").await.unwrap();
    }
    let asked = vec![keys[0].clone(), keys[1].clone(), keys[0].clone()];
    let rows = store.get_many(asked).await.expect("no duplicate error");
    assert_eq!(rows.len(), 2);
    // Duplicates more than one request (100 keys) apart.
    let mut asked: Vec<Vec<u8>> = (0..150)
        .map(|i| {
            Invoice {
                invoice_id: format!("none-{i}"),
            }
            .encode()
        })
        .collect();
    asked.insert(0, keys[2].clone());
    asked.push(keys[2].clone());
    let rows = store.get_many(asked).await.expect("no duplicate error");
    assert_eq!(rows, [(keys[2].clone(), b"v".to_vec())]);
}

#[tokio::test]
async fn reads_of_a_partition_dynamodb_cannot_hold_are_refused_as_reads() {
    let store = store::<Line>("readlimit").await;
    let long = "x".repeat(MAX_PARTITION_KEY);
    let mut scan = Line::scan().invoice_id(long.as_str()).stream(&store);
    let first = scan.next().await;
    let Some(Err(RowError::Store(e @ DynamoError::ReadLimit { .. }))) = first else {
        panic!("expected a ReadLimit, got {first:?}");
    };
    let message = e.to_string();
    assert!(
        message.starts_with("Query of key") && message.contains("above DynamoDB's limit of 2048"),
        "{message}"
    );
    let get = Line::get_async(&store, &long, 1, 1).await;
    let Err(RowError::Store(e @ DynamoError::ReadLimit { .. })) = get else {
        panic!("expected a ReadLimit, got {get:?}");
    };
    let message = e.to_string();
    assert!(
        message.starts_with("BatchGetItem of key") && !message.contains("nothing was sent"),
        "{message}"
    );
    assert_eq!(store.requests().query + store.requests().batch_get_item, 0);
}

#[tokio::test]
async fn an_item_another_program_wrote_is_an_error_item_and_the_scan_reads_on() {
    let store = store::<Line>("foreign").await;
    let lines: Vec<Line> = (1..=4).map(|t| line("INV-9", t, 0)).collect();
    store
        .put_rows(lines.iter().map(|l| (l, b"ok")))
        .await
        .unwrap();
    // Another program writes an item between them, without a `v` attribute.
    let foreign = line("INV-9", 10, 0).encode();
    let (pk, sk) = Line::schema().split_key(&foreign).unwrap();
    store
        .client()
        .put_item()
        .table_name(store.table())
        .item("pk", AttributeValue::B(Blob::new(pk)))
        .item("sk", AttributeValue::B(Blob::new(sk)))
        .item("note", AttributeValue::S("written by hand".into()))
        .send()
        .await
        .expect("a raw PutItem");
    for ordered in [true, false] {
        let request = Line::scan().invoice_id("INV-9").request();
        let request = if ordered {
            request
        } else {
            request.unordered()
        };
        let items: Vec<_> = request.stream(&store).collect().await;
        let rows: Vec<u64> = items
            .iter()
            .filter_map(|i| i.as_ref().ok())
            .map(|(l, _)| l.created_at)
            .collect();
        let mut sorted = rows.clone();
        sorted.sort_unstable_by(|a, b| b.cmp(a));
        assert_eq!(
            sorted,
            [4, 3, 2, 1],
            "every row of keyschema's (ordered: {ordered})"
        );
        if ordered {
            assert_eq!(rows, sorted);
        }
        let errors: Vec<String> = items
            .iter()
            .filter_map(|i| i.as_ref().err())
            .map(ToString::to_string)
            .collect();
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(
            errors[0].contains("has no binary `v` attribute"),
            "{errors:?}"
        );
    }
}

#[tokio::test]
async fn the_backfill_is_refused_on_dynamodb_before_any_work() {
    let store = store::<Visit>("backfill").await;
    let visits: Vec<Visit> = (0..5)
        .map(|ts| Visit {
            user: "u1".into(),
            ts,
        })
        .collect();
    AsyncStore::put_rows_in(&store, Phase::Dual, visits.iter().map(|v| (v, b"v")))
        .await
        .unwrap();
    let before = store.requests();
    let mut backfill = Backfill::<Visit>::new().expect("a history");
    let copy = backfill.copy_async(&store).await;
    let Err(e @ BackfillError::Unsupported(DynamoError::UnboundPartition { .. })) = copy else {
        panic!("expected a refusal, got {copy:?}");
    };
    let message = e.to_string();
    assert!(
        message.contains("nothing was read or written") && message.contains("parallel Scan"),
        "{message}"
    );
    assert!(matches!(
        backfill.copy_batch_async(&store).await,
        Err(BackfillError::Unsupported(_))
    ));
    assert!(matches!(
        backfill.verify_async(&store).await,
        Err(BackfillError::Unsupported(_))
    ));
    assert_eq!(store.requests(), before, "no request was sent");
}

/// The older binary's key type: unsalted, as `Click` was before its cut-over.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(then = (user), ts)]
struct OldClick {
    user: String,
    ts: u64,
}

/// Salted from `ts = 100` on; unsalted before, as `OldClick` wrote it.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = hash(user) % 8, then = (user), ts)]
#[rowkey_was(salt = none, until = ts >= 100)]
struct Click {
    user: String,
    ts: u64,
}

#[tokio::test]
async fn rows_in_the_older_layout_are_stored_and_read_on_dynamodb() {
    // The older binary writes with its own type and store; the new one
    // shares the table. Its older keys (`u1\0...`, no salt byte) do not
    // split by the declared layout: before the fix every read and write of
    // them failed with SaltOutOfRange.
    let old = store::<OldClick>("older").await;
    let new = DynamoStore::connect_local::<Click>(&dynalite::endpoint(), old.table()).unwrap();
    let row = |ts| OldClick {
        user: "u1".into(),
        ts,
    };
    old.put_rows([(&row(5), b"old"), (&row(7), b"old")])
        .await
        .unwrap();
    let click = |ts| Click {
        user: "u1".into(),
        ts,
    };
    let got = AsyncStore::get_row_in(&new, Phase::Split, &click(5)).await;
    assert_eq!(got.unwrap().map(|(_, v)| v), Some(b"old".to_vec()));
    // The new binary writes a row before the cut-over in its older layout,
    // where the older binary reads it; one past it in the declared layout.
    AsyncStore::put_row_in(&new, Phase::Split, &click(6), b"new")
        .await
        .unwrap();
    AsyncStore::put_row_in(&new, Phase::Split, &click(150), b"new")
        .await
        .unwrap();
    let seen = old.get_row::<OldClick>(&row(6).encode()).await.unwrap();
    assert_eq!(seen.map(|(_, v)| v), Some(b"new".to_vec()));
    let scan = Click::scan().user("u1").request().phase(Phase::Split);
    let rows: Vec<(Click, Vec<u8>)> = scan.stream(&new).map(|r| r.expect("a row")).collect().await;
    let ts: Vec<u64> = rows.iter().map(|(c, _)| c.ts).collect();
    assert_eq!(ts, [5, 6, 7, 150]);
    AsyncStore::delete_row_in(&new, Phase::Split, &click(7))
        .await
        .unwrap();
    assert_eq!(
        old.get_row::<OldClick>(&row(7).encode()).await.unwrap(),
        None
    );
}
