//! `keyschema` as a user runs it: the binary spawned on schema documents
//! written by derived key types, its answers checked against the derived code.

use assert_cmd::Command;
use keyschema::RowKey;
use std::path::{Path, PathBuf};

#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = hash(user_id, site) % 8, then = user_id, site, rev(timestamp))]
struct Event {
    user_id: String,
    site: String,
    timestamp: u64,
}

#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(then = (hotel_id), day, room_number)]
struct PerHotel {
    hotel_id: String,
    day: u32,
    room_number: u16,
}

#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = random % 10, then = (invoice_id), transaction_id)]
struct Transaction {
    invoice_id: String,
    transaction_id: String,
}

struct Docs {
    _dir: tempfile::TempDir,
    events: PathBuf,
    hotels: PathBuf,
    invoices: PathBuf,
}

fn docs() -> Docs {
    let dir = tempfile::tempdir().expect("temp dir");
    let write = |name: &str, json: String| {
        let path = dir.path().join(name);
        std::fs::write(&path, json).expect("write schema");
        path
    };
    Docs {
        events: write("events.json", Event::schema().to_json()),
        hotels: write("hotels.json", PerHotel::schema().to_json()),
        invoices: write("invoices.json", Transaction::schema().to_json()),
        _dir: dir,
    }
}

fn keyschema(schema: &Path) -> Command {
    let mut cmd = Command::cargo_bin("keyschema").expect("the binary is built");
    cmd.arg("--schema").arg(schema);
    cmd
}

fn stdout(cmd: &mut Command) -> String {
    let out = cmd.assert().success().get_output().stdout.clone();
    String::from_utf8(out).expect("UTF-8 output")
}

fn hex(key: &[u8]) -> String {
    key.iter().map(|b| format!("{b:02x}")).collect()
}

/// The key as the HBase shell prints it.
fn escaped(key: &[u8]) -> String {
    key.iter()
        .map(|&b| {
            if (b.is_ascii_graphic() && b != b'\\') || b == b' ' {
                (b as char).to_string()
            } else {
                format!("\\x{b:02X}")
            }
        })
        .collect()
}

#[test]
fn decode_and_render_keys_in_every_form() {
    let d = docs();
    let key = Event::get_key("user00000", "shop.example", 1_700_000_000);
    let b64 = "BXVzZXIwMDAwMABzaG9wLmV4YW1wbGUA/////5qsDv8=";
    for form in [hex(&key), escaped(&key), b64.to_string()] {
        assert_eq!(
            stdout(keyschema(&d.events).args(["decode", &form])),
            "user_id=user00000 site=shop.example timestamp=1700000000\n"
        );
    }
    assert_eq!(
        stdout(keyschema(&d.events).args(["decode", "--json", &hex(&key)])),
        "{\"user_id\":\"user00000\",\"site\":\"shop.example\",\"timestamp\":1700000000}\n"
    );
    assert_eq!(
        stdout(keyschema(&d.events).args(["render", &escaped(&key)])),
        format!("{}\n", Event::render(&key))
    );
    // One per line on standard input, hex and escaped mixed.
    let other = Event::get_key("u1", "s", 7);
    let input = format!("{}\n{}\n", hex(&key), escaped(&other));
    assert_eq!(
        stdout(keyschema(&d.events).arg("decode").write_stdin(input)),
        "user_id=user00000 site=shop.example timestamp=1700000000\nuser_id=u1 site=s timestamp=7\n"
    );
}

#[test]
fn bad_lines_are_named_and_the_rest_still_decode() {
    let d = docs();
    let key = Event::get_key("u1", "s", 7);
    let mut wrong_salt = key.clone();
    wrong_salt[0] = (wrong_salt[0] + 1) % 8;
    let input = format!("{}\nzz\n{}\n", hex(&key), hex(&wrong_salt));
    let assert = keyschema(&d.events)
        .arg("decode")
        .write_stdin(input)
        .assert()
        .code(1);
    let out = assert.get_output();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "user_id=u1 site=s timestamp=7\n"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("line 2 (zz): neither"), "{err}");
    let expected = Event::decode(&wrong_salt).unwrap_err().to_string();
    assert!(
        err.contains(&format!("line 3 ({}): {expected}", hex(&wrong_salt))),
        "{err}"
    );
}

