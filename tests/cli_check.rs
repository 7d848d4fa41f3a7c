//! A schema document that does not fit its live table is found, not
//! trusted: a 4-bucket document on an 8-bucket Bigtable table, a wrong
//! column family, a wrong prefix. `scan` and `get` say so on standard
//! error (never "no row" for a row a wrong family hid), and `keyschema
//! check` reports each check with an exit status. Ground truth is the rows
//! written and the documents' own edits.

#![cfg(all(feature = "bigtable", feature = "dynamodb"))]

mod common;

#[path = "../examples/common/bigtable_event.rs"]
mod bigtable_event;

use bigtable_event::Event;
use common::cli::{bigtable_of, on_dynamodb, run};
use common::{cbt, dynalite};
use keyschema::store::AsyncRecordStore;
use keyschema::RowKey;

fn events() -> Vec<Event> {
    (0..400u64)
        .map(|i| Event {
            user_id: format!("u{}", i % 37),
            site: ["shop", "news"][(i % 2) as usize].into(),
            timestamp: 1_700_000_000 + i,
            action: "view".into(),
            page: format!("/p/{i}"),
            duration_ms: i as u32,
            referrer: None,
        })
        .collect()
}

/// `Event`'s document with `from` replaced by `to` (one edit, checked).
fn edited(dir: &std::path::Path, name: &str, from: &str, to: &str) -> String {
    let json = Event::schema().to_json();
    assert_eq!(json.matches(from).count(), 1, "{from} in {json}");
    let path = dir.join(format!("{name}.json"));
    std::fs::write(&path, json.replace(from, to)).expect("document");
    path.to_str().expect("path").to_string()
}

