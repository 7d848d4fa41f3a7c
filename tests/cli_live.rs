//! The command line tool on live tables: a Bigtable table on the emulator
//! (the `bigtable_events` row type) and a DynamoDB table on dynalite (or
//! the server `DYNAMODB_ENDPOINT` names), written by the library, read by
//! `keyschema scan`, `get`, `splits` and `hotspot` from the schema document
//! alone, and checked against the rows written.

#![cfg(all(feature = "bigtable", feature = "dynamodb"))]

mod common;

#[path = "../examples/common/bigtable_event.rs"]
mod bigtable_event;

use bigtable_event::Event;
use common::cli::{bigtable_of, document, on_dynamodb, run, section};
use common::{cbt, dynalite};
use keyschema::store::AsyncRecordStore;
use keyschema::RowKey;
use std::collections::BTreeMap;

const SITES: [&str; 3] = ["shop", "news", "blog"];

/// 300 events; every other one is user `u0`'s (the hot user).
fn events() -> Vec<Event> {
    (0..300u64)
        .map(|i| Event {
            user_id: if i % 2 == 0 {
                "u0".into()
            } else {
                format!("u{}", i % 7)
            },
            site: SITES[(i % 3) as usize].to_string(),
            timestamp: 1_700_000_000 + i * 13,
            action: if i % 4 == 0 { "buy \"now\"" } else { "view" }.into(),
            page: format!("/p/{i}"),
            duration_ms: i as u32 * 3,
            referrer: (i % 5 == 0).then(|| "search".to_string()),
        })
        .collect()
}

/// The line `scan` and `get` print for an event.
fn line(e: &Event) -> String {
    let referrer = e
        .referrer
        .as_ref()
        .map_or("null".to_string(), |r| format!("{r:?}"));
    format!(
        "user_id={} site={} timestamp={} | action={:?} page={:?} duration_ms={} referrer={referrer}",
        e.user_id, e.site, e.timestamp, e.action, e.page, e.duration_ms
    )
}

