//! Errors about a stored row's value fields (issue 40): the key of the row
//! or item that is bad, whichever bucket of a `random % N` table it lies
//! in; and, on DynamoDB, an attribute that does not read as its field's
//! type said in DynamoDB's terms (its type, its number as stored).

mod common;

use keyschema::store::{MemoryStore, RecordStore, RowError, Store};
use keyschema::{Projection, RowKey};

/// A busy invoice's lines over 10 random suffixes.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = random % 10, then = (invoice_id), line_no)]
pub struct Line {
    pub invoice_id: String,
    pub line_no: u16,
    #[rowkey(value)]
    pub score: i64,
}

#[derive(Projection, Debug, PartialEq)]
#[projection(of = Line)]
pub struct Score {
    line_no: u16,
    #[projection(value)]
    score: i64,
}

/// The key of line 1 of `INV-1` in bucket `bucket`.
fn in_bucket(bucket: usize) -> Vec<u8> {
    Line::schema().candidates(&Line::get_key("INV-1", 1))[bucket].clone()
}

/// The key a value error names.
fn named<E: std::fmt::Debug>(result: Result<Option<impl std::fmt::Debug>, RowError<E>>) -> Vec<u8> {
    match result {
        Err(RowError::Value { key, .. }) => key,
        other => panic!("expected a value error, got {other:?}"),
    }
}

/// A `{"score": "7"}` map under bucket 7's key: a get through bucket 3's
/// key (any bucket's finds it) names bucket 7's, every time (the key was
/// made again in a random bucket, so one run in ten passed by chance).
#[test]
fn a_get_names_the_key_where_the_bad_row_is() {
    let store = MemoryStore::new();
    let bad = in_bucket(7);
    store.put(&bad, b"\x81\xa5score\xa17").expect("put");
    for _ in 0..20 {
        assert_eq!(named(store.get_record::<Line>(&in_bucket(3))), bad);
        assert_eq!(named(store.get_projected::<Score>(&in_bucket(3))), bad);
    }
}

#[cfg(feature = "dynamodb")]
mod dynamodb {
    use super::*;
    use crate::common::dynalite::store;
    use futures_util::StreamExt;
    use keyschema::record::ValueError;
    use keyschema::store::dynamodb::sdk::primitives::Blob;
    use keyschema::store::dynamodb::sdk::types::AttributeValue;
    use keyschema::store::dynamodb::DynamoStore;
    use keyschema::store::AsyncRecordStore;

    /// Another program's item of line 1 in bucket 7 with `score` as given.
    async fn foreign(store: &DynamoStore, score: AttributeValue) -> Vec<u8> {
        let key = in_bucket(7);
        let (pk, sk) = Line::schema().split_key(&key).expect("a key");
        store
            .client()
            .put_item()
            .table_name(store.table())
            .item("pk", AttributeValue::B(Blob::new(pk)))
            .item("sk", AttributeValue::B(Blob::new(sk)))
            .item("score", score)
            .send()
            .await
            .expect("PutItem");
        key
    }

    /// A foreign item in bucket 7 whose `score` is a string: a get through
    /// bucket 3's key names bucket 7's, by get and by scan.
    #[tokio::test]
    async fn a_get_names_the_key_of_the_bad_item() {
        let store = store::<Line>("messages-key").await;
        let bad = foreign(&store, AttributeValue::S("7".into())).await;
        for _ in 0..20 {
            match store.get_record::<Line>(&in_bucket(3)).await {
                Err(RowError::Value { key, source, .. }) => {
                    assert!(
                        matches!(source, ValueError::Field { field: "score", .. }),
                        "{source:?}"
                    );
                    assert_eq!(key, bad);
                }
                other => panic!("expected a value error, got {other:?}"),
            }
        }
    }

    /// A sensor's readings, for items another program wrote.
    #[derive(RowKey, Debug, Clone, PartialEq)]
    #[rowkey(then = (sensor), n)]
    pub struct Reading {
        pub sensor: String,
        pub n: u16,
        #[rowkey(value)]
        pub score: i64,
        #[rowkey(value)]
        pub label: String,
        #[rowkey(value)]
        pub count: u32,
    }

    #[derive(Projection, Debug, PartialEq)]
    #[projection(of = Reading)]
    pub struct ReadingScore {
        n: u16,
        #[projection(value)]
        score: i64,
    }