#[tokio::test]
async fn documents_that_do_not_fit_a_bigtable_table_are_found() {
    let rows = events();
    let (host, table) = bigtable_of("cli-check", &rows).await;
    let dir = tempfile::tempdir().expect("temp dir");
    let right = edited(dir.path(), "right", "\"buckets\":8", "\"buckets\":8");
    let four = edited(dir.path(), "four", "\"buckets\":8", "\"buckets\":4");
    let sixteen = edited(dir.path(), "sixteen", "\"buckets\":8", "\"buckets\":16");
    let family = edited(dir.path(), "family", "\"family\":\"f\"", "\"family\":\"g\"");
    let prefix = edited(dir.path(), "prefix", "\"prefix\":\"\"", "\"prefix\":\"7a\"");
    let path = format!("{}/{}/{table}", cbt::PROJECT, cbt::INSTANCE);
    let tool = |doc: &str, args: &[&str]| {
        let mut all = vec!["--schema", doc, "--bigtable", &path, "--emulator", &host];
        all.extend_from_slice(args);
        run(&all, b"")
    };

    // The document of the table's writer fits.
    let (code, stdout, stderr) = tool(&right, &["check"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("all 400 sampled keys decode"), "{stdout}");
    assert!(stdout.contains("fall in 8 of them"), "{stdout}");
    assert!(
        stdout.ends_with("the schema document fits this table\n"),
        "{stdout}"
    );

    // 4 buckets on a table of 8: rows of buckets 4-7 are never read (the
    // others decode: a hash below 4 modulo 8 is the same modulo 4).
    let past = rows
        .iter()
        .filter(|e| Event::schema().bucket_of(&e.encode()).expect("bucket") >= 4)
        .count();
    let (code, stdout, stderr) = tool(&four, &["check"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(stdout.contains("FAIL  keys:"), "{stdout}");
    assert!(
        stdout.contains(&format!("{past} sampled keys have a salt past bucket 3")),
        "{stdout}"
    );
    assert!(
        stdout.contains("FAIL  past the buckets: at least 100 keys past bucket 3"),
        "{stdout}"
    );
    let (code, stdout, stderr) = tool(&four, &["scan", "--limit", "1000"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("past the document's 4 salt buckets"),
        "{stderr}"
    );
    assert_eq!(stdout.lines().count(), rows.len() - past);

    // 16 buckets on a table of 8: the rows fill buckets 0-7 and leave 8-15
    // empty, which a sample of 400 keys would not if there were 16.
    let used: std::collections::BTreeSet<u32> = rows
        .iter()
        .map(|e| Event::schema().bucket_of(&e.encode()).expect("bucket"))
        .collect();
    assert_eq!(used, (0..8).collect(), "the table's rows use its 8 buckets");
    let (code, stdout, stderr) = tool(&sixteen, &["check"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    let said = stdout
        .lines()
        .find(|l| l.contains("buckets:"))
        .unwrap_or_default();
    assert!(
        said.starts_with("FAIL")
            && said.contains("buckets 8-15")
            && said.contains("8 salt buckets"),
        "{stdout}"
    );

    // A wrong family: refused, never "no row".
    let e = &rows[5];
    let key = [
        format!("user_id={}", e.user_id),
        format!("site={}", e.site),
        format!("timestamp={}", e.timestamp),
    ];
    let get: Vec<&str> = ["get"]
        .into_iter()
        .chain(key.iter().map(String::as_str))
        .collect();
    let (code, stdout, stderr) = tool(&family, &get);
    assert_eq!((code, stdout.as_str()), (2, ""), "{stderr}");
    assert!(stderr.contains("has no column family `g`"), "{stderr}");
    assert!(!stderr.contains("no row under"), "{stderr}");
    let (code, _, stderr) = tool(&family, &["scan"]);
    assert_eq!(code, 2, "{stderr}");
    let (code, stdout, _) = tool(&family, &["check"]);
    assert_eq!(code, 1);
    assert!(stdout.contains("FAIL  family:"), "{stdout}");
    // The right document reads the same row.
    let (code, stdout, stderr) = tool(&right, &get);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.starts_with(&format!("user_id={} ", e.user_id)),
        "{stdout}"
    );

    // A wrong prefix: the scan reads nothing, says why, and exits 1 (as
    // the failed check does).
    let (code, stdout, stderr) = tool(&prefix, &["scan"]);
    assert_eq!((code, stdout.as_str()), (1, ""), "{stderr}");
    assert!(stderr.contains("(0 rows)"), "{stderr}");
    assert!(
        stderr.contains("holds rows, but 5 of the first 5 keys"),
        "{stderr}"
    );
    let (code, stdout, _) = tool(&prefix, &["check"]);
    assert_eq!(code, 1);
    assert!(
        stdout.contains("400 sampled keys are not under the document's prefix"),
        "{stdout}"
    );
}

/// A DynamoDB row type.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = hash(account) % 4, then = (account), n)]
struct Charge {
    account: String,
    n: u32,
    #[rowkey(value)]
    cents: i64,
}

#[tokio::test]
async fn check_reads_a_dynamodb_tables_keys_and_values() {
    let store = dynalite::store::<Charge>("cli-check").await;
    let charges: Vec<Charge> = (0..60u32)
        .map(|n| Charge {
            account: format!("a{}", n % 20),
            n,
            cents: i64::from(n) * 100,
        })
        .collect();
    store.put_records(&charges).await.expect("write");
    let dir = tempfile::tempdir().expect("temp dir");
    let doc = common::cli::document::<Charge>(dir.path());
    let (code, stdout, stderr) = on_dynamodb(&doc, store.table(), &["check"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("all 60 sampled keys decode"), "{stdout}");
    assert!(
        stdout.contains("the value fields of 60 sampled rows read"),
        "{stdout}"
    );
    // A document of 8 buckets on this table of 4: buckets 4-7 are empty.
    let used: std::collections::BTreeSet<u32> = charges
        .iter()
        .map(|c| Charge::schema().bucket_of(&c.encode()).expect("bucket"))
        .collect();
    assert_eq!(used, (0..4).collect(), "the table's rows use its 4 buckets");
    let json = Charge::schema()
        .to_json()
        .replace("\"buckets\":4", "\"buckets\":8");
    let eight = dir.path().join("eight.json");
    std::fs::write(&eight, json).expect("document");
    let (code, stdout, _) = on_dynamodb(eight.to_str().expect("path"), store.table(), &["check"]);
    assert_eq!(code, 1, "{stdout}");
    let said = stdout
        .lines()
        .find(|l| l.contains("buckets:"))
        .unwrap_or_default();
    assert!(
        said.starts_with("FAIL") && said.contains("buckets 4-7") && said.contains("4 salt buckets"),
        "{stdout}"
    );

    // A document whose value field has another type: its values fail.
    let json = Charge::schema()
        .to_json()
        .replace("\"type\":\"i64\"", "\"type\":\"String\"");
    let wrong = dir.path().join("wrong.json");
    std::fs::write(&wrong, json).expect("document");
    let wrong = wrong.to_str().expect("path");
    let (code, stdout, _) = on_dynamodb(wrong, store.table(), &["check"]);
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.contains("FAIL  values: 60 of 60 sampled rows"),
        "{stdout}"
    );
}
