//! Whole rows between keyschema and Amazon's own Python SDK (boto3), on a
//! real DynamoDB-API server (dynalite, or DynamoDB Local in CI): boto3
//! reads every field of an item the Rust typed put wrote, filters on a
//! value attribute, and writes an item the Rust typed get and scan read.
#![cfg(feature = "dynamodb")]

mod common;

use common::dynalite::{endpoint, store};
use common::interop;
use common::rows::{invoice_lines, ledger, Address, Ledger, Status};
use keyschema::store::AsyncRecordStore;
use keyschema::RowKey;

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[tokio::test]
async fn boto3_reads_and_filters_what_rust_wrote() {
    let store = store::<Ledger>("boto3-read").await;
    let lines: Vec<Ledger> = (1..=3).map(|l| ledger("INV-1", l)).collect();
    store.put_records(&lines).await.expect("put");
    let key = Ledger::get_key("INV-1", 2);
    let (pk, sk) = Ledger::schema().split_key(&key).expect("a key");
    let printed = interop::run(
        "boto3_item.py",
        &["read", &endpoint(), store.table(), &hex(pk), &hex(sk)],
    );
    println!("{printed}");
    let (low, high) = printed.split_once('\n').expect("two lines");
    for attribute in [
        "'amount': {'N': '1000'}",
        "'memo': {'S': 'rent 2'}",
        "'ratio': {'N': '0.25'}",
        "'paid': {'BOOL': True}",
        "'tags': {'L': [{'S': 'home'}, {'S': 'monthly'}]}",
        "'invoice_id': {'S': 'INV-1'}",
        "'line_no': {'N': '2'}",
    ] {
        assert!(low.contains(attribute), "{attribute} in {low}");
    }
    // `note: None` has no attribute (a GSI over it is sparse).
    assert!(!low.contains("'note'"), "{low}");
    for attribute in [
        "'amount': Decimal('1000')",
        "'memo': 'rent 2'",
        "'address': {'city': 'Oslo', 'zip': None}",
        "'status': {'Paid': {'on': Decimal('1700000000')}}",
        "'counts': {'views': Decimal('3')}",
    ] {
        assert!(high.contains(attribute), "{attribute} in {high}");
    }
    // A FilterExpression on a value attribute: amounts 500, 1000, 1500.
    let memos = interop::run("boto3_item.py", &["filter", &endpoint(), store.table()]);
    assert_eq!(memos, "rent 2\nrent 3\n");
}

#[tokio::test]
async fn rust_reads_what_boto3_wrote() {
    let store = store::<Ledger>("boto3-write").await;
    store.put_record(&ledger("INV-PY", 1)).await.expect("put");
    let key = Ledger::get_key("INV-PY", 9);
    let (pk, sk) = Ledger::schema().split_key(&key).expect("a key");
    interop::run(
        "boto3_item.py",
        &["write", &endpoint(), store.table(), &hex(pk), &hex(sk)],
    );
    let want = Ledger {
        invoice_id: "INV-PY".into(),
        line_no: 9,
        amount: 750,
        memo: "written by boto3".into(),
        ratio: 0.5,
        paid: true,
        tags: vec!["python".into()],
        address: Address {
            city: "Lima".into(),
            zip: Some("15001".into()),
        },
        status: Status::Void("typo".into()),
        note: None,
        counts: [("edits".to_string(), 2)].into(),
        approved_by: String::new(),
    };
    assert_eq!(
        store.get_record::<Ledger>(&key).await.expect("get"),
        Some(want.clone())
    );
    let rows = invoice_lines(&store, "INV-PY").await;
    assert_eq!(rows, [ledger("INV-PY", 1), want]);
}

/// A row of floats at DynamoDB's extremes.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(then = (id), n)]
struct Extremes {
    id: String,
    n: u16,
    #[rowkey(value)]
    x: f64,
    #[rowkey(value)]
    y: f32,
}

/// boto3's resource API reads numbers into a `Decimal` of 38 digits and
/// raises `decimal.Rounded` on more. DynamoDB (and both local servers)
/// give every number back in plain form whatever text was sent (boto3
/// issues #2500 and #4636), so a float of magnitude 1e38 or more cannot be
/// read by it, whoever wrote it; every float below that can, at both ends
/// of DynamoDB's range and of an `f32`'s.
#[tokio::test]
async fn boto3s_resource_api_scans_floats_at_dynamodbs_extremes() {
    let store = store::<Extremes>("boto3-extremes").await;
    let cases: [(f64, f32); 7] = [
        (1e37, f32::MIN_POSITIVE),
        (1e-130, 0.9),
        (-9.99e37, -1e-10),
        (123456789012345678901234567890.0, 1e30),
        (0.1, 16777217.0),
        (-0.0, -0.0),
        (-2.5e-100, 3.0e37),
    ];
    let rows: Vec<Extremes> = (0u16..)
        .zip(cases)
        .map(|(n, (x, y))| Extremes {
            id: "e".into(),
            n,
            x,
            y,
        })
        .collect();
    store.put_records(&rows).await.expect("put");
    let printed = interop::run(
        "boto3_item.py",
        &["scan", &endpoint(), store.table(), "n", "x", "y"],
    );
    let lines: Vec<&str> = printed.lines().collect();
    assert_eq!(
        lines,
        [
            "0.0 1e+37 1.1754944e-38",
            "1.0 1e-130 0.9",
            "2.0 -9.99e+37 -1e-10",
            "3.0 1.2345678901234568e+29 1e+30",
            "4.0 0.1 16777216.0",
            "5.0 0.0 0.0",
            "6.0 -2.5e-100 3e+37",
        ],
        "{printed}"
    );
    // 1e38 and beyond: DynamoDB holds it and gives it back as 39 digits
    // or more, which the resource API refuses for the whole scan.
    let big = Extremes {
        id: "e".into(),
        n: 7,
        x: 1e125,
        y: 0.0,
    };
    store.put_record(&big).await.expect("DynamoDB holds 1e125");
    let printed = interop::run(
        "boto3_item.py",
        &["scan", &endpoint(), store.table(), "n", "x", "y"],
    );
    assert_eq!(printed, "decimal.Rounded\n", "{printed}");
    // The low-level client and keyschema read it.
    let got = store
        .get_record::<Extremes>(&big.encode())
        .await
        .expect("get");
    assert_eq!(got, Some(big));
}