    fn n(text: &str) -> AttributeValue {
        AttributeValue::N(text.into())
    }

    fn s(text: &str) -> AttributeValue {
        AttributeValue::S(text.into())
    }

    /// Reading `n` of sensor `s1` as another program writes it: good
    /// `score`, `label` and `count`, but for `bad` (a name and an
    /// attribute).
    async fn foreign_reading(store: &DynamoStore, line: u16, bad: (&str, AttributeValue)) {
        let key = Reading::get_key("s1", line);
        let (pk, sk) = Reading::schema().split_key(&key).expect("a key");
        let mut item = std::collections::HashMap::from([
            ("pk".to_string(), AttributeValue::B(Blob::new(pk))),
            ("sk".to_string(), AttributeValue::B(Blob::new(sk))),
            ("score".to_string(), n("7")),
            ("label".to_string(), s("ok")),
            ("count".to_string(), n("1")),
        ]);
        item.insert(bad.0.to_string(), bad.1);
        store
            .client()
            .put_item()
            .table_name(store.table())
            .set_item(Some(item))
            .send()
            .await
            .expect("PutItem");
    }

    /// Each attribute that does not read as its field's type is reported
    /// as DynamoDB holds it: its type (`S`, `N`, `BOOL`, `L`) and its
    /// number as stored (20 digits, not a float's rendering), and why a
    /// number does not fit (beyond the type's range, or a fraction); by
    /// get, by projected get and by scan.
    #[tokio::test]
    async fn an_attribute_of_the_wrong_type_is_said_in_dynamodbs_terms() {
        let store = store::<Reading>("messages-types").await;
        let field = "value field";
        let cases: [(&str, AttributeValue, String); 5] = [
            (
                "score",
                s("7"),
                format!("{field} `score` does not read as its declared type: expected a number (N), found a string (S) \"7\""),
            ),
            (
                "score",
                n("99999999999999999999"),
                format!("{field} `score` does not read as its declared type: the number (N) 99999999999999999999 is beyond i64's range (-9223372036854775808 to 9223372036854775807)"),
            ),
            (
                "score",
                n("1.5"),
                format!("{field} `score` does not read as its declared type: the number (N) 1.5 has a fraction, and i64 holds whole numbers only"),
            ),
            (
                "label",
                AttributeValue::Bool(true),
                format!("{field} `label` does not read as its declared type: expected a string (S), found a boolean (BOOL) true"),
            ),
            (
                "count",
                AttributeValue::L(vec![n("1"), n("2")]),
                format!("{field} `count` does not read as its declared type: expected a number (N), found a list (L)"),
            ),
        ];
        for (line, (name, attribute, _)) in (1..).zip(&cases) {
            foreign_reading(&store, line, (name, attribute.clone())).await;
        }
        for (line, (_, _, message)) in (1..).zip(&cases) {
            let key = Reading::get_key("s1", line);
            match store.get_record::<Reading>(&key).await {
                Err(RowError::Value {
                    key: named, source, ..
                }) => {
                    assert_eq!(source.to_string(), *message, "line {line}");
                    assert_eq!(named, key, "line {line}");
                }
                other => panic!("line {line}: expected a value error, got {other:?}"),
            }
        }
        // The projection reads `score` only: lines 1 to 3 fail, 4 and 5 read.
        for (line, (_, _, message)) in (1..).zip(&cases[..3]) {
            let key = Reading::get_key("s1", line);
            match store.get_projected::<ReadingScore>(&key).await {
                Err(RowError::Value { source, .. }) => {
                    assert_eq!(source.to_string(), *message, "line {line}")
                }
                other => panic!("line {line}: expected a value error, got {other:?}"),
            }
        }
        let scanned: Vec<_> = Reading::scan()
            .sensor("s1")
            .request()
            .stream(&store)
            .records()
            .collect()
            .await;
        let messages: Vec<String> = scanned
            .iter()
            .map(|r| match r {
                Err(RowError::Value { source, .. }) => source.to_string(),
                other => format!("not a value error: {other:?}"),
            })
            .collect();
        let expected: Vec<String> = cases.iter().map(|(_, _, m)| m.clone()).collect();
        assert_eq!(messages, expected);
    }
}
