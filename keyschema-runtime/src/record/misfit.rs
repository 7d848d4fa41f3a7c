//! A stored value that does not read as its field's type, said in the
//! user's terms: where (the field, and the path inside it: `scores[3]`,
//! `address.zip`), what the type asked for there, and what is stored, with
//! its value (`expected an integer, found the string "7"`), never the
//! MessagePack reader's internals (`wrong msgpack marker FixStr(1)`).
//!
//! The read that failed left its [`Trail`]: the steps to the value it
//! failed on and what it asked there. The value is found again in the
//! stored bytes by those steps; a DynamoDB item's is then said in
//! DynamoDB's terms ([`super::dynamo_words`]), with the number's text as
//! DynamoDB holds it, from the item's notes.

use super::dynamo_words::{self, nested_note, note};
use super::probe::Asks;
use super::track::{beyond_f32, not_an_f32, number_shown, Step, Trail};
use super::walk::{shown, Item, Walker};

/// The message of `field`, whose stored value `raw` (its whole
/// MessagePack encoding) did not read: `trail` is the failed read's,
/// `inner` what the reader said, `notes` a DynamoDB item's notes.
pub(crate) fn message(
    field: &str,
    raw: &[u8],
    trail: &Trail,
    inner: &str,
    notes: Option<&[u8]>,
) -> String {
    let (steps, asked) = trail.failure().unwrap_or((Vec::new(), Asks::Other));
    let Some((item, path)) = locate(raw, &steps) else {
        return inner.to_string();
    };
    let what = match notes {
        Some(notes) => {
            let note = if path.is_empty() {
                note(notes, field)
            } else {
                nested_note(notes, &format!("{field}{path}"))
            };
            dynamo_words::misfit(asked, item, note, inner)
        }
        None => plain(asked, item, inner),
    };
    at(field, &path, what)
}

/// `what`, at `path` inside `field` when it is not the field itself.
pub(crate) fn at(field: &str, path: &str, what: String) -> String {
    if path.is_empty() {
        what
    } else {
        format!("at `{field}{path}`: {what}")
    }
}

/// The item `steps` lead to inside `raw`, and the path they spell
/// (`[3]`, `.zip`, `["a b"]`); `None` when they lead nowhere.
pub(crate) fn locate<'v>(raw: &'v [u8], steps: &[Step]) -> Option<(Item<'v>, String)> {
    let mut value = raw;
    let mut path = String::new();
    for step in steps {
        let mut walker = Walker::new(value);
        match *step {
            Step::Elem(i) => {
                if i >= walker.array_len().ok()? {
                    return None;
                }
                for _ in 0..i {
                    walker.item().ok()?;
                }
                path.push_str(&format!("[{i}]"));
            }
            Step::Entry(i) => {
                if i >= walker.map_len().ok()? {
                    return None;
                }
                for _ in 0..i {
                    walker.item().ok()?;
                    walker.item().ok()?;
                }
                match walker.item().ok()? {
                    Item::Str(key) => push_key(&mut path, &String::from_utf8_lossy(key)),
                    other => path.push_str(&format!("[{}]", found(other))),
                }
            }
        }
        value = walker.item_and_bytes().ok()?.1;
    }
    Some((Walker::new(value).item().ok()?, path))
}

/// Appends a map key to a path: `.name` for a name of letters, digits and
/// underscores, else `["the key"]`.
pub(crate) fn push_key(path: &mut String, key: &str) {
    if !key.is_empty() && key.chars().all(|c| c.is_alphanumeric() || c == '_') {
        path.push('.');
        path.push_str(key);
    } else {
        path.push_str(&format!("[{key:?}]"));
    }
}

/// Why `item` does not read as what `asked` asks for, in plain terms.
fn plain(asked: Asks, item: Item<'_>, inner: &str) -> String {
    if let Some(wanted) = wanted(asked) {
        if !fits(asked, item) {
            return format!("expected {wanted}, found {}", found(item));
        }
    }
    match (asked, item) {
        (Asks::Int { name, min, max }, Item::Uint(_) | Item::Int(_)) => {
            let n = match item {
                Item::Uint(n) => i128::from(n),
                Item::Int(n) => i128::from(n),
                _ => 0,
            };
            if !(min..=max).contains(&n) {
                return format!("the integer {n} is beyond {name}'s range ({min} to {max})");
            }
        }
        (Asks::Wide { signed: false }, Item::Int(n)) if n < 0 => {
            return format!(
                "the integer {n} is beyond u128's range (0 to {})",
                u128::MAX
            );
        }
        (Asks::F32, Item::Float(v)) if beyond_f32(v) => return not_an_f32(&number_shown(v)),
        _ => {}
    }
    format!("found {}: {inner}", found(item))
}

