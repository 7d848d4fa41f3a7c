//! The forms keys are printed in: hex, base64, `\xNN`-escaped text (what the
//! HBase shell's `Bytes.toStringBinary` and `cbt` show), and plain text.

pub use crate::b64::base64;
use base64::Engine as _;

/// How a key is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Form {
    /// The reading that decodes under the schema: the text itself (a
    /// text-format schema's own form), `\xNN`-escaped text, hex or base64.
    /// Where several decode to different keys, escapes exactly as printers
    /// write them win over the raw text, and in a text-format schema the
    /// raw text wins over escapes no printer writes (`\x41` for `A`);
    /// any other choice is an error naming each key and its `--input`.
    Auto,
    /// Hex digits, optionally `0x`-prefixed or in space-separated pairs.
    Hex,
    /// Standard base64 (padding optional).
    Base64,
    /// Text with `\xNN` escapes for other bytes (HBase shell, cbt).
    Escaped,
    /// The bytes of the text as they are (text-format keys).
    Text,
    /// The output of `cbt read` or `cbt lookup` on standard input, read by
    /// its row structure as bytes (one answer per row): a key that cbt
    /// printed across lines (it holds 0x0A) is read as the one way of
    /// joining them that decodes, cbt's `-creds flag unset` log line is
    /// skipped, and a lookup that found no row is reported.
    Cbt,
    /// The HBase shell's `scan` output, written to a file or pipe: one
    /// answer per row, its key up to ` column=`.
    Hbase,
    /// A DynamoDB item's key as the console and `aws dynamodb scan` show
    /// it: `PK SK`, the partition and sort key attributes (binary ones as
    /// base64, a text key's as their text; `PK` alone for a table without
    /// a sort key), or the key's JSON,
    /// `{"pk":{"B":"AXUx"},"sk":{"B":"cwD/"}}` (with the names
    /// `--key-attributes` gives).
    Dynamodb,
}

/// Reads one key in `form`. `text_keys`: the schema's keys are text, so an
/// unescaped line is the key itself.
pub fn read(line: &str, form: Form, text_keys: bool) -> Result<Vec<u8>, String> {
    match form {
        Form::Hex => hex(line),
        Form::Base64 => base64(line),
        Form::Escaped => escaped(line),
        Form::Text => Ok(line.as_bytes().to_vec()),
        Form::Dynamodb => crate::dynamodb_key::read(line, text_keys),
        Form::Cbt | Form::Hbase => Err(format!(
            "--input {} reads a tool's whole output on standard input, not one key",
            if form == Form::Cbt { "cbt" } else { "hbase" }
        )),
        // The reading the text's form suggests (`reading::choose` reads
        // the one that decodes).
        Form::Auto => {
            if text_keys {
                Ok(line.as_bytes().to_vec())
            } else if line.contains('\\') {
                escaped(line)
            } else if line.starts_with("0x") {
                hex(line)
            } else if let Ok(bytes) = hex(line) {
                Ok(bytes)
            } else if let Ok(bytes) = base64(line) {
                Ok(bytes)
            } else {
                Err("neither \\xNN-escaped text, hex nor base64; say which with --input".into())
            }
        }
    }
}

/// Reads one line of input, read as bytes: UTF-8 text in `form`; other
/// bytes are the key's raw bytes (as `cbt` prints keys) where `form` allows
/// it (`auto`, `text`).
pub fn read_line(line: &[u8], form: Form, text_keys: bool) -> Result<Vec<u8>, String> {
    match std::str::from_utf8(line) {
        Ok(text) => read(text, form, text_keys),
        Err(_) if matches!(form, Form::Auto | Form::Text) => Ok(line.to_vec()),
        Err(_) => Err(format!(
            "not UTF-8, so not {form:?} text (raw key bytes: --input text)"
        )),
    }
}

/// A line of input as an error message shows it: as it was typed (a
/// backslash as `\`), but a byte that is not UTF-8 or a control character
/// as `\xNN`; cut as [`cut`] does.
pub fn shown(line: &[u8]) -> String {
    let mut out = String::with_capacity(line.len());
    for chunk in line.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                c if c.is_ascii_control() => out.push_str(&format!("\\x{:02X}", c as u32)),
                c => out.push(c),
            }
        }
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02X}"));
        }
    }
    cut(&out)
}

/// Lines longer than this many characters are cut in messages.
const LONGEST: usize = 120;

/// `text` as a message shows it: when longer than 120 characters, its
/// first 100, an ellipsis and its length.
pub fn cut(text: &str) -> String {
    let length = text.chars().count();
    if length <= LONGEST {
        return text.to_string();
    }
    let head: String = text.chars().take(100).collect();
    format!("{head}… ({length} characters)")
}

/// Whether the escaped form writes byte `b` as itself (printable ASCII but
/// `\`), not as `\xNN`.
pub fn printed_as_itself(b: u8) -> bool {
    (b.is_ascii_graphic() && b != b'\\') || b == b' '
}

