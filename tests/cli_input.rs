//! How the `keyschema` command reads typed keys (`--input auto`), and how
//! its messages show them: every answer checked against the derived code's
//! own `encode` and `render` of the key meant.

mod common;

use common::cli::{document, run};
use keyschema::RowKey;

/// The layout of the issue: a text key whose tenant may hold anything.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(format = text(sep = "#"), then = (tenant), rev(at), id)]
struct Tenanted {
    tenant: String,
    at: u64,
    id: u32,
}

/// A binary layout.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = hash(user_id) % 8, then = user_id, seq)]
struct Binary {
    user_id: String,
    seq: u32,
}

/// `args` then `keys` as arguments: exit code, standard output and error.
fn tool(doc: &str, args: &[&str], keys: &[&str]) -> (i32, String, String) {
    let mut all = vec!["--schema", doc];
    all.extend_from_slice(args);
    all.extend_from_slice(keys);
    run(&all, b"")
}

fn text(key: &[u8]) -> &str {
    std::str::from_utf8(key).expect("a text key")
}

#[test]
fn a_text_key_is_read_as_its_own_text_first() {
    let dir = tempfile::tempdir().expect("temp dir");
    let doc = &document::<Tenanted>(dir.path());
    // The issue's keys: a tenant named `\x41` (not `A`), one named `0xab`.
    for tenant in ["\\x41", "0xab", "\\x41\\"] {
        let key = Tenanted::get_key(tenant, 9_999, 7);
        for command in ["render", "decode"] {
            let (code, out, err) = tool(doc, &[command], &[text(&key)]);
            assert_eq!(code, 0, "{command} {}: {err}", text(&key));
            if command == "render" {
                assert_eq!(out.trim_end(), Tenanted::render(&key));
            } else {
                let (_, by_hex, _) = tool(doc, &["decode", "--input", "hex"], &[&hex(&key)]);
                assert_eq!(out, by_hex, "{}", text(&key));
            }
        }
    }
    // What `encode` prints for a tenant `0xab` and for a tenant `\` reads
    // back as that key.
    for tenant in ["0xab", "\\", "日本", "a\nb"] {
        let key = Tenanted::get_key(tenant, 5, 1);
        let quoted = format!("tenant={}", quote(tenant));
        let (_, printed, err) = tool(doc, &["encode", &quoted, "at=5", "id=1"], &[]);
        let (code, out, err2) = tool(doc, &["render"], &[printed.trim_end()]);
        assert_eq!(code, 0, "{printed}: {err}{err2}");
        assert_eq!(
            out.trim_end(),
            one_line(&Tenanted::render(&key)),
            "{printed}"
        );
    }
}

/// A rendering as `render` prints it (the guide's rule): as it is, or,
/// when it holds a control character, with each byte of one and of `\` as
/// `\xNN`.
fn one_line(rendering: &str) -> String {
    if !rendering.chars().any(char::is_control) {
        return rendering.to_string();
    }
    let mut out = String::new();
    for c in rendering.chars() {
        match c {
            '\\' => out.push_str("\\x5C"),
            c if c.is_control() => {
                for b in c.to_string().bytes() {
                    out.push_str(&format!("\\x{b:02X}"));
                }
            }
            c => out.push(c),
        }
    }
    out
}

