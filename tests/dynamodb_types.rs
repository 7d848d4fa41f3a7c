//! Every DynamoDB attribute type against every kind of value field (issue
//! 40): an item another program wrote (the SDK's low-level client, on
//! dynalite) reads only where DynamoDB's type is the field's, and anything
//! else is refused in DynamoDB's terms, never taken as something it is not
//! (a binary `B` as a `String`, a string `S` as bytes). The ground truth is
//! the expectation table below, written from DynamoDB's types and the
//! fields' Rust types, not from the code under test.
#![cfg(feature = "dynamodb")]

mod common;

use common::dynalite::store;
use keyschema::store::dynamodb::sdk::primitives::Blob as SdkBlob;
use keyschema::store::dynamodb::sdk::types::AttributeValue;
use keyschema::store::{AsyncRecordStore, RowError};
use keyschema::{RowKey, ValueError};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};

/// Bytes as `serde_bytes::ByteBuf` reads them: its visitor takes bytes,
/// a string's bytes and a sequence of bytes, so the reader must refuse
/// what is not bytes before the visitor bends it.
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
        impl<'de> serde::de::Visitor<'de> for Bytes {
            type Value = Blob;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("byte array")
            }
            fn visit_bytes<E>(self, v: &[u8]) -> Result<Blob, E> {
                Ok(Blob(v.to_vec()))
            }
            fn visit_str<E>(self, v: &str) -> Result<Blob, E> {
                Ok(Blob(v.as_bytes().to_vec()))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Blob, A::Error> {
                let mut out = Vec::new();
                while let Some(b) = seq.next_element::<u8>()? {
                    out.push(b);
                }
                Ok(Blob(out))
            }
        }
        d.deserialize_byte_buf(Bytes)
    }
}

/// One value field of each kind; a row of one attribute reads.
#[derive(RowKey, Debug, Clone, PartialEq, Default)]
#[rowkey(then = (id), n)]
struct Kinds {
    id: String,
    n: u32,
    #[rowkey(value, default)]
    text: String,
    #[rowkey(value, default)]
    letter: char,
    #[rowkey(value, default)]
    int: i64,
    #[rowkey(value, default)]
    float: f64,
    #[rowkey(value, default)]
    flag: bool,
    #[rowkey(value, default)]
    blob: Blob,
    #[rowkey(value, default)]
    strs: Vec<String>,
    #[rowkey(value, default)]
    ints: Vec<i64>,
    #[rowkey(value, default)]
    tally: BTreeMap<String, i64>,
}

/// The fields, with what each needs in DynamoDB's words.
const FIELDS: [(&str, &str); 9] = [
    ("text", "a string (S)"),
    ("letter", "a string (S) of one character"),
    ("int", "a number (N)"),
    ("float", "a number (N)"),
    ("flag", "a boolean (BOOL)"),
    ("blob", "a binary (B)"),
    ("strs", "a list (L)"),
    ("ints", "a list (L)"),
    ("tally", "a map (M)"),
];

/// Each DynamoDB type: its name, an attribute of it, and how DynamoDB's
/// type and value are said.
fn attributes() -> Vec<(&'static str, AttributeValue, &'static str)> {
    let n = |t: &str| AttributeValue::N(t.into());
    vec![
        ("S", AttributeValue::S("7".into()), "a string (S) \"7\""),
        ("N", n("7"), "a number (N) 7"),
        ("N fraction", n("1.5"), "a number (N) 1.5"),
        (
            "B",
            AttributeValue::B(SdkBlob::new(*b"ab")),
            "a binary (B) of 2 bytes",
        ),
        ("BOOL", AttributeValue::Bool(true), "a boolean (BOOL) true"),
        ("NULL", AttributeValue::Null(true), "a null (NULL)"),
        ("L", AttributeValue::L(vec![n("1")]), "a list (L)"),
        (
            "M",
            AttributeValue::M(HashMap::from([("a".into(), n("1"))])),
            "a map (M)",
        ),
        (
            "SS",
            AttributeValue::Ss(vec!["a".into()]),
            "a string set (SS)",
        ),
        (
            "NS",
            AttributeValue::Ns(vec!["1".into()]),
            "a number set (NS)",
        ),
        (
            "BS",
            AttributeValue::Bs(vec![SdkBlob::new(*b"x")]),
            "a binary set (BS)",
        ),
    ]
}

