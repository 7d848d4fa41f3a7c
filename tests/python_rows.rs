//! The Python package (`python/`) reads whole rows as the Rust code writes
//! them: Rust writes random rows of a key type whose value fields cover
//! serde's data model (integers of every width, a `u64` above `i64::MAX`,
//! 128-bit ones,
//! floats, a bool, text, a char, `Option`s, a sequence, a map, a tuple,
//! nested structs, an enum of every variant shape, a newtype and bytes; and
//! required fields whose types read nil: `serde_json::Value`, an untagged
//! enum with a unit variant, a newtype of an `Option`, `()`) as
//! the ordered stores' MessagePack map and as Bigtable's cell map, and
//! `python/tests/cross_rows.py` must decode the same values from each, from
//! the cells as a Bigtable client gives them, and from the DynamoDB items
//! of those values (boto3's low-level form and its resource form; and,
//! when `target/interop-venv` holds boto3, what boto3's own
//! `TypeDeserializer` makes of them).

mod common;

use common::rows::{ledger, Ledger};
use keyschema::record::{cells, decode_values, encode_values};
use keyschema::RowKey;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
struct Point {
    x: f64,
    label: Option<String>,
    raw: Vec<u8>,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
enum Mood {
    #[default]
    Calm,
    Busy {
        level: u8,
    },
    Named(String),
    Pair(i32, i32),
}

/// A newtype of a number: its cell is the number's 8 bytes, which the
/// schema document's type text (`Cents`) cannot tell.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Default)]
struct Cents(i64);

/// Bytes as `serde_bytes` writes them (a MessagePack bin, a raw cell).
#[derive(Debug, Clone, PartialEq, Default)]
struct Blob(Vec<u8>);

impl Serialize for Blob {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(&self.0)
    }
}

impl<'de> Deserialize<'de> for Blob {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Bytes;
        impl serde::de::Visitor<'_> for Bytes {
            type Value = Blob;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("bytes")
            }
            fn visit_bytes<E>(self, v: &[u8]) -> Result<Blob, E> {
                Ok(Blob(v.to_vec()))
            }
        }
        d.deserialize_bytes(Bytes)
    }
}

#[derive(RowKey, Serialize, Debug, Clone, PartialEq)]
#[rowkey(salt = hash(account) % 4, then = (account), seq, family = "row")]
struct Wide {
    account: String,
    seq: u32,
    #[rowkey(value)]
    count: i64,
    #[rowkey(value)]
    big: u64,
    #[rowkey(value)]
    small: i8,
    #[rowkey(value)]
    huge: u128,
    #[rowkey(value)]
    wide_signed: i128,
    #[rowkey(value)]
    ratio: f64,
    #[rowkey(value)]
    gauge: f32,
    #[rowkey(value)]
    done: bool,
    #[rowkey(value)]
    name: String,
    #[rowkey(value)]
    initial: char,
    #[rowkey(value)]
    note: Option<String>,
    #[rowkey(value)]
    level: Option<u16>,
    #[rowkey(value)]
    tags: Vec<String>,
    #[rowkey(value)]
    raw: Vec<u8>,
    #[rowkey(value)]
    counts: BTreeMap<String, i32>,
    #[rowkey(value)]
    pair: (u8, String),
    #[rowkey(value)]
    point: Point,
    #[rowkey(value)]
    maybe_point: Option<Point>,
    #[rowkey(value)]
    mood: Mood,
    #[rowkey(value)]
    cents: Cents,
    #[rowkey(value)]
    blob: Blob,
    #[rowkey(value, default)]
    extra: u32,
}

/// Every value field optional: a row of `None`s keeps only Bigtable's
/// presence cell.
#[derive(RowKey, Serialize, Debug, Clone, PartialEq)]
#[rowkey(then = id)]
struct Sparse {
    id: u64,
    #[rowkey(value)]
    a: Option<u32>,
    #[rowkey(value)]
    b: Option<String>,
}

/// An untagged enum with a unit variant: self-describing, and its unit
/// variant is nil.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
#[serde(untagged)]
enum Shape {
    #[default]
    Nothing,
    Number(i64),
    Text(String),
}

/// A newtype of an `Option`: a required field whose type reads nil (its
/// cell, `Some`'s, is 8 bytes: the caller names its kind, `i32`).
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Default)]
struct Maybe(Option<i32>);

