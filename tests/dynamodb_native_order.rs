//! The order question of native DynamoDB indexes (issue 41): for each
//! component type whose value a DynamoDB attribute can hold as `N`, `S` or
//! `B`, does DynamoDB's order of those attributes in a multi-attribute GSI
//! equal the order keyschema declares (the order of the encoded keys)?
//! Random values, negative numbers, `-0.0`, long strings sharing prefixes,
//! bytes with 0x00 and 0xFF, every `char` plane.
//!
//! The answer decides which types a native index keeps in their own
//! attributes and which keep the encoded form; these tests are the
//! evidence for that list (docs/ENCODING.md, "Indexes on DynamoDB").
//!
//! They need a server with multi-attribute GSI keys (DynamoDB Local 3.3 or
//! later; dynalite's CreateTable takes two key entries), so they are
//! ignored in the README's test command and `.ci/dynamodb-local` runs them
//! with `--include-ignored`, failing when any of them did not run.
#![cfg(feature = "dynamodb")]

mod common;

use common::dynalite::{endpoint, fresh_table};
use keyschema::store::dynamodb::sdk::types::{
    AttributeDefinition, AttributeValue, BillingMode, GlobalSecondaryIndex, KeySchemaElement,
    KeyType, Projection, ProjectionType, ScalarAttributeType,
};
use keyschema::store::dynamodb::DynamoStore;
use keyschema::RowKey;
use proptest::prelude::*;
use proptest::test_runner::TestRunner;
use std::collections::HashMap;

/// A table whose GSI `ByV` has the HASH attributes `g` and `h` (both `S`,
/// constant) and the RANGE attributes `v` (of `ty`) and `n` (`N`, the
/// value's place in the input, so equal values keep an order).
async fn table(ty: ScalarAttributeType) -> (keyschema::store::dynamodb::sdk::Client, String) {
    let client = DynamoStore::local_client(&endpoint());
    let table = fresh_table("native-order");
    let attribute = |name: &str, ty: ScalarAttributeType| {
        AttributeDefinition::builder()
            .attribute_name(name)
            .attribute_type(ty)
            .build()
            .expect("an attribute")
    };
    let key = |name: &str, kind: KeyType| {
        KeySchemaElement::builder()
            .attribute_name(name)
            .key_type(kind)
            .build()
            .expect("a key element")
    };
    let gsi = GlobalSecondaryIndex::builder()
        .index_name("ByV")
        .key_schema(key("g", KeyType::Hash))
        .key_schema(key("h", KeyType::Hash))
        .key_schema(key("v", KeyType::Range))
        .key_schema(key("n", KeyType::Range))
        .projection(
            Projection::builder()
                .projection_type(ProjectionType::KeysOnly)
                .build(),
        )
        .build()
        .expect("a GSI");
    client
        .create_table()
        .table_name(&table)
        .billing_mode(BillingMode::PayPerRequest)
        .attribute_definitions(attribute("id", ScalarAttributeType::N))
        .attribute_definitions(attribute("g", ScalarAttributeType::S))
        .attribute_definitions(attribute("h", ScalarAttributeType::S))
        .attribute_definitions(attribute("v", ty))
        .attribute_definitions(attribute("n", ScalarAttributeType::N))
        .key_schema(key("id", KeyType::Hash))
        .global_secondary_indexes(gsi)
        .send()
        .await
        .expect("a table with a multi-attribute GSI");
    (client, table)
}

/// The places of `values` (attributes) in the GSI's order.
async fn gsi_order(ty: ScalarAttributeType, values: &[AttributeValue]) -> Vec<usize> {
    let (client, table) = table(ty).await;
    for (n, v) in values.iter().enumerate() {
        client
            .put_item()
            .table_name(&table)
            .item("id", AttributeValue::N(n.to_string()))
            .item("g", AttributeValue::S("g".into()))
            .item("h", AttributeValue::S("h".into()))
            .item("v", v.clone())
            .item("n", AttributeValue::N(n.to_string()))
            .send()
            .await
            .expect("a put");
    }
    let mut order = Vec::new();
    let mut start: Option<HashMap<String, AttributeValue>> = None;
    loop {
        let page = client
            .query()
            .table_name(&table)
            .index_name("ByV")
            .key_condition_expression("g = :g AND h = :h")
            .expression_attribute_values(":g", AttributeValue::S("g".into()))
            .expression_attribute_values(":h", AttributeValue::S("h".into()))
            .set_exclusive_start_key(start.take())
            .send()
            .await
            .expect("a query");
        for item in page.items() {
            let n = item.get("n").and_then(|v| v.as_n().ok()).expect("n");
            order.push(n.parse().expect("a place"));
        }
        match page.last_evaluated_key() {
            Some(key) => start = Some(key.clone()),
            None => break,
        }
    }
    order
}