/// What `asked` asks for, in words; `None` for a type that reads anything.
fn wanted(asked: Asks) -> Option<&'static str> {
    Some(match asked {
        Asks::Bool => "a boolean",
        Asks::Int { .. } | Asks::Wide { .. } => "an integer",
        Asks::Float | Asks::F32 => "a number",
        Asks::Char => "a string of one character",
        Asks::Str => "a string",
        Asks::Bytes => "bytes",
        Asks::Unit => "nil",
        Asks::Seq => "an array",
        Asks::Map => "a map",
        Asks::Enum => "an enum variant (its name, or a map of one entry)",
        Asks::Any | Asks::Other => return None,
    })
}

/// Whether `item` is of the kind `asked` reads.
fn fits(asked: Asks, item: Item<'_>) -> bool {
    let nested = match item {
        Item::Nested(bytes) => bytes.first().copied(),
        _ => None,
    };
    let array = matches!(nested, Some(0x90..=0x9f | 0xdc | 0xdd));
    let map = matches!(nested, Some(0x80..=0x8f | 0xde | 0xdf));
    match asked {
        Asks::Bool => matches!(item, Item::Bool(_)),
        Asks::Int { .. } => matches!(item, Item::Uint(_) | Item::Int(_)),
        Asks::Wide { .. } => matches!(item, Item::Uint(_) | Item::Int(_) | Item::Bin(_)),
        Asks::Float | Asks::F32 => matches!(item, Item::Uint(_) | Item::Int(_) | Item::Float(_)),
        Asks::Char | Asks::Str => matches!(item, Item::Str(_)),
        Asks::Bytes => matches!(item, Item::Bin(_)),
        Asks::Unit => matches!(item, Item::Nil) || array,
        Asks::Seq => array,
        // rmp-serde reads a struct from an array too.
        Asks::Map => map || array,
        Asks::Enum => matches!(item, Item::Str(_)) || map,
        Asks::Any | Asks::Other => true,
    }
}

/// A stored value in plain words, with its value when it is a scalar.
pub(crate) fn found(item: Item<'_>) -> String {
    match item {
        Item::Nil => "nil (None)".to_string(),
        Item::Bool(b) => format!("the boolean {b}"),
        Item::Uint(n) => format!("the integer {n}"),
        Item::Int(n) => format!("the integer {n}"),
        Item::Float(v) => format!("the number {}", number_shown(v)),
        Item::Str(bytes) => format!("the string {}", shown(bytes)),
        Item::Bin(bytes) => format!("{} bytes ({})", bytes.len(), hex(bytes)),
        Item::Nested(bytes) => {
            let mut walker = Walker::new(bytes);
            match bytes.first() {
                Some(0x90..=0x9f | 0xdc | 0xdd) => match walker.array_len() {
                    Ok(1) => "an array of 1 element".to_string(),
                    Ok(n) => format!("an array of {n} elements"),
                    Err(_) => "an array".to_string(),
                },
                Some(0x80..=0x8f | 0xde | 0xdf) => match walker.map_len() {
                    Ok(1) => "a map of 1 entry".to_string(),
                    Ok(n) => format!("a map of {n} entries"),
                    Err(_) => "a map".to_string(),
                },
                _ => "a MessagePack extension value".to_string(),
            }
        }
    }
}

/// Bytes as hex, the first 32 of them.
fn hex(bytes: &[u8]) -> String {
    let mut out: String = bytes.iter().take(32).map(|b| format!("{b:02x}")).collect();
    if bytes.len() > 32 {
        out.push_str("...");
    }
    out
}

/// What the MessagePack reader said, without its internals (a marker's
/// name): what a message falls back on when the value it failed on does
/// not say more.
pub(crate) fn reader_words(error: &rmp_serde::decode::Error) -> String {
    match error {
        rmp_serde::decode::Error::TypeMismatch(_) => {
            "a value inside it is not of the type declared for it".to_string()
        }
        rmp_serde::decode::Error::OutOfRange => {
            "a number inside it is beyond the range of the type declared for it".to_string()
        }
        other => other.to_string(),
    }
}
