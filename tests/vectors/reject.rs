//! More of what a decoder must reject (`docs/ENCODING.md`, "What a decoder
//! must reject"): one key of a layout with a prefix, a salt, a `bool`, a
//! `char`, an `Option` and a `bucket(...)` field, damaged one way per class
//! of error, and damaged two ways where the order of the checks decides
//! which error is reported. Python's reader gives the same message for each
//! (`test_rejected_inputs`).

use super::{rejected, rejected_long};
use keyschema::RowKey;

#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(prefix = "r", salt = hash(id) % 4, then = id, flag, letter, maybe, bucket(day, 7), day)]
struct Mixed {
    id: u32,
    flag: bool,
    letter: char,
    maybe: Option<u8>,
    day: u32,
}

/// The damaged keys and their errors, as the document's rows.
pub fn reject_rows() -> Vec<String> {
    let good = Mixed {
        id: 5,
        flag: true,
        letter: 'k',
        maybe: Some(9),
        day: 20,
    }
    .encode();
    // prefix `72 00` (0..2), salt (2), id (3..7), flag (7), letter (8..12),
    // maybe's tag (12) and value (13), bucket (14..18), day (18..22).
    let with = |at: usize, bytes: &[u8]| {
        let mut key = good.clone();
        key[at..at + bytes.len()].copy_from_slice(bytes);
        key
    };
    let other_salt = (good[2] + 1) % 4;
    let mut trailing_and_salt = with(2, &[other_salt]);
    trailing_and_salt.push(0);
    let cases: Vec<(&str, Vec<u8>)> =
        vec![
        ("another prefix", with(0, b"s")),
        ("bool byte 02", with(7, &[2])),
        ("char a surrogate (U+D800)", with(8, &[0, 0, 0xd8, 0])),
        ("char above U+10FFFF", with(8, &[0, 0x11, 0, 0])),
        ("Option tag 02", with(12, &[2])),
        ("bucket 1 for day 20 (bucket 2)", with(14, &[0, 0, 0, 1])),
        ("cut inside the prefix", good[..1].to_vec()),
        ("cut before the salt", good[..2].to_vec()),
        ("a trailing byte and another salt: trailing bytes are checked first", trailing_and_salt),
        ("salt 4 of 4 and cut inside id: the salt's range is checked first", {
            let mut key = with(2, &[4]);
            key.truncate(5);
            key
        }),
        ("another prefix and salt 9: the prefix is checked first", with(0, b"s\x00\x09")),
        ("a wrong bucket and day cut short: every component is read before a bucket is checked", {
            let mut key = with(14, &[0, 0, 0, 1]);
            key.truncate(20);
            key
        }),
        ("bool byte 02 and a wrong bucket: components in key order", {
            let mut key = with(7, &[2]);
            key[14..18].copy_from_slice(&[0, 0, 0, 1]);
            key
        }),
    ];
    let mut rows: Vec<String> = cases
        .into_iter()
        .map(|(what, bytes)| {
            let err = Mixed::decode(&bytes).expect_err(what);
            rejected::<Mixed>("reject_classes", what, &bytes, &err)
        })
        .collect();
    // The length is checked before anything is read: a key of the right
    // start one byte over the limit, and one of another prefix.
    let max = keyschema::MAX_KEY_LEN;
    for (what, head) in [
        ("65,537 bytes: the length is checked first", good.clone()),
        (
            "65,537 bytes of another prefix: the length is checked before the prefix",
            b"s".to_vec(),
        ),
    ] {
        let mut key = head.clone();
        key.resize(max + 1, 0);
        let err = Mixed::decode(&key).expect_err(what);
        rows.push(rejected_long::<Mixed>(
            "reject_classes",
            what,
            &head,
            0,
            max + 1,
            &err,
        ));
    }
    // And exactly the limit is read (here: refused for its trailing bytes).
    let mut key = good.clone();
    key.resize(max, 0);
    let err = Mixed::decode(&key).expect_err("trailing bytes");
    rows.push(rejected_long::<Mixed>(
        "reject_classes",
        "65,536 bytes: at the limit, read (and refused for the bytes after the last component)",
        &good,
        0,
        max,
        &err,
    ));
    rows
}
