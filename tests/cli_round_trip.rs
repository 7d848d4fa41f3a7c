//! Whatever the `keyschema` command prints reads back: for random rows of
//! every layout of the catalog (and of layouts whose strings hold `#`, `\`,
//! line breaks, carriage returns and escape-like text), the derived code's
//! key is decoded by the tool (`--input hex`), its fields encoded again in
//! every output form, and what `encode` printed is checked byte for byte
//! against the derived key and read back by `decode` and `render` with
//! `--input auto`: the same fields, and the derived code's own rendering.

mod common;

use common::catalog::{self, Sample, Visit};
use common::cli::{document, run};
use keyschema::RowKey;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};

/// Strings that hold what breaks readers: the separators, escapes and
/// escape-like text, line breaks, `%`, non-ASCII.
fn nasty() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            Just("#"),
            Just("\\"),
            Just("\\x41"),
            Just("\\x5C"),
            Just("\\n"),
            Just("0x"),
            Just("\n"),
            Just("\r"),
            Just("%"),
            Just("é"),
            Just("ab"),
            Just(" "),
            Just("\0"),
        ],
        0..6,
    )
    .prop_map(|parts| parts.concat())
}

/// The issue's layout, with such tenants.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(format = text(sep = "#"), then = (tenant), rev(at), id)]
struct Tenanted {
    tenant: String,
    at: u64,
    id: u32,
}

/// Such strings and any bytes last in a text key and in a binary one.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(format = text(sep = "#"), prefix = "ev", then = tag, blob, letter)]
struct TextTail {
    tag: Option<String>,
    blob: Vec<u8>,
    letter: char,
}

#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = hash(user) % 8, then = user, blob)]
struct BinaryTail {
    user: String,
    blob: Vec<u8>,
}

/// The form `encode --output FORM` prints, read by the test itself.
fn parse(form: &str, text: &str) -> Vec<u8> {
    match form {
        "hex" => (0..text.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&text[i..i + 2], 16).expect("hex"))
            .collect(),
        "base64" => base64(text),
        _ => {
            let mut out = Vec::new();
            let mut rest = text.as_bytes();
            while let Some((&b, tail)) = rest.split_first() {
                if b == b'\\' {
                    let pair = std::str::from_utf8(&tail[1..3]).expect("escape");
                    assert_eq!(tail[0], b'x', "{text}");
                    out.push(u8::from_str_radix(pair, 16).expect("escape"));
                    rest = &tail[3..];
                } else {
                    assert!(b.is_ascii_graphic() || b == b' ', "{text}");
                    out.push(b);
                    rest = tail;
                }
            }
            out
        }
    }
}

/// Standard base64, padded.
fn base64(text: &str) -> Vec<u8> {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    assert_eq!(text.len() % 4, 0, "padded base64: {text}");
    let mut out = Vec::new();
    for quad in text.as_bytes().chunks(4) {
        let digits: Vec<u32> = quad
            .iter()
            .take_while(|&&c| c != b'=')
            .map(|c| ALPHABET.iter().position(|a| a == c).expect("base64") as u32)
            .collect();
        let n = digits.iter().fold(0u32, |n, d| n << 6 | d) << (6 * (4 - digits.len()));
        out.extend_from_slice(&n.to_be_bytes()[1..digits.len()]);
    }
    out
}

/// `decode`'s `field=value` pairs, quoted values and `<some ...>` kept
/// whole.
fn split_fields(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let (mut quoted, mut escaped, mut some) = (false, false, 0);
    let mut previous = ' ';
    for c in line.chars() {
        match c {
            _ if escaped => escaped = false,
            '\\' if quoted => escaped = true,
            '"' => quoted = !quoted,
            // A value `<some <none>>` begins right after `=`.
            '<' if !quoted && (previous == '=' || some > 0) => some += 1,
            '>' if !quoted && some > 0 => some -= 1,
            ' ' if !quoted && some == 0 => {
                out.push(std::mem::take(&mut current));
                continue;
            }
            _ => {}
        }
        current.push(c);
        previous = c;
    }
    out.push(current);
    out
}

fn hex(key: &[u8]) -> String {
    key.iter().map(|b| format!("{b:02x}")).collect()
}

