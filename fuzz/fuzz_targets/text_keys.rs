//! `decode` and `render` of text keys (`format = text(...)`): every text
//! form (numbers, `rev` digit complements, escaped strings, hex, floats,
//! options), on arbitrary bytes and on valid keys with one byte edited.
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use keyschema::RowKey;
use keyschema_fuzz::check_decode;
use libfuzzer_sys::fuzz_target;

/// The Karte layout: `<salt>_<user>_<rev ts>`.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(format = text(sep = "_"), salt = hash(user_id) % 16, then = user_id, rev(timestamp))]
struct Karte {
    user_id: String,
    timestamp: u64,
}

/// Every text form behind a prefix.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(format = text(sep = "#"), prefix = "ev", then = site, delta, flag, score, tag, blob, letter)]
struct Mixed {
    site: String,
    delta: i32,
    flag: bool,
    score: f64,
    tag: Option<String>,
    blob: Vec<u8>,
    letter: char,
}

/// Salted over a `rev` number; a fixed-width hex array; a reversed number.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(format = text(sep = "/"), salt = hash(*) % 1000, then = rev(score), id, reverse(seq))]
struct Ranked {
    score: i64,
    id: [u8; 4],
    seq: u32,
}

fn valid_key(u: &mut Unstructured<'_>) -> arbitrary::Result<Vec<u8>> {
    Ok(match u.int_in_range(0..=2u8)? {
        0 => Karte::get_key(&String::arbitrary(u)?, u64::arbitrary(u)?),
        1 => Mixed::get_key(
            &String::arbitrary(u)?,
            i32::arbitrary(u)?,
            bool::arbitrary(u)?,
            f64::arbitrary(u)?,
            Option::<String>::arbitrary(u)?.as_deref(),
            &Vec::<u8>::arbitrary(u)?,
            char::arbitrary(u)?,
        ),
        _ => Ranked::get_key(
            i64::arbitrary(u)?,
            &<[u8; 4]>::arbitrary(u)?,
            u32::arbitrary(u)?,
        ),
    })
}

fn check_all(data: &[u8]) {
    check_decode::<Karte>(data);
    check_decode::<Mixed>(data);
    check_decode::<Ranked>(data);
}

fuzz_target!(|data: &[u8]| {
    match data.split_first() {
        Some((&mode, rest)) if mode & 1 == 1 => {
            let mut u = Unstructured::new(rest);
            if let Ok(mut key) = valid_key(&mut u) {
                if let (false, Ok(at), Ok(b), Ok(op)) = (
                    key.is_empty(),
                    u.choose_index(key.len().max(1)),
                    u8::arbitrary(&mut u),
                    u.int_in_range(0..=3u8),
                ) {
                    match op {
                        0 => key[at] = b,
                        1 => key.insert(at, b),
                        2 => {
                            key.remove(at);
                        }
                        _ => {}
                    }
                }
                check_all(&key);
            }
        }
        _ => check_all(data),
    }
});
