//! `keyschema scan` and `get` on dirty live tables: rows the library wrote
//! beside cells and items another program wrote (a u32 cell holding the
//! text `5`, a 4-byte integer, a missing required field, `"lots"`, `1.5`
//! and `1e20` for an i64, a raw `v` among whole rows, a row without its
//! cell), on the Bigtable emulator and dynalite (DynamoDB Local in CI).
//! Every good row prints, each bad one is an error line naming the row and
//! the field, and the exit status is 1. Ground truth is the rows written.

#![cfg(all(feature = "bigtable", feature = "dynamodb"))]

mod common;

use common::cli::{bigtable_of, document, lines_with, on_dynamodb, run};
use common::{cbt, dynalite, emulator};
use keyschema::store::dynamodb::sdk::primitives::Blob;
use keyschema::store::dynamodb::sdk::types::AttributeValue;
use keyschema::store::{AsyncRecordStore, AsyncStore};
use keyschema::RowKey;

/// A sensor reading, every kind of number among its value fields.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = hash(sensor) % 4, then = sensor, seq)]
struct Reading {
    sensor: String,
    seq: u32,
    #[rowkey(value)]
    count: u32,
    #[rowkey(value)]
    total: i64,
    #[rowkey(value)]
    big: u128,
    #[rowkey(value)]
    signed: i128,
    #[rowkey(value)]
    ratio: f32,
    #[rowkey(value)]
    label: String,
    #[rowkey(value)]
    note: Option<String>,
}

fn readings() -> Vec<Reading> {
    (0..40u32)
        .map(|i| Reading {
            sensor: format!("s{}", i % 5),
            seq: i,
            count: i * 7,
            total: -(i64::from(i) * 1_000_000_007),
            big: u128::MAX - u128::from(i),
            signed: i128::MIN + i128::from(i),
            ratio: 0.9 + i as f32,
            label: format!("l{i}"),
            note: (i % 3 == 0).then(|| format!("n \"{i}\"")),
        })
        .collect()
}

/// The line `scan` prints for a reading: floats as the shortest text of
/// their own width, 128-bit integers as numbers.
fn reading_line(r: &Reading) -> String {
    let note = r.note.as_ref().map_or("null".into(), |n| format!("{n:?}"));
    format!(
        "sensor={} seq={} | count={} total={} big={} signed={} ratio={:?} label={:?} note={note}",
        r.sensor, r.seq, r.count, r.total, r.big, r.signed, r.ratio, r.label
    )
}

