//! Values where DynamoDB's own rules meet the rows (issue 40), on a real
//! DynamoDB-API server (dynalite here; DynamoDB Local in `.ci/run`):
//! a number DynamoDB normalises (`-0.0` comes back as `0`) in an index,
//! the item size as DynamoDB counts it (numbers by digit pairs, sign and
//! exponent), names that clash with the raw value's or a GSI's attribute,
//! and the text of a float's `N`.
#![cfg(feature = "dynamodb")]

mod common;

use common::dynalite::{endpoint, fresh_table, store};
use common::readings::{reading, ByCold, ByPeak, ByTemp, Reading};
use futures_util::StreamExt;
use keyschema::index::IndexBackfill;
use keyschema::store::dynamodb::sdk::types::AttributeValue;
use keyschema::store::dynamodb::{DynamoError, DynamoStore, ItemShape, MAX_ITEM};
use keyschema::store::{AsyncRecordStore, RowError};
use keyschema::RowKey;

async fn ids<I: keyschema::Index<Row = Reading>>(
    request: keyschema::ScanRequest<I>,
    store: &DynamoStore,
) -> (Vec<u16>, u64) {
    let mut rows = request.stream_rows(store);
    let mut ids = Vec::new();
    while let Some(row) = rows.next().await {
        ids.push(row.expect("a row").id);
    }
    (ids, rows.stale_entries())
}

#[tokio::test]
async fn an_indexed_negative_zero_is_read_through_every_index() {
    let store = store::<Reading>("neg-zero").await;
    // `(-0.4f64).round()` is `-0.0`: DynamoDB gives it back as `0`.
    let zero = (-0.4f64).round();
    assert!(zero.is_sign_negative());
    store
        .put_records(&[reading(1, zero), reading(2, 1.5), reading(3, -2.0)])
        .await
        .expect("put");
    for (index, (ids, stale)) in [
        (
            "ByTemp",
            ids(ByTemp::scan().zone("z").request(), &store).await,
        ),
        (
            "ByCold",
            ids(ByCold::scan().zone("z").request(), &store).await,
        ),
        (
            "ByPeak",
            ids(ByPeak::scan().zone("z").request(), &store).await,
        ),
    ] {
        assert_eq!((ids, stale), (vec![3, 1, 2], 0), "{index}");
    }
    // The row reads back as DynamoDB holds it: `0`, of either sign.
    let row = store
        .get_record::<Reading>(&Reading::get_key("z", 1))
        .await
        .expect("get")
        .expect("the row");
    assert_eq!((row.temp, row.cold, row.peak), (0.0, 0.0, Some(0.0)));
    // Every index verifies complete: no row missing, no entry stale.
    for verified in [
        IndexBackfill::<ByTemp>::new().verify_async(&store).await,
        IndexBackfill::<ByCold>::new().verify_async(&store).await,
        IndexBackfill::<ByPeak>::new().verify_async(&store).await,
    ] {
        let v = verified.expect("verify");
        assert!(v.matches() && v.stale == 0 && v.present == 3, "{v:?}");
    }
}

/// A row whose item size is mostly numbers.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(then = (id), n)]
struct Numbers {
    id: String,
    n: u32,
    #[rowkey(value)]
    memo: String,
    #[rowkey(value)]
    ints: Vec<i64>,
    #[rowkey(value)]
    floats: Vec<f64>,
}

fn numbers(n: u32, memo: usize, ints: Vec<i64>, floats: Vec<f64>) -> Numbers {
    Numbers {
        id: "size".into(),
        n,
        memo: "m".repeat(memo),
        ints,
        floats,
    }
}

fn is_item_limit(error: &RowError<DynamoError>) -> bool {
    matches!(
        error,
        RowError::Store(DynamoError::Limit { what: "item", .. })
    )
}

#[tokio::test]
async fn an_item_over_400_kb_by_dynamodbs_count_is_refused_before_it_is_sent() {
    let store = store::<Numbers>("item-size").await;
    // 110,000 x -1: 4 bytes each in a list (a negative number takes a
    // byte more), about 440 KB, though its text is 2 bytes a number.
    let row = numbers(1, 0, vec![-1; 110_000], vec![]);
    let error = store.put_record(&row).await.expect_err("refused");
    assert!(is_item_limit(&error), "{error}");
    let message = error.to_string();
    assert!(
        message.contains("above DynamoDB's limit of 409600 bytes") && message.contains("nothing"),
        "{message}"
    );
    // In a batch: the library refuses it, naming it, before any request,
    // so no row of the batch is written.
    let mut batch: Vec<Numbers> = (10..40).map(|n| numbers(n, 10, vec![1], vec![])).collect();
    batch[7] = numbers(17, 0, vec![-1; 110_000], vec![]);
    match store.put_records(&batch).await.expect_err("refused") {
        RowError::Store(DynamoError::Limit { index, what, .. }) => {
            assert_eq!((index, what), (7, "item"));
        }
        other => panic!("expected the item limit, got {other}"),
    }
    for row in &batch {
        let got = store
            .get_record::<Numbers>(&row.encode())
            .await
            .expect("get");
        assert_eq!(got, None, "row {} was not written", row.n);
    }
}

