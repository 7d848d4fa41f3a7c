//! Text keys of the constructs the `text` table lacks (`docs/ENCODING.md`,
//! "Text keys", table `text_constructs`): `reverse(...)`, `bucket(...)`
//! under `rev` (which makes the bucket descending too), a random salt, a
//! `char` and a `[u8; N]`.
//! Python encodes, decodes and renders each alike (`test_whole_keys`).

use super::recorded;
use keyschema::RowKey;

#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(format = text(sep = "#"), then = reverse(order), letter, tag)]
struct TextReversed {
    order: u64,
    letter: char,
    tag: [u8; 4],
}

#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(format = text(sep = "_"), prefix = "h", then = hotel, bucket(day, 7), rev(day))]
struct TextBucketed {
    hotel: u32,
    day: i32,
}

#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(format = text(sep = "#"), salt = random % 12, then = user, seq)]
struct TextRandom {
    user: String,
    seq: u16,
}

/// The `text_constructs` table: each key as the document shows it.
pub fn text_rows() -> Vec<String> {
    let mut rows = Vec::new();
    let mut row = |key: Vec<u8>, decl: String| {
        let text = String::from_utf8(key).expect("a text key");
        rows.push(format!(
            "| `{}` | `{}` |",
            decl.replace('|', "\\|"),
            text.replace('|', "\\|")
        ));
    };
    for (order, letter) in [(1_234u64, 'é'), (u64::MAX, '#')] {
        let key = TextReversed::get_key(order, letter, &[0xde, 0xad, 0xbe, 0xef]);
        row(
            recorded::<TextReversed>("text_constructs", key),
            TextReversed::schema().to_string(),
        );
    }
    for day in [20, -1, 0] {
        let key = TextBucketed::get_key(7, day);
        row(
            recorded::<TextBucketed>("text_constructs", key),
            TextBucketed::schema().to_string(),
        );
    }
    let keys = TextRandom::get_keys("u1", 3);
    for bucket in [0, 11] {
        let key = keys[bucket].clone();
        row(
            recorded::<TextRandom>("text_constructs", key),
            TextRandom::schema().to_string(),
        );
    }
    rows
}
