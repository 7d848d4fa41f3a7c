//! `--input auto`: which reading of a typed key the user meant.
//!
//! A line of text can be read several ways: as the key's own text (a
//! text-format key, or a binary key of printable bytes), as `\xNN`-escaped
//! text, as hex and as base64. Each reading that parses is decoded under
//! the schema; the readings that decode are the candidates:
//!
//! - one key among them (several readings may give the same bytes): that
//!   key;
//! - several keys: a reading that is exactly how a printer writes a key
//!   wins over the raw text (`\x5C` is how keyschema and the HBase shell
//!   print `\`; `\xE6\x97\xA5` how they print `日`), and in a text-format
//!   schema the raw text, its own format, wins over escapes no printer
//!   writes (`\x41` for `A`, `\"`); a binary schema's keys are not text,
//!   so there any escaped reading wins over the raw text. Whatever is left
//!   with more than one key is ambiguous: an error naming each key and the
//!   `--input FORM` that reads it, never a guess;
//! - none: the reading the form of the text suggests, so that `render`
//!   shows a damaged key and `decode` says what is wrong with it.

use crate::forms::{self, Form};
use keyschema::dynamic::DynSchema;

/// How an escaped reading's escapes compare with what printers write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Escapes {
    /// Every escape is `\xNN` of a byte printers escape (not printable
    /// ASCII, or `\`): the text is exactly a printed key.
    Printed,
    /// Escapes a person types (`\\`, `\n`, `\t`, `\r`) for such bytes.
    Typed,
    /// An escape of a byte every printer writes as itself (`\x41`, `\"`).
    Needless,
}

/// One way of reading the text.
#[derive(Debug)]
struct Reading {
    form: Form,
    bytes: Vec<u8>,
    /// For an escaped reading, how its escapes were written.
    escapes: Option<Escapes>,
}

/// Reads one line of input in `form`; `auto` picks the reading that
/// decodes under `schema`, as the module says.
pub fn read_line(line: &[u8], form: Form, schema: &DynSchema) -> Result<Vec<u8>, String> {
    let text_keys = matches!(schema.format(), keyschema::Format::Text { .. });
    match (form, std::str::from_utf8(line)) {
        (Form::Auto, Ok(text)) => choose(text, text_keys, &|key: &[u8]| describe(schema, key)),
        _ => forms::read_line(line, form, text_keys),
    }
}

/// The key's fields as `decode` prints them, or `None` when it does not
/// decode.
fn describe(schema: &DynSchema, key: &[u8]) -> Option<String> {
    let (values, layout) = schema.decode_stored(key).ok()?;
    Some(crate::text_fields(
        schema,
        &values,
        schema.history().map(|_| layout),
    ))
}

/// The reading of `text` that decodes (`describe` gives a key's fields, or
/// `None` when it does not decode); `text_keys`: the schema's format is
/// text.
pub fn choose(
    text: &str,
    text_keys: bool,
    describe: &dyn Fn(&[u8]) -> Option<String>,
) -> Result<Vec<u8>, String> {
    let readings = readings(text);
    let decoding: Vec<(&Reading, String)> = readings
        .iter()
        .filter_map(|r| describe(&r.bytes).map(|d| (r, d)))
        .collect();
    let beaten = |r: &Reading| {
        decoding
            .iter()
            .any(|(other, _)| other.bytes != r.bytes && beats(other, r, text_keys))
    };
    // Each key left, once, with the forms that read it.
    let mut left: Vec<(&[u8], &str, Vec<Form>)> = Vec::new();
    for (r, fields) in decoding.iter().filter(|(r, _)| !beaten(r)) {
        match left
            .iter_mut()
            .find(|(bytes, _, _)| *bytes == r.bytes.as_slice())
        {
            Some((_, _, forms)) => forms.push(r.form),
            None => left.push((&r.bytes, fields, vec![r.form])),
        }
    }
    match left.as_slice() {
        [(key, _, _)] => Ok(key.to_vec()),
        [] => forms::read(text, Form::Auto, text_keys),
        _ => {
            let each: Vec<String> = left
                .iter()
                .map(|(_, fields, forms)| {
                    let flags: Vec<String> = forms
                        .iter()
                        .map(|f| format!("--input {}", name(*f)))
                        .collect();
                    format!("{} reads {}", flags.join(" or "), forms::cut(fields))
                })
                .collect();
            Err(format!(
                "ambiguous: {} readings decode to different keys ({}); say which with --input",
                each.len(),
                each.join("; ")
            ))
        }
    }
}

/// Whether reading `a` wins over reading `b` when both decode.
fn beats(a: &Reading, b: &Reading, text_keys: bool) -> bool {
    match (a.form, a.escapes, b.form, b.escapes) {
        (Form::Escaped, Some(Escapes::Printed), Form::Text, _) => true,
        (Form::Escaped, Some(_), Form::Text, _) => !text_keys,
        (Form::Text, _, Form::Escaped, Some(Escapes::Needless)) => text_keys,
        _ => false,
    }
}

