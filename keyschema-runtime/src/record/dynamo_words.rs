//! A DynamoDB attribute that does not read as its value field's type, said
//! in DynamoDB's terms: the type the field needs (`N`, `S`, ...), the type
//! and value the item holds, a number as DynamoDB stores it.
//!
//! A DynamoDB read hands the generic reader ([`super::msgpack::MapReader`])
//! the item's attributes as a field map, which loses what DynamoDB said: a
//! number that is not an integer of 64 bits is a float there (20 digits
//! read as `1e20`), and a set a sequence. So the DynamoDB store ends the
//! map with one more entry, under the empty name [`ITEM_NOTES`] (no
//! attribute and no field has it), whose value is a map from attribute
//! name to what the map cannot say: an `N`'s text when it is not written as
//! an integer, `SS`, `NS` or `BS` for a set (never a number's text). Every
//! reader of a field map steps over the entry; nothing else is stored, and
//! only DynamoDB's maps have it (memory, redb and Bigtable keep theirs).
//! When a field does not read, the reader looks for the entry after it,
//! and words the error from what the field's type asks for
//! ([`super::probe::asks`]) and the attribute as DynamoDB holds it: a good
//! row pays for none of this.

use super::probe::Asks;
use super::track::{beyond_f32, not_an_f32};
use super::walk::{shown, Item, Walker};

/// The name of a DynamoDB field map's notes entry: the empty name, which
/// no attribute and no field has.
pub(crate) const ITEM_NOTES: &str = "";

/// The value of the notes entry among the `left` entries from `walker`,
/// when the map has one (it is a DynamoDB item's).
pub(crate) fn find_notes<'v>(mut walker: Walker<'v>, left: usize) -> Option<&'v [u8]> {
    for _ in 0..left {
        let name = walker.item().ok()?;
        let (_, value) = walker.item_and_bytes().ok()?;
        if name == Item::Str(ITEM_NOTES.as_bytes()) {
            return Some(value);
        }
    }
    None
}

/// The note on the attribute `name` in `notes` (the notes entry's value).
pub(crate) fn note<'v>(notes: &'v [u8], name: &str) -> Option<&'v str> {
    let mut walker = Walker::new(notes);
    for _ in 0..walker.map_len().ok()? {
        let key = walker.item().ok()?;
        let value = walker.item().ok()?;
        if key == Item::Str(name.as_bytes()) {
            return match value {
                Item::Str(text) => std::str::from_utf8(text).ok(),
                _ => None,
            };
        }
    }
    None
}

/// The note on the value at `path` (a field's name and the path inside
/// it, `scores[3]`) in `notes`: the entry under the empty name is a map
/// from such paths to the notes of values nested in attributes.
pub(crate) fn nested_note<'v>(notes: &'v [u8], path: &str) -> Option<&'v str> {
    let mut walker = Walker::new(notes);
    for _ in 0..walker.map_len().ok()? {
        let key = walker.item().ok()?;
        let (_, value) = walker.item_and_bytes().ok()?;
        if key == Item::Str(ITEM_NOTES.as_bytes()) {
            return note(value, path);
        }
    }
    None
}

/// Why the attribute value `item` (the field map's value of it, with its
/// `note`) does not read as what `asked` asks for (whose reader said
/// `inner`), in DynamoDB's terms.
pub(crate) fn misfit(asked: Asks, item: Item<'_>, note: Option<&str>, inner: &str) -> String {
    let found = Found::of(item, note);
    if let Some((needed, kinds)) = needs(asked) {
        if !kinds.contains(&found.kind) {
            return format!("expected {needed}, found {}", found.words());
        }
    }
    if let (Kind::N, Some(text)) = (found.kind, found.text.as_deref()) {
        if let Some(why) = number_misfit(asked, text) {
            return why;
        }
    }
    format!("found {}: {inner}", found.words())
}