/// The places of `keys` in keyschema's declared order (the encoded keys'
/// byte order), ties by place.
fn declared_order(keys: &[Vec<u8>]) -> Vec<usize> {
    let mut places: Vec<usize> = (0..keys.len()).collect();
    places.sort_by(|&a, &b| keys[a].cmp(&keys[b]).then(a.cmp(&b)));
    places
}

/// Checks, over random inputs of `strategy`, that DynamoDB orders the
/// attributes as keyschema orders the keys.
fn same_order<T: std::fmt::Debug + Clone>(
    strategy: impl Strategy<Value = Vec<T>>,
    ty: ScalarAttributeType,
    attribute: impl Fn(&T) -> AttributeValue,
    key: impl Fn(&T) -> Vec<u8>,
) {
    let rt = tokio::runtime::Runtime::new().expect("a runtime");
    let mut runner = TestRunner::new(ProptestConfig {
        cases: 6,
        failure_persistence: None,
        ..ProptestConfig::default()
    });
    runner
        .run(&strategy, |values| {
            let attributes: Vec<AttributeValue> = values.iter().map(&attribute).collect();
            let keys: Vec<Vec<u8>> = values.iter().map(&key).collect();
            let got = rt.block_on(gsi_order(ty.clone(), &attributes));
            let want = declared_order(&keys);
            prop_assert_eq!(&got, &want, "values {:?}", values);
            Ok(())
        })
        .expect("DynamoDB's order is the declared order");
}

#[derive(RowKey)]
#[rowkey(then = v)]
struct I64 {
    v: i64,
}

#[derive(RowKey)]
#[rowkey(then = v)]
struct U64 {
    v: u64,
}

#[derive(RowKey)]
#[rowkey(then = rev(v))]
struct RevU64 {
    v: u64,
}

#[derive(RowKey)]
#[rowkey(then = v)]
struct Text {
    v: String,
}

#[derive(RowKey)]
#[rowkey(then = v)]
struct Bytes {
    v: Vec<u8>,
}

#[derive(RowKey)]
#[rowkey(then = v)]
struct Char {
    v: char,
}

#[derive(RowKey)]
#[rowkey(then = v)]
struct Id {
    v: uuid::Uuid,
}

#[derive(RowKey)]
#[rowkey(then = v)]
struct F64 {
    v: f64,
}

fn ints() -> impl Strategy<Value = i64> {
    prop_oneof![
        any::<i64>(),
        -1000i64..1000,
        Just(i64::MIN),
        Just(i64::MAX),
        Just(0),
        Just(-1)
    ]
}

fn texts() -> impl Strategy<Value = String> {
    // Long strings sharing prefixes, every plane, 0x00 and control bytes.
    let piece = prop_oneof![
        Just("a".to_string()),
        Just("ab".to_string()),
        Just("\u{0}".to_string()),
        Just("\u{7f}".to_string()),
        Just("é".to_string()),
        Just("\u{ffff}".to_string()),
        Just("\u{10000}".to_string()),
        Just("z".repeat(300)),
        "\\PC{0,4}",
    ];
    // DynamoDB refuses an empty string (or binary) as an index key value:
    // a native index refuses to write one (tested with the stores).
    prop::collection::vec(piece, 1..4)
        .prop_map(|p| p.concat())
        .prop_filter("a GSI key is never empty", |s| !s.is_empty())
}

#[test]
#[ignore = "needs multi-attribute GSI keys (DynamoDB Local 3.3): .ci/dynamodb-local runs it"]
fn integers_as_n_sort_as_declared() {
    same_order(
        prop::collection::vec(ints(), 2..40),
        ScalarAttributeType::N,
        |v| AttributeValue::N(v.to_string()),
        |v| I64::get_key(*v),
    );
    same_order(
        prop::collection::vec(prop_oneof![any::<u64>(), Just(u64::MAX), 0u64..100], 2..40),
        ScalarAttributeType::N,
        |v| AttributeValue::N(v.to_string()),
        |v| U64::get_key(*v),
    );
}

