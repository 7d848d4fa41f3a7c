//! A stored value that does not read as its field's type is an error in
//! the user's terms, never a bent number (issue 40): a finite number beyond
//! an `f32`'s range is refused (not read as `inf`), a mismatch says what
//! the field expects and what is stored, with its value (`expected an
//! integer, found the string "7"`, not `wrong msgpack marker FixStr(1)`),
//! and a value nested in a list, map or struct is shown as stored, with
//! its path (`scores[3]`). On memory, redb, Bigtable (cells `cbt` wrote)
//! and DynamoDB (items the SDK's low-level client wrote).
//!
//! The ground truth is the MessagePack specification (the values below are
//! written byte by byte), what the servers hold, and the expectation table.
#![cfg(all(feature = "bigtable", feature = "dynamodb"))]

mod common;

use common::{cbt, dynalite, emulator};
use keyschema::store::bigtable::BigtableStore;
use keyschema::store::dynamodb::sdk::types::AttributeValue;
use keyschema::store::{
    AsyncRecordStore, MemoryStore, RecordStore, RedbStore, RowError, RowStore, Store,
};
use keyschema::{RowKey, ValueError};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
struct Place {
    zip: i64,
}

/// A field of each kind, each with a default: a row of one field reads.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(format = text, then = (id), n, family = "f")]
struct Probe {
    id: String,
    n: u32,
    #[rowkey(value, default)]
    cold: f32,
    #[rowkey(value, default)]
    colds: Vec<f32>,
    #[rowkey(value, default)]
    count: i64,
    #[rowkey(value, default)]
    small: u8,
    #[rowkey(value, default)]
    name: String,
    #[rowkey(value, default)]
    flag: bool,
    #[rowkey(value, default)]
    scores: Vec<i64>,
    #[rowkey(value, default)]
    place: Place,
    #[rowkey(value, default)]
    tally: BTreeMap<String, i64>,
    #[rowkey(value, default)]
    big: u128,
    #[rowkey(value, default)]
    wide: i128,
}

const I64_RANGE: &str = "(-9223372036854775808 to 9223372036854775807)";
const U128_RANGE: &str = "(0 to 340282366920938463463374607431768211455)";
const NOT_F32: &str =
    "does not fit an f32 (whose largest magnitude is 3.4028235e38): declare the field f64";

/// MessagePack's float 64 of `v`.
fn f64_item(v: f64) -> Vec<u8> {
    let mut out = vec![0xcb];
    out.extend(v.to_be_bytes());
    out
}

/// A MessagePack map of one entry: `field` (a fixstr) to `item`.
fn row_of(field: &str, item: &[u8]) -> Vec<u8> {
    let len = u8::try_from(field.len()).expect("a short name");
    let mut out = vec![0x81, 0xa0 | len];
    out.extend(field.as_bytes());
    out.extend(item);
    out
}

