//! An item's attributes as the field map the typed reads take (the
//! ordered stores' value: one MessagePack map from field name to value),
//! then the item's notes ([`ITEM_NOTES`]): what the map cannot say of an
//! attribute (an `N`'s text when the map holds it as a float, a set's
//! type), for the messages about a field that does not read
//! ([`crate::record::dynamo_words`]). Specified in `docs/ENCODING.md`,
//! "Value fields on DynamoDB".

use crate::record::dynamo_words::ITEM_NOTES;
use crate::record::misfit::push_key;
use aws_sdk_dynamodb::types::AttributeValue;
use std::collections::HashMap;

/// The field map of an item's attributes, leaving out those `skip` names
/// (the key attributes), in name order (so that two equal items give equal
/// bytes), then the item's notes ([`ITEM_NOTES`]): what the map cannot
/// say of an attribute, for the messages about a field that does not
/// read (the text of each `N` not written as an integer, the type of each
/// set). The notes entry, always there, is also the presence mark: the
/// item of a row whose value fields are all `None` has none of their
/// attributes, and is still a row.
pub(super) fn to_field_map(
    item: &HashMap<String, AttributeValue>,
    skip: impl Fn(&str) -> bool,
) -> Vec<u8> {
    let mut entries: Vec<(&str, &AttributeValue)> = item
        .iter()
        .filter(|(name, _)| !skip(name))
        .map(|(name, value)| (name.as_str(), value))
        .collect();
    entries.sort_unstable_by_key(|(name, _)| *name);
    field_map(&entries)
}

/// The field map of `entries` (attribute names and values, in the order
/// given), then their notes: [`to_field_map`]'s, for attributes already
/// apart from their item (a write's, read back as DynamoDB would give them).
///
/// The notes are a map from attribute name to the note on it and, when a
/// value nested in an attribute has one (an `N` in a list, a set in a map),
/// an entry under the empty name: a map from each such value's path
/// (`scores[3]`, `place.zip`, as the messages print it) to its note.
pub(super) fn field_map(entries: &[(&str, &AttributeValue)]) -> Vec<u8> {
    let mut out = Vec::new();
    write_map_len(&mut out, entries.len() + 1);
    let mut noted = 0;
    let mut nested = Vec::new();
    for (name, value) in entries {
        write_str(&mut out, name);
        match value {
            AttributeValue::N(n) => noted += usize::from(!write_number(&mut out, n)),
            value => {
                let mut at = Within {
                    name,
                    steps: Vec::new(),
                    notes: &mut nested,
                };
                write_attribute(&mut out, value, &mut at);
                noted += usize::from(set_type(value).is_some());
            }
        }
    }
    write_str(&mut out, ITEM_NOTES);
    write_map_len(&mut out, noted + usize::from(!nested.is_empty()));
    if noted > 0 {
        for (name, value) in entries {
            if let Some(note) = note_of(value) {
                write_str(&mut out, name);
                write_str(&mut out, note);
            }
        }
    }
    if !nested.is_empty() {
        write_str(&mut out, ITEM_NOTES);
        write_map_len(&mut out, nested.len());
        for (path, note) in nested {
            write_str(&mut out, &path);
            write_str(&mut out, note);
        }
    }
    out
}

/// One step into an attribute.
enum Step<'a> {
    Index(usize),
    Key(&'a str),
}

/// Where a nested value is, for its note.
struct Within<'a, 'n> {
    /// The attribute's name.
    name: &'a str,
    /// The steps into it.
    steps: Vec<Step<'a>>,
    /// The nested values' notes: path and note.
    notes: &'n mut Vec<(String, &'a str)>,
}

impl<'a> Within<'a, '_> {
    /// Notes `note` on the value here, when it is nested.
    fn note(&mut self, note: &'a str) {
        if self.steps.is_empty() {
            return;
        }
        let mut path = self.name.to_string();
        for step in &self.steps {
            match step {
                Step::Index(i) => path.push_str(&format!("[{i}]")),
                Step::Key(key) => push_key(&mut path, key),
            }
        }
        self.notes.push((path, note));
    }
}

