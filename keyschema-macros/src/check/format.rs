//! Rules of `format`: binary, or text with one separator.

use super::{error, Errors};
use crate::attr::KeyAttr;

/// `Some(())` for a text key.
pub(super) fn text_separator_of(attr: &KeyAttr) -> Option<()> {
    attr.format
        .as_ref()
        .filter(|(f, _)| f == "text")
        .map(|_| ())
}

/// Rule: `format` is `binary` or `text(sep = "c")` with one ASCII
/// punctuation separator that is not an escape or value mark.
pub(super) fn text_separator(attr: &KeyAttr, errors: &mut Errors) -> Option<u8> {
    let (format, sep) = attr.format.as_ref()?;
    let mut text_sep = None;
    if format == "text" {
        let (value, span) = match sep {
            Some(lit) => (lit.value(), lit.span()),
            None => ("#".to_string(), format.span()),
        };
        let byte = match value.as_bytes() {
            [b] if b.is_ascii_punctuation() && !b"%-=".contains(b) => Some(*b),
            _ => None,
        };
        match byte {
            Some(b) => text_sep = Some(b),
            None => errors.push(error(
                span,
                format!(
                    "the separator must be one ASCII punctuation character other than `%`, `-` and `=` (those escape and mark values); found {value:?}"
                ),
            )),
        }
    } else if format != "binary" {
        errors.push(error(
            format.span(),
            "unknown format; expected `binary` or `text(sep = \"#\")`",
        ));
    }
    if format == "binary" && sep.is_some() {
        errors.push(error(format.span(), "`binary` takes no separator"));
    }
    if let (Some(b), Some((span, prefix))) = (text_sep, &attr.prefix) {
        if prefix.contains(&b) {
            errors.push(error(
                *span,
                format!(
                    "the prefix holds the separator `{}`: its keys would begin like another prefix's (`\"a{0}b\"` and `\"a\"` with a first field `b`); choose a prefix without it",
                    b as char
                ),
            ));
        }
    }
    text_sep
}