#[tokio::test]
async fn scan_get_splits_and_hotspot_read_a_live_bigtable_table() {
    let events = events();
    let (host, table) = bigtable_of("cli-live", &events).await;
    let dir = tempfile::tempdir().expect("temp dir");
    let doc = document::<Event>(dir.path());
    let path = format!("{}/{}/{table}", cbt::PROJECT, cbt::INSTANCE);
    let tool = |args: &[&str]| {
        let mut all = vec!["--schema", &doc, "--bigtable", &path, "--emulator", &host];
        all.extend_from_slice(args);
        run(&all, b"")
    };

    // A scan by field values: u0's shop events, newest first, 4 of them.
    let (code, stdout, stderr) = tool(&["scan", "user_id=u0", "site=shop", "--limit", "4"]);
    assert_eq!(code, 0, "{stderr}");
    let mut expected: Vec<&Event> = events
        .iter()
        .filter(|e| e.user_id == "u0" && e.site == "shop")
        .collect();
    expected.sort_by_key(|e| std::cmp::Reverse(e.timestamp));
    let want: Vec<String> = expected.iter().take(4).map(|e| line(e)).collect();
    assert_eq!(stdout.lines().collect::<Vec<_>>(), want);

    // A range on the next field.
    let (lo, hi) = (expected[6].timestamp, expected[2].timestamp);
    let range = format!("timestamp={lo}..{hi}");
    let (_, stdout, _) = tool(&["scan", "user_id=u0", "site=shop", &range, "--limit", "100"]);
    let want: Vec<String> = expected[3..=6].iter().map(|e| line(e)).collect();
    assert_eq!(stdout.lines().collect::<Vec<_>>(), want);

    // Unbound: every bucket read, merged in key order after the salt.
    let (_, stdout, _) = tool(&["scan", "--limit", "7"]);
    let mut all: Vec<&Event> = events.iter().collect();
    all.sort_by_key(|e| e.encode()[1..].to_vec());
    let want: Vec<String> = all.iter().take(7).map(|e| line(e)).collect();
    assert_eq!(stdout.lines().collect::<Vec<_>>(), want);

    // A get, and a get of a row that is not there.
    let e = &events[17];
    let ts = format!("timestamp={}", e.timestamp);
    let user = format!("user_id={}", e.user_id);
    let site = format!("site={}", e.site);
    let (code, stdout, _) = tool(&["get", &user, &site, &ts]);
    assert_eq!((code, stdout.trim_end()), (0, line(e).as_str()));
    let (code, stdout, stderr) = tool(&["get", &user, &site, "timestamp=5"]);
    assert_eq!((code, stdout.as_str()), (1, ""));
    assert!(stderr.starts_with("no row under "), "{stderr}");

    // Split points planned from a sample of the table's keys: all 300 (the
    // sample rate rises until the table is read whole).
    let (code, stdout, stderr) = tool(&["splits", "--per-bucket", "2"]);
    assert_eq!(code, 0, "{stderr}");
    let first = stdout.lines().next().unwrap_or_default();
    let layout =
        keyschema::dynamic::DynSchema::from_json(&Event::schema().to_json()).expect("layout");
    let keys: Vec<Vec<u8>> = events.iter().map(RowKey::encode).collect();
    let points = layout.split_points(keys.iter().map(Vec::as_slice), 2);
    assert_eq!(
        first,
        format!(
            "{} split points from 300 sampled keys (0 not of this schema, ignored)",
            points.len()
        )
    );
    let printed: Vec<&str> = stdout.lines().skip(1).collect();
    assert_eq!(printed.len(), points.len());
    for (l, p) in printed.iter().zip(&points) {
        assert!(
            l.ends_with(&format!("  {}", layout.render_prefix(p))),
            "{stdout}"
        );
    }
    // The table's own split points (SampleRowKeys), rendered.
    let (code, stdout, stderr) = tool(&["splits", "--current"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout
            .lines()
            .next()
            .unwrap_or_default()
            .ends_with(&format!(
                "split points of Bigtable table projects/{}/instances/{}/tables/{table}",
                cbt::PROJECT,
                cbt::INSTANCE
            )),
        "{stdout}"
    );

    // The hotspot report: which bucket, which user, which site.
    let (code, stdout, stderr) = tool(&["hotspot", "--top", "8"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.starts_with("300 keys sampled (every row (300), read in "),
        "{stdout}"
    );
    let mut buckets: BTreeMap<String, u64> = BTreeMap::new();
    let mut users: BTreeMap<String, u64> = BTreeMap::new();
    for e in &events {
        let b = Event::schema().bucket_of(&e.encode()).expect("bucket");
        *buckets.entry(format!("bucket {b}")).or_default() += 1;
        *users.entry(e.user_id.clone()).or_default() += 1;
    }
    // Every bucket is listed, in key order; the truth names those with rows.
    let reported: BTreeMap<String, u64> = section(&stdout, "by bucket")
        .into_iter()
        .filter(|(_, count)| *count > 0)
        .collect();
    assert_eq!(reported, buckets, "{stdout}");
    let reported = section(&stdout, "by user_id (");
    assert_eq!(
        reported[0],
        ("u0".to_string(), users["u0"]),
        "the hot user first: {stdout}"
    );
    assert_eq!(reported.into_iter().collect::<BTreeMap<_, _>>(), users);
    let sites = section(&stdout, "by site");
    assert_eq!(sites.iter().map(|s| s.1).sum::<u64>(), 300);
    assert!(
        stdout.contains(
            "by timestamp (300 distinct values):\n  no value is in more than one sampled key"
        ),
        "{stdout}"
    );
    println!("{stdout}");
}

/// A DynamoDB row with a random salt and a nested value.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = random % 4, then = (invoice_id), transaction_id)]
struct Line {
    invoice_id: String,
    transaction_id: u32,
    #[rowkey(value)]
    amount_cents: i64,
    #[rowkey(value)]
    memo: Option<String>,
    #[rowkey(value)]
    tags: Vec<String>,
}

fn dynamo_line(l: &Line) -> String {
    let memo = l.memo.as_ref().map_or("null".into(), |m| format!("{m:?}"));
    let tags: Vec<String> = l.tags.iter().map(|t| format!("{t:?}")).collect();
    format!(
        "invoice_id={} transaction_id={} | amount_cents={} memo={memo} tags=[{}]",
        l.invoice_id,
        l.transaction_id,
        l.amount_cents,
        tags.join(", ")
    )
}

#[tokio::test]
async fn scan_get_splits_and_hotspot_read_a_live_dynamodb_table() {
    let store = dynalite::store::<Line>("cli-live").await;
    let lines: Vec<Line> = (0..120u32)
        .map(|t| Line {
            invoice_id: if t % 3 == 0 { "INV-2" } else { "INV-1" }.into(),
            transaction_id: t,
            amount_cents: i64::from(t) * -125,
            memo: (t % 2 == 0).then(|| format!("line {t}")),
            tags: (0..t % 3).map(|i| format!("t{i}")).collect(),
        })
        .collect();
    store.put_records(&lines).await.expect("write");
    let dir = tempfile::tempdir().expect("temp dir");
    let doc = document::<Line>(dir.path());
    let tool = |args: &[&str]| on_dynamodb(&doc, store.table(), args);
    let inv1: Vec<&Line> = lines.iter().filter(|l| l.invoice_id == "INV-1").collect();

    // One Query per suffix, merged in key order.
    let (code, stdout, stderr) = tool(&["scan", "invoice_id=INV-1", "--limit", "5"]);
    assert_eq!(code, 0, "{stderr}");
    let want: Vec<String> = inv1.iter().take(5).map(|l| dynamo_line(l)).collect();
    assert_eq!(stdout.lines().collect::<Vec<_>>(), want);
    let (_, stdout, _) = tool(&["scan", "invoice_id=INV-1", "transaction_id=10..20"]);
    let want: Vec<String> = inv1
        .iter()
        .filter(|l| (10..20).contains(&l.transaction_id))
        .map(|l| dynamo_line(l))
        .collect();
    assert_eq!(stdout.lines().collect::<Vec<_>>(), want);

    // A get tries every suffix.
    let (code, stdout, _) = tool(&["get", "invoice_id=INV-1", "transaction_id=7"]);
    assert_eq!(
        (code, stdout.trim_end()),
        (0, dynamo_line(&lines[7]).as_str())
    );
    let (code, _, stderr) = tool(&["get", "invoice_id=INV-1", "transaction_id=9"]);
    assert_eq!(code, 1, "9 is INV-2's: {stderr}");
    assert!(
        stderr.starts_with("no row under INV-1|9 in any of its 4 buckets"),
        "{stderr}"
    );
    // A sample smaller than the table: every item read, 30 kept at random.
    let (code, stdout, stderr) = tool(&["hotspot", "--rows", "30"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.starts_with("30 keys sampled ("), "{stdout}");

    // Splits from the table's keys; DynamoDB publishes no split points.
    let (code, stdout, stderr) = tool(&["splits", "--per-bucket", "1"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        stdout.lines().next().unwrap_or_default(),
        "3 split points from 120 sampled keys (0 not of this schema, ignored)"
    );
    let (code, _, stderr) = tool(&["splits", "--current"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("DynamoDB does not publish its partitions' boundaries"),
        "{stderr}"
    );

    // The hotspot report reads every item of a small table.
    let (code, stdout, stderr) = tool(&["hotspot"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.starts_with("120 keys sampled (every item: 120 items read (a parallel Scan of the key attributes, 4 segments at once)"),
        "{stdout}"
    );
    let buckets = section(&stdout, "by bucket");
    assert_eq!(buckets.len(), 4, "{stdout}");
    assert_eq!(buckets.iter().map(|b| b.1).sum::<u64>(), 120);
    assert_eq!(
        section(&stdout, "by invoice_id"),
        [("INV-1".to_string(), 80), ("INV-2".to_string(), 40)]
    );
    println!("{stdout}");
}

#[test]
fn the_tool_says_what_is_missing_or_wrong() {
    let dir = tempfile::tempdir().expect("temp dir");
    let doc = &document::<Line>(dir.path());

    let (code, _, stderr) = run(&["--schema", doc, "scan", "invoice_id=a"], b"");
    assert_eq!(code, 2);
    assert!(
        stderr.contains("name the table to read: --bigtable"),
        "{stderr}"
    );

    let (code, _, stderr) = run(&["--schema", doc, "--bigtable", "p/i", "scan"], b"");
    assert_eq!(code, 2);
    assert!(
        stderr.contains("--bigtable p/i: expected PROJECT/INSTANCE/TABLE"),
        "{stderr}"
    );

    let (code, _, stderr) = run(
        &[
            "--schema",
            doc,
            "--bigtable",
            "p/i/t",
            "--dynamodb",
            "t",
            "scan",
        ],
        b"",
    );
    assert_eq!(code, 2);
    assert!(stderr.contains("two tables are named"), "{stderr}");
    let (code, _, stderr) = run(
        &[
            "--schema",
            doc,
            "--dynamodb",
            "t",
            "--endpoint",
            "127.0.0.1:1",
            "scan",
        ],
        b"",
    );
    assert_eq!(code, 2);
    assert!(
        stderr.contains("expected a URL with its scheme (http://127.0.0.1:1)"),
        "{stderr}"
    );
    let events = &document::<Event>(dir.path());
    let (code, _, stderr) = run(&["--schema", events, "--dynamodb", "t", "scan"], b"");
    assert_eq!(code, 2);
    assert!(stderr.contains("is not of a DynamoDB table"), "{stderr}");
    let (code, _, stderr) = run(&["--schema", events, "hotspot"], b"");
    assert_eq!(code, 2);
    assert!(stderr.contains("no keys to report on"), "{stderr}");
    // Keys of another layout are counted as such, and the exit says so.
    let keys: String = (0..20u32)
        .map(|t| {
            let key = Line::get_key("INV", t);
            format!(
                "{}\n",
                key.iter().map(|b| format!("{b:02x}")).collect::<String>()
            )
        })
        .collect();
    let (code, stdout, stderr) = run(&["--schema", events, "splits"], keys.as_bytes());
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stdout.contains("(20 not of this schema, ignored)"),
        "{stdout}"
    );
    assert!(
        stderr.starts_with("20 sampled keys are not keys of `Event`"),
        "{stderr}"
    );

    // A table named on the command line wins over the other's variable.
    let output = std::process::Command::new(common::cli::cli())
        .env("KEYSCHEMA_DYNAMODB", "elsewhere")
        .args(["--schema", doc, "--bigtable", "p/i", "scan"])
        .output()
        .expect("keyschema");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("--bigtable p/i: expected PROJECT/INSTANCE/TABLE"),
        "{stderr}"
    );

    // A table that is not there, on a live server.
    let endpoint = dynalite::endpoint();
    let missing = dynalite::fresh_table("cli-missing");
    let (code, _, stderr) = run(
        &[
            "--schema",
            doc,
            "--dynamodb",
            &missing,
            "--endpoint",
            &endpoint,
            "scan",
            "invoice_id=a",
        ],
        b"",
    );
    assert_eq!(code, 2);
    assert!(stderr.contains(&missing), "{stderr}");

    // Fields out of key order.
    let (code, _, stderr) = run(
        &[
            "--schema",
            doc,
            "--dynamodb",
            &missing,
            "--endpoint",
            &endpoint,
            "get",
            "transaction_id=1",
            "invoice_id=a",
        ],
        b"",
    );
    assert_eq!(code, 2, "{stderr}");
}
