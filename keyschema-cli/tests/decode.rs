//! `keyschema decode`, `render` and `encode` as a user runs them: the binary
//! spawned on schema documents written by derived key types, each key read in
//! every form it comes in and checked against the derived code; bad input
//! named by its line.

mod common;

use common::{docs, escaped, hex, keyschema, stderr, stdout, Event};
use keyschema::RowKey;

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
fn a_bad_schema_document_is_named() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("bad.json");
    std::fs::write(&path, r#"{"keyschema":9}"#).expect("write");
    let err = stderr(keyschema(&path).args(["decode", "00"]), 2);
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
    let out = stderr(keyschema(&d.events).args(["decode", ""]), 1);
    assert!(out.contains(&empty));
}