/// The note on a top-level attribute, when the field map cannot say it:
/// an `N` not written as an integer, its text; a set, its type.
fn note_of(value: &AttributeValue) -> Option<&str> {
    match value {
        AttributeValue::N(n) if !is_integer(n) => Some(n),
        other => set_type(other),
    }
}

/// A set's type: `SS`, `NS` or `BS` (a sequence in the field map).
fn set_type(value: &AttributeValue) -> Option<&'static str> {
    match value {
        AttributeValue::Ss(_) => Some("SS"),
        AttributeValue::Ns(_) => Some("NS"),
        AttributeValue::Bs(_) => Some("BS"),
        _ => None,
    }
}

// The MessagePack writers below append to a Vec, which cannot fail.

fn write_map_len(out: &mut Vec<u8>, len: usize) {
    let _infallible = rmp::encode::write_map_len(out, u32::try_from(len).unwrap_or(u32::MAX));
}

fn write_str(out: &mut Vec<u8>, s: &str) {
    let _infallible = rmp::encode::write_str(out, s);
}

/// One attribute as MessagePack, noting at `at` what the map cannot say
/// of the values nested in it.
fn write_attribute<'a>(out: &mut Vec<u8>, value: &'a AttributeValue, at: &mut Within<'a, '_>) {
    if let Some(set) = set_type(value) {
        at.note(set);
    }
    match value {
        AttributeValue::S(s) => write_str(out, s),
        AttributeValue::N(n) => {
            if !write_number(out, n) {
                at.note(n);
            }
        }
        AttributeValue::B(b) => write_bin(out, b.as_ref()),
        AttributeValue::Bool(b) => {
            let _infallible = rmp::encode::write_bool(out, *b);
        }
        AttributeValue::L(list) => {
            write_array_len(out, list.len());
            for (i, v) in list.iter().enumerate() {
                at.steps.push(Step::Index(i));
                write_attribute(out, v, at);
                at.steps.pop();
            }
        }
        AttributeValue::M(map) => {
            let mut names: Vec<&String> = map.keys().collect();
            names.sort();
            write_map_len(out, names.len());
            for name in names {
                write_str(out, name);
                if let Some(v) = map.get(name) {
                    at.steps.push(Step::Key(name));
                    write_attribute(out, v, at);
                    at.steps.pop();
                }
            }
        }
        AttributeValue::Ss(set) => {
            write_array_len(out, set.len());
            for s in set {
                write_str(out, s);
            }
        }
        AttributeValue::Ns(set) => {
            write_array_len(out, set.len());
            for (i, n) in set.iter().enumerate() {
                if !write_number(out, n) {
                    at.steps.push(Step::Index(i));
                    at.note(n);
                    at.steps.pop();
                }
            }
        }
        AttributeValue::Bs(set) => {
            write_array_len(out, set.len());
            for b in set {
                write_bin(out, b.as_ref());
            }
        }
        // NULL, and any type a later DynamoDB adds.
        _ => {
            let _infallible = rmp::encode::write_nil(out);
        }
    }
}

fn write_array_len(out: &mut Vec<u8>, len: usize) {
    let _infallible = rmp::encode::write_array_len(out, u32::try_from(len).unwrap_or(u32::MAX));
}

fn write_bin(out: &mut Vec<u8>, b: &[u8]) {
    let _infallible = rmp::encode::write_bin(out, b);
}

/// A DynamoDB number: an integer when it is one and fits 64 bits, else a
/// float (a number that reads as neither is written as its text); whether
/// it was written as an integer.
fn write_number(out: &mut Vec<u8>, n: &str) -> bool {
    if let Ok(v) = n.parse::<u64>() {
        let _infallible = rmp::encode::write_uint(out, v);
    } else if let Ok(v) = n.parse::<i64>() {
        let _infallible = rmp::encode::write_sint(out, v);
    } else {
        if let Ok(v) = n.parse::<f64>() {
            let _infallible = rmp::encode::write_f64(out, v);
        } else {
            write_str(out, n);
        }
        return false;
    }
    true
}