/// What reading `field` from the attribute of type `ty` gives: the row
/// (`Ok`, with that field set) or the message (`Err`). Every pair not
/// listed is refused as "expected {what the field needs}, found {what the
/// item holds}".
fn expected(ty: &str, field: &str) -> Option<Result<Kinds, String>> {
    let row = |f: fn(&mut Kinds)| {
        let mut row = Kinds::default();
        f(&mut row);
        Some(Ok(row))
    };
    let said = |m: &str| Some(Err(m.to_string()));
    match (ty, field) {
        ("S", "text") => row(|r| r.text = "7".into()),
        ("S", "letter") => row(|r| r.letter = '7'),
        ("N", "int") => row(|r| r.int = 7),
        ("N", "float") => row(|r| r.float = 7.0),
        ("N fraction", "float") => row(|r| r.float = 1.5),
        ("N fraction", "int") => {
            said("the number (N) 1.5 has a fraction, and i64 holds whole numbers only")
        }
        ("B", "blob") => row(|r| r.blob = Blob(b"ab".to_vec())),
        ("BOOL", "flag") => row(|r| r.flag = true),
        // A list and the sets read as sequences, element by element.
        ("L", "ints") | ("NS", "ints") => row(|r| r.ints = vec![1]),
        ("SS", "strs") => row(|r| r.strs = vec!["a".into()]),
        ("L", "strs") | ("NS", "strs") => {
            said("at `strs[0]`: expected a string (S), found a number (N) 1")
        }
        ("BS", "strs") => {
            said("at `strs[0]`: expected a string (S), found a binary (B) of 1 bytes")
        }
        ("SS", "ints") => said("at `ints[0]`: expected a number (N), found a string (S) \"a\""),
        ("BS", "ints") => {
            said("at `ints[0]`: expected a number (N), found a binary (B) of 1 bytes")
        }
        ("M", "tally") => row(|r| {
            r.tally.insert("a".into(), 1);
        }),
        _ => None,
    }
}

#[tokio::test]
async fn each_dynamodb_type_reads_only_as_the_fields_it_is() {
    let store = store::<Kinds>("types").await;
    let mut n = 0;
    let mut cases = Vec::new();
    for (ty, attribute, holds) in attributes() {
        for (field, needs) in FIELDS {
            n += 1;
            let key = Kinds::get_key("k", n);
            let (pk, sk) = Kinds::schema().split_key(&key).expect("a key");
            store
                .client()
                .put_item()
                .table_name(store.table())
                .item("pk", AttributeValue::B(SdkBlob::new(pk)))
                .item("sk", AttributeValue::B(SdkBlob::new(sk)))
                .item(field, attribute.clone())
                .send()
                .await
                .expect("PutItem");
            let want = expected(ty, field)
                .unwrap_or_else(|| Err(format!("expected {needs}, found {holds}")));
            cases.push((ty, field, key, n, want));
        }
    }
    let mut wrong = Vec::new();
    for (ty, field, key, n, want) in cases {
        let got = store.get_record::<Kinds>(&key).await;
        let ok = match (&got, &want) {
            (Ok(Some(row)), Ok(want)) => {
                *row == Kinds {
                    id: "k".into(),
                    n,
                    ..want.clone()
                }
            }
            (
                Err(RowError::Value {
                    key: at,
                    source: ValueError::Field { field: f, message },
                    ..
                }),
                Err(want),
            ) => *at == key && f == &field && message == want,
            _ => false,
        };
        if !ok {
            wrong.push(format!(
                "{ty} into `{field}`: got {got:?}, expected {want:?}"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