#[tokio::test]
async fn bigtable_cells_their_types_refuse_are_error_lines_and_the_scan_reads_on() {
    let rows = readings();
    let (host, table) = bigtable_of("cli-scan-cells", &rows).await;
    // Another program's cells: the text `5` in a u32 column, 4 bytes in an
    // i64 one, a required column deleted.
    let family = Reading::schema().family();
    cbt::mutate_row(
        &table,
        rows[3].encode(),
        family,
        &[("count", Some(b"5".to_vec()))],
    )
    .await;
    cbt::mutate_row(
        &table,
        rows[8].encode(),
        family,
        &[("total", Some(vec![0, 0, 0, 9]))],
    )
    .await;
    cbt::mutate_row(&table, rows[13].encode(), family, &[("label", None)]).await;
    let bad = [3usize, 8, 13];
    let dir = tempfile::tempdir().expect("temp dir");
    let doc = document::<Reading>(dir.path());
    let path = format!("{}/{}/{table}", cbt::PROJECT, cbt::INSTANCE);
    let tool = |args: &[&str]| {
        let mut all = vec!["--schema", &doc, "--bigtable", &path, "--emulator", &host];
        all.extend_from_slice(args);
        run(&all, b"")
    };

    let (code, stdout, stderr) = tool(&["scan", "--limit", "100"]);
    assert_eq!(code, 1, "rows were bad: {stderr}");
    let mut good: Vec<&Reading> = rows
        .iter()
        .enumerate()
        .filter(|(i, _)| !bad.contains(i))
        .map(|(_, r)| r)
        .collect();
    good.sort_by_key(|r| r.encode()[1..].to_vec());
    let want: Vec<String> = good.iter().map(|r| reading_line(r)).collect();
    assert_eq!(stdout.lines().collect::<Vec<_>>(), want, "{stderr}");
    let said = lines_with(&stderr, "sensor=s3 seq=3");
    assert!(
        said.len() == 1 && said[0].contains("`count`") && said[0].contains("the text \"5\""),
        "{stderr}"
    );
    let said = lines_with(&stderr, "sensor=s3 seq=8");
    assert!(
        said.len() == 1 && said[0].contains("`total`") && said[0].contains("4 bytes"),
        "{stderr}"
    );
    let said = lines_with(&stderr, "sensor=s3 seq=13");
    assert!(
        said.len() == 1 && said[0].contains("`label` is missing"),
        "{stderr}"
    );
    assert!(!stderr.contains("there are more"), "{stderr}");

    // A get of a bad row is its error line, exit 1; of a good one, its line.
    let (code, stdout, stderr) = tool(&["get", "sensor=s3", "seq=3"]);
    assert_eq!((code, stdout.as_str()), (1, ""), "{stderr}");
    let (code, stdout, _) = tool(&["get", "sensor=s4", "seq=4"]);
    assert_eq!(
        (code, stdout.trim_end()),
        (0, reading_line(&rows[4]).as_str())
    );

    // --limit says "there are more" only when there are.
    let s1: Vec<&Reading> = rows.iter().filter(|r| r.sensor == "s1").collect();
    let n = s1.len().to_string();
    let (code, stdout, stderr) = tool(&["scan", "sensor=s1", "--limit", &n]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout.lines().count(), s1.len());
    assert!(!stderr.contains("there are more"), "{stderr}");
    let fewer = (s1.len() - 1).to_string();
    let (_, stdout, stderr) = tool(&["scan", "sensor=s1", "--limit", &fewer]);
    assert_eq!(stdout.lines().count(), s1.len() - 1);
    assert!(stderr.contains("there are more"), "{stderr}");
    // An empty result says so.
    let (code, stdout, stderr) = tool(&["scan", "sensor=nobody"]);
    assert_eq!((code, stdout.as_str()), (0, ""));
    assert!(stderr.contains("(0 rows)"), "{stderr}");
}

/// Raw values: no value fields, the bytes in `v:v`.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = hash(device) % 2, then = device, n)]
struct Blip {
    device: String,
    n: u16,
}

#[tokio::test]
async fn a_bigtable_row_without_its_cell_is_an_error_line_and_the_scan_reads_on() {
    let host = emulator::host();
    let table = emulator::fresh_table("cli-scan-raw");
    let store = keyschema::store::bigtable::BigtableStore::connect_emulator(
        &host,
        cbt::PROJECT,
        cbt::INSTANCE,
        &table,
    )
    .await
    .expect("connect");
    store.create_table(&[]).await.expect("create");
    let blips: Vec<Blip> = (0..30u16)
        .map(|n| Blip {
            device: format!("d{}", n % 3),
            n,
        })
        .collect();
    let rows: Vec<(Vec<u8>, Vec<u8>)> = blips
        .iter()
        .map(|b| (b.encode(), vec![b.n as u8, 0xee]))
        .collect();
    let puts = rows
        .iter()
        .map(|(key, value)| keyschema::store::Mutation::Put {
            key: key.clone(),
            value: value.clone(),
        })
        .collect();
    store.write(puts).await.expect("write");
    // Another program's row: a cell, but not `v:v`.
    let stray = Blip {
        device: "d1".into(),
        n: 500,
    };
    cbt::mutate_row(
        &table,
        stray.encode(),
        "v",
        &[("x", Some(b"other".to_vec()))],
    )
    .await;

    let dir = tempfile::tempdir().expect("temp dir");
    let doc = document::<Blip>(dir.path());
    let path = format!("{}/{}/{table}", cbt::PROJECT, cbt::INSTANCE);
    let (code, stdout, stderr) = run(
        &[
            "--schema",
            &doc,
            "--bigtable",
            &path,
            "--emulator",
            &host,
            "scan",
            "--limit",
            "100",
        ],
        b"",
    );
    assert_eq!(code, 1, "{stderr}");
    let mut want: Vec<&(Vec<u8>, Vec<u8>)> = rows.iter().collect();
    want.sort_by_key(|(k, _)| k[1..].to_vec());
    let want: Vec<String> = want
        .iter()
        .map(|(k, v)| {
            let b = Blip::decode(k).expect("a key");
            format!(
                "device={} n={} | value={:02x}{:02x}",
                b.device, b.n, v[0], v[1]
            )
        })
        .collect();
    assert_eq!(stdout.lines().collect::<Vec<_>>(), want, "{stderr}");
    assert_eq!(lines_with(&stderr, "has no v:v cell").len(), 1, "{stderr}");
}

