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
use common::cli::{bigtable_of, document, run};
use common::{cbt, emulator};
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
    let events = events();
    let (host, table) = bigtable_of("cli-cbt", &events).await;
    let dir = tempfile::tempdir().expect("temp dir");
    let doc = &document::<Event>(dir.path());

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

/// A row whose key holds 0x00 but no byte above 0x7F.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = hash(user_id) % 8, then = user_id, site)]
struct Visit {
    user_id: String,
    site: String,
    #[rowkey(value)]
    page: String,
}

/// A row whose key holds no 0x00 (a text key).
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(format = text(sep = "#"), then = (tenant), id)]
struct Doc {
    tenant: String,
    id: u32,
    #[rowkey(value)]
    title: String,
}

/// `encode --cbt` prints the cbt command that reads exactly the row, run
/// here by a shell with the real `cbt`: a lookup for a key without 0x00,
/// an anchored regex for one with it (`u1` must not match `u10`), also when
/// the key holds bytes above 0x7F (the `bigtable_events` keys).
#[tokio::test]
async fn encode_prints_the_cbt_command_that_reads_exactly_the_row() {
    let host = emulator::host();
    let dir = tempfile::tempdir().expect("temp dir");
    // Both reads of one table: the tool prints the command, a shell runs it,
    // and the tool decodes what cbt printed.
    let exactly = |doc: &str, table: &str, fields: &[&str]| -> (String, String) {
        let path = format!("{}/{}/{table}", cbt::PROJECT, cbt::INSTANCE);
        let mut args = vec!["--schema", doc, "--bigtable", &path, "encode", "--cbt"];
        args.extend_from_slice(fields);
        let (code, command, stderr) = run(&args, b"");
        assert_eq!(code, 0, "{stderr}");
        let output = cbt::shell(&host, command.trim_end());
        let (_, decoded, _) = run(&["--schema", doc, "decode", "--input", "cbt"], &output);
        (command, decoded)
    };

    let rows: Vec<Visit> = ["u1", "u10", "u1x"]
        .iter()
        .flat_map(|u| ["s", "s2"].map(|s| (u, s)))
        .map(|(u, s)| Visit {
            user_id: u.to_string(),
            site: s.into(),
            page: "/".into(),
        })
        .collect();
    let (_, visits_table) = bigtable_of("cbt-visit", &rows).await;
    let doc = document::<Visit>(dir.path());
    let (command, decoded) = exactly(&doc, &visits_table, &["user_id=u1", "site=s"]);
    assert!(
        command.contains(" read ") && command.contains("regex='^"),
        "{command}"
    );
    assert_eq!(decoded, "user_id=u1 site=s\n");

    let rows: Vec<Doc> = [4u32, 42, 420]
        .iter()
        .map(|&id| Doc {
            tenant: "acme".into(),
            id,
            title: "t".into(),
        })
        .collect();
    let (_, docs_table) = bigtable_of("cbt-doc", &rows).await;
    let doc = document::<Doc>(dir.path());
    let (command, decoded) = exactly(&doc, &docs_table, &["tenant=acme", "id=42"]);
    assert!(command.contains(" lookup "), "{command}");
    assert_eq!(decoded, "tenant=acme id=42\n");

    // The events key: 0x00 and bytes above 0x7F, read by an anchored regex
    // of `\xHH` escapes; its neighbours (the same user and site, other
    // timestamps) are not.
    let events = events();
    let (_, events_table) = bigtable_of("cbt-events", &events[..40]).await;
    let doc = document::<Event>(dir.path());
    for e in events[..40].iter().step_by(7) {
        let (user, site, ts) = (
            format!("user_id={}", e.user_id),
            format!("site={}", e.site),
            format!("timestamp={}", e.timestamp),
        );
        let (command, decoded) = exactly(&doc, &events_table, &[&user, &site, &ts]);
        assert!(
            command.contains(" read ") && command.contains("\\xff"),
            "{command}"
        );
        assert_eq!(decoded, format!("{user} {site} {ts}\n"), "{command}");
    }
}