/// Why the number `text` does not fit the integer type `asked` asks for,
/// when that is why.
fn number_misfit(asked: Asks, text: &str) -> Option<String> {
    if asked == Asks::F32 {
        return match text.parse::<f64>() {
            Ok(v) if beyond_f32(v) => Some(not_an_f32(&format!("(N) {text}"))),
            _ => None,
        };
    }
    let (name, range) = match asked {
        Asks::Int { name, min, max } => (name, Some((min, max))),
        Asks::Wide { signed: true } => ("i128", None),
        Asks::Wide { signed: false } => ("u128", None),
        _ => return None,
    };
    // The whole number `text` is (`None` within it: beyond i128), or no
    // whole number.
    let whole = match whole_part(text) {
        Some(int) => Some(int.parse::<i128>().ok()),
        // Not DynamoDB's plain form: an exponent (`1e40`).
        None => match text.parse::<f64>() {
            Ok(v) if v.fract() == 0.0 => Some((v.abs() < 1e38).then_some(v as i128)),
            _ => None,
        },
    };
    let Some(whole) = whole else {
        return Some(format!(
            "the number (N) {text} has a fraction, and {name} holds whole numbers only"
        ));
    };
    match range {
        Some((min, max)) if !whole.is_some_and(|v| (min..=max).contains(&v)) => Some(format!(
            "the number (N) {text} is beyond {name}'s range ({min} to {max})"
        )),
        Some(_) => None,
        // A 128-bit field reads an N of 64 bits by its sign.
        None => match whole {
            Some(v) if (i128::from(i64::MIN)..=i128::from(u64::MAX)).contains(&v) => {
                (name == "u128" && v < 0).then(|| {
                    format!("the number (N) {text} is beyond u128's range (0 to {})", u128::MAX)
                })
            }
            _ => Some(format!(
                "the number (N) {text} is beyond 64 bits, the integers an N is read into (keyschema writes a 128-bit integer as 16 bytes, B)"
            )),
        },
    }
}

/// The integer part of the decimal `text` when it has no fraction
/// (`12`, `-3`, `12.00`), as DynamoDB gives numbers back (plain).
fn whole_part(text: &str) -> Option<&str> {
    let (int, fraction) = text.split_once('.').unwrap_or((text, ""));
    let digits = int.strip_prefix('-').unwrap_or(int);
    let whole = !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && fraction.bytes().all(|b| b == b'0');
    whole.then_some(int)
}

/// What a type asking for `asked` needs, and the kinds of attribute that
/// are it; `None` for a type that reads any kind.
fn needs(asked: Asks) -> Option<(&'static str, &'static [Kind])> {
    Some(match asked {
        Asks::Bool => ("a boolean (BOOL)", &[Kind::Bool]),
        Asks::Int { .. } | Asks::Float | Asks::F32 => ("a number (N)", &[Kind::N]),
        Asks::Wide { .. } => ("a number (N) or a 16-byte binary (B)", &[Kind::N, Kind::B]),
        Asks::Char => ("a string (S) of one character", &[Kind::S]),
        Asks::Str => ("a string (S)", &[Kind::S]),
        Asks::Bytes => ("a binary (B)", &[Kind::B]),
        Asks::Unit => ("no attribute, or a null (NULL)", &[Kind::Null]),
        Asks::Seq => ("a list (L)", &[Kind::L, Kind::Ss, Kind::Ns, Kind::Bs]),
        Asks::Map => ("a map (M)", &[Kind::M]),
        Asks::Enum => ("a string (S) or a map (M)", &[Kind::S, Kind::M]),
        Asks::Any | Asks::Other => return None,
    })
}

/// A DynamoDB attribute type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    S,
    N,
    B,
    Bool,
    Null,
    L,
    Ss,
    Ns,
    Bs,
    M,
    /// A MessagePack ext, which no DynamoDB type reads as.
    Other,
}

impl Kind {
    fn words(self) -> &'static str {
        match self {
            Kind::S => "a string (S)",
            Kind::N => "a number (N)",
            Kind::B => "a binary (B)",
            Kind::Bool => "a boolean (BOOL)",
            Kind::Null => "a null (NULL)",
            Kind::L => "a list (L)",
            Kind::Ss => "a string set (SS)",
            Kind::Ns => "a number set (NS)",
            Kind::Bs => "a binary set (BS)",
            Kind::M => "a map (M)",
            Kind::Other => "a value DynamoDB has no type for",
        }
    }

    /// The type of the attribute whose field map value begins with the
    /// MessagePack marker `marker`.
    fn of_marker(marker: u8) -> Kind {
        match marker {
            0x00..=0x7f | 0xe0..=0xff | 0xca..=0xd3 => Kind::N,
            0xa0..=0xbf | 0xd9..=0xdb => Kind::S,
            0xc4..=0xc6 => Kind::B,
            0xc2 | 0xc3 => Kind::Bool,
            0xc0 => Kind::Null,
            0x90..=0x9f | 0xdc | 0xdd => Kind::L,
            0x80..=0x8f | 0xde | 0xdf => Kind::M,
            _ => Kind::Other,
        }
    }
}

/// An attribute as the item holds it: its type and, for a scalar, its
/// value as text.
struct Found {
    kind: Kind,
    text: Option<String>,
}