/// A meter reading on DynamoDB: one partition per meter.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(then = (meter), seq)]
struct Meter {
    meter: String,
    seq: u32,
    #[rowkey(value)]
    total: i64,
    #[rowkey(value)]
    big: u128,
    #[rowkey(value)]
    ratio: f32,
    #[rowkey(value)]
    label: String,
}

fn meter_line(m: &Meter) -> String {
    format!(
        "meter={} seq={} | total={} big={} ratio={:?} label={:?}",
        m.meter, m.seq, m.total, m.big, m.ratio, m.label
    )
}

#[tokio::test]
async fn dynamodb_attributes_their_types_refuse_are_error_lines_and_the_scan_reads_on() {
    let store = dynalite::store::<Meter>("cli-scan-items").await;
    let meters: Vec<Meter> = (0..30u32)
        .map(|seq| Meter {
            meter: "m1".into(),
            seq,
            total: i64::from(seq) * -3,
            big: u128::MAX / 3 + u128::from(seq),
            ratio: 0.9,
            label: format!("l{seq}"),
        })
        .collect();
    store.put_records(&meters).await.expect("write");
    // Another program's items, each under a key of its own.
    let foreign = |seq: u32, total: Option<AttributeValue>, label: bool, raw: bool| {
        let key = Meter::get_key("m1", seq);
        let (pk, sk) = Meter::schema().split_key(&key).expect("a key");
        let mut put = store
            .client()
            .put_item()
            .table_name(store.table())
            .item("pk", AttributeValue::B(Blob::new(pk)))
            .item("sk", AttributeValue::B(Blob::new(sk)))
            .item("meter", AttributeValue::S("m1".into()))
            .item("seq", AttributeValue::N(seq.to_string()));
        if let Some(total) = total {
            put = put.item("total", total);
        }
        if label {
            put = put.item("label", AttributeValue::S("x".into()));
        }
        if raw {
            put = put.item("v", AttributeValue::B(Blob::new(vec![1, 2, 3])));
        }
        put.send()
    };
    let n = |s: &str| Some(AttributeValue::N(s.into()));
    foreign(100, Some(AttributeValue::S("lots".into())), true, false)
        .await
        .expect("put");
    foreign(101, n("1.5"), true, false).await.expect("put");
    foreign(102, n("1e20"), true, false).await.expect("put");
    foreign(103, n("7"), false, false).await.expect("put");
    foreign(104, None, false, true).await.expect("put");

    let dir = tempfile::tempdir().expect("temp dir");
    let doc = document::<Meter>(dir.path());
    let (code, stdout, stderr) =
        on_dynamodb(&doc, store.table(), &["scan", "meter=m1", "--limit", "100"]);
    assert_eq!(code, 1, "{stderr}");
    let want: Vec<String> = meters.iter().map(meter_line).collect();
    assert_eq!(stdout.lines().collect::<Vec<_>>(), want, "{stderr}");
    for (seq, field, holds) in [
        (100, "`total`", "lots"),
        (101, "`total`", "1.5"),
        (102, "`total`", "`total`"),
        (103, "`big`", "missing"),
    ] {
        let said = lines_with(&stderr, &format!("seq={seq}:"));
        assert!(
            said.len() == 1 && said[0].contains(field) && said[0].contains(holds),
            "{seq}: {stderr}"
        );
    }
    assert_eq!(
        lines_with(&stderr, "holds a raw value").len(),
        1,
        "{stderr}"
    );
}

/// A row with a random salt: copies in several buckets.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = random % 4, then = (invoice_id), transaction_id)]
struct Entry {
    invoice_id: String,
    transaction_id: u32,
    #[rowkey(value)]
    amount_cents: i64,
}

