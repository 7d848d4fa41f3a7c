//! The command line tool on the real `cbt`'s output: a table of the rows
//! `bigtable_events` writes (its row type, `examples/common/bigtable_event.rs`),
//! written to the emulator, read back with Google's `cbt read`, and fed to `keyschema decode --input cbt` and
//! `keyschema splits --input cbt`. Every key cbt prints on one line decodes
//! to the row written; each key holding a line break is reported with its
//! line, never guessed.

mod common;

#[path = "../examples/common/bigtable_event.rs"]
mod bigtable_event;

use bigtable_event::Event;
use common::cli::run;
use common::{cbt, emulator};
use keyschema::store::bigtable::BigtableStore;
use keyschema::store::AsyncRecordStore;
use keyschema::RowKey;
use std::collections::BTreeSet;

fn events() -> Vec<Event> {
    const SITES: [&str; 5] = ["shop", "news", "blog", "docs", "mail"];
    (0..400u64)
        .map(|i| Event {
            user_id: format!("u{}", i % 7),
            site: SITES[(i % 5) as usize].to_string(),
            // Spread over the bytes: some keys hold 0x0A, every key 0x00.
            timestamp: 1_700_000_000 + i * 7919,
            action: "view".into(),
            page: format!("/p/{i}"),
            duration_ms: i as u32,
            referrer: (i % 3 == 0).then(|| "search".to_string()),
        })
        .collect()
}

#[tokio::test]
async fn the_tool_reads_real_cbt_output_of_a_bigtable_events_table() {
    let host = emulator::host();
    let table = emulator::fresh_table("cli-cbt");
    let store = BigtableStore::connect_emulator(&host, cbt::PROJECT, cbt::INSTANCE, &table)
        .await
        .expect("connect");
    store.create_table_for::<Event>().await.expect("create");
    let events = events();
    store.put_records(&events).await.expect("write");
    let dir = tempfile::tempdir().expect("temp dir");
    let doc = dir.path().join("events.json");
    std::fs::write(&doc, Event::schema().to_json()).expect("schema document");
    let doc = doc.to_str().expect("path");

    let output = cbt::run(&host, &["read", &table]);
    let (code, stdout, stderr) = run(&["--schema", doc, "decode", "--input", "cbt"], &output);

    let with_break: Vec<&Event> = events
        .iter()
        .filter(|e| e.encode().contains(&b'\n'))
        .collect();
    assert!(
        !with_break.is_empty(),
        "the test's keys include line breaks"
    );
    println!(
        "{} of {} rows hold a line break in their key",
        with_break.len(),
        events.len()
    );
    let expected: BTreeSet<String> = events
        .iter()
        .filter(|e| !e.encode().contains(&b'\n'))
        .map(|e| {
            format!(
                "user_id={} site={} timestamp={}",
                e.user_id, e.site, e.timestamp
            )
        })
        .collect();
    let decoded: BTreeSet<String> = stdout.lines().map(str::to_string).collect();
    assert_eq!(decoded, expected, "every key cbt printed on one line");
    assert_eq!(stdout.lines().count(), expected.len(), "each row once");
    let reported = stderr.lines().filter(|l| l.contains("line break")).count();
    assert_eq!(reported, with_break.len(), "{stderr}");
    assert!(
        stderr.lines().all(|l| l.starts_with("row at line ")),
        "{stderr}"
    );
    assert_eq!(code, 1, "some rows were not read");

    // Split points from the same output, every row read counted.
    let (_, stdout, _) = run(&["--schema", doc, "splits", "--input", "cbt"], &output);
    let first = stdout.lines().next().unwrap_or_default();
    assert!(
        first.contains(&format!("from {} sampled keys", expected.len())),
        "{first}"
    );
}