/// A tenant as `encode` reads it.
fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn hex(key: &[u8]) -> String {
    key.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn readings_that_decode_to_different_keys_are_named_not_guessed() {
    let dir = tempfile::tempdir().expect("temp dir");
    let doc = &document::<Tenanted>(dir.path());
    // `a\nb#...`: a tenant `a\nb` as typed, or `a`, line break, `b`.
    let typed = Tenanted::get_key("a\\nb", 5, 1);
    let broken = Tenanted::get_key("a\nb", 5, 1);
    let (code, out, err) = tool(doc, &["render"], &[text(&typed)]);
    assert_eq!((code, out.as_str()), (1, ""), "{err}");
    assert!(err.contains("ambiguous"), "{err}");
    for (form, key) in [("text", &typed), ("escaped", &broken)] {
        let (_, fields, _) = tool(doc, &["decode", "--input", "hex"], &[&hex(key)]);
        assert!(
            err.contains(&format!("--input {form} reads {}", fields.trim_end())),
            "{form}: {err}"
        );
        // And the form named reads it.
        let (code, out, _) = tool(doc, &["render", "--input", form], &[text(&typed)]);
        assert_eq!(
            (code, out.trim_end()),
            (0, one_line(&Tenanted::render(key)).as_str())
        );
    }
}

#[test]
fn a_binary_keys_escapes_are_meant() {
    let dir = tempfile::tempdir().expect("temp dir");
    let doc = &document::<Binary>(dir.path());
    let key = Binary::get_key("A", 7);
    let typed: String = key.iter().map(|b| format!("\\x{b:02x}")).collect();
    let (code, out, err) = tool(doc, &["render"], &[&typed]);
    assert_eq!(
        (code, out.trim_end()),
        (0, Binary::render(&key).as_str()),
        "{err}"
    );
}

#[test]
fn messages_show_the_input_as_typed_and_cut_long_lines() {
    let dir = tempfile::tempdir().expect("temp dir");
    let doc = &document::<Binary>(dir.path());
    let (code, _, err) = tool(doc, &["decode"], &["zz\\q"]);
    assert_eq!(code, 1);
    assert!(err.starts_with("line 1 (zz\\q): "), "{err}");
    let long = "z".repeat(300);
    let (_, _, err) = tool(doc, &["decode"], &[&long]);
    let first = err.lines().next().unwrap_or_default();
    assert!(
        first.starts_with(&format!("line 1 ({}… (300 characters)): ", "z".repeat(100))),
        "{first}"
    );
    assert!(first.chars().count() < 250, "{first}");
    // A byte that is not UTF-8 shows as `\xNN`.
    let (_, _, err) = run(&["--schema", doc, "decode", "--input", "hex"], b"zz\xff\n");
    assert!(err.starts_with("line 1 (zz\\xFF): "), "{err}");
}

#[test]
fn a_text_key_holding_a_line_break_renders_on_one_line_that_reads_back() {
    let dir = tempfile::tempdir().expect("temp dir");
    let doc = &document::<Tenanted>(dir.path());
    for tenant in ["a\nb", "\\x41\n", "c\r"] {
        let key = Tenanted::get_key(tenant, 5, 1);
        let (code, out, err) = tool(doc, &["render", "--input", "hex"], &[&hex(&key)]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(out.lines().count(), 1, "{out:?}");
        // Read back as the escaped key form: the same key.
        let line = out.trim_end_matches('\n');
        let (_, by_line, err) = tool(doc, &["decode", "--input", "escaped"], &[line]);
        let (_, by_hex, _) = tool(doc, &["decode", "--input", "hex"], &[&hex(&key)]);
        assert_eq!(by_line, by_hex, "{line}: {err}");
        assert!(by_hex.contains("tenant="), "{by_hex}");
    }
}

/// A layout under a prefix.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(prefix = "ev", then = user_id, seq)]
struct Prefixed {
    user_id: String,
    seq: u32,
}

#[test]
fn hotspot_shows_a_key_of_another_layout_as_stored() {
    let dir = tempfile::tempdir().expect("temp dir");
    let doc = &document::<Prefixed>(dir.path());
    let mut keys: Vec<Vec<u8>> = (0..5).map(|i| Prefixed::get_key("u1", i)).collect();
    // Another program's key, without the prefix.
    let foreign = b"zz\x00u9\x00".to_vec();
    keys.push(foreign.clone());
    let sample = dir.path().join("sample.txt");
    let lines: String = keys.iter().map(|k| format!("{}\n", hex(k))).collect();
    std::fs::write(&sample, lines).expect("sample");
    let path = sample.to_str().expect("path");
    let (code, out, err) = tool(doc, &["hotspot", "--sample", path, "--input", "hex"], &[]);
    assert_eq!(code, 1, "a key did not fit: {err}");
    let said = out
        .lines()
        .find(|l| l.contains("not keys of `Prefixed`"))
        .unwrap_or_else(|| panic!("{out}"));
    // As stored: its bytes, escaped, never behind the document's prefix.
    assert!(said.contains("1 keys are not keys"), "{said}");
    assert!(said.contains("the first: zz\\x00u9\\x00"), "{said}");
    assert!(!said.contains("ev|"), "{said}");
}