#[test]
fn encode_and_bucket_agree_with_the_derived_code() {
    let d = docs();
    let key = Event::get_key("u1", "s", 1_700_000_000);
    assert_eq!(
        stdout(keyschema(&d.events).args([
            "encode",
            "timestamp=1700000000",
            "user_id=u1",
            "site=s",
            "--output",
            "hex"
        ])),
        format!("{}\n", hex(&key))
    );
    assert_eq!(
        stdout(keyschema(&d.events).args(["bucket", "user_id=u1", "site=s"])),
        format!("{}\n", key[0])
    );
    // A random salt: every bucket's key, or the one asked for.
    let all =
        stdout(keyschema(&d.invoices).args(["encode", "invoice_id=INV-1", "transaction_id=t1"]));
    assert_eq!(all.lines().count(), 10);
    let one = stdout(keyschema(&d.invoices).args([
        "encode",
        "invoice_id=INV-1",
        "transaction_id=t1",
        "--bucket",
        "3",
        "--output",
        "hex",
    ]));
    let candidates = Transaction::get_keys("INV-1", "t1");
    assert_eq!(one, format!("{}\n", hex(&candidates[3])));
    let err = keyschema(&d.events)
        .args(["encode", "user_id=u1", "site=s", "timestamp=soon"])
        .assert()
        .code(2)
        .get_output()
        .stderr
        .clone();
    assert!(
        String::from_utf8_lossy(&err).contains("field `timestamp` is u64: cannot read \"soon\"")
    );
}

#[test]
fn ranges_are_those_of_the_typed_scan() {
    let d = docs();
    let printed = stdout(keyschema(&d.events).args([
        "ranges",
        "user_id=u1",
        "site=s",
        "timestamp=100..=200",
    ]));
    let derived = Event::scan()
        .user_id("u1")
        .site("s")
        .timestamp(100..=200)
        .ranges();
    let mut lines = printed.lines();
    assert_eq!(lines.next(), Some("1 range(s)"));
    for (line, r) in lines.zip(derived.iter()) {
        let end = r
            .end()
            .map(escaped)
            .unwrap_or_else(|| "(end of table)".into());
        assert!(
            line.starts_with(&format!(
                "bucket {}: [{}, {})",
                r.bucket(),
                escaped(r.start()),
                end
            )),
            "{line}"
        );
    }
    let all = stdout(keyschema(&d.events).args(["ranges", "user_id=u1"]));
    assert_eq!(all.lines().next(), Some("8 range(s)"));
    let err = keyschema(&d.events)
        .args(["ranges", "site=s"])
        .assert()
        .code(2)
        .get_output()
        .stderr
        .clone();
    assert!(String::from_utf8_lossy(&err).contains("bind the fields in key order"));
}

#[test]
fn splits_from_cbt_and_hbase_shell_samples() {
    let d = docs();
    // Timestamps whose inverted bytes hold no 0x0A (cbt prints keys raw).
    let keys: Vec<Vec<u8>> = (0..400)
        .map(|i| Event::get_key(&format!("user{i:03}"), "s", i * 2))
        .collect();
    assert!(keys.iter().all(|k| !k.contains(&b'\n')));
    let derived = keyschema::splits::plan(Event::schema(), keys.iter().map(Vec::as_slice), 2);
    // As cbt prints rows: the key's raw bytes after a line of dashes.
    let mut cbt = Vec::new();
    for k in &keys {
        cbt.extend_from_slice(b"----------------------------------------\n");
        cbt.extend_from_slice(k);
        cbt.extend_from_slice(
            b"\n  v:c                @ 2026/11/22-00:00:00.000000\n    \"x\"\n\n",
        );
    }
    let hbase = format!(
        "ROW                  COLUMN+CELL\n{}400 row(s)\nTook 0.0210 seconds\n",
        keys.iter()
            .map(|k| format!(" {} column=v:c, timestamp=1, value=x\n", escaped(k)))
            .collect::<String>()
    );
    for sample in [cbt, hbase.into_bytes()] {
        let printed = stdout(
            keyschema(&d.events)
                .args(["splits", "--per-bucket", "2", "--output", "hex"])
                .write_stdin(sample),
        );
        let mut lines = printed.lines();
        assert_eq!(
            lines.next(),
            Some(
                format!(
                    "{} split points from 400 sampled keys (0 not of this schema, ignored)",
                    derived.len()
                )
                .as_str()
            )
        );
        let points: Vec<&str> = lines.map(|l| l.split("  ").next().unwrap_or("")).collect();
        let expected: Vec<String> = derived.iter().map(|p| hex(p)).collect();
        assert_eq!(points, expected);
    }
}

