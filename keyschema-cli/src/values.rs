//! Field values as the tool prints and reads them, `field=value`, so that
//! what `decode` prints `encode` reads back to the same key.
//!
//! - A string or char is bare when it is not empty and holds only
//!   printable characters other than space, `"`, `=`, `\` and `|`, and
//!   does not begin with `<`; otherwise it is quoted, `"..."`, with `\"`,
//!   `\\`, `\n`, `\r`, `\t` and `\u{HEX}` for other control characters.
//! - Read back, a value in quotes is a string; bare or quoted, the escapes
//!   above and `\|` (as `render` writes a `|` in a string) are read, so a
//!   string component of a rendered key is read as it is shown.
//! - Every other type as [`Value::to_text`] writes it; `<none>`, and
//!   `Some(v)` as `v`, or `<some v>` when `v` itself begins like an
//!   `Option`.

use keyschema::dynamic::{DynField, DynSchema, Value};
use keyschema::{Base, Encoding};
use std::fmt::Write as _;

/// The value as `decode` prints it.
pub fn show(value: &Value) -> String {
    match value {
        Value::String(s) => quoted_if_needed(s),
        Value::Char(c) => quoted_if_needed(c.encode_utf8(&mut [0; 4])),
        Value::Option(None) => "<none>".to_string(),
        Value::Option(Some(inner)) => {
            let inner = show(inner);
            if inner.starts_with("<none>") || inner.starts_with("<some ") {
                format!("<some {inner}>")
            } else {
                inner
            }
        }
        other => other.to_text(),
    }
}

fn bare(s: &str) -> bool {
    !s.is_empty()
        && !s.starts_with('<')
        && s.chars()
            .all(|c| !c.is_control() && !matches!(c, ' ' | '"' | '=' | '\\' | '|'))
}