#[tokio::test]
async fn the_largest_item_the_library_sends_is_one_the_server_takes() {
    let store = store::<Numbers>("item-edge").await;
    // Numbers of every shape the count distinguishes: negative, odd and
    // even digit counts on odd and even exponents, decimals, exponents.
    let shapes: Vec<(Vec<i64>, Vec<f64>)> = vec![
        (vec![-1; 20_000], vec![]),
        (vec![12; 20_000], vec![]),
        (vec![-1234; 10_000], vec![1.5; 10_000]),
        (
            vec![i64::MIN, i64::MAX, 0, 10, 100, -99],
            vec![-0.25; 15_000],
        ),
        (
            vec![],
            vec![1e125, -1e-130, 1.2345678901234567e29, 0.001, 1e-7],
        ),
    ];
    for (n, (ints, floats)) in shapes.into_iter().enumerate() {
        let n = u32::try_from(n).expect("few");
        // The longest memo the library sends, by bisection: every memo
        // longer is refused by the library, this one must be taken.
        let (mut taken, mut refused) = (0usize, MAX_ITEM + 1);
        while refused - taken > 1 {
            let memo = (taken + refused) / 2;
            let row = numbers(n, memo, ints.clone(), floats.clone());
            match store.put_record(&row).await {
                Ok(()) => taken = memo,
                Err(e) if is_item_limit(&e) => refused = memo,
                Err(e) => {
                    panic!("shape {n}, memo {memo}: the server refused what the library sent: {e}")
                }
            }
        }
        let row = numbers(n, taken, ints, floats);
        store.put_record(&row).await.expect("the edge is taken");
        let got = store
            .get_record::<Numbers>(&row.encode())
            .await
            .expect("get");
        assert_eq!(got.as_ref().map(|r| r.memo.len()), Some(taken), "shape {n}");
    }
}

#[tokio::test]
async fn names_that_clash_with_the_raw_value_or_a_gsi_attribute_are_refused() {
    // A key field named `v` beside a raw value (no value fields).
    #[derive(RowKey)]
    #[rowkey(then = (k), v)]
    struct RawV {
        k: String,
        v: u32,
    }
    let Err(error) = DynamoStore::connect_local::<RawV>(&endpoint(), &fresh_table("clash-v"))
    else {
        panic!("a key field `v` beside a raw value is refused");
    };
    let message = error.to_string();
    assert!(matches!(error, DynamoError::Shape { .. }), "{message}");
    assert!(
        message.contains("key field `v`") && message.contains("raw value"),
        "{message}"
    );
    // The remedy it names works: key fields not attributes of their own.
    let store = DynamoStore::from_client_with::<RawV>(
        DynamoStore::local_client(&endpoint()),
        &fresh_table("clash-v"),
        ItemShape::default().key_fields(false),
    )
    .expect("a store without key-field attributes");
    assert!(store.create_table().await.expect("create"));
    store
        .put(&RawV::get_key("a", 1), b"raw")
        .await
        .expect("put");
    assert_eq!(
        store.get(&RawV::get_key("a", 1)).await.expect("get"),
        Some(b"raw".to_vec())
    );
    // A value field named like an index's GSI attribute.
    #[derive(RowKey)]
    #[allow(non_snake_case)]
    #[rowkey(prefix = "t", then = (k), n, index(ByTag, prefix = "i", then = (tag), k, n, dynamodb = encoded))]
    struct Tagged {
        k: String,
        n: u32,
        #[rowkey(value)]
        tag: String,
        #[rowkey(value)]
        ByTag_pk: String,
    }
    let Err(error) = DynamoStore::connect_local::<Tagged>(&endpoint(), &fresh_table("clash-gsi"))
    else {
        panic!("a value field named as a GSI attribute is refused");
    };
    let message = error.to_string();
    assert!(matches!(error, DynamoError::Shape { .. }), "{message}");
    assert!(
        message.contains("value field `ByTag_pk`") && message.contains("ByTag"),
        "{message}"
    );
}

#[tokio::test]
async fn floats_are_written_as_their_shortest_decimal_in_exponent_form_when_long() {
    let store = store::<Reading>("float-text").await;
    let cases = [
        (1, 1e125, "1e125"),
        (2, 1e-130, "1e-130"),
        (3, 1e38, "1e38"),
        (4, 123456789012345678901234567890.0, "1.2345678901234568e29"),
        (5, 0.25, "0.25"),
        (6, -0.0, "0"),
    ];
    for (id, t, _) in cases {
        let mut row = reading(id, t);
        row.cold = 0.9;
        store.put_record(&row).await.expect("put");
    }
    for (id, t, text) in cases {
        let key = Reading::get_key("z", id);
        let (pk, sk) = Reading::schema().split_key(&key).expect("a key");
        let item = store
            .client()
            .get_item()
            .table_name(store.table())
            .key("pk", AttributeValue::B(pk.to_vec().into()))
            .key("sk", AttributeValue::B(sk.to_vec().into()))
            .consistent_read(true)
            .send()
            .await
            .expect("get")
            .item
            .expect("the item");
        let n = item.get("temp").and_then(|v| v.as_n().ok()).expect("temp");
        // The server may rewrite the text (DynamoDB trims zeros; dynalite
        // writes every number plain, `1e125` as 126 digits): the value is
        // the same. What boto3 reads of it: `tests/interop_boto3.rs`.
        assert_eq!(n.parse::<f64>(), Ok(t), "{id}: {n} for {text}");
        let cold = item.get("cold").and_then(|v| v.as_n().ok()).expect("cold");
        assert_eq!(cold, "0.9", "an f32's own shortest form");
    }
}