/// `--input hbase`: the shell's output as a file holds it (one line per
/// cell, keys with spaces as they are), one answer per row; a wrapped line
/// (output captured from a terminal) is reported with its number.
#[test]
fn decode_reads_hbase_shell_scan_output_row_by_row() {
    let d = docs();
    let keys = [
        Event::get_key("a b", "s", 1),
        Event::get_key("u\\2", "x column", 2),
    ];
    let mut out = String::from("ROW                 COLUMN+CELL\n");
    for k in &keys {
        for q in ["a", "b"] {
            out.push_str(&format!(
                " {} column=v:{q}, timestamp=2026-11-25T19:41:27.193, value=x y\n",
                escaped(k)
            ));
        }
    }
    out.push_str("2 row(s)\nTook 0.0100 seconds\n");
    // Decoded by `--input hbase`, and by `auto`, which sees the shell's header.
    for input in ["hbase", "auto"] {
        let printed = stdout(
            keyschema(&d.events)
                .args(["decode", "--input", input])
                .write_stdin(out.clone()),
        );
        assert_eq!(
            printed,
            "user_id=\"a b\" site=s timestamp=1\nuser_id=\"u\\\\2\" site=\"x column\" timestamp=2\n"
        );
    }
    // Output captured from a terminal (a key wrapped at its width) is
    // refused whole, with how to capture it instead.
    let wrapped =
        " \\x03wrapped-at-the-terminal-wid column=v:a, timestamp=1, value=x\n th\n1 row(s)\n";
    let assert = keyschema(&d.events)
        .args(["decode", "--input", "hbase"])
        .write_stdin(format!("ROW  COLUMN+CELL\n{wrapped}"))
        .assert()
        .code(1);
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    assert!(
        stderr.contains("terminal layout") && stderr.contains("hbase shell -n"),
        "{stderr}"
    );
}

#[test]
fn size_is_the_chapters_estimate() {
    let d = docs();
    // The chapter's hotel partition: 100 rooms x 730 days, 1.1 MB.
    let printed = stdout(keyschema(&d.hotels).args([
        "size",
        "--rows",
        "73000",
        "--bytes",
        "hotel_id=5",
        "--value",
        "is_available=1",
    ]));
    assert_eq!(
        printed,
        "rows 73000, values 73000, bytes 1095005\nwithin the guidance (100,000 values, 100 MB)\n"
    );
    let over = stdout(keyschema(&d.hotels).args([
        "size",
        "--rows",
        "200000",
        "--bytes",
        "hotel_id=5",
        "--value",
        "is_available=1",
    ]));
    assert!(
        over.contains("over the guidance: 200000 values, above 100000"),
        "{over}"
    );
    let err = keyschema(&d.hotels)
        .args(["size", "--rows", "10"])
        .assert()
        .code(2)
        .get_output()
        .stderr
        .clone();
    assert!(String::from_utf8_lossy(&err).contains(
        "`hotel_id` (String) has no fixed size: give its average with --bytes hotel_id=N"
    ));
}