/// Required value fields whose types read nil: Bigtable keeps no cell and
/// DynamoDB no attribute for their nil, and the Rust reader takes the
/// missing field as nil, so the schema document says a row need not hold
/// them (`"required": false, "nil": true`); beside a required field that
/// does not read nil.
#[derive(RowKey, Serialize, Debug, Clone, PartialEq)]
#[rowkey(then = id)]
struct Loose {
    id: u64,
    #[rowkey(value)]
    doc: serde_json::Value,
    #[rowkey(value)]
    shape: Shape,
    #[rowkey(value)]
    maybe: Maybe,
    #[rowkey(value)]
    unit: (),
    #[rowkey(value)]
    count: u32,
}

/// A deterministic source of test values (SplitMix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn chance(&mut self) -> bool {
        self.next() & 1 == 1
    }

    fn char(&mut self) -> char {
        const SOME: &[char] = &[
            'a', 'Z', '0', ' ', '\0', '\n', '"', '\\', 'é', 'ß', '€', '中', '😀', '\u{7f}',
        ];
        if self.chance() {
            SOME[self.below(SOME.len() as u64) as usize]
        } else {
            char::from_u32(self.below(0x11_0000) as u32).unwrap_or('?')
        }
    }

    fn string(&mut self) -> String {
        let n = [0, 1, 3, 31, 32, 40][self.below(6) as usize];
        (0..n).map(|_| self.char()).collect()
    }

    fn bytes(&mut self) -> Vec<u8> {
        let n = [0, 1, 2, 8, 40][self.below(5) as usize];
        (0..n).map(|_| self.next() as u8).collect()
    }

    fn f64(&mut self) -> f64 {
        let special = [
            0.0,
            -0.0,
            0.25,
            1.0,
            -1.5,
            1e16,
            1e-7,
            f64::MAX,
            f64::MIN_POSITIVE,
            5e-324,
        ];
        match self.below(4) {
            0 => return special[self.below(special.len() as u64) as usize],
            // Within DynamoDB's numbers (1E-130 to 9.9999999999999999999999999999999999999E+125).
            1 | 2 => {
                let mantissa = (self.next() >> 11) as f64 / (1u64 << 53) as f64;
                let sign = if self.chance() { -1.0 } else { 1.0 };
                return sign * (0.5 + mantissa) * 10f64.powi(self.below(201) as i32 - 100);
            }
            _ => {}
        }
        loop {
            let v = f64::from_bits(self.next());
            if v.is_finite() {
                return v;
            }
        }
    }

    fn f32(&mut self) -> f32 {
        loop {
            let v = f32::from_bits(self.next() as u32);
            if v.is_finite() {
                return v;
            }
        }
    }

    fn int(&mut self) -> i64 {
        match self.below(4) {
            0 => self.below(256) as i64 - 128,
            1 => [i64::MIN, i64::MAX, 0, -1][self.below(4) as usize],
            _ => self.next() as i64,
        }
    }

    fn point(&mut self) -> Point {
        Point {
            x: self.f64(),
            label: self.chance().then(|| self.string()),
            raw: self.bytes(),
        }
    }

    /// A JSON value of every kind, nil a third of the time at the top.
    fn json(&mut self, depth: u32) -> serde_json::Value {
        use serde_json::{json, Value};
        match self.below(if depth == 0 { 12 } else { 8 }) {
            0 => Value::Null,
            1 => Value::Bool(self.chance()),
            2 => json!(self.int()),
            3 => json!(u64::MAX - self.below(1000)),
            4 => json!([0.5, -2.0, 1e-7, 1e100, 3.0][self.below(5) as usize]),
            5 => Value::String(if self.chance() {
                "5".into()
            } else {
                self.string()
            }),
            6 if depth < 3 => {
                Value::Array((0..self.below(4)).map(|_| self.json(depth + 1)).collect())
            }
            7 if depth < 3 => Value::Object(
                (0..self.below(4))
                    .map(|i| (format!("k{i}{}", self.string()), self.json(depth + 1)))
                    .collect(),
            ),
            _ => Value::Null,
        }
    }

    fn loose(&mut self, id: u64) -> Loose {
        Loose {
            id,
            doc: self.json(0),
            shape: match self.below(3) {
                0 => Shape::Nothing,
                1 => Shape::Number(self.int()),
                _ => Shape::Text(self.string()),
            },
            maybe: Maybe(self.chance().then(|| self.next() as i32)),
            unit: (),
            count: self.next() as u32,
        }
    }

    fn wide(&mut self) -> Wide {
        Wide {
            account: self.string(),
            seq: self.next() as u32,
            count: self.int(),
            big: if self.chance() {
                u64::MAX - self.below(1 << 40)
            } else {
                self.next()
            },
            small: self.int() as i8,
            huge: (u128::from(self.next()) << 64) | u128::from(self.next()),
            wide_signed: (i128::from(self.int()) << 64) | i128::from(self.next()),
            ratio: self.f64(),
            gauge: self.f32(),
            done: self.chance(),
            name: self.string(),
            initial: self.char(),
            note: self.chance().then(|| self.string()),
            level: self.chance().then(|| self.next() as u16),
            tags: (0..self.below(4)).map(|_| self.string()).collect(),
            raw: self.bytes(),
            counts: (0..self.below(4))
                .map(|_| (self.string(), self.int() as i32))
                .collect(),
            pair: (self.next() as u8, self.string()),
            point: self.point(),
            maybe_point: self.chance().then(|| self.point()),
            mood: match self.below(4) {
                0 => Mood::Calm,
                1 => Mood::Busy {
                    level: self.next() as u8,
                },
                2 => Mood::Named(self.string()),
                _ => Mood::Pair(self.int() as i32, self.int() as i32),
            },
            cents: Cents(self.int()),
            blob: Blob(self.bytes()),
            extra: self.next() as u32,
        }
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// One line of `rows.jsonl`: the row's key and its split into DynamoDB's
/// partition and sort attributes, its value fields as the ordered stores'
/// map and as Bigtable's cell map, and its fields as serde's JSON.
/// The Rust reader reads the row back whole from both forms: the ground
/// truth Python is held to.
fn line<K>(out: &mut String, schema: &str, row: &K)
where
    K: keyschema::record::Record + Serialize + PartialEq + std::fmt::Debug,
{
    let key = row.encode();
    let (pk, sk) = K::schema().split_key(&key).expect("the key splits");
    let map = encode_values(row).expect("the value fields encode");
    let cells = cells::cells_of(&map, K::schema().values()).expect("the map splits into cells");
    let cell_map = cells::cell_map(cells.iter().map(|(q, v)| (&q[..], &v[..])));
    for value in [&map, &cell_map] {
        let mut back = K::decode(&key).expect("the row's own key");
        decode_values(&mut back, value).expect("Rust reads its own row");
        assert_eq!(&back, row, "{schema} read back from {}", hex(value));
    }
    let _ = writeln!(
        out,
        "{{\"schema\":\"{schema}\",\"key\":\"{}\",\"pk\":\"{}\",\"sk\":\"{}\",\"map\":\"{}\",\"cells\":\"{}\",\"fields\":{}}}",
        hex(&key),
        hex(pk),
        hex(sk),
        hex(&map),
        hex(&cell_map),
        serde_json::to_string(row).expect("the row as JSON")
    );
}

/// Writes the rows; returns how many.
fn write_rows(dir: &Path) -> usize {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{{\"schemas\":{{\"Wide\":{},\"Sparse\":{},\"Loose\":{}}},\"kinds\":{{\"Wide\":{{\"cents\":\"i64\",\"blob\":\"bytes\"}},\"Loose\":{{\"maybe\":\"i32\"}}}}}}",
        Wide::schema().to_json(),
        Sparse::schema().to_json(),
        Loose::schema().to_json()
    );
    let mut rng = Rng(19);
    let mut n = 0;
    for _ in 0..2_000 {
        line(&mut out, "Wide", &rng.wide());
        n += 1;
    }
    for id in 0..200 {
        let sparse = Sparse {
            id,
            a: rng.chance().then(|| rng.next() as u32),
            b: (id % 3 == 0).then(|| rng.string()),
        };
        line(&mut out, "Sparse", &sparse);
        n += 1;
    }
    for id in 0..600 {
        line(&mut out, "Loose", &rng.loose(id));
        n += 1;
    }
    std::fs::write(dir.join("rows.jsonl"), out).expect("write the rows");
    n
}

/// An `f32` field, for the values both readers refuse.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(then = id)]
struct Gauge {
    id: u64,
    #[rowkey(value)]
    gauge: f32,
}

/// Writes `refused.jsonl`: values another program stored that the Rust
/// reader refuses (an `f32` field holding a finite number beyond its
/// range), as the ordered stores' map and as a cell map, with what Rust
/// says; Python must refuse each, saying the same.
fn write_refused(dir: &Path) -> usize {
    let mut out = String::new();
    let _ = writeln!(out, "{{\"schema\":{}}}", Gauge::schema().to_json());
    let mut n = 0;
    for v in [1e39f64, -3.5e38, f64::MAX] {
        let mut map = vec![0x81, 0xa5];
        map.extend(b"gauge");
        map.push(0xcb);
        map.extend(v.to_be_bytes());
        let cell = v.to_be_bytes();
        let cell_map = cells::cell_map([(&b"gauge"[..], &cell[..])]);
        for value in [&map, &cell_map] {
            let mut row = Gauge::decode(&Gauge::get_key(1)).expect("a key");
            let said = match decode_values(&mut row, value) {
                Err(keyschema::ValueError::Field {
                    field: "gauge",
                    message,
                }) => message,
                other => panic!("Rust refuses {v:e} from {}: {other:?}", hex(value)),
            };
            assert!(said.contains("does not fit an f32"), "{said}");
            let _ = writeln!(
                out,
                "{{\"value\":\"{}\",\"said\":{}}}",
                hex(value),
                serde_json::Value::String(said)
            );
            n += 1;
        }
    }
    std::fs::write(dir.join("refused.jsonl"), out).expect("write the refused values");
    n
}

/// Runs `python/tests/cross_rows.py` under `python`; its standard error.
fn run(python: &Path, dir: &Path, boto3: bool) -> String {
    let root = env!("CARGO_MANIFEST_DIR");
    let mut command = Command::new(python);
    command
        .args(["-m", "unittest", "-v", "tests.cross_rows"])
        .current_dir(Path::new(root).join("python"))
        .env("KEYSCHEMA_ROWS_DIR", dir);
    if boto3 {
        command.env("KEYSCHEMA_ROWS_BOTO3", "1");
    }
    let output = command
        .output()
        .expect("python3 runs (the README's test command needs Python 3.9+)");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    for l in stderr.lines() {
        if let Some(at) = l.find("rows ") {
            println!("python: {}", &l[at..]);
        } else if l.starts_with("Ran ") || l.starts_with("OK") || l.starts_with("FAILED") {
            println!("python: {l}");
        }
    }
    assert!(
        output.status.success(),
        "python's unittest failed:\n{stderr}"
    );
    stderr
}

#[test]
fn python_reads_the_value_fields_rust_writes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let rows = write_rows(dir.path());
    let refused = write_refused(dir.path());
    let stderr = run(Path::new("python3"), dir.path(), false);
    assert!(
        stderr.contains(&format!(
            "refused: {refused} values, {refused} refused alike"
        )),
        "python did not refuse every value Rust refuses:\n{stderr}"
    );
    for form in [
        "map",
        "cell map",
        "cells",
        "low-level item",
        "resource item",
    ] {
        assert!(
            stderr.contains(&format!("rows {form}: {rows} rows, {rows} agree")),
            "python did not read every row from its {form}:\n{stderr}"
        );
    }
    // boto3's own TypeDeserializer, where the interop venv has it.
    match common::interop::python_if_ready() {
        Some(python) => {
            let stderr = run(&python, dir.path(), true);
            // The rows whose floats DynamoDB holds (Rust refuses to write
            // the others): most of them.
            let checked = stderr.lines().find_map(|l| {
                let rest = &l[l.find("rows boto3 item: ")? + "rows boto3 item: ".len()..];
                let (n, agree) = rest.split_once(" rows, ")?;
                (agree == format!("{n} agree")).then(|| n.parse::<usize>().ok())?
            });
            assert!(
                checked.is_some_and(|n| n > rows / 2),
                "boto3's TypeDeserializer items were not all read:\n{stderr}"
            );
        }
        None => println!("boto3 check skipped: no target/interop-venv (.ci/run makes it)"),
    }
}

/// `python/tests/ledger.json`, the document of the ledger line of
/// `docs/ENCODING.md` that the Python tests and README read, is the Rust
/// one; and the README's value bytes are `ledger("INV-1", 2)`'s.
#[test]
fn the_python_ledger_fixtures_are_the_rust_ones() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("python");
    let fixture = std::fs::read_to_string(root.join("tests/ledger.json")).expect("the fixture");
    assert_eq!(fixture.trim_end(), Ledger::schema().to_json());
    let map = encode_values(&ledger("INV-1", 2)).expect("encodes");
    let readme = std::fs::read_to_string(root.join("README.md")).expect("the README");
    assert!(
        readme.contains(&hex(&map)),
        "python/README.md shows ledger(\"INV-1\", 2)'s value map, {}",
        hex(&map)
    );
    let tests = std::fs::read_to_string(root.join("tests/test_values.py")).expect("the tests");
    assert!(
        tests.contains(&hex(&map)),
        "python/tests/test_values.py holds ledger(\"INV-1\", 2)'s value map, {}",
        hex(&map)
    );
}
