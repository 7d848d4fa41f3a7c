//! The command line tool on the real `cbt`'s output: a table of the rows
//! `bigtable_events` writes (its row type, `examples/common/bigtable_event.rs`),
//! written to the emulator, read back with Google's `cbt read`, and fed to `keyschema decode --input cbt` and
//! `keyschema splits --input cbt`. Every key decodes to the row written,
//! keys holding line breaks (which cbt prints raw, across lines) and
//! carriage returns too; cbt's own log line is skipped, and a `cbt lookup`
//! of a missing row is reported.

mod common;

#[path = "../examples/common/bigtable_event.rs"]
mod bigtable_event;

use bigtable_event::Event;
use common::cli::{bigtable_of, document, run};
use common::{cbt, emulator};
use keyschema::RowKey;
use std::collections::BTreeSet;

/// An event's key fields as `decode` prints them.
fn fields(e: &Event) -> String {
    format!(
        "user_id={} site={} timestamp={}",
        e.user_id, e.site, e.timestamp
    )
}

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
    // A key holding a line break spans lines; exactly one way of joining
    // them decodes, so it is read.
    let expected: BTreeSet<String> = events.iter().map(fields).collect();
    let decoded: BTreeSet<String> = stdout.lines().map(str::to_string).collect();
    assert_eq!(decoded, expected, "every key, {stderr}");
    assert_eq!(stdout.lines().count(), expected.len(), "each row once");
    assert_eq!((code, stderr.as_str()), (0, ""));

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

/// The output of `cbt ARGS 2>&1`, as a shell pipes it: cbt's log line
/// (`-creds flag unset, ...`) first.
fn cbt_merged(host: &str, args: &str) -> Vec<u8> {
    cbt::shell(
        host,
        &format!(
            "cbt -project {} -instance {} {args} 2>&1",
            cbt::PROJECT,
            cbt::INSTANCE
        ),
    )
}

/// Keys holding line breaks and carriage returns, in a text key (whose
/// strings are written as they are) and at the end of a binary one: each
/// is read from real `cbt read` output by the one way of joining its lines
/// that decodes, its carriage return kept, with cbt's log line before it.
#[tokio::test]
async fn keys_holding_line_breaks_and_carriage_returns_are_read_from_cbt_output() {
    let dir = tempfile::tempdir().expect("temp dir");
    let tenants = [
        "plain",
        "a\nb",
        "a\r\nb",
        "cr\r",
        "\n",
        "x\n\n",
        "a\n  f:title                                    @ t",
    ];
    let docs: Vec<Doc> = tenants
        .iter()
        .enumerate()
        .map(|(i, t)| Doc {
            tenant: t.to_string(),
            id: i as u32,
            title: "t".into(),
        })
        .collect();
    let (host, table) = bigtable_of("cbt-breaks", &docs).await;
    let doc = document::<Doc>(dir.path());
    let output = cbt_merged(&host, &format!("read {table}"));
    assert!(
        output.starts_with(b"20") && String::from_utf8_lossy(&output).contains("-creds flag unset"),
        "cbt's log line first: {}",
        String::from_utf8_lossy(&output)
    );
    let (_, by_hex, _) = run(
        &["--schema", &doc, "decode", "--input", "hex"],
        docs.iter()
            .map(|d| format!("{}\n", hex(&d.encode())))
            .collect::<String>()
            .as_bytes(),
    );
    let expected: BTreeSet<&str> = by_hex.lines().collect();
    assert_eq!(expected.len(), docs.len());
    for input in ["auto", "cbt"] {
        let (code, stdout, stderr) = run(&["--schema", &doc, "decode", "--input", input], &output);
        assert_eq!((code, stderr.as_str()), (0, ""), "--input {input}");
        assert_eq!(
            stdout.lines().collect::<BTreeSet<_>>(),
            expected,
            "--input {input}"
        );
        assert_eq!(stdout.lines().count(), docs.len());
    }
    let (code, stdout, stderr) = run(&["--schema", &doc, "splits"], &output);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains(&format!("from {} sampled keys (0 not", docs.len())),
        "{stdout}"
    );

    // Binary keys ending in 0x0D, and in 0x0D 0x0A.
    let ends = [0xf2u64, 0xf2f5, 0x01];
    let events: Vec<Event> = events()[..3]
        .iter()
        .zip(ends)
        .map(|(e, low)| Event {
            timestamp: (e.timestamp & !0xffff) | low,
            ..e.clone()
        })
        .collect();
    assert!(events[0].encode().ends_with(b"\r") && events[1].encode().ends_with(b"\r\n"));
    let (_, table) = bigtable_of("cbt-cr", &events).await;
    let doc = document::<Event>(dir.path());
    let output = cbt_merged(&host, &format!("read {table}"));
    let (code, stdout, stderr) = run(&["--schema", &doc, "decode"], &output);
    assert_eq!((code, stderr.as_str()), (0, ""));
    let expected: BTreeSet<String> = events.iter().map(fields).collect();
    assert_eq!(
        stdout.lines().map(str::to_string).collect::<BTreeSet<_>>(),
        expected
    );
}

/// `cbt lookup` of a row the table does not hold prints a row without a
/// key; the tool says no row was found instead of succeeding silently.
#[tokio::test]
async fn a_lookup_of_a_missing_row_says_so() {
    let dir = tempfile::tempdir().expect("temp dir");
    let rows = [Doc {
        tenant: "acme".into(),
        id: 1,
        title: "t".into(),
    }];
    let (host, table) = bigtable_of("cbt-missing", &rows).await;
    let doc = document::<Doc>(dir.path());
    for (key, merged) in [
        ("acme#0000000002", false),
        ("acme#0000000002", true),
        ("nothing", true),
    ] {
        let output = if merged {
            cbt_merged(&host, &format!("lookup {table} {key}"))
        } else {
            cbt::run(&host, &["lookup", &table, key])
        };
        for input in ["auto", "cbt"] {
            let (code, stdout, stderr) =
                run(&["--schema", &doc, "decode", "--input", input], &output);
            assert_eq!(
                (code, stdout.as_str()),
                (1, ""),
                "{key} --input {input}: {stderr}"
            );
            assert!(
                stderr.contains("no row was found"),
                "{key} --input {input}: {stderr}"
            );
        }
    }
    // The row it holds.
    let output = cbt::run(&host, &["lookup", &table, "acme#0000000001"]);
    let (code, stdout, stderr) = run(&["--schema", &doc, "decode"], &output);
    assert_eq!(
        (code, stdout.as_str()),
        (0, "tenant=acme id=1\n"),
        "{stderr}"
    );
}

fn hex(key: &[u8]) -> String {
    key.iter().map(|b| format!("{b:02x}")).collect()
}