fn quoted_if_needed(s: &str) -> String {
    if bare(s) {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Reads a value of `encoding` as [`show`] prints it (and a rendered
/// string component).
pub fn read(encoding: Encoding, text: &str) -> Result<Value, String> {
    if let Some(inner) = encoding.inner() {
        if text == "<none>" {
            return Ok(Value::Option(None));
        }
        let text = match text.strip_prefix("<some ") {
            Some(rest) => rest
                .strip_suffix('>')
                .ok_or_else(|| format!("`{text}`: `<some ` without its closing `>`"))?,
            None => text,
        };
        return read(inner, text).map(|v| Value::Option(Some(Box::new(v))));
    }
    match encoding.base() {
        Base::String => unescape(text).map(Value::String),
        Base::Char => {
            let s = unescape(text)?;
            let mut chars = s.chars();
            match (chars.next(), chars.next()) {
                (Some(c), None) => Ok(Value::Char(c)),
                _ => Err(format!(
                    "`{text}`: a char is exactly one character (quote a space: \" \")"
                )),
            }
        }
        _ => Value::parse(encoding, unquoted(text)).map_err(|reason| format!("`{text}`: {reason}")),
    }
}

/// The string a bare or quoted text stands for.
fn unescape(text: &str) -> Result<String, String> {
    let body = match text.strip_prefix('"') {
        Some(rest) => rest.strip_suffix('"').ok_or_else(|| {
            format!("`{text}`: a quoted value ends with `\"` (escape a quote inside as \\\")")
        })?,
        None => text,
    };
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('"') => out.push('"'),
            Some('\\') => out.push('\\'),
            Some('|') => out.push('|'),
            Some('\'') => out.push('\''),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('t') => out.push('\t'),
            Some('0') => out.push('\0'),
            Some('u') => {
                let rest = chars.as_str();
                let end = rest.find('}').filter(|_| rest.starts_with('{'));
                let code = end
                    .and_then(|end| u32::from_str_radix(&rest[1..end], 16).ok())
                    .and_then(char::from_u32);
                match (code, end) {
                    (Some(c), Some(end)) => {
                        out.push(c);
                        chars = rest[end + 1..].chars();
                    }
                    _ => {
                        return Err(format!(
                            "`{text}`: `\\u` is followed by {{HEX}}, a Unicode scalar value (`\\u{{0}}`)"
                        ))
                    }
                }
            }
            other => {
                return Err(format!(
                    "`{text}`: unknown escape `\\{}`; the escapes are \\\" \\\\ \\| \\n \\r \\t \\0 \\u{{HEX}} (a backslash itself is \\\\)",
                    other.map(String::from).unwrap_or_default()
                ))
            }
        }
    }
    Ok(out)
}

/// Reads a value of `field`: strings and chars as [`read`] does, every
/// other type (quotes around it allowed) with the library's own errors.
pub fn read_field(field: &DynField, text: &str) -> Result<Value, String> {
    if matches!(field.encoding().base(), Base::String | Base::Char) {
        return read(field.encoding(), text).map_err(|e| format!("field `{}`: {e}", field.name()));
    }
    field.parse(unquoted(text)).map_err(|e| e.to_string())
}

/// A value of a type other than a string, without the quotes it may be in.
fn unquoted(text: &str) -> &str {
    text.strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .unwrap_or(text)
}

/// `field=value` arguments as pairs.
pub fn pairs(args: &[String]) -> Result<Vec<(&str, &str)>, String> {
    args.iter()
        .map(|a| {
            a.split_once('=')
                .ok_or_else(|| format!("`{a}` is not field=value"))
        })
        .collect()
}

/// Every key field's value from `field=value` arguments, in key order.
pub fn fields(schema: &DynSchema, args: &[String]) -> Result<Vec<Value>, String> {
    let mut values: Vec<Option<Value>> = vec![None; schema.fields().len()];
    for (name, text) in pairs(args)? {
        let (index, field) = schema.field(name).map_err(|e| e.to_string())?;
        if values[index].is_some() {
            return Err(format!("`{name}` is given twice"));
        }
        values[index] = Some(read_field(field, text)?);
    }
    values
        .into_iter()
        .zip(schema.fields())
        .map(|(v, f)| v.ok_or_else(|| format!("`{}` is missing: give every key field", f.name())))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn string() -> Encoding {
        "String".parse().expect("an encoding")
    }

    #[test]
    fn every_string_reads_back_as_shown() {
        for s in [
            "",
            "a",
            "a site=b",
            "\"",
            "\\",
            "<none>",
            "<some x>",
            "a|b",
            "a\0b",
            "tab\there",
            "é中",
            "\u{7f}",
        ] {
            let shown = show(&Value::String(s.into()));
            assert_eq!(
                read(string(), &shown),
                Ok(Value::String(s.into())),
                "{shown}"
            );
        }
        assert_eq!(show(&Value::String("a site=b".into())), "\"a site=b\"");
        assert_eq!(show(&Value::String("shop.example".into())), "shop.example");
        assert_eq!(show(&Value::String("a\0b".into())), "\"a\\u{0}b\"");
    }

    #[test]
    fn options_of_strings_read_back() {
        let enc: Encoding = "Option<Option<String>>".parse().expect("an encoding");
        for v in [
            Value::Option(None),
            Value::Option(Some(Box::new(Value::Option(None)))),
            Value::Option(Some(Box::new(Value::Option(Some(Box::new(
                Value::String("<none>".into()),
            )))))),
        ] {
            assert_eq!(read(enc, &show(&v)), Ok(v.clone()), "{}", show(&v));
        }
    }

    #[test]
    fn rendered_components_and_bad_escapes() {
        assert_eq!(read(string(), "a\\|b"), Ok(Value::String("a|b".into())));
        assert_eq!(read(string(), "a\\u{0}b"), Ok(Value::String("a\0b".into())));
        assert!(read(string(), "a\\q").is_err());
        assert!(read(string(), "\"open").is_err());
        assert!(read(string(), "a\\u{110000}").is_err());
    }
}
