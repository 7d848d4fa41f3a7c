//! `keyschema scan`, `get` and `check` read nested value fields by their
//! declared types, as the library's typed read does: a `Vec<i64>` holding
//! `[1, "x"]` or u64::MAX, a `(u8, String)` stored with one element, a
//! DynamoDB `L` holding `N "99999999999999999999"` for an i64, a `Vec<u8>`
//! stored as `S`. Another program wrote those cells and items beside rows
//! the library wrote, on the Bigtable emulator and dynalite (DynamoDB Local
//! in CI). Ground truth: the rows the test wrote, and the typed read
//! (`get_record`), which refuses every bad row with the message the tool
//! must print.

#![cfg(all(feature = "bigtable", feature = "dynamodb"))]

mod common;

use common::cli::{bigtable_of, document, lines_with, on_dynamodb, run};
use common::{cbt, dynalite};
use keyschema::store::dynamodb::sdk::primitives::Blob;
use keyschema::store::dynamodb::sdk::types::AttributeValue;
use keyschema::store::AsyncRecordStore;
use keyschema::RowKey;

/// A crate on a shelf: value fields that nest.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(then = (shelf), n)]
struct Bin {
    shelf: String,
    n: u32,
    #[rowkey(value)]
    scores: Vec<i64>,
    #[rowkey(value)]
    pair: (u8, String),
    #[rowkey(value)]
    ratios: Vec<f32>,
    #[rowkey(value)]
    blob: Vec<u8>,
    #[rowkey(value)]
    peak: Option<f32>,
}

fn bins() -> Vec<Bin> {
    (0..12u32)
        .map(|n| Bin {
            shelf: "a".into(),
            n,
            scores: vec![i64::from(n), -7, i64::MAX],
            pair: (n as u8, format!("p{n}")),
            ratios: vec![0.9, f32::MAX],
            blob: vec![1, n as u8],
            peak: (n % 2 == 0).then_some(f32::MAX),
        })
        .collect()
}

/// The line `scan` prints for a bin: numbers as stored, an f32 by its own
/// shortest text.
fn bin_line(b: &Bin) -> String {
    let list = |v: Vec<String>| format!("[{}]", v.join(", "));
    format!(
        "shelf={} n={} | scores={} pair=[{}, {:?}] ratios={} blob={} peak={}",
        b.shelf,
        b.n,
        list(b.scores.iter().map(|s| s.to_string()).collect()),
        b.pair.0,
        b.pair.1,
        list(b.ratios.iter().map(|r| format!("{r:?}")).collect()),
        list(b.blob.iter().map(|x| x.to_string()).collect()),
        b.peak.map_or("null".into(), |p| format!("{p:?}")),
    )
}

/// Checks the tool's output against the rows written and the typed read's
/// refusals: every good row's line, one error line per bad row naming the
/// path the typed read names, exit 1.
fn assert_scan(
    rows: &[Bin],
    bad: &[(u32, String, &str)],
    (code, stdout, stderr): (i32, String, String),
) {
    assert_eq!(code, 1, "rows were bad: {stderr}");
    let want: Vec<String> = rows
        .iter()
        .filter(|b| !bad.iter().any(|(n, _, _)| *n == b.n))
        .map(bin_line)
        .collect();
    assert_eq!(stdout.lines().collect::<Vec<_>>(), want, "{stderr}");
    for (n, typed, path) in bad {
        // What the typed read says of the value, after its field's words.
        let typed = typed
            .split_once("does not read as its declared type: ")
            .map_or(typed.as_str(), |(_, detail)| detail);
        let said = lines_with(&stderr, &format!("n={n}:"));
        assert!(
            said.len() == 1 && said[0].contains(path) && said[0].contains(typed),
            "row {n}: the typed read says {typed:?} (at {path}); the tool said {stderr}"
        );
    }
}