#[test]
fn a_bad_schema_document_is_named() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("bad.json");
    std::fs::write(&path, r#"{"keyschema":9}"#).expect("write");
    let err = keyschema(&path)
        .args(["decode", "00"])
        .assert()
        .code(2)
        .get_output()
        .stderr
        .clone();
    let err = String::from_utf8_lossy(&err);
    assert!(
        err.contains("bad.json: schema `keyschema`: version 9 is not supported"),
        "{err}"
    );
}

/// A cut-over by field: unsalted before `timestamp = 1_700_000_000`.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = hash(user_id, site) % 8, then = user_id, site, rev(timestamp))]
#[rowkey_was(salt = none, until = timestamp >= 1_700_000_000)]
struct Moved {
    user_id: String,
    site: String,
    timestamp: u64,
}

#[test]
fn a_schema_with_a_history_decodes_and_renders_keys_of_either_layout_and_says_which() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("moved.json");
    std::fs::write(&path, Moved::schema().to_json()).expect("write schema");
    let old = Moved {
        user_id: "u1".into(),
        site: "s".into(),
        timestamp: 1_600_000_000,
    };
    let new = Moved {
        timestamp: 1_700_000_000,
        ..old.clone()
    };
    let older_key = old.encode_older().expect("a history");
    assert_eq!(
        stdout(keyschema(&path).args(["decode", &hex(&older_key)])),
        "user_id=u1 site=s timestamp=1600000000 layout=older\n"
    );
    assert_eq!(
        stdout(keyschema(&path).args(["decode", "--json", &hex(&new.encode())])),
        "{\"user_id\":\"u1\",\"site\":\"s\",\"timestamp\":1700000000,\"layout\":\"declared\"}\n"
    );
    assert_eq!(
        stdout(keyschema(&path).args(["render", &hex(&older_key)])),
        "u1|s|~1600000000 (older layout)\n"
    );
    // A row the older binary wrote past the cut-over is older too.
    let stranded = new.encode_older().expect("a history");
    assert!(stdout(keyschema(&path).args(["decode", &hex(&stranded)])).ends_with(" layout=older\n"));
}

/// `keyschema render | head -1`: the reader goes away, and the tool ends
/// quietly with success, as Unix tools do (it said "Broken pipe" and exited
/// with 2 before).
#[test]
fn a_closed_pipe_ends_the_output_quietly() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command as Std, Stdio};
    let d = docs();
    let key = hex(&Event::get_key("u1", "s", 1));
    let mut child = Std::new(assert_cmd::cargo::cargo_bin("keyschema"))
        .arg("--schema")
        .arg(&d.events)
        .args(["render", "--input", "hex"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || {
        // Far more output than a pipe holds; stops when the tool exits.
        for _ in 0..200_000 {
            if writeln!(stdin, "{key}").is_err() {
                break;
            }
        }
    });
    let mut first = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut first)
        .expect("a line");
    assert_eq!(
        first.trim_end(),
        Event::render(&Event::get_key("u1", "s", 1))
    );
    // The reader is dropped here: the pipe is closed.
    let out = child.wait_with_output().expect("it ends");
    writer.join().expect("the writer");
    assert!(out.status.success(), "{:?}", out.status);
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

#[test]
fn decode_quotes_what_would_be_ambiguous_and_encode_reads_it_back() {
    let d = docs();
    for user in [
        "a site=b",
        "",
        "say \"hi\"",
        "back\\slash",
        "a|b",
        "nul\0inside",
        "<none>",
        "line\nbreak",
        "plain",
    ] {
        let key = Event::get_key(user, "shop.example", 5);
        let decoded = stdout(keyschema(&d.events).args(["decode", &hex(&key)]));
        let fields: Vec<String> = split_fields(decoded.trim_end());
        assert_eq!(fields.len(), 3, "{decoded}");
        let mut args = vec!["encode".to_string()];
        args.extend(fields);
        args.extend(["--output".to_string(), "hex".to_string()]);
        assert_eq!(
            stdout(keyschema(&d.events).args(&args)),
            format!("{}\n", hex(&key)),
            "{user:?} decoded as {decoded}"
        );
    }
    let key = Event::get_key("a site=b", "shop.example", 5);
    assert_eq!(
        stdout(keyschema(&d.events).args(["decode", &hex(&key)])),
        "user_id=\"a site=b\" site=shop.example timestamp=5\n"
    );
    // A string component as `render` shows it.
    let key = Event::get_key("a\0b", "x|y", 5);
    assert_eq!(Event::render(&key).split('|').nth(1), Some("a\\u{0}b"));
    assert_eq!(
        stdout(keyschema(&d.events).args([
            "encode",
            "user_id=a\\u{0}b",
            "site=x\\|y",
            "timestamp=5",
            "--output",
            "hex"
        ])),
        format!("{}\n", hex(&key))
    );
}

