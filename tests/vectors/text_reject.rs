//! What a text-key decoder must reject (`docs/ENCODING.md`, "Text keys",
//! table `reject_text`): one key of a text layout with a prefix, a salt and
//! a component of each kind, damaged one way per class of error, and two
//! ways where the order of the checks decides the error. Python's reader
//! gives the same message for each (`test_text_rejects.py`).

use super::rejected;
use keyschema::RowKey;

#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(
    format = text(sep = "#"),
    prefix = "t",
    salt = hash(id) % 16,
    then = id, flag, name, maybe, score, rev(n), bucket(day, 7), day, tag
)]
struct Texty {
    id: u32,
    flag: bool,
    name: String,
    maybe: Option<u8>,
    score: f64,
    n: u16,
    day: u32,
    tag: [u8; 2],
}

/// The damaged keys and their errors, as the document's rows.
pub fn reject_rows() -> Vec<String> {
    let good = Texty {
        id: 5,
        flag: true,
        name: "a#b".into(),
        maybe: Some(9),
        score: 1.5,
        n: 7,
        day: 20,
        tag: [0xab, 0x01],
    }
    .encode();
    let text = String::from_utf8(good.clone()).expect("a text key");
    let parts: Vec<&str> = text.split('#').collect();
    // t, salt, id, flag, name, maybe, score, rev(n), bucket, day, tag.
    let with = |at: usize, part: &str| {
        let mut p: Vec<&str> = parts.clone();
        p[at] = part;
        p.join("#").into_bytes()
    };
    let salt: u32 = parts[1].parse().expect("a salt");
    let other_salt = format!("{:02}", (salt + 1) % 16);
    let mut trailing = good.clone();
    trailing.extend_from_slice(b"#x");
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("empty", Vec::new()),
        ("another prefix", with(0, "u")),
        ("the prefix without its separator", b"t".to_vec()),
        ("a salt of one digit (N = 16 takes two)", with(1, "5")),
        ("salt 16 of 16", with(1, "16")),
        ("a salt that is not digits", with(1, "0x")),
        ("a u32 of 9 digits", with(2, "000000005")),
        ("a u32 beyond its range", with(2, "4294967296")),
        ("a u32 with a sign", with(2, "+000000005")),
        ("bool 2", with(3, "2")),
        (
            "an escape other than %25 and the separator's (%41)",
            with(4, "a%41"),
        ),
        ("an escape in lowercase hex (%2a)", with(4, "a%2ab")),
        ("a % not followed by two hex digits", with(4, "a%2")),
        ("Option neither - nor =", with(5, "+9")),
        ("an f64 in uppercase hex", with(6, &parts[6].to_uppercase())),
        ("an f64 of 15 hex digits", with(6, &parts[6][..15])),
        ("rev(u16) of 4 digits", with(7, "9999")),
        ("a bucket that is not day / 7", with(8, "0000000003")),
        ("[u8; 2] of 3 hex digits", with(10, "ab0")),
        ("not UTF-8", {
            let mut k = good.clone();
            let at = 2 + parts[1].len() + 1 + parts[2].len() + 1 + parts[3].len() + 1;
            k[at] = 0xff;
            k
        }),
        ("text after the last component", trailing),
        ("cut after `day`: the separator before `tag` missing", {
            let mut k = good.clone();
            k.truncate(k.len() - 5);
            k
        }),
        ("another salt", with(1, &other_salt)),
        (
            "another salt and bool 2: components are read before the salt is checked",
            {
                let mut p: Vec<&str> = parts.clone();
                p[1] = &other_salt;
                p[3] = "2";
                p.join("#").into_bytes()
            },
        ),
        ("another prefix and salt 16: the prefix is checked first", {
            let mut p: Vec<&str> = parts.clone();
            p[0] = "u";
            p[1] = "16";
            p.join("#").into_bytes()
        }),
    ];
    cases
        .into_iter()
        .map(|(what, bytes)| {
            let err = Texty::decode(&bytes).expect_err(what);
            rejected::<Texty>("reject_text", what, &bytes, &err)
        })
        .collect()
}

/// A bucket that does not match its field is reported at the bucket's own
/// first byte (where a reader looks for it), by the derived decoder and by
/// the schema document's: the offset counted from the key's parts.
#[test]
fn a_text_bucket_mismatch_points_at_the_bucket() {
    let good = Texty {
        id: 5,
        flag: true,
        name: "x".into(),
        maybe: None,
        score: 2.0,
        n: 1,
        day: 20,
        tag: [1, 2],
    }
    .encode();
    let text = String::from_utf8(good).expect("a text key");
    let mut parts: Vec<&str> = text.split('#').collect();
    // t, salt, id, flag, name, maybe, score, rev(n), bucket, day, tag.
    let at: usize = parts[..8].iter().map(|p| p.len() + 1).sum();
    parts[8] = "0000000001";
    let key = parts.join("#").into_bytes();
    let expected = format!(
        "component `day` at byte {at} is not a valid value: the bucket does not match the field it is derived from"
    );
    let typed = Texty::decode(&key).expect_err("a wrong bucket");
    assert_eq!(typed.to_string(), expected);
    let schema = keyschema::dynamic::DynSchema::from_json(&Texty::schema().to_json())
        .expect("schema reads back");
    let dynamic = schema.decode(&key).expect_err("a wrong bucket");
    assert_eq!(dynamic.to_string(), expected);
}