#[tokio::test]
async fn bigtable_nested_cells_their_types_refuse_are_error_lines() {
    let rows = bins();
    let (host, table) = bigtable_of("cli-nested-cells", &rows).await;
    let family = Bin::schema().family();
    let msgpack = |v: Result<Vec<u8>, rmp_serde::encode::Error>| v.expect("msgpack");
    let foreign: [(u32, &str, Vec<u8>, &str); 4] = [
        (
            2,
            "scores",
            msgpack(rmp_serde::to_vec(&(1u8, "x"))),
            "scores[1]",
        ),
        (
            5,
            "scores",
            msgpack(rmp_serde::to_vec(&vec![u64::MAX])),
            "scores[0]",
        ),
        (7, "pair", msgpack(rmp_serde::to_vec(&(7u8,))), "`pair`"),
        (
            9,
            "ratios",
            msgpack(rmp_serde::to_vec(&vec![1e39f64])),
            "ratios[0]",
        ),
    ];
    for (n, qualifier, cell, _) in &foreign {
        cbt::mutate_row(
            &table,
            Bin::get_key("a", *n),
            family,
            &[(qualifier, Some(cell.clone()))],
        )
        .await;
    }
    // The typed read refuses each, naming the field and the path in it.
    let store = keyschema::store::bigtable::BigtableStore::connect_emulator(
        &host,
        cbt::PROJECT,
        cbt::INSTANCE,
        &table,
    )
    .await
    .expect("connect");
    let mut bad = Vec::new();
    for (n, _, _, path) in &foreign {
        let typed = store
            .get_record::<Bin>(&Bin::get_key("a", *n))
            .await
            .expect_err("the typed read refuses it")
            .to_string();
        assert!(typed.contains(path), "{typed}");
        bad.push((*n, typed, *path));
    }

    let dir = tempfile::tempdir().expect("temp dir");
    let doc = document::<Bin>(dir.path());
    let path = format!("{}/{}/{table}", cbt::PROJECT, cbt::INSTANCE);
    let tool = |args: &[&str]| {
        let mut all = vec!["--schema", &doc, "--bigtable", &path, "--emulator", &host];
        all.extend_from_slice(args);
        run(&all, b"")
    };
    assert_scan(&rows, &bad, tool(&["scan", "--limit", "100"]));
    let (code, stdout, stderr) = tool(&["get", "shelf=a", "n=2"]);
    assert_eq!((code, stdout.as_str()), (1, ""), "{stderr}");
    assert!(stderr.contains(bad[0].2), "{stderr}");
    let (code, stdout, _) = tool(&["get", "shelf=a", "n=3"]);
    assert_eq!((code, stdout.trim_end()), (0, bin_line(&rows[3]).as_str()));
    let (code, stdout, stderr) = tool(&["check"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(
        lines_with(&stdout, "FAIL")
            .iter()
            .any(|l| l.contains("4 of 12 sampled rows")),
        "{stdout}"
    );
}

#[tokio::test]
async fn dynamodb_nested_attributes_their_types_refuse_are_error_lines() {
    let store = dynalite::store::<Bin>("cli-nested-items").await;
    let rows = bins();
    store.put_records(&rows).await.expect("write");
    let n = |s: &str| AttributeValue::N(s.into());
    let s = |s: &str| AttributeValue::S(s.into());
    let foreign: [(u32, &str, AttributeValue, &str); 5] = [
        (
            2,
            "scores",
            AttributeValue::L(vec![n("1"), s("x")]),
            "scores[1]",
        ),
        (
            4,
            "scores",
            AttributeValue::L(vec![n("1"), n("99999999999999999999")]),
            "scores[1]",
        ),
        (6, "pair", AttributeValue::L(vec![n("7")]), "`pair`"),
        (8, "blob", s("abc"), "`blob`"),
        (
            10,
            "ratios",
            AttributeValue::L(vec![n("1e39")]),
            "ratios[0]",
        ),
    ];
    for (seq, name, value, _) in &foreign {
        let key = Bin::get_key("a", *seq);
        let (pk, sk) = Bin::schema().split_key(&key).expect("a key");
        store
            .client()
            .update_item()
            .table_name(store.table())
            .key("pk", AttributeValue::B(Blob::new(pk)))
            .key("sk", AttributeValue::B(Blob::new(sk)))
            .update_expression("SET #f = :v")
            .expression_attribute_names("#f", *name)
            .expression_attribute_values(":v", value.clone())
            .send()
            .await
            .expect("update");
    }
    // Another program's attribute on a good row: no value field, printed
    // apart.
    let key = Bin::get_key("a", 3);
    let (pk, sk) = Bin::schema().split_key(&key).expect("a key");
    store
        .client()
        .update_item()
        .table_name(store.table())
        .key("pk", AttributeValue::B(Blob::new(pk)))
        .key("sk", AttributeValue::B(Blob::new(sk)))
        .update_expression("SET zz_other = :v")
        .expression_attribute_values(":v", s("x"))
        .send()
        .await
        .expect("update");
    let mut bad = Vec::new();
    for (seq, _, _, path) in &foreign {
        let typed = store
            .get_record::<Bin>(&Bin::get_key("a", *seq))
            .await
            .expect_err("the typed read refuses it")
            .to_string();
        assert!(typed.contains(path), "{typed}");
        bad.push((*seq, typed, *path));
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let doc = document::<Bin>(dir.path());
    let tool = |args: &[&str]| on_dynamodb(&doc, store.table(), args);
    let scanned = tool(&["scan", "shelf=a", "--limit", "100"]);
    // The i64 beyond its range is said as DynamoDB holds it, never 1e20.
    assert!(scanned.2.contains("99999999999999999999"), "{}", scanned.2);
    assert!(!scanned.2.contains("1e20"), "{}", scanned.2);
    let mut want = rows.clone();
    want.retain(|b| b.n != 3);
    let other = format!("{} | undeclared: zz_other=\"x\"", bin_line(&rows[3]));
    let (code, stdout, stderr) = scanned;
    let printed: Vec<&str> = stdout.lines().collect();
    assert!(printed.contains(&other.as_str()), "{stdout}");
    let stdout: String = printed
        .iter()
        .filter(|l| **l != other)
        .map(|l| format!("{l}\n"))
        .collect();
    assert_scan(&want, &bad, (code, stdout, stderr));
    let (_, json, _) = tool(&["get", "shelf=a", "n=3", "--json"]);
    let json: serde_json::Value = serde_json::from_str(&json).expect("a JSON line");
    assert_eq!(
        json["undeclared"],
        serde_json::json!({"zz_other": "x"}),
        "{json}"
    );
    assert_eq!(
        json["scores"],
        serde_json::json!([3, -7, i64::MAX]),
        "{json}"
    );
    let (code, stdout, stderr) = tool(&["get", "shelf=a", "n=8"]);
    assert_eq!((code, stdout.as_str()), (1, ""), "{stderr}");
    assert!(stderr.contains(bad[3].2), "{stderr}");
    let (code, stdout, stderr) = tool(&["check"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(
        lines_with(&stdout, "FAIL")
            .iter()
            .any(|l| l.contains("5 of 12 sampled rows")),
        "{stdout}"
    );
}
