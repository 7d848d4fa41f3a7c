//! The `event_index` example on DynamoDB (issue 41, deliverable 6): run
//! with `--dynamodb TABLE`, it writes its events with the by-site index
//! native and prints a boto3 program reading that index by field values;
//! this test runs that program, as printed, with boto3 and checks it
//! returns exactly the rows the library's typed index scan returns (same
//! keys, same order), and both exactly the example's events of that site
//! since the time it asks for, newest first, read from the table whole.
//!
//! It needs a server with multi-attribute GSI keys (DynamoDB Local 3.3 or
//! later): ignored in the README's test command, run by
//! `.ci/dynamodb-local` with `--include-ignored`.
#![cfg(feature = "dynamodb")]

mod common;

#[allow(dead_code)]
#[path = "../examples/events.rs"]
mod events;

#[path = "../examples/common/site_event.rs"]
mod site_event;

use common::dynalite::{endpoint, fresh_table};
use common::interop;
use futures_util::StreamExt;
use keyschema::store::dynamodb::DynamoStore;
use site_event::{Event, EventBySite};
use std::path::PathBuf;
use std::process::Command;

/// The example built from these sources, copied to a name of this
/// checkout (the uplifted binary is shared by every checkout).
fn example() -> PathBuf {
    let status = Command::new(env!("CARGO"))
        .args([
            "build",
            "--example",
            "event_index",
            "--features",
            "dynamodb",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .expect("cargo build");
    assert!(status.success(), "building the event_index example");
    let exe = std::env::current_exe().expect("test binary");
    let dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("target directory");
    let own = std::env::temp_dir().join(format!("event_index-{}", std::process::id()));
    std::fs::copy(dir.join("examples/event_index"), &own).expect("copying the example");
    own
}

/// The text between the line `start` and the line `end` of `printed`.
fn between<'a>(printed: &'a str, start: &str, end: &str) -> &'a str {
    let from = printed
        .find(&format!("{start}\n"))
        .unwrap_or_else(|| panic!("no {start:?} in {printed}"))
        + start.len()
        + 1;
    let to = printed[from..]
        .find(end)
        .unwrap_or_else(|| panic!("no {end:?} in {printed}"));
    &printed[from..from + to]
}

#[tokio::test]
#[ignore = "needs multi-attribute GSIs: DynamoDB Local 3.3 (.ci/dynamodb-local)"]
async fn the_examples_boto3_query_returns_the_typed_index_scans_rows() {
    let table = fresh_table("event-index");
    let data = tempfile::tempdir().expect("a directory");
    let exe = example();
    let out = Command::new(&exe)
        .args(["--events", "1000", "--dynamodb", &table, "--data-dir"])
        .arg(data.path())
        .env("DYNAMODB_ENDPOINT", endpoint())
        .output()
        .expect("the example");
    let _ = std::fs::remove_file(&exe);
    let printed = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{printed}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        printed.contains("index EventBySite: a native GSI, HASH [\"EventBySite_shard\", \"site\"], RANGE [\"EventBySite_timestamp_rev\", \"user_id\"]"),
        "{printed}"
    );
    let program = between(&printed, "--- boto3 ---", "--- end boto3 ---");
    let script = data.path().join("query.py");
    std::fs::write(&script, program).expect("the program");
    let run = Command::new(interop::python())
        .arg(&script)
        .output()
        .expect("python");
    assert!(
        run.status.success(),
        "{program}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let boto3: Vec<(String, u64)> = String::from_utf8_lossy(&run.stdout)
        .lines()
        .map(|line| {
            let (user, ts) = line.split_once(' ').expect("user_id timestamp");
            (user.to_string(), ts.parse().expect("a timestamp"))
        })
        .collect();

    // The site and time the program asks for, as printed in it.
    let site = program
        .split("\":site\": {\"S\": \"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("the site asked for")
        .to_string();
    let since: u64 = program
        .split("\":since\": {\"N\": \"-")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .and_then(|n| n.parse().ok())
        .expect("the time asked for");

    // The library's typed index scan of that site, newest first.
    let store = DynamoStore::connect_local::<Event>(&endpoint(), &table).expect("a store");
    let mut rows = EventBySite::scan()
        .site(site.as_str())
        .request()
        .stream_rows(&store);
    let mut typed = Vec::new();
    while let Some(row) = rows.next().await {
        let row = row.expect("a row");
        if row.timestamp >= since {
            typed.push((row.user_id, row.timestamp));
        }
    }
    // Ground truth: the table's items read whole, that site's since then,
    // newest first (timestamps are distinct).
    let mut whole: Vec<(String, u64)> = Vec::new();
    let mut start = None;
    loop {
        let page = store
            .client()
            .scan()
            .table_name(&table)
            .consistent_read(true)
            .set_exclusive_start_key(start)
            .send()
            .await
            .expect("a scan");
        for item in page.items() {
            let s = |name: &str| item.get(name).and_then(|v| v.as_s().ok()).cloned();
            let ts = item
                .get("timestamp")
                .and_then(|v| v.as_n().ok())
                .and_then(|n| n.parse::<u64>().ok());
            if let (Some(user), Some(at), Some(ts)) = (s("user_id"), s("site"), ts) {
                if at == site && ts >= since {
                    whole.push((user, ts));
                }
            }
        }
        match page.last_evaluated_key() {
            Some(key) => start = Some(key.clone()),
            None => break,
        }
    }
    whole.sort_by_key(|w| std::cmp::Reverse(w.1));
    assert!(
        whole.len() > 20,
        "{} events of {site} since {since}",
        whole.len()
    );
    assert_eq!(typed, whole, "the typed index scan");
    assert_eq!(boto3, typed, "boto3's Query of the native GSI");
}
