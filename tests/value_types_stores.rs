//! Every shape serde gives a value field, round-tripped on every store:
//! memory, redb, the Bigtable emulator (one cell per field) and a
//! DynamoDB-API server (one attribute per field). Self-describing types
//! (`serde_json::Value`, untagged and internally tagged enums), whose
//! `Deserialize` does not say what it expects, must come back equal too:
//! on Bigtable they are kept as one MessagePack cell, since a bare number
//! or word in a cell does not say which type it was.
#![cfg(all(
    feature = "bigtable",
    feature = "dynamodb",
    feature = "uuid",
    feature = "chrono",
    feature = "time"
))]

mod common;

use common::{cbt, dynalite, emulator};
use keyschema::store::bigtable::BigtableStore;
use keyschema::store::{AsyncRecordStore, MemoryStore, RecordStore, RedbStore};
use keyschema::RowKey;
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::collections::BTreeMap;

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
#[serde(untagged)]
enum Loose {
    #[default]
    Nothing,
    Flag(bool),
    Count(i64),
    Word(String),
    Pair {
        a: u8,
        b: String,
    },
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
#[serde(tag = "kind")]
enum Tagged {
    #[default]
    Empty,
    Click {
        x: i32,
        y: i32,
    },
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
enum Plain {
    #[default]
    Off,
    On,
    Level(u8),
    Span {
        from: u16,
        to: u16,
    },
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
struct Inner {
    label: String,
    weights: Vec<f64>,
}

/// A type whose `Deserialize` reads nothing: the reader must still step
/// over its stored value, so the next field is read as itself.
#[derive(Serialize, Debug, Clone, PartialEq, Default)]
struct Constant(u8);

impl<'de> Deserialize<'de> for Constant {
    fn deserialize<D: serde::Deserializer<'de>>(_: D) -> Result<Self, D::Error> {
        Ok(Constant(7))
    }
}

/// Serde's field attributes go on the value's own type (the derive does
/// not read `#[serde]` on a key type's fields): bytes stored as hex text.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
struct Hex(#[serde(with = "as_hex")] Vec<u8>);

mod as_hex {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&bytes.iter().map(|b| format!("{b:02x}")).collect::<String>())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        let text = String::deserialize(d)?;
        (0..text.len())
            .step_by(2)
            .map(|i| {
                text.get(i..i + 2)
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                    .ok_or_else(|| serde::de::Error::custom("not hex"))
            })
            .collect()
    }
}

/// A newtype around an `Option`: `None` is nil, which a store of cells
/// keeps as no cell.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
struct Maybe(Option<i32>);

#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(then = (id), n)]
struct Kinds {
    #[rowkey(value)]
    maybe: Maybe,
    #[rowkey(value)]
    constant: Constant,
    #[rowkey(value)]
    hex: Hex,
    id: String,
    n: u32,
    #[rowkey(value)]
    meta: serde_json::Value,
    #[rowkey(value)]
    maybe_meta: Option<serde_json::Value>,
    #[rowkey(value)]
    loose: Loose,
    #[rowkey(value)]
    tagged: Tagged,
    #[rowkey(value)]
    plain: Plain,
    #[rowkey(value)]
    inner: Inner,
    #[rowkey(value)]
    map: BTreeMap<String, i64>,
    #[rowkey(value)]
    small: i8,
    #[rowkey(value)]
    big: u64,
    #[rowkey(value)]
    huge: i128,
    #[rowkey(value)]
    ratio: f32,
    #[rowkey(value)]
    letter: char,
    #[rowkey(value)]
    blob: Vec<u8>,
    #[rowkey(value)]
    id2: uuid::Uuid,
    #[rowkey(value)]
    at: chrono::DateTime<chrono::Utc>,
    #[rowkey(value)]
    day: chrono::NaiveDate,
    #[rowkey(value)]
    when: Option<time::OffsetDateTime>,
}

fn rows() -> Vec<Kinds> {
    let metas = [
        json!(null),
        json!(5),
        json!(-7),
        json!(true),
        json!("text"),
        json!(2.5),
        json!(18_446_744_073_709_551_615u64),
        json!([1, "a", null]),
        json!({"a": {"b": [1, 2]}}),
        json!(""),
        // Text whose bytes begin like a MessagePack array (U+0700 is dc 80)
        // or map, whole: it must still read as text.
        json!(format!("\u{0700}!{}", "a".repeat(32_801))),
        json!("\u{0080}"),
    ];
    let looses = [
        Loose::Nothing,
        Loose::Flag(false),
        Loose::Count(5),
        Loose::Count(-1),
        Loose::Word("5".into()),
        Loose::Word("true".into()),
        Loose::Pair {
            a: 1,
            b: "x".into(),
        },
    ];
    let plains = [
        Plain::Off,
        Plain::On,
        Plain::Level(3),
        Plain::Span { from: 1, to: 2 },
    ];
    (0..metas.len())
        .map(|i| Kinds {
            constant: Constant(7),
            maybe: Maybe((i % 2 == 0).then_some(i as i32)),
            hex: Hex(vec![0xde, 0xad, i as u8]),
            id: "k".into(),
            n: u32::try_from(i).expect("small"),
            meta: metas[i].clone(),
            // `Some(Null)` is nil, as `None` (serde's `Option`): not drawn.
            maybe_meta: Some(metas[metas.len() - 1 - i].clone())
                .filter(|m| i % 3 != 0 && !m.is_null()),
            loose: looses[i % looses.len()].clone(),
            tagged: if i % 2 == 0 {
                Tagged::Empty
            } else {
                Tagged::Click {
                    x: -(i as i32),
                    y: 7,
                }
            },
            plain: plains[i % plains.len()].clone(),
            inner: Inner {
                label: format!("l{i}"),
                weights: vec![0.5; i],
            },
            map: (0..i).map(|j| (format!("m{j}"), j as i64 - 3)).collect(),
            small: -(i as i8),
            big: u64::MAX - i as u64,
            huge: i128::MIN + i as i128,
            ratio: 0.25 * i as f32,
            letter: ['a', 'é', '\u{0}', '雪'][i % 4],
            blob: vec![0xff, 0x00, i as u8],
            id2: uuid::Uuid::from_u128(0x0123_4567_89ab_cdef_fedc_ba98_7654_3210 + i as u128),
            at: chrono::DateTime::from_timestamp(1_700_000_000 + i as i64, 5).expect("in range"),
            day: chrono::NaiveDate::from_ymd_opt(2026, 11, 1 + i as u32).expect("a date"),
            when: (i % 2 == 1).then(|| {
                time::OffsetDateTime::from_unix_timestamp(1_700_000_000 + i as i64)
                    .expect("in range")
            }),
        })
        .collect()
}

fn check_sync<S: RecordStore>(store: &S, name: &str) {
    for row in rows() {
        store.put_record(&row).expect("put");
        let got = store.get_record::<Kinds>(&row.encode()).expect("get");
        assert_eq!(got.as_ref(), Some(&row), "{name}");
    }
}

async fn check_async<S: AsyncRecordStore>(store: &S, name: &str) {
    for row in rows() {
        store.put_record(&row).await.expect("put");
        let got = store
            .get_record::<Kinds>(&row.encode())
            .await
            .unwrap_or_else(|e| panic!("{name}: get {:?}: {e}", row.n));
        assert_eq!(got.as_ref(), Some(&row), "{name}");
    }
}

#[test]
fn every_value_shape_round_trips_on_memory_and_redb() {
    check_sync(&MemoryStore::new(), "memory");
    let dir = tempfile::tempdir().expect("a temp dir");
    let redb = RedbStore::open(dir.path()).expect("open");
    check_sync(&redb, "redb");
}

#[tokio::test]
async fn every_value_shape_round_trips_on_bigtable() {
    let table = emulator::fresh_table("kinds");
    let store =
        BigtableStore::connect_emulator(&emulator::host(), cbt::PROJECT, cbt::INSTANCE, &table)
            .await
            .expect("connect to the emulator");
    store.create_table_for::<Kinds>().await.expect("create");
    check_async(&store, "bigtable").await;
}

#[tokio::test]
async fn every_value_shape_round_trips_on_dynamodb() {
    let store = dynalite::store::<Kinds>("kinds").await;
    check_async(&store, "dynamodb").await;
}