#[test]
#[ignore = "needs multi-attribute GSI keys (DynamoDB Local 3.3): .ci/dynamodb-local runs it"]
fn rev_integers_as_negated_n_sort_as_declared() {
    // `rev(v)` as an attribute of its own holding `-v`: an `N` of 20
    // digits at most, so DynamoDB's 38 hold every u64 negated.
    same_order(
        prop::collection::vec(prop_oneof![any::<u64>(), Just(u64::MAX), 0u64..100], 2..40),
        ScalarAttributeType::N,
        |v| AttributeValue::N(if *v == 0 { "0".into() } else { format!("-{v}") }),
        |v| RevU64::get_key(*v),
    );
}

#[test]
#[ignore = "needs multi-attribute GSI keys (DynamoDB Local 3.3): .ci/dynamodb-local runs it"]
fn strings_and_chars_as_s_sort_as_declared() {
    same_order(
        prop::collection::vec(texts(), 2..30),
        ScalarAttributeType::S,
        |v| AttributeValue::S(v.clone()),
        |v| Text::get_key(v),
    );
    same_order(
        prop::collection::vec(any::<char>(), 2..40),
        ScalarAttributeType::S,
        |v| AttributeValue::S(v.to_string()),
        |v| Char::get_key(*v),
    );
    same_order(
        prop::collection::vec(any::<u128>().prop_map(uuid::Uuid::from_u128), 2..30),
        ScalarAttributeType::S,
        |v| AttributeValue::S(v.hyphenated().to_string()),
        |v| Id::get_key(*v),
    );
}

#[test]
#[ignore = "needs multi-attribute GSI keys (DynamoDB Local 3.3): .ci/dynamodb-local runs it"]
fn bytes_as_b_sort_as_declared() {
    let bytes = prop::collection::vec(
        prop_oneof![
            Just(0u8),
            Just(1),
            Just(0x7f),
            Just(0x80),
            Just(0xff),
            any::<u8>()
        ],
        1..8,
    );
    same_order(
        prop::collection::vec(bytes, 2..30),
        ScalarAttributeType::B,
        |v| AttributeValue::B(v.clone().into()),
        |v| Bytes::get_key(v),
    );
}

/// Floats do not: DynamoDB's numbers have no `-0.0` (it ties with `0.0`,
/// which the declared order puts after it), and NaN and the infinities
/// have no `N` at all, so a float keeps the encoded form.
#[test]
#[ignore = "needs multi-attribute GSI keys (DynamoDB Local 3.3): .ci/dynamodb-local runs it"]
fn floats_as_n_do_not_sort_as_declared() {
    let rt = tokio::runtime::Runtime::new().expect("a runtime");
    // 0.0 written first, -0.0 second: DynamoDB ties them and keeps the
    // place order; keyschema puts -0.0 first.
    let values = [0.0f64, -0.0];
    let attributes: Vec<AttributeValue> = values
        .iter()
        .map(|v| AttributeValue::N(format!("{v}")))
        .collect();
    let keys: Vec<Vec<u8>> = values.iter().map(|v| F64::get_key(*v)).collect();
    let got = rt.block_on(gsi_order(ScalarAttributeType::N, &attributes));
    assert_eq!(got, vec![0, 1]);
    assert_eq!(declared_order(&keys), vec![1, 0]);
}

/// The rows of `request`, through the library's own index scan.
async fn scanned<I: keyschema::Index>(
    request: keyschema::ScanRequest<I>,
    store: &DynamoStore,
) -> Vec<I::Row> {
    use futures_util::StreamExt;
    let mut rows = request.stream_rows(store);
    let mut out = Vec::new();
    while let Some(row) = rows.next().await {
        out.push(row.expect("a row"));
    }
    out
}

