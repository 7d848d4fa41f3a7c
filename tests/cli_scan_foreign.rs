//! `scan --limit N` paging through a range that holds keys of another
//! program (a good key with one more byte, `ff`, written raw), on the
//! Bigtable emulator and dynalite: a key that does not decode neither ends
//! a page nor loses its cursor, so following `--after` reaches every good
//! row, in order, and each foreign key is reported once. Ground truth is
//! the rows written.

#![cfg(all(feature = "bigtable", feature = "dynamodb"))]

mod common;

use common::cli::{bigtable_of, document, on_dynamodb, run};
use common::{cbt, dynalite};
use keyschema::store::dynamodb::sdk::primitives::Blob;
use keyschema::store::dynamodb::sdk::types::AttributeValue;
use keyschema::store::AsyncRecordStore;
use keyschema::RowKey;

/// An item on a shelf, four buckets on Bigtable.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = hash(shelf) % 4, then = shelf, seq)]
struct Item {
    shelf: String,
    seq: u32,
    #[rowkey(value)]
    qty: u32,
}

/// An item on DynamoDB: one partition per shelf.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(then = (shelf), seq)]
struct Stock {
    shelf: String,
    seq: u32,
    #[rowkey(value)]
    qty: u32,
}

/// The rows written, and which of them get a foreign twin (their key and
/// one byte `ff`).
fn foreign(seq: u32) -> bool {
    seq % 7 == 3
}

/// Pages of `--limit 4` from the start, each resumed after the cursor the
/// one before printed, until none is printed: every row printed, and how
/// many foreign keys the pages reported.
fn pages(
    tool: impl Fn(&[&str]) -> (i32, String, String),
    binding: &[&str],
) -> (Vec<String>, usize) {
    let (mut printed, mut reported) = (Vec::new(), 0);
    let mut cursor: Option<String> = None;
    for _ in 0..100 {
        let mut args = vec!["scan", "--limit", "4"];
        args.extend_from_slice(binding);
        if let Some(c) = &cursor {
            args.extend_from_slice(&["--after", c]);
        }
        let (code, stdout, stderr) = tool(&args);
        assert!(code == 0 || code == 1, "{stderr}");
        printed.extend(stdout.lines().map(str::to_string));
        reported += stderr
            .lines()
            .filter(|l| l.contains(": not a key of"))
            .count();
        cursor = stderr
            .split("--after ")
            .nth(1)
            .and_then(|rest| rest.split_whitespace().next())
            .map(str::to_string);
        if cursor.is_none() {
            return (printed, reported);
        }
    }
    panic!("paging did not end after 100 pages");
}

#[tokio::test]
async fn bigtable_pages_read_past_foreign_keys_to_every_good_row() {
    let rows: Vec<Item> = (0..45u32)
        .map(|seq| Item {
            shelf: format!("s{}", seq % 3),
            seq,
            qty: seq * 5,
        })
        .collect();
    let (host, table) = bigtable_of("cli-scan-foreign", &rows).await;
    let family = Item::schema().family();
    let twins: Vec<&Item> = rows.iter().filter(|r| foreign(r.seq)).collect();
    for r in &twins {
        let mut key = r.encode();
        key.push(0xff);
        // Another program's row: one 4-byte `qty` cell.
        cbt::mutate_row(&table, key, family, &[("qty", Some(vec![0, 0, 0, 1]))]).await;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let doc = document::<Item>(dir.path());
    let path = format!("{}/{}/{table}", cbt::PROJECT, cbt::INSTANCE);
    let tool = |args: &[&str]| {
        let mut all = vec!["--schema", &doc, "--bigtable", &path, "--emulator", &host];
        all.extend_from_slice(args);
        run(&all, b"")
    };
    let line = |r: &Item| format!("shelf={} seq={} | qty={}", r.shelf, r.seq, r.qty);

    // Every bucket merged.
    let mut sorted: Vec<&Item> = rows.iter().collect();
    sorted.sort_by_key(|r| r.encode()[1..].to_vec());
    let (printed, reported) = pages(tool, &[]);
    assert_eq!(printed, sorted.iter().map(|r| line(r)).collect::<Vec<_>>());
    assert_eq!(reported, twins.len());

    // One shelf's range.
    let shelf: Vec<&Item> = sorted.iter().copied().filter(|r| r.shelf == "s1").collect();
    let (printed, reported) = pages(tool, &["shelf=s1"]);
    assert_eq!(printed, shelf.iter().map(|r| line(r)).collect::<Vec<_>>());
    assert_eq!(reported, shelf.iter().filter(|r| foreign(r.seq)).count());
}

#[tokio::test]
async fn dynamodb_pages_read_past_foreign_keys_to_every_good_row() {
    let store = dynalite::store::<Stock>("cli-scan-foreign").await;
    let rows: Vec<Stock> = (0..30u32)
        .map(|seq| Stock {
            shelf: "s1".into(),
            seq,
            qty: seq * 5,
        })
        .collect();
    store.put_records(&rows).await.expect("write");
    for r in rows.iter().filter(|r| foreign(r.seq)) {
        let key = r.encode();
        let (pk, sk) = Stock::schema().split_key(&key).expect("a key");
        let sk = [sk, &[0xff]].concat();
        store
            .client()
            .put_item()
            .table_name(store.table())
            .item("pk", AttributeValue::B(Blob::new(pk)))
            .item("sk", AttributeValue::B(Blob::new(sk)))
            .item("qty", AttributeValue::N("1".into()))
            .send()
            .await
            .expect("put");
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let doc = document::<Stock>(dir.path());
    let tool = |args: &[&str]| on_dynamodb(&doc, store.table(), args);
    let (printed, reported) = pages(tool, &["shelf=s1"]);
    let want: Vec<String> = rows
        .iter()
        .map(|r| format!("shelf=s1 seq={} | qty={}", r.seq, r.qty))
        .collect();
    assert_eq!(printed, want);
    assert_eq!(reported, rows.iter().filter(|r| foreign(r.seq)).count());
}