/// Values other programs stored in the ordered stores' map, and what
/// reading each says: `Ok` the field as read, `Err` the message.
fn ordered_cases() -> Vec<(&'static str, Vec<u8>, Result<Probe, String>)> {
    let u64_max = [&[0xcf][..], &[0xff; 8]].concat();
    let mut colds = vec![0x92, 0xca];
    colds.extend(1.5f32.to_be_bytes());
    colds.extend(f64_item(1e39));
    let expected = |found: &str, what: &str| Err(format!("expected {what}, found {found}"));
    let integer = |found: &str| expected(found, "an integer");
    vec![
        // An f32 field: a finite number beyond its range is refused, one
        // within it is rounded to it (an f32 the store widened to f64).
        ("cold", f64_item(1e39), Err(format!("the number 1e39 {NOT_F32}"))),
        ("cold", f64_item(-3.5e38), Err(format!("the number -3.5e38 {NOT_F32}"))),
        ("cold", f64_item(0.1), Ok(Probe { cold: 0.1, ..probe() })),
        ("cold", f64_item(f64::from(f32::MAX)), Ok(Probe { cold: f32::MAX, ..probe() })),
        ("colds", colds, Err(format!("at `colds[1]`: the number 1e39 {NOT_F32}"))),
        // Every kind of value where an integer is expected.
        ("count", vec![0xa1, b'7'], integer("the string \"7\"")),
        ("count", vec![0xc4, 2, 1, 2], integer("2 bytes (0102)")),
        ("count", vec![0x92, 1, 2], integer("an array of 2 elements")),
        ("count", vec![0x81, 0xa1, b'a', 1], integer("a map of 1 entry")),
        ("count", vec![0xc3], integer("the boolean true")),
        ("count", vec![0xc0], integer("nil (None)")),
        ("count", f64_item(1.5), integer("the number 1.5")),
        ("count", u64_max.clone(), Err(format!("the integer 18446744073709551615 is beyond i64's range {I64_RANGE}"))),
        ("small", vec![0xcd, 0x01, 0x2c], Err("the integer 300 is beyond u8's range (0 to 255)".into())),
        // 128-bit fields: an integer by its sign (a negative one is no
        // u128, never 2^128 - 1), their own 16-byte bin as written.
        ("big", vec![0xff], Err(format!("the integer -1 is beyond u128's range {U128_RANGE}"))),
        ("big", vec![0xd0, 0x80], Err(format!("the integer -128 is beyond u128's range {U128_RANGE}"))),
        ("big", vec![0x05], Ok(Probe { big: 5, ..probe() })),
        ("big", [&[0xc4, 16][..], &[0xff; 16]].concat(), Ok(Probe { big: u128::MAX, ..probe() })),
        ("wide", vec![0xff], Ok(Probe { wide: -1, ..probe() })),
        ("wide", [&[0xc4, 16][..], &i128::MIN.to_be_bytes()].concat(), Ok(Probe { wide: i128::MIN, ..probe() })),
        // Other kinds expected.
        ("name", vec![0x07], expected("the integer 7", "a string")),
        ("name", vec![0xc4, 3, b'a', b'b', b'c'], expected("3 bytes (616263)", "a string")),
        ("flag", vec![0xa4, b't', b'r', b'u', b'e'], expected("the string \"true\"", "a boolean")),
        ("scores", vec![0xa1, b'x'], expected("the string \"x\"", "an array")),
        ("scores", vec![0xc4, 2, 1, 2], expected("2 bytes (0102)", "an array")),
        ("place", vec![0x07], expected("the integer 7", "a map")),
        // Nested values, at their path.
        ("scores", vec![0x94, 1, 2, 3, 0xa1, b'7'], Err("at `scores[3]`: expected an integer, found the string \"7\"".into())),
        ("scores", [&[0x92, 1][..], &u64_max].concat(), Err(format!("at `scores[1]`: the integer 18446744073709551615 is beyond i64's range {I64_RANGE}"))),
        ("place", vec![0x81, 0xa3, b'z', b'i', b'p', 0xa1, b'x'], Err("at `place.zip`: expected an integer, found the string \"x\"".into())),
        ("tally", vec![0x82, 0xa1, b'a', 1, 0xa3, b'a', b' ', b'b', 0xc3], Err("at `tally[\"a b\"]`: expected an integer, found the boolean true".into())),
    ]
}

fn probe() -> Probe {
    Probe {
        id: "a".into(),
        n: 0,
        cold: 0.0,
        colds: Vec::new(),
        count: 0,
        small: 0,
        name: String::new(),
        flag: false,
        scores: Vec::new(),
        place: Place::default(),
        tally: BTreeMap::new(),
        big: 0,
        wide: 0,
    }
}

/// Why `got` is not `want` for the row at `key` (the row, or the field's
/// error naming the field, and the key as every row error prints it).
fn mismatch<E: std::fmt::Debug + std::fmt::Display>(
    got: Result<Option<Probe>, RowError<E>>,
    key: &[u8],
    field: &str,
    want: &Result<Probe, String>,
) -> Option<String> {
    let shown = match &got {
        Err(error) => error.to_string(),
        Ok(_) => String::new(),
    };
    match (got, want) {
        (Ok(Some(row)), Ok(want)) => {
            let want = Probe {
                n: row.n,
                ..want.clone()
            };
            (row != want).then(|| format!("{field}: read {row:?}, expected {want:?}"))
        }
        (
            Err(RowError::Value {
                key: at,
                source:
                    ValueError::Field {
                        field: f,
                        message: m,
                    },
                ..
            }),
            Err(message),
        ) => {
            let said =
                format!("value field `{field}` does not read as its declared type: {message}");
            let right = at == key && f == field && &m == message;
            let printed = shown.starts_with("row ") && shown.ends_with(&said);
            (!(right && printed)).then(|| format!("{field}: said {shown:?}, expected {said:?}"))
        }
        (got, want) => Some(format!("{field}: expected {want:?}, got {got:?}")),
    }
}