/// For a component type: a row type whose native index `Asc` is over
/// `(g), v, id` (and, with `rev`, `Desc` over `(g), rev(v), id`), written
/// on DynamoDB Local and scanned by the library, each case's values under
/// a partition `g` of its own; the scan's order must be the type's own
/// `Ord` (ties by `id`), and `Desc`'s its reverse: ground truth that does
/// not go through the encoding.
macro_rules! scanned_in_order {
    ($test:ident, $m:ident, $ty:ty, $values:expr $(, $rev:ident)?) => {
        #[allow(dead_code)]
        mod $m {
            #[derive(keyschema::RowKey, Debug, Clone, PartialEq)]
            #[rowkey(
                prefix = "r",
                then = (id), v,
                index(Asc, prefix = "a", then = (g), v, id, dynamodb = native)
                $(, index(Desc, prefix = "d", then = (g), $rev(v), id, dynamodb = native))?
            )]
            pub struct Row {
                pub id: u32,
                pub v: $ty,
                #[rowkey(value)]
                pub g: String,
            }
        }

        #[test]
        #[ignore = "needs multi-attribute GSI keys (DynamoDB Local 3.3): .ci/dynamodb-local runs it"]
        fn $test() {
            use keyschema::store::AsyncRecordStore;
            let rt = tokio::runtime::Runtime::new().expect("a runtime");
            let store = rt.block_on(async {
                let store = DynamoStore::connect_local::<$m::Row>(
                    &endpoint(),
                    &fresh_table("native-scan-order"),
                )
                .expect("a store");
                assert!(store.create_table().await.expect("create"));
                store
            });
            let mut runner = TestRunner::new(ProptestConfig {
                cases: 5,
                failure_persistence: None,
                ..ProptestConfig::default()
            });
            let case = std::cell::Cell::new(0u32);
            runner
                .run(&prop::collection::vec($values, 2..30), |values| {
                    let n = case.get();
                    case.set(n + 1);
                    let g = format!("g{n}");
                    let rows: Vec<$m::Row> = values
                        .iter()
                        .zip(0u32..)
                        .map(|(v, i)| $m::Row { id: n * 1000 + i, v: v.clone(), g: g.clone() })
                        .collect();
                    rt.block_on(store.put_records(&rows)).expect("put");
                    let mut want: Vec<($ty, u32)> =
                        rows.iter().map(|r| (r.v.clone(), r.id)).collect();
                    want.sort();
                    let got: Vec<($ty, u32)> = rt
                        .block_on(scanned($m::Asc::scan().g(g.as_str()).request(), &store))
                        .into_iter()
                        .map(|r| (r.v, r.id))
                        .collect();
                    prop_assert_eq!(&got, &want, "ascending");
                    $(
                        let _ = stringify!($rev);
                        want.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
                        let got: Vec<($ty, u32)> = rt
                            .block_on(scanned($m::Desc::scan().g(g.as_str()).request(), &store))
                            .into_iter()
                            .map(|r| (r.v, r.id))
                            .collect();
                        prop_assert_eq!(&got, &want, "rev");
                    )?
                    Ok(())
                })
                .expect("the library's index scan is in the declared order");
        }
    };
}

scanned_in_order!(u8_scans_in_order, row_u8, u8, any::<u8>(), rev);
scanned_in_order!(u16_scans_in_order, row_u16, u16, any::<u16>(), rev);
scanned_in_order!(u32_scans_in_order, row_u32, u32, any::<u32>(), rev);
scanned_in_order!(
    u64_scans_in_order,
    row_u64,
    u64,
    prop_oneof![any::<u64>(), Just(u64::MAX), 0u64..3],
    rev
);
scanned_in_order!(i8_scans_in_order, row_i8, i8, any::<i8>(), rev);
scanned_in_order!(i16_scans_in_order, row_i16, i16, any::<i16>(), rev);
scanned_in_order!(i32_scans_in_order, row_i32, i32, any::<i32>(), rev);
scanned_in_order!(i64_scans_in_order, row_i64, i64, ints(), rev);
scanned_in_order!(strings_scan_in_order, row_string, String, texts());
scanned_in_order!(chars_scan_in_order, row_char, char, any::<char>());
scanned_in_order!(
    uuids_scan_in_order,
    row_uuid,
    uuid::Uuid,
    any::<u128>().prop_map(uuid::Uuid::from_u128)
);
scanned_in_order!(
    byte_vecs_scan_in_order,
    row_bytes,
    Vec<u8>,
    prop::collection::vec(
        prop_oneof![Just(0u8), Just(0x7f), Just(0x80), Just(0xff), any::<u8>()],
        1..8
    )
);
scanned_in_order!(
    byte_arrays_scan_in_order,
    row_array,
    [u8; 4],
    any::<[u8; 4]>()
);