/// Every reading of `text` that parses.
fn readings(text: &str) -> Vec<Reading> {
    let mut out = vec![Reading {
        form: Form::Text,
        bytes: text.as_bytes().to_vec(),
        escapes: None,
    }];
    if text.contains('\\') {
        if let Ok(bytes) = forms::read(text, Form::Escaped, false) {
            out.push(Reading {
                form: Form::Escaped,
                bytes,
                escapes: Some(escapes(text)),
            });
        }
    }
    for form in [Form::Hex, Form::Base64] {
        if text.trim().is_empty() {
            break;
        }
        if let Ok(bytes) = forms::read(text, form, false) {
            out.push(Reading {
                form,
                bytes,
                escapes: None,
            });
        }
    }
    out
}

/// How the escapes of `text` (which parses as escaped text) are written.
fn escapes(text: &str) -> Escapes {
    let bytes = text.as_bytes();
    let mut worst = Escapes::Printed;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            i += 1;
            continue;
        }
        let (kind, width) = match bytes.get(i + 1) {
            Some(b'x' | b'X') => {
                let pair = std::str::from_utf8(bytes.get(i + 2..i + 4).unwrap_or_default());
                match pair.ok().and_then(|p| u8::from_str_radix(p, 16).ok()) {
                    Some(b) if forms::printed_as_itself(b) => (Escapes::Needless, 4),
                    _ => (Escapes::Printed, 4),
                }
            }
            Some(b'\\' | b'n' | b't' | b'r') => (Escapes::Typed, 2),
            _ => (Escapes::Needless, 2),
        };
        worst = worst.max(kind);
        i += width;
    }
    worst
}

/// The `--input` value of a form.
fn name(form: Form) -> &'static str {
    match form {
        Form::Auto => "auto",
        Form::Hex => "hex",
        Form::Base64 => "base64",
        Form::Escaped => "escaped",
        Form::Text => "text",
        Form::Cbt => "cbt",
        Form::Hbase => "hbase",
        Form::Dynamodb => "dynamodb",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A schema whose keys are those of `len` bytes, described by their
    /// text.
    fn of_len(len: usize) -> impl Fn(&[u8]) -> Option<String> {
        move |k: &[u8]| (k.len() == len).then(|| String::from_utf8_lossy(k).into_owned())
    }

    #[test]
    fn one_key_among_the_readings_is_read() {
        // Hex of 3 bytes; its text (6 bytes) and base64 (4 bytes) do not decode.
        assert_eq!(choose("0a0b0c", false, &of_len(3)), Ok(vec![10, 11, 12]));
        // Base64 of 3 bytes.
        assert_eq!(choose("AQID", false, &of_len(3)), Ok(vec![1, 2, 3]));
        // The text itself.
        assert_eq!(choose("ab#", true, &of_len(3)), Ok(b"ab#".to_vec()));
    }

    #[test]
    fn a_needless_escape_loses_to_a_text_key_and_a_printed_one_wins() {
        let any = |_: &[u8]| Some(String::new());
        // `\x41` is how no printer writes `A`: the text key's own text.
        assert_eq!(choose("\\x41#1", true, &any), Ok(b"\\x41#1".to_vec()));
        // `\x5C` is how printers write `\`.
        assert_eq!(choose("\\x5C#1", true, &any), Ok(b"\\#1".to_vec()));
        assert_eq!(choose("\\xE6\\x97\\xA5#1", true, &any), Ok("日#1".into()));
        // A binary key is not text: the escapes are meant.
        assert_eq!(choose("\\x41#1", false, &any), Ok(b"A#1".to_vec()));
    }

    #[test]
    fn typed_escapes_in_a_text_key_are_ambiguous() {
        let any = |k: &[u8]| Some(format!("{k:?}"));
        let e = choose("a\\nb#", true, &any).unwrap_err();
        assert!(e.starts_with("ambiguous: 2 readings"), "{e}");
        assert!(
            e.contains("--input text reads [97, 92, 110, 98, 35]"),
            "{e}"
        );
        assert!(e.contains("--input escaped reads [97, 10, 98, 35]"), "{e}");
    }

    #[test]
    fn hex_and_base64_that_both_decode_are_ambiguous() {
        // `abcd`: hex of 2 bytes, base64 of 3.
        let short = |k: &[u8]| (k.len() < 4).then(String::new);
        let e = choose("abcd", false, &short).unwrap_err();
        assert!(
            e.contains("--input hex") && e.contains("--input base64"),
            "{e}"
        );
    }

    #[test]
    fn nothing_decodes_so_the_likeliest_reading_is_kept() {
        let none = |_: &[u8]| None;
        assert_eq!(choose("0a0b", false, &none), Ok(vec![10, 11]));
        assert_eq!(choose("0xab#1", true, &none), Ok(b"0xab#1".to_vec()));
        assert!(choose("!!", false, &none).is_err());
    }
}
