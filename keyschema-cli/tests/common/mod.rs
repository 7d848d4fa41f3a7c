//! What the tool's tests share: the derived key types whose schema
//! documents they run `keyschema` on, those documents written to a temporary
//! directory, and the key forms the tool reads.
#![allow(dead_code)]

use assert_cmd::Command;
use keyschema::RowKey;
use std::path::{Path, PathBuf};

/// The Bigtable article's events: hashed salt over `user_id, site`.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = hash(user_id, site) % 8, then = user_id, site, rev(timestamp))]
pub struct Event {
    pub user_id: String,
    pub site: String,
    pub timestamp: u64,
}

/// The Cassandra article's availability, partitioned by `hotel_id`.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(then = (hotel_id), day, room_number)]
pub struct PerHotel {
    pub hotel_id: String,
    pub day: u32,
    pub room_number: u16,
}

/// The DynamoDB article's write sharding: `random % 10`.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = random % 10, then = (invoice_id), transaction_id)]
pub struct Transaction {
    pub invoice_id: String,
    pub transaction_id: String,
}

/// The three types' schema documents, in a directory removed on drop.
pub struct Docs {
    _dir: tempfile::TempDir,
    pub events: PathBuf,
    pub hotels: PathBuf,
    pub invoices: PathBuf,
}

/// Writes the three schema documents.
pub fn docs() -> Docs {
    let dir = tempfile::tempdir().expect("temp dir");
    let write = |name: &str, json: String| {
        let path = dir.path().join(name);
        std::fs::write(&path, json).expect("write schema");
        path
    };
    Docs {
        events: write("events.json", Event::schema().to_json()),
        hotels: write("hotels.json", PerHotel::schema().to_json()),
        invoices: write("invoices.json", Transaction::schema().to_json()),
        _dir: dir,
    }
}

/// `keyschema --schema SCHEMA`, to be given a command.
pub fn keyschema(schema: &Path) -> Command {
    let mut cmd = Command::cargo_bin("keyschema").expect("the binary is built");
    cmd.arg("--schema").arg(schema);
    cmd
}

/// The standard output of a command that must succeed.
pub fn stdout(cmd: &mut Command) -> String {
    let out = cmd.assert().success().get_output().stdout.clone();
    String::from_utf8(out).expect("UTF-8 output")
}

/// The standard error of a command that must end with exit code `code`.
pub fn stderr(cmd: &mut Command, code: i32) -> String {
    let out = cmd.assert().code(code).get_output().stderr.clone();
    String::from_utf8_lossy(&out).into_owned()
}

/// The key in lowercase hex.
pub fn hex(key: &[u8]) -> String {
    key.iter().map(|b| format!("{b:02x}")).collect()
}

/// The key as the HBase shell prints it.
pub fn escaped(key: &[u8]) -> String {
    key.iter()
        .map(|&b| {
            if (b.is_ascii_graphic() && b != b'\\') || b == b' ' {
                (b as char).to_string()
            } else {
                format!("\\x{b:02X}")
            }
        })
        .collect()
}