#[tokio::test]
async fn random_salt_copies_print_once_with_their_buckets_and_disagreeing_ones_fail() {
    let store = dynalite::store::<Entry>("cli-scan-random").await;
    let entry = |t: u32, amount: i64| Entry {
        invoice_id: "INV-1".into(),
        transaction_id: t,
        amount_cents: amount,
    };
    // Buckets chosen in turn: 1, 2, 3, 0, 1, ...
    let mut next = 0u32;
    keyschema::salt::set_chooser(Some(Box::new(move |n| {
        next = (next + 1) % n;
        next
    })));
    store
        .put_records(&[entry(1, 10), entry(2, 20)])
        .await
        .expect("write");
    // A second copy of 1 (same value) and of 2 (another value).
    store.put_record(&entry(1, 10)).await.expect("copy");
    store.put_record(&entry(2, 99)).await.expect("copy");
    keyschema::salt::set_chooser(None);

    let dir = tempfile::tempdir().expect("temp dir");
    let doc = document::<Entry>(dir.path());
    let tool = |args: &[&str]| on_dynamodb(&doc, store.table(), args);
    let (code, stdout, stderr) = tool(&["scan", "invoice_id=INV-1"]);
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(
        stdout.lines().collect::<Vec<_>>(),
        ["invoice_id=INV-1 transaction_id=1 | amount_cents=10 | copies in buckets [1, 3]"],
        "{stderr}"
    );
    let said = lines_with(&stderr, "transaction_id=2");
    assert!(
        said.len() == 1 && said[0].contains("buckets [0, 2]"),
        "{stderr}"
    );
    let (code, stdout, _) = tool(&["get", "invoice_id=INV-1", "transaction_id=1"]);
    assert_eq!(code, 0);
    assert!(stdout.contains("copies in buckets [1, 3]"), "{stdout}");
    let (code, _, stderr) = tool(&["get", "invoice_id=INV-1", "transaction_id=2"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("hold different values"), "{stderr}");
}

#[tokio::test]
async fn reverse_json_keys_and_after_read_as_the_rows_say() {
    let rows = readings();
    let (host, table) = bigtable_of("cli-scan-flags", &rows).await;
    let dir = tempfile::tempdir().expect("temp dir");
    let doc = document::<Reading>(dir.path());
    let path = format!("{}/{}/{table}", cbt::PROJECT, cbt::INSTANCE);
    let tool = |args: &[&str]| {
        let mut all = vec!["--schema", &doc, "--bigtable", &path, "--emulator", &host];
        all.extend_from_slice(args);
        run(&all, b"")
    };
    let mut sorted: Vec<&Reading> = rows.iter().collect();
    sorted.sort_by_key(|r| r.encode()[1..].to_vec());
    let lines = |rs: &[&Reading]| rs.iter().map(|r| reading_line(r)).collect::<Vec<_>>();

    // Newest first: the merge reversed.
    let (code, stdout, stderr) = tool(&["scan", "--reverse", "--limit", "5"]);
    assert_eq!(code, 0, "{stderr}");
    let mut last: Vec<&Reading> = sorted[sorted.len() - 5..].to_vec();
    last.reverse();
    assert_eq!(stdout.lines().collect::<Vec<_>>(), lines(&last));

    // Pages: the cursor printed at the end reads on from the next row.
    let (_, first, stderr) = tool(&["scan", "--limit", "3"]);
    assert_eq!(first.lines().collect::<Vec<_>>(), lines(&sorted[..3]));
    let cursor = stderr
        .split("--after ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("no cursor in {stderr}"));
    let (code, next, stderr) = tool(&["scan", "--limit", "3", "--after", cursor]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(next.lines().collect::<Vec<_>>(), lines(&sorted[3..6]));

    // JSON lines, with the bucket and stored key.
    let (code, stdout, stderr) = tool(&["scan", "--json", "--keys", "--limit", "1"]);
    assert_eq!(code, 0, "{stderr}");
    let row: serde_json::Value = serde_json::from_str(stdout.trim_end()).expect("JSON");
    let r = sorted[0];
    let key = r.encode();
    assert_eq!(row["sensor"], r.sensor.as_str());
    assert_eq!(row["seq"], r.seq);
    assert_eq!(row["count"], r.count);
    assert!(stdout.contains(&format!("\"big\":{},", r.big)), "{stdout}");
    assert_eq!(row["label"], r.label.as_str());
    assert_eq!(row["bucket"], u32::from(key[0]));
    let (_, text, _) = tool(&["scan", "--keys", "--limit", "1"]);
    assert!(
        text.trim_end().ends_with(&format!(" | bucket={}", key[0]))
            || text.contains(&format!(" | bucket={} key=", key[0])),
        "{text}"
    );
}