/// `decode`'s `field=value` pairs, quoted values kept whole.
fn split_fields(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let (mut quoted, mut escaped) = (false, false);
    for c in line.chars() {
        match c {
            _ if escaped => escaped = false,
            '\\' if quoted => escaped = true,
            '"' => quoted = !quoted,
            ' ' if !quoted => {
                out.push(std::mem::take(&mut current));
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    out.push(current);
    out
}

#[test]
fn input_is_read_as_bytes_and_empty_keys_get_the_librarys_error() {
    let d = docs();
    let key = Event::get_key("u1", "s", 7);
    // Raw key bytes (0xFF is not UTF-8), a bad line, then a good one.
    let mut input = key.clone();
    input.extend_from_slice(b"\nzz\n\n");
    input.extend_from_slice(hex(&key).as_bytes());
    input.push(b'\n');
    let assert = keyschema(&d.events)
        .arg("decode")
        .write_stdin(input)
        .assert()
        .code(1);
    let out = assert.get_output();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "user_id=u1 site=s timestamp=7\nuser_id=u1 site=s timestamp=7\n"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    let empty = Event::decode(&[]).unwrap_err().to_string();
    assert!(err.contains("line 2 (zz): neither"), "{err}");
    assert!(err.contains(&format!("line 3 (): {empty}")), "{err}");
    // An empty argument is an empty key, refused as the libraries refuse it.
    let out = keyschema(&d.events)
        .args(["decode", ""])
        .assert()
        .code(1)
        .get_output()
        .stderr
        .clone();
    assert!(String::from_utf8_lossy(&out).contains(&empty));
}

#[test]
fn random_salt_buckets_and_fixed_width_sizes_are_refused_with_what_to_do() {
    let d = docs();
    let err = keyschema(&d.invoices)
        .args(["bucket", "invoice_id=INV-1"])
        .assert()
        .code(2)
        .get_output()
        .stderr
        .clone();
    let err = String::from_utf8_lossy(&err);
    assert!(
        err.contains("salted `random % 10`") && err.contains("any of buckets 0..=9"),
        "{err}"
    );
    let err = keyschema(&d.hotels)
        .args(["size", "--rows", "10", "--bytes", "day=5"])
        .assert()
        .code(2)
        .get_output()
        .stderr
        .clone();
    let err = String::from_utf8_lossy(&err);
    assert!(err.contains("is always 4 bytes"), "{err}");
}

#[test]
fn splits_reads_raw_key_bytes_and_skips_their_cell_lines() {
    let d = docs();
    // cbt's layout: a dashes line, the raw key, indented cell lines.
    let mut sample = Vec::new();
    for i in 0..40u64 {
        let key = Event::get_key(&format!("user{i:03}"), "shop.example", 1_700_000_000 + i);
        sample.extend_from_slice(b"----------------------------------------\n");
        sample.extend_from_slice(&key);
        sample.extend_from_slice(b"\n  f:page                                   @ 2026/11/22-00:00:00.000000\n    \"/p/1\"\n");
    }
    let out = stdout(
        keyschema(&d.events)
            .args(["splits", "--per-bucket", "1"])
            .write_stdin(sample),
    );
    assert!(
        out.starts_with("7 split points from 40 sampled keys (0 not of this schema, ignored)"),
        "{out}"
    );
}