/// Whether [`write_number`] writes `n` as an integer.
fn is_integer(n: &str) -> bool {
    n.parse::<u64>().is_ok() || n.parse::<i64>().is_ok()
}

#[cfg(test)]
mod tests {
    use super::super::item::to_attributes;
    use super::*;
    use aws_sdk_dynamodb::primitives::Blob;

    fn map(entries: &[(&str, AttributeValue)]) -> HashMap<String, AttributeValue> {
        entries
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect()
    }

    #[test]
    fn attributes_round_trip_through_the_field_map() {
        let item = map(&[
            ("amount", AttributeValue::N("500".into())),
            ("ratio", AttributeValue::N("0.25".into())),
            ("neg", AttributeValue::N("-7".into())),
            ("memo", AttributeValue::S("rent".into())),
            ("raw", AttributeValue::B(Blob::new(vec![0, 255]))),
            ("ok", AttributeValue::Bool(true)),
            ("none", AttributeValue::Null(true)),
            (
                "tags",
                AttributeValue::L(vec![AttributeValue::S("a".into())]),
            ),
            (
                "addr",
                AttributeValue::M(map(&[("city", AttributeValue::S("Oslo".into()))])),
            ),
            ("pk", AttributeValue::S("skipped".into())),
        ]);
        let bytes = to_field_map(&item, |n| n == "pk");
        let back: HashMap<String, AttributeValue> =
            to_attributes(&bytes).expect("a map").into_iter().collect();
        let mut want = item.clone();
        want.remove("pk");
        // A top-level NULL (another program's) reads as nil, which is
        // written back as no attribute.
        want.remove("none");
        assert_eq!(back, want);
    }

    /// The map ends with the item's notes: the text of each `N` the map
    /// holds as a float, the type of each set; a map without them has an
    /// empty notes entry.
    #[test]
    fn the_field_map_notes_what_it_cannot_say() {
        let item = map(&[
            ("big", AttributeValue::N("99999999999999999999".into())),
            ("ratio", AttributeValue::N("0.25".into())),
            ("n", AttributeValue::N("-5".into())),
            ("tags", AttributeValue::Ss(vec!["a".into()])),
            ("memo", AttributeValue::S("rent".into())),
        ]);
        let read: serde_json::Value =
            rmp_serde::from_slice(&to_field_map(&item, |_| false)).expect("a map");
        let notes =
            serde_json::json!({"big": "99999999999999999999", "ratio": "0.25", "tags": "SS"});
        let want = serde_json::json!({
            "big": 1e20, "memo": "rent", "n": -5, "ratio": 0.25, "tags": ["a"], "": notes,
        });
        assert_eq!(read, want);
        let plain = to_field_map(&map(&[("n", AttributeValue::N("7".into()))]), |_| false);
        assert_eq!(plain, b"\x82\xa1n\x07\xa0\x80");
    }

    /// Values nested in attributes are noted by their path, under the
    /// empty name inside the notes.
    #[test]
    fn nested_values_are_noted_by_their_path() {
        let n = |t: &str| AttributeValue::N(t.into());
        let place = map(&[
            ("zip", n("0.5")),
            ("a b", AttributeValue::Ns(vec!["1".into(), "1e40".into()])),
        ]);
        let item = map(&[
            (
                "scores",
                AttributeValue::L(vec![n("1"), n("99999999999999999999")]),
            ),
            ("place", AttributeValue::M(place)),
            ("count", n("7")),
        ]);
        let read: serde_json::Value =
            rmp_serde::from_slice(&to_field_map(&item, |_| false)).expect("a map");
        let nested = serde_json::json!({
            "place[\"a b\"]": "NS",
            "place[\"a b\"][1]": "1e40",
            "place.zip": "0.5",
            "scores[1]": "99999999999999999999",
        });
        assert_eq!(read[""], serde_json::json!({"": nested}));
    }
}