/// The round trip of one row of `K`, whose schema document is `doc`.
fn round_trip<K: RowKey>(doc: &str, row: &K) -> Result<(), TestCaseError> {
    let key = row.encode();
    // A random salt: `encode` prints the key in every bucket.
    let expected = K::schema().candidates(&key);
    let tool = |args: &[&str], input: &[u8]| {
        let mut all = vec!["--schema", doc];
        all.extend_from_slice(args);
        run(&all, input)
    };
    let (code, fields, err) = tool(&["decode", "--input", "hex", &hex(&key)], b"");
    prop_assert_eq!(code, 0, "{}", err);
    let fields = fields.trim_end().to_string();
    let pairs = split_fields(&fields);
    let mut all_printed = Vec::new();
    for form in ["escaped", "hex", "base64"] {
        let mut args = vec!["encode", "--output", form];
        args.extend(pairs.iter().map(String::as_str));
        let (code, printed, err) = tool(&args, b"");
        prop_assert_eq!(code, 0, "encode {:?}: {}", args, err);
        let printed: Vec<String> = printed.lines().map(str::to_string).collect();
        let bytes: Vec<Vec<u8>> = printed.iter().map(|p| parse(form, p)).collect();
        prop_assert_eq!(&bytes, &expected, "{} printed {:?}", form, printed);
        all_printed.extend(printed);
    }
    // Read back on standard input, one per line, by `decode`...
    let input: String = all_printed.iter().map(|p| format!("{p}\n")).collect();
    let (code, decoded, err) = tool(&["decode"], input.as_bytes());
    prop_assert_eq!(code, 0, "decode {:?}: {}", all_printed, err);
    let want = format!("{fields}\n").repeat(all_printed.len());
    prop_assert_eq!(decoded, want, "{:?}", all_printed);
    // ... and as arguments by `render`: one line per key, the derived
    // code's own rendering, or, when that holds a control character (a text
    // key's line break), its escaped form, which reads back to it.
    // After `--`: a key may begin with `-` (a text key's `-` field).
    let mut args = vec!["render", "--"];
    args.extend(all_printed.iter().map(String::as_str));
    let (code, rendered, err) = tool(&args, b"");
    prop_assert_eq!(code, 0, "render {:?}: {}", all_printed, err);
    let lines: Vec<&str> = rendered.split_terminator('\n').collect();
    prop_assert_eq!(lines.len(), 3 * expected.len(), "{:?}", rendered);
    for (line, key) in lines.iter().zip(expected.iter().cycle()) {
        prop_assert!(!line.chars().any(char::is_control), "{:?}", line);
        let own = K::render(key);
        if own.chars().any(char::is_control) {
            prop_assert_eq!(unescape(line), own.into_bytes(), "{:?}", line);
        } else {
            prop_assert_eq!(*line, own.as_str());
        }
    }
    Ok(())
}

/// `text` with its `\xNN` escapes read as the bytes they name (and every
/// other character as its UTF-8).
fn unescape(text: &str) -> Vec<u8> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("\\x") {
        out.extend_from_slice(&rest.as_bytes()[..at]);
        let pair = rest.get(at + 2..at + 4).expect("two hex digits after \\x");
        out.push(u8::from_str_radix(pair, 16).expect("an escape's hex"));
        rest = &rest[at + 4..];
    }
    out.extend_from_slice(rest.as_bytes());
    out
}

/// Runs the round trip on `cases` rows of `strategy`.
fn check<K: RowKey + std::fmt::Debug>(cases: u32, strategy: impl Strategy<Value = K>) {
    let dir = tempfile::tempdir().expect("temp dir");
    let doc = document::<K>(dir.path());
    let mut runner = TestRunner::new(Config {
        cases,
        ..Config::default()
    });
    if let Err(e) = runner.run(&strategy, |row| round_trip(&doc, &row)) {
        panic!("{}: {e}", K::schema().name());
    }
}

struct EveryLayout;

impl Visit for EveryLayout {
    fn visit<K: Sample>(&mut self) {
        check::<K>(4, K::strategy());
    }
}

#[test]
fn what_encode_prints_reads_back_for_every_layout_of_the_catalog() {
    catalog::for_each(&mut EveryLayout);
}

#[test]
fn what_encode_prints_reads_back_when_strings_hold_separators_escapes_and_line_breaks() {
    check(
        24,
        (nasty(), any::<u64>(), any::<u32>()).prop_map(|(tenant, at, id)| Tenanted {
            tenant,
            at,
            id,
        }),
    );
    check(
        24,
        (
            proptest::option::of(nasty()),
            any::<Vec<u8>>(),
            prop_oneof![Just('\\'), Just('#'), Just('\n'), Just('\r'), any::<char>()],
        )
            .prop_map(|(tag, blob, letter)| TextTail { tag, blob, letter }),
    );
    check(
        24,
        (nasty(), any::<Vec<u8>>()).prop_map(|(user, blob)| BinaryTail { user, blob }),
    );
}
