//! `keyschema scan` and `get --json` print floats as the typed read reads
//! them: an `f32` inside a struct of the user's (which the schema document
//! does not describe) stored as a MessagePack float32 on Bigtable by its
//! own shortest text, not widened to f64; an `f64` field on DynamoDB as
//! Rust's float text (`1e125`, `2.0`), never as an integer of the digits
//! DynamoDB keeps. Ground truth: the rows the test wrote and Rust's own
//! float text of them.

#![cfg(all(feature = "bigtable", feature = "dynamodb"))]

mod common;

use common::cli::{bigtable_of, document, on_dynamodb, run};
use common::{cbt, dynalite};
use keyschema::store::dynamodb::sdk::types::AttributeValue;
use keyschema::store::AsyncRecordStore;
use keyschema::RowKey;

/// A struct of the user's: the document knows only its name.
#[derive(serde::Serialize, serde::Deserialize, Debug, Clone, Default, PartialEq)]
struct Dims {
    w: u32,
    h: f32,
}

/// A box on a shelf, with a struct value field.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(then = (shelf), n)]
struct Parcel {
    shelf: String,
    n: u32,
    #[rowkey(value)]
    dims: Dims,
}

#[tokio::test]
async fn bigtable_an_f32_inside_a_struct_prints_by_its_own_shortest_text() {
    let rows: Vec<Parcel> = [0.3f32, 0.1, 1e-7, 16_777_217.0]
        .iter()
        .enumerate()
        .map(|(n, &h)| Parcel {
            shelf: "a".into(),
            n: n as u32,
            dims: Dims { w: 7, h },
        })
        .collect();
    let (host, table) = bigtable_of("cli-float-struct", &rows).await;
    let dir = tempfile::tempdir().expect("temp dir");
    let doc = document::<Parcel>(dir.path());
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
            "shelf=a",
        ],
        b"",
    );
    assert_eq!(code, 0, "{stderr}");
    let printed: Vec<&str> = stdout.lines().collect();
    assert_eq!(printed.len(), rows.len(), "{stdout}");
    for (line, row) in printed.iter().zip(&rows) {
        let h = format!("{:?}", row.dims.h);
        let widened = format!("{:?}", f64::from(row.dims.h));
        assert!(
            line.starts_with(&format!("shelf=a n={} | dims=", row.n))
                && line.contains(&format!(" {h}"))
                && (h == widened || !line.contains(&widened)),
            "{line} should print h as {h}"
        );
    }
}

/// A reading whose ratio is an f64.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(then = (meter), seq)]
struct Gauge {
    meter: String,
    seq: u32,
    #[rowkey(value)]
    ratio: f64,
}

#[tokio::test]
async fn dynamodb_an_f64_field_prints_as_a_float_never_an_integer() {
    let store = dynalite::store::<Gauge>("cli-float-f64").await;
    let rows: Vec<Gauge> = [1e125f64, 2.0, 1e22, -0.5]
        .iter()
        .enumerate()
        .map(|(seq, &ratio)| Gauge {
            meter: "m".into(),
            seq: seq as u32,
            ratio,
        })
        .collect();
    store.put_records(&rows).await.expect("write");
    // Another program's `N "2"` for the f64: read as 2.0.
    let key = Gauge::get_key("m", 9);
    let (pk, sk) = Gauge::schema().split_key(&key).expect("a key");
    store
        .client()
        .put_item()
        .table_name(store.table())
        .item("pk", AttributeValue::B(pk.to_vec().into()))
        .item("sk", AttributeValue::B(sk.to_vec().into()))
        .item("meter", AttributeValue::S("m".into()))
        .item("seq", AttributeValue::N("9".into()))
        .item("ratio", AttributeValue::N("2".into()))
        .send()
        .await
        .expect("put");
    let typed = store
        .get_record::<Gauge>(&key)
        .await
        .expect("read")
        .expect("a row");
    let mut all = rows.clone();
    all.push(typed);
    let dir = tempfile::tempdir().expect("temp dir");
    let doc = document::<Gauge>(dir.path());
    for g in &all {
        let seq = format!("seq={}", g.seq);
        let (code, stdout, stderr) =
            on_dynamodb(&doc, store.table(), &["get", "--json", "meter=m", &seq]);
        assert_eq!(code, 0, "{stderr}");
        // Rust's float text, a JSON number that reads back as the f64.
        let want = format!("{:?}", g.ratio);
        assert!(
            stdout.contains(&format!("\"ratio\":{want}")),
            "{stdout} should hold ratio {want}"
        );
        let row: serde_json::Value = serde_json::from_str(stdout.trim_end()).expect("JSON");
        assert_eq!(row["ratio"].as_f64(), Some(g.ratio), "{stdout}");
        let (code, stdout, stderr) = on_dynamodb(&doc, store.table(), &["get", "meter=m", &seq]);
        assert_eq!(code, 0, "{stderr}");
        assert_eq!(
            stdout.trim_end(),
            format!("meter=m seq={} | ratio={:?}", g.seq, g.ratio)
        );
    }
}