impl Found {
    fn of(item: Item<'_>, note: Option<&str>) -> Found {
        let set = match note {
            Some("SS") => Some(Kind::Ss),
            Some("NS") => Some(Kind::Ns),
            Some("BS") => Some(Kind::Bs),
            _ => None,
        };
        let (kind, text) = match item {
            Item::Nested(bytes) => match (set, bytes.first()) {
                (Some(set), _) => (set, None),
                (None, Some(&marker)) => (Kind::of_marker(marker), None),
                (None, None) => (Kind::Other, None),
            },
            // An N the map holds as a float, or as its text.
            Item::Float(_) | Item::Str(_) if note.is_some() => (Kind::N, note.map(str::to_string)),
            Item::Float(v) => (Kind::N, Some(v.to_string())),
            Item::Uint(n) => (Kind::N, Some(n.to_string())),
            Item::Int(n) => (Kind::N, Some(n.to_string())),
            Item::Str(bytes) => (Kind::S, Some(shown(bytes))),
            Item::Bin(bytes) => (Kind::B, Some(format!("of {} bytes", bytes.len()))),
            Item::Bool(b) => (Kind::Bool, Some(b.to_string())),
            Item::Nil => (Kind::Null, None),
        };
        Found { kind, text }
    }

    fn words(&self) -> String {
        match &self.text {
            Some(text) => format!("{} {text}", self.kind.words()),
            None => self.kind.words().to_string(),
        }
    }
}

/// What the reader said of a value inside the attribute, with a
/// MessagePack marker named by its DynamoDB type.
pub(crate) fn inner_words(error: &rmp_serde::decode::Error) -> String {
    match error {
        rmp_serde::decode::Error::TypeMismatch(marker) => format!(
            "a value inside it is {}, which is not the type declared for it",
            Kind::of_marker(marker.to_u8()).words()
        ),
        rmp_serde::decode::Error::OutOfRange => {
            "a number inside it is beyond the range of the type declared for it".to_string()
        }
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::super::probe::asks;
    use super::*;
    use serde::de::{DeserializeOwned, Error as _};

    /// The message for `T` read from the MessagePack `bytes` with `note`.
    fn said<T: DeserializeOwned>(bytes: &[u8], note: Option<&str>) -> String {
        let error = rmp_serde::from_slice::<T>(bytes)
            .err()
            .unwrap_or_else(|| rmp_serde::decode::Error::custom("read"));
        let item = Walker::new(bytes).item().expect("an item");
        misfit(asks::<T>(), item, note, &inner_words(&error))
    }

    #[test]
    fn the_attribute_is_said_by_its_dynamodb_type() {
        assert_eq!(
            said::<u8>(&[0xcd, 0x01, 0x2c], None),
            "the number (N) 300 is beyond u8's range (0 to 255)"
        );
        assert_eq!(
            said::<u32>(&[0xff], None),
            "the number (N) -1 is beyond u32's range (0 to 4294967295)"
        );
        assert_eq!(
            said::<Option<i64>>(&[0xc4, 0x02, 0, 1], None),
            "expected a number (N), found a binary (B) of 2 bytes"
        );
        assert_eq!(
            said::<String>(&[0xc0], None),
            "expected a string (S), found a null (NULL)"
        );
        assert_eq!(
            said::<String>(&[0x92, 0xa1, b'a', 0xa1, b'b'], Some("SS")),
            "expected a string (S), found a string set (SS)"
        );
        assert_eq!(
            said::<Vec<u32>>(&[0x92, 0x01, 0xa1, b'b'], None),
            "found a list (L): a value inside it is a string (S), which is not the type declared for it"
        );
        assert_eq!(
            said::<u64>(&rmp_serde::to_vec(&1e40).expect("f64"), Some("1e40")),
            "the number (N) 1e40 is beyond u64's range (0 to 18446744073709551615)"
        );
        assert_eq!(
            said::<u64>(&rmp_serde::to_vec(&0.5).expect("f64"), Some("0.50")),
            "the number (N) 0.50 has a fraction, and u64 holds whole numbers only"
        );
        // A negative number is no u128, said as the other ranges are.
        assert_eq!(
            said::<u128>(&[0xff], None),
            "the number (N) -1 is beyond u128's range (0 to 340282366920938463463374607431768211455)"
        );
        assert_eq!(
            said::<u128>(&rmp_serde::to_vec(&0.5).expect("f64"), Some("0.5")),
            "the number (N) 0.5 has a fraction, and u128 holds whole numbers only"
        );
        assert_eq!(
            said::<bool>(&[0x81, 0xa1, b'a', 0x01], None),
            "expected a boolean (BOOL), found a map (M)"
        );
        let long = rmp_serde::to_vec(&"x".repeat(100)).expect("str");
        assert_eq!(
            said::<u8>(&long, None),
            format!(
                "expected a number (N), found a string (S) {:?}... (100 characters)",
                "x".repeat(60)
            )
        );
    }

    #[test]
    fn whole_numbers_are_told_from_fractions() {
        assert_eq!(whole_part("12"), Some("12"));
        assert_eq!(whole_part("-12.00"), Some("-12"));
        assert_eq!(whole_part("1.5"), None);
        assert_eq!(whole_part("-"), None);
        assert_eq!(whole_part("1e5"), None);
    }
}