/// Fails with every mismatch.
fn assert_none(mismatches: Vec<String>) {
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

fn on_an_ordered_store<S: Store>(store: &S) {
    let mut mismatches = Vec::new();
    for (n, (field, item, want)) in (0..).zip(ordered_cases()) {
        let row = Probe { n, ..probe() };
        store
            .put_row(&row, &row_of(field, &item))
            .expect("a raw put");
        let key = row.encode();
        let got = store.get_record::<Probe>(&key);
        mismatches.extend(mismatch(got, &key, field, &want));
    }
    assert_none(mismatches);
}

#[test]
fn misfits_are_said_as_stored_on_memory() {
    on_an_ordered_store(&MemoryStore::new());
}

#[test]
fn misfits_are_said_as_stored_on_redb() {
    let dir = tempfile::tempdir().expect("tempdir");
    on_an_ordered_store(&RedbStore::open(dir.path()).expect("redb"));
}

/// `bytes` in bash's `$'...'` quoting, every byte escaped (bash ends the
/// string at a zero byte: the cases hold none).
fn quoted(bytes: &[u8]) -> String {
    assert!(!bytes.contains(&0), "bash cannot pass {bytes:x?}");
    let escaped: String = bytes.iter().map(|b| format!("\\x{b:02x}")).collect();
    format!("$'{escaped}'")
}

#[tokio::test]
async fn misfits_are_said_as_stored_on_bigtable() {
    let table = emulator::fresh_table("misfits");
    let store =
        BigtableStore::connect_emulator(&emulator::host(), cbt::PROJECT, cbt::INSTANCE, &table)
            .await
            .expect("connect to the emulator");
    store.create_table_for::<Probe>().await.expect("create");
    let mut colds = vec![0x92, 0xca];
    colds.extend(1.1f32.to_be_bytes());
    colds.extend(f64_item(1e39));
    // Cells as `cbt set` writes them: a float's 8 bytes, nested values'
    // MessagePack.
    let cases: Vec<(&str, Vec<u8>, Result<Probe, String>)> = vec![
        (
            "cold",
            1e39f64.to_be_bytes().to_vec(),
            Err(format!("the number 1e39 {NOT_F32}")),
        ),
        (
            "cold",
            0.1f64.to_be_bytes().to_vec(),
            Ok(Probe {
                cold: 0.1,
                ..probe()
            }),
        ),
        (
            "colds",
            colds,
            Err(format!("at `colds[1]`: the number 1e39 {NOT_F32}")),
        ),
        (
            "scores",
            vec![0x92, 1, 0xa1, b'7'],
            Err("at `scores[1]`: expected an integer, found the string \"7\"".into()),
        ),
        (
            "place",
            vec![0x81, 0xa3, b'z', b'i', b'p', 0xc3],
            Err("at `place.zip`: expected an integer, found the boolean true".into()),
        ),
    ];
    let mut mismatches = Vec::new();
    for (n, (field, cell, want)) in (0..).zip(cases) {
        let key = Probe { n, ..probe() }.encode();
        let column = [format!("f:{field}=").as_bytes(), &cell].concat();
        let command = format!(
            "cbt -project {} -instance {} set {table} {} {}",
            cbt::PROJECT,
            cbt::INSTANCE,
            quoted(&key),
            quoted(&column)
        );
        cbt::shell(&emulator::host(), &command);
        let got = store.get_record::<Probe>(&key).await;
        mismatches.extend(mismatch(got, &key, field, &want));
    }
    assert_none(mismatches);
}

fn n(text: &str) -> AttributeValue {
    AttributeValue::N(text.into())
}

#[tokio::test]
async fn misfits_are_said_as_dynamodb_holds_them() {
    let store = dynalite::store::<Probe>("misfits").await;
    let put = |n: u32, field: &'static str, value: AttributeValue| {
        let store = store.clone();
        async move {
            let key = Probe { n, ..probe() }.encode();
            let (pk, sk) = Probe::schema().split_key(&key).expect("a key");
            let text = |part: &[u8]| {
                AttributeValue::S(String::from_utf8(part.to_vec()).expect("a text key"))
            };
            store
                .client()
                .put_item()
                .table_name(store.table())
                .item("pk", text(pk))
                .item("sk", text(sk))
                .item(field, value)
                .send()
                .await
                .expect("PutItem");
            // The text the server holds, as the SDK reads it back.
            let item = store
                .client()
                .get_item()
                .table_name(store.table())
                .key("pk", text(pk))
                .key("sk", text(sk))
                .send()
                .await
                .expect("GetItem")
                .item
                .expect("the item");
            (key, item.get(field).cloned().expect("the attribute"))
        }
    };
    /// The text of the number at `path` (indexes and map keys) in `value`.
    fn text_at(value: &AttributeValue, path: &[&str]) -> String {
        match (value, path.split_first()) {
            (AttributeValue::N(text), None) => text.clone(),
            (AttributeValue::L(list), Some((i, rest))) => {
                text_at(&list[i.parse::<usize>().expect("an index")], rest)
            }
            (AttributeValue::M(map), Some((k, rest))) => text_at(&map[*k], rest),
            other => panic!("no number at {path:?}: {other:?}"),
        }
    }
    let list = |texts: &[&str]| AttributeValue::L(texts.iter().map(|t| n(t)).collect());
    let map = |entries: &[(&str, &str)]| {
        AttributeValue::M(
            entries
                .iter()
                .map(|(k, t)| (k.to_string(), n(t)))
                .collect::<HashMap<_, _>>(),
        )
    };
    let big = "99999999999999999999";
    // (field, attribute, path of the number in it, message with `{}` for
    // the number as the server holds it; `None`: reads, as `Probe`).
    type Case = (
        &'static str,
        AttributeValue,
        Vec<&'static str>,
        Result<Probe, String>,
    );
    let cases: Vec<Case> = vec![
        ("cold", n("1e39"), vec![], Err(format!("the number (N) {{}} {NOT_F32}"))),
        ("cold", n("-1E+39"), vec![], Err(format!("the number (N) {{}} {NOT_F32}"))),
        ("cold", n("0.1"), vec![], Ok(Probe { cold: 0.1, ..probe() })),
        ("colds", list(&["1.5", "1e39"]), vec!["1"], Err(format!("at `colds[1]`: the number (N) {{}} {NOT_F32}"))),
        ("count", n(big), vec![], Err(format!("the number (N) {{}} is beyond i64's range {I64_RANGE}"))),
        ("scores", list(&["1", "2", "3", big]), vec!["3"], Err(format!("at `scores[3]`: the number (N) {{}} is beyond i64's range {I64_RANGE}"))),
        ("tally", map(&[("a b", big)]), vec!["a b"], Err(format!("at `tally[\"a b\"]`: the number (N) {{}} is beyond i64's range {I64_RANGE}"))),
        ("place", map(&[("zip", "0.5")]), vec!["zip"], Err("at `place.zip`: the number (N) {} has a fraction, and i64 holds whole numbers only".into())),
        ("scores", list(&["1", "2.50"]), vec!["1"], Err("at `scores[1]`: the number (N) {} has a fraction, and i64 holds whole numbers only".into())),
        // A negative number is no u128, said as the other ranges are.
        ("big", n("-1"), vec![], Err(format!("the number (N) {{}} is beyond u128's range {U128_RANGE}"))),
        ("big", n("0.5"), vec![], Err("the number (N) {} has a fraction, and u128 holds whole numbers only".into())),
        ("big", n("7"), vec![], Ok(Probe { big: 7, ..probe() })),
    ];
    let mut mismatches = Vec::new();
    for (i, (field, value, path, want)) in (0..).zip(cases) {
        let (key, held) = put(i, field, value).await;
        let want = want.map_err(|m| m.replace("{}", &text_at(&held, &path)));
        let got = store.get_record::<Probe>(&key).await;
        mismatches.extend(mismatch(got, &key, field, &want));
    }
    assert_none(mismatches);
}