/// `text` (a key's rendering) on one line: as it is when it holds no
/// control character, else in the escaped key form (each byte of a control
/// character, such as a line break a text key holds, and of `\` as
/// `\xNN`), which `--input escaped` reads back.
pub fn one_line(text: &str) -> String {
    if !text.chars().any(char::is_control) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c == '\\' || c.is_control() {
            for b in c.encode_utf8(&mut [0; 4]).bytes() {
                out.push_str(&format!("\\x{b:02X}"));
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn hex(text: &str) -> Result<Vec<u8>, String> {
    let digits: Vec<u8> = text
        .trim()
        .strip_prefix("0x")
        .unwrap_or(text.trim())
        .bytes()
        .filter(|b| *b != b' ')
        .collect();
    if digits.is_empty() && !text.trim().is_empty() {
        return Err("no hex digits".into());
    }
    if !digits.len().is_multiple_of(2) {
        return Err(format!("{} hex digits: an odd number", digits.len()));
    }
    digits
        .chunks_exact(2)
        .enumerate()
        .map(|(i, pair)| {
            let digit = |c: u8| (c as char).to_digit(16);
            match (digit(pair[0]), digit(pair[1])) {
                (Some(hi), Some(lo)) => Ok((hi << 4 | lo) as u8),
                _ => Err(format!(
                    "{:?} at byte {i} is not two hex digits",
                    String::from_utf8_lossy(pair)
                )),
            }
        })
        .collect()
}

/// `\xNN` (either case) is the byte; `\\`, `\n`, `\t`, `\r`, `\"` and
/// `\'` are the usual escapes; every other character stands for its UTF-8.
fn escaped(text: &str) -> Result<Vec<u8>, String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            out.push(bytes[i]);
            i += 1;
            continue;
        }
        match bytes.get(i + 1) {
            Some(b'x') | Some(b'X') => {
                let pair = bytes.get(i + 2..i + 4).ok_or_else(|| {
                    format!("`\\x` at character {i} is not followed by two hex digits")
                })?;
                let digit = |c: u8| (c as char).to_digit(16);
                match (digit(pair[0]), digit(pair[1])) {
                    (Some(hi), Some(lo)) => out.push((hi << 4 | lo) as u8),
                    _ => {
                        return Err(format!(
                            "`\\x` at character {i} is not followed by two hex digits"
                        ))
                    }
                }
                i += 4;
            }
            Some(&c @ (b'\\' | b'"' | b'\'')) => {
                out.push(c);
                i += 2;
            }
            Some(b'n') => {
                out.push(b'\n');
                i += 2;
            }
            Some(b't') => {
                out.push(b'\t');
                i += 2;
            }
            Some(b'r') => {
                out.push(b'\r');
                i += 2;
            }
            _ => return Err(format!("unknown escape at character {i}")),
        }
    }
    Ok(out)
}

/// How a key is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Output {
    /// `\xNN` for bytes that are not printable ASCII (and for `\`), as the
    /// HBase shell prints them.
    Escaped,
    /// Lowercase hex.
    Hex,
    /// Standard base64.
    Base64,
}

/// Writes one key in `form`.
pub fn write(key: &[u8], form: Output) -> String {
    match form {
        Output::Hex => key.iter().map(|b| format!("{b:02x}")).collect(),
        Output::Base64 => base64::engine::general_purpose::STANDARD.encode(key),
        Output::Escaped => key
            .iter()
            .map(|&b| {
                if printed_as_itself(b) {
                    (b as char).to_string()
                } else {
                    format!("\\x{b:02X}")
                }
            })
            .collect(),
    }
}

/// The key of one line of a sample file: a plain key per line, `cbt read`
/// output (the unindented lines after the dashes) or HBase shell `scan`
/// output (the first word of each ` ROW column=...` line). `None` for lines
/// that hold no key.
pub fn sample_line(line: &str) -> Option<&str> {
    let trimmed = line.trim_end_matches(['\r', '\n']);
    if trimmed.trim().is_empty() || trimmed.chars().all(|c| c == '-') {
        return None;
    }
    if let Some((key, _)) = trimmed.split_once(" column=") {
        // The shell prints a key's spaces as they are: the key is all of
        // the text between the line's first space and ` column=`.
        return Some(key.strip_prefix(' ').unwrap_or(key));
    }
    let t = trimmed.trim_start();
    if t.starts_with("ROW") && t.contains("COLUMN+CELL") {
        return None;
    }
    if t.ends_with("row(s)") || t.ends_with("row(s) in") || t.starts_with("Took ") {
        return None;
    }
    if trimmed.starts_with([' ', '\t']) {
        return None; // a cbt cell line
    }
    Some(trimmed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_reads_the_same_key() {
        let key = b"\x03u1\x00s\x00\xff\xff\xff\xff\x9a\xac\x0e\xff".to_vec();
        for output in [Output::Escaped, Output::Hex, Output::Base64] {
            let text = write(&key, output);
            assert_eq!(read(&text, Form::Auto, false), Ok(key.clone()), "{text}");
        }
        assert_eq!(
            write(&key, Output::Escaped),
            "\\x03u1\\x00s\\x00\\xFF\\xFF\\xFF\\xFF\\x9A\\xAC\\x0E\\xFF"
        );
        assert_eq!(read("03 75 31", Form::Auto, false), Ok(b"\x03u1".to_vec()));
        assert_eq!(read("a\\\\b", Form::Escaped, false), Ok(b"a\\b".to_vec()));
        assert!(read("\\xZZ", Form::Auto, false).is_err());
        assert!(read("!!", Form::Auto, false).is_err());
        assert_eq!(read("02_u_9", Form::Auto, true), Ok(b"02_u_9".to_vec()));
    }

    #[test]
    fn sample_lines_of_cbt_and_the_hbase_shell() {
        assert_eq!(
            sample_line("----------------------------------------"),
            None
        );
        assert_eq!(sample_line("\\x03u1\\x00"), Some("\\x03u1\\x00"));
        assert_eq!(
            sample_line("  v:c                                      @ 2026/11/22-00:00:00.000000"),
            None
        );
        assert_eq!(
            sample_line(" \\x03u1\\x00 column=v:c, timestamp=1, value=x"),
            Some("\\x03u1\\x00")
        );
        assert_eq!(sample_line("ROW                  COLUMN+CELL"), None);
        assert_eq!(sample_line("3 row(s)"), None);
        assert_eq!(sample_line("Took 0.0162 seconds"), None);
    }
}
