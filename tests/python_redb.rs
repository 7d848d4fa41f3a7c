//! The Python package (`python/`) reads rows from the bytes the redb store
//! keeps: `RedbStore` writes whole rows, this test reads its table
//! (`keyschema_rows` in `keyschema.redb`) raw with redb, as another program
//! would, checks the stored form of `docs/ENCODING.md` (the value's
//! MessagePack map, then the CRC-32 of key and value, big-endian), and
//! `python/tests/cross_redb.py` must read every row from those bytes with
//! `Schema.decode_redb_row`, and refuse them, naming the checksum, when a
//! byte is flipped or the bytes are another key's.

use keyschema::record::encode_values;
use keyschema::store::{RecordStore, RedbStore};
use keyschema::RowKey;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
struct Place {
    city: String,
    floor: Option<i16>,
}

#[derive(RowKey, Serialize, Debug, Clone, PartialEq)]
#[rowkey(salt = hash(sensor) % 4, then = sensor, rev(at))]
struct Reading {
    sensor: String,
    at: u64,
    #[rowkey(value)]
    celsius: f64,
    #[rowkey(value)]
    count: i64,
    #[rowkey(value)]
    label: String,
    #[rowkey(value)]
    note: Option<String>,
    #[rowkey(value)]
    raw: Vec<u8>,
    #[rowkey(value)]
    place: Place,
    #[rowkey(value)]
    extra: serde_json::Value,
}

fn reading(i: u64) -> Reading {
    Reading {
        sensor: format!("s{}", i % 7),
        at: 1_700_000_000 + i * 37,
        celsius: i as f64 * 0.5 - 20.0,
        count: (i as i64 - 100) * 1_000_003,
        label: "é€\0".repeat((i % 4) as usize),
        note: i.is_multiple_of(3).then(|| format!("n{i}")),
        raw: (0..(i % 9) as u8).collect(),
        place: Place {
            city: ["Oslo", "", "København"][(i % 3) as usize].into(),
            floor: i.is_multiple_of(2).then_some(i as i16 - 3),
        },
        extra: match i % 4 {
            0 => serde_json::Value::Null,
            1 => serde_json::json!({"k": [1, "two", null]}),
            2 => serde_json::json!(i),
            _ => serde_json::json!("text"),
        },
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Writes the rows with `RedbStore`, then reads the table raw: `(key,
/// stored bytes)` in key order.
fn stored_rows(dir: &Path, rows: &[Reading]) -> Vec<(Vec<u8>, Vec<u8>)> {
    {
        let store = RedbStore::open(dir).expect("opens");
        store.put_records(rows).expect("writes");
    }
    const ROWS: redb::TableDefinition<&[u8], &[u8]> = redb::TableDefinition::new("keyschema_rows");
    let db = redb::Database::open(dir.join("keyschema.redb")).expect("the store's file");
    let read = redb::ReadableDatabase::begin_read(&db).expect("a read");
    let table = read.open_table(ROWS).expect("the rows' table");
    redb::ReadableTable::iter(&table)
        .expect("a scan")
        .map(|entry| {
            let (k, v) = entry.expect("a row");
            (k.value().to_vec(), v.value().to_vec())
        })
        .collect()
}

#[test]
fn python_reads_rows_from_the_bytes_redb_stores() {
    let dir = tempfile::tempdir().expect("temp dir");
    let rows: Vec<Reading> = (0..300).map(reading).collect();
    let stored = stored_rows(dir.path(), &rows);
    assert_eq!(stored.len(), rows.len());
    // The stored form, by ENCODING.md: the value fields' map, then the
    // CRC-32 (IEEE) of key || value, big-endian.
    assert_eq!(crc32fast::hash(b"123456789"), 0xcbf4_3926, "CRC-32 IEEE");
    // ENCODING.md's example ("As redb stores it"): under the key `k1`,
    // `{action: "click", n: 7}` then `25 45 9d 01`.
    let example = b"k1\x82\xa6action\xa5click\xa1n\x07";
    assert_eq!(crc32fast::hash(example), 0x2545_9d01);
    let mut out = format!("{{\"schema\":{}}}\n", Reading::schema().to_json());
    for (key, bytes) in &stored {
        let row = rows
            .iter()
            .find(|r| &r.encode() == key)
            .expect("a row written");
        let map = encode_values(row).expect("encodes");
        let (value, sum) = bytes.split_at(bytes.len() - 4);
        assert_eq!(value, &map[..], "the value is the row's map");
        let mut keyed = key.clone();
        keyed.extend_from_slice(value);
        assert_eq!(sum, crc32fast::hash(&keyed).to_be_bytes(), "the CRC");
        let _ = writeln!(
            out,
            "{{\"key\":\"{}\",\"stored\":\"{}\",\"fields\":{}}}",
            hex(key),
            hex(bytes),
            serde_json::to_string(row).expect("JSON")
        );
    }
    std::fs::write(dir.path().join("redb.jsonl"), out).expect("write the rows");

    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("python");
    let output = Command::new("python3")
        .args(["-m", "unittest", "-v", "tests.cross_redb"])
        .current_dir(root)
        .env("KEYSCHEMA_REDB_ROWS", dir.path().join("redb.jsonl"))
        .output()
        .expect("python3 runs (the README's test command needs Python 3.9+)");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "python's unittest failed:\n{stderr}"
    );
    let n = rows.len();
    for line in [
        format!("redb rows: {n} rows, {n} agree"),
        format!("redb damage: {n} flipped, {n} other keys, {n} refused each"),
    ] {
        assert!(
            stderr.contains(&line),
            "python did not print `{line}`:\n{stderr}"
        );
    }
}