/// DynamoDB's number range as its documentation states it ("Data types",
/// Number): positive 1E-130 to 9.9999999999999999999999999999999999999E+125,
/// negative the mirror, 38 significant digits.
const LARGEST: &str = "9.9999999999999999999999999999999999999E+125";

#[tokio::test]
async fn the_number_range_is_dynamodbs_to_the_last_storable_float() {
    let store = store::<Reading>("number-range").await;
    // The server's own range, on items the SDK writes: the documented ends
    // are taken, one step beyond them refused.
    let raw = |id: u16, text: &str| {
        let store = store.clone();
        let text = text.to_string();
        async move {
            let key = Reading::get_key("raw", id);
            let (pk, sk) = Reading::schema().split_key(&key).expect("a key");
            store
                .client()
                .put_item()
                .table_name(store.table())
                .item("pk", AttributeValue::B(pk.to_vec().into()))
                .item("sk", AttributeValue::B(sk.to_vec().into()))
                .item("temp", AttributeValue::N(text))
                .send()
                .await
        }
    };
    let minus = format!("-{LARGEST}");
    for (id, text) in [
        (1, LARGEST),
        (2, minus.as_str()),
        (3, "1E-130"),
        (4, "-1E-130"),
    ] {
        raw(id, text)
            .await
            .unwrap_or_else(|e| panic!("{text} is taken: {e:?}"));
    }
    for (id, text) in [(5, "1E+126"), (6, "-1E+126"), (7, "9E-131"), (8, "-9E-131")] {
        assert!(
            raw(id, text).await.is_err(),
            "{text} is refused by the server"
        );
    }
    // The floats at the ends of that range are written and read back.
    let largest = 1e126f64.next_down();
    let smallest = 1e-130f64;
    assert!(largest < 1e126 && format!("{largest:e}").parse::<f64>() == Ok(largest));
    let ends = [largest, -largest, smallest, -smallest];
    for (id, t) in (10..).zip(ends) {
        let mut row = reading(id, t);
        row.cold = 0.5;
        store
            .put_record(&row)
            .await
            .expect("an end of the range is taken");
        let got = store
            .get_record::<Reading>(&row.encode())
            .await
            .expect("get");
        assert_eq!(got.map(|r| (r.temp, r.peak)), Some((t, Some(t))), "{t:e}");
    }
    // One float beyond each end is refused before it is sent, in the
    // documentation's words.
    let beyond = [
        largest.next_up(),
        -largest.next_up(),
        smallest.next_down(),
        -smallest.next_down(),
    ];
    for (id, t) in (20..).zip(beyond) {
        let mut row = reading(id, 1.0);
        row.temp = t;
        match store.put_record(&row).await.expect_err("refused") {
            RowError::Store(DynamoError::Attribute { field, message, .. }) => {
                assert_eq!(field, "temp");
                assert!(
                    message.contains(&format!("{t:e}"))
                        && message.contains(
                            "positive 1E-130 to 9.9999999999999999999999999999999999999E+125"
                        )
                        && message.contains(
                            "negative -9.9999999999999999999999999999999999999E+125 to -1E-130"
                        ),
                    "{message}"
                );
            }
            other => panic!("expected an attribute error for {t:e}, got {other:?}"),
        }
        let got = store
            .get_record::<Reading>(&row.encode())
            .await
            .expect("get");
        assert_eq!(got, None, "nothing was written for {t:e}");
    }
}

/// A key field of bytes named `v`: its item holds a binary `v` attribute
/// (the field, written under its name), which is not a raw value written
/// by `put_row` before the type had value fields; the row reads back.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(prefix = "k", then = (id), v)]
pub struct BytesNamedV {
    pub id: u32,
    pub v: Vec<u8>,
    #[rowkey(value)]
    pub note: String,
}

#[tokio::test]
async fn a_key_field_of_bytes_named_v_is_not_read_as_a_raw_value() {
    let store = store::<BytesNamedV>("key-field-v").await;
    let row = BytesNamedV {
        id: 7,
        v: vec![0, 0xff, 3],
        note: "kept".into(),
    };
    store.put_record(&row).await.expect("put");
    let got = store
        .get_record::<BytesNamedV>(&row.encode())
        .await
        .expect("the row reads back");
    assert_eq!(got, Some(row));
}
