//! Errors about a stored row's value fields (issue 40): the key of the row
//! or item that is bad, whichever bucket of a `random % N` table it lies
//! in.

mod common;

use keyschema::record::ValueError;
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
}
