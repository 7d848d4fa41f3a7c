//! `keyschema get` on DynamoDB words a top-level value field that does not
//! read as its type as the typed read (`get_record`) does, as it words a
//! nested one: `the number (N) 1000...` for an f32 beyond its range,
//! `expected a number (N) or a 16-byte binary (B), found a string (S)` for
//! a u128 stored as `S`. Ground truth: items another program wrote on
//! dynalite, and `get_record`'s refusal of each.

#![cfg(feature = "dynamodb")]

mod common;

use common::cli::{document, on_dynamodb};
use common::dynalite;
use keyschema::store::dynamodb::sdk::types::AttributeValue;
use keyschema::store::AsyncRecordStore;
use keyschema::RowKey;

/// A meter's reading: an f32, a u128 and an f64.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(then = (meter), seq)]
struct Dial {
    meter: String,
    seq: u32,
    #[rowkey(value)]
    small: f32,
    #[rowkey(value)]
    big: u128,
    #[rowkey(value)]
    ratio: f64,
}

#[tokio::test]
async fn dynamodb_top_level_fields_are_worded_as_the_typed_read_words_them() {
    let store = dynalite::store::<Dial>("cli-dynamo-words").await;
    let n = |s: &str| AttributeValue::N(s.into());
    let s = |s: &str| AttributeValue::S(s.into());
    // Each item holds one field another program got wrong.
    let items: [(u32, &str, AttributeValue); 3] = [
        (1, "small", n("1000000000000000000000000000000000000000")),
        (2, "big", s("ffff")),
        (3, "ratio", s("1.5")),
    ];
    let dir = tempfile::tempdir().expect("temp dir");
    let doc = document::<Dial>(dir.path());
    for (seq, field, bad) in items {
        let key = Dial::get_key("m", seq);
        let (pk, sk) = Dial::schema().split_key(&key).expect("a key");
        let mut put = store
            .client()
            .put_item()
            .table_name(store.table())
            .item("pk", AttributeValue::B(pk.to_vec().into()))
            .item("sk", AttributeValue::B(sk.to_vec().into()))
            .item("meter", s("m"))
            .item("seq", n(&seq.to_string()));
        for (name, good) in [("small", n("1.5")), ("big", n("5")), ("ratio", n("2.5"))] {
            put = put.item(name, if name == field { bad.clone() } else { good });
        }
        put.send().await.expect("put");
        let typed = store
            .get_record::<Dial>(&key)
            .await
            .expect_err("the typed read refuses it")
            .to_string();
        let words = typed
            .split_once("does not read as its declared type: ")
            .map_or(typed.as_str(), |(_, detail)| detail);
        let (code, stdout, stderr) = on_dynamodb(
            &doc,
            store.table(),
            &["get", "meter=m", &format!("seq={seq}")],
        );
        assert_eq!(code, 1, "{stdout}{stderr}");
        let said: Vec<&str> = stderr.lines().filter(|l| l.contains(field)).collect();
        assert!(
            said.len() == 1 && said[0].ends_with(words),
            "`{field}`: the typed read says {typed:?}; the tool said {stderr}"
        );
    }
}
