//! Whole rows on DynamoDB, against a real DynamoDB-API server (dynalite, or
//! DynamoDB Local in CI): each value field its own attribute in DynamoDB's
//! types, each key field readable beside it, key attribute names of the
//! user's choice, items other programs wrote read by field name, and the
//! values DynamoDB cannot hold refused before anything is sent.
#![cfg(feature = "dynamodb")]

mod common;

use common::dynalite::{endpoint, fresh_table, store};
use common::rows::{invoice_lines, ledger, Ledger};
use futures_util::StreamExt;
use keyschema::record::ValueError;
use keyschema::store::dynamodb::sdk::primitives::Blob;
use keyschema::store::dynamodb::sdk::types::AttributeValue;
use keyschema::store::dynamodb::{DynamoError, DynamoStore, ItemShape};
use keyschema::store::{AsyncRecordStore, RowError};
use keyschema::RowKey;
use std::collections::HashMap;

/// The item under `row`'s key as DynamoDB holds it, read with the SDK.
async fn raw_item(store: &DynamoStore, key: &[u8]) -> HashMap<String, AttributeValue> {
    let (pk, sk) = Ledger::schema().split_key(key).expect("a key");
    let shape = store.shape();
    store
        .client()
        .get_item()
        .table_name(store.table())
        .key(&shape.partition_key, AttributeValue::B(Blob::new(pk)))
        .key(&shape.sort_key, AttributeValue::B(Blob::new(sk)))
        .send()
        .await
        .expect("GetItem")
        .item
        .expect("the item")
}

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.into())
}

fn n(v: &str) -> AttributeValue {
    AttributeValue::N(v.into())
}

#[tokio::test]
async fn a_whole_row_is_one_attribute_per_field_in_dynamodbs_types() {
    let store = store::<Ledger>("rows").await;
    let line = ledger("INV-1", 2);
    store.put_record(&line).await.expect("put");
    let item = raw_item(&store, &line.encode()).await;
    let mut names: Vec<&str> = item.keys().map(String::as_str).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "address",
            "amount",
            "approved_by",
            "counts",
            "invoice_id",
            "line_no",
            "memo",
            "paid",
            "pk",
            "ratio",
            "sk",
            "status",
            "tags"
        ],
        "no `v`: the value fields and the key fields, each its own attribute; `note: None` has none (a GSI over it is sparse)"
    );
    assert_eq!(item["amount"], n("1000"));
    assert_eq!(item["memo"], s("rent 2"));
    assert_eq!(item["ratio"], n("0.25"));
    assert_eq!(item["paid"], AttributeValue::Bool(true));
    assert_eq!(
        item["tags"],
        AttributeValue::L(vec![s("home"), s("monthly")])
    );
    assert_eq!(
        item["address"],
        AttributeValue::M(HashMap::from([
            ("city".to_string(), s("Oslo")),
            ("zip".to_string(), AttributeValue::Null(true)),
        ]))
    );
    assert_eq!(
        item["status"],
        AttributeValue::M(HashMap::from([(
            "Paid".to_string(),
            AttributeValue::M(HashMap::from([("on".to_string(), n("1700000000"))]))
        )]))
    );
    assert!(!item.contains_key("note"));
    assert_eq!(
        item["counts"],
        AttributeValue::M(HashMap::from([("views".to_string(), n("3"))]))
    );
    // The key fields, readable by a filter expression or a GSI.
    assert_eq!(item["invoice_id"], s("INV-1"));
    assert_eq!(item["line_no"], n("2"));

    // Read back whole: get, and the typed scan.
    let key = Ledger::get_key("INV-1", 2);
    assert_eq!(
        store.get_record::<Ledger>(&key).await.expect("get"),
        Some(line.clone())
    );
    let more: Vec<Ledger> = (1..=4).map(|l| ledger("INV-1", l)).collect();
    store.put_records(&more).await.expect("put many");
    let rows = invoice_lines(&store, "INV-1").await;
    assert_eq!(rows, more);
    // A replace writes the row whole again: no attribute of the old one stays.
    let mut changed = ledger("INV-1", 1);
    changed.note = None;
    changed.memo = "changed".into();
    store.replace_record(&changed).await.expect("replace");
    let key = Ledger::get_key("INV-1", 1);
    assert_eq!(
        store.get_record::<Ledger>(&key).await.expect("get"),
        Some(changed)
    );
    assert!(!raw_item(&store, &key).await.contains_key("note"));
}

#[tokio::test]
async fn key_attribute_names_and_key_field_attributes_are_the_users_choice() {
    let table = fresh_table("shape");
    let shape = ItemShape::default()
        .key_attributes("PK", "SK")
        .key_fields(false);
    let store = DynamoStore::connect_local::<Ledger>(&endpoint(), &table)
        .expect("a store")
        .with_shape(shape)
        .expect("a shape");
    assert!(store.create_table().await.expect("create"));
    let line = ledger("INV-2", 1);
    store.put_record(&line).await.expect("put");
    let item = raw_item(&store, &line.encode()).await;
    assert!(
        item.contains_key("PK") && item.contains_key("SK"),
        "{item:?}"
    );
    assert!(
        !item.contains_key("pk") && !item.contains_key("invoice_id"),
        "{item:?}"
    );
    assert_eq!(
        store
            .get_record::<Ledger>(&line.encode())
            .await
            .expect("get"),
        Some(line)
    );
    // The same table through the default shape: its key is another's.
    let default = DynamoStore::connect_local::<Ledger>(&endpoint(), &table).expect("a store");
    let message = default
        .check_table()
        .await
        .expect_err("a mismatch")
        .to_string();
    assert!(
        message.contains("PK HASH B") && message.contains("ItemShape"),
        "{message}"
    );
    // A key attribute named as a field stored beside it.
    let clash = DynamoStore::connect_local::<Ledger>(&endpoint(), &table)
        .expect("a store")
        .with_shape(ItemShape::default().key_attributes("memo", "SK"));
    let message = clash.expect_err("a clash").to_string();
    assert!(
        message.contains("partition-key attribute `memo` has the name of a value field"),
        "{message}"
    );
    let clash = DynamoStore::connect_local::<Ledger>(&endpoint(), &table)
        .expect("a store")
        .with_shape(ItemShape::default().key_attributes("line_no", "SK"));
    let message = clash.expect_err("a clash").to_string();
    assert!(message.contains("key_fields(false)"), "{message}");
}

#[tokio::test]
async fn an_item_another_program_wrote_reads_by_field_name() {
    let store = store::<Ledger>("foreign-rows").await;
    let put = |line_no: u16, attributes: Vec<(&'static str, AttributeValue)>| {
        let store = store.clone();
        async move {
            let key = Ledger::get_key("INV-3", line_no);
            let (pk, sk) = Ledger::schema().split_key(&key).expect("a key");
            let mut request = store
                .client()
                .put_item()
                .table_name(store.table())
                .item("pk", AttributeValue::B(Blob::new(pk)))
                .item("sk", AttributeValue::B(Blob::new(sk)));
            for (name, value) in attributes {
                request = request.item(name, value);
            }
            request.send().await.expect("PutItem");
        }
    };
    let fields = || {
        vec![
            ("amount", n("12.0")),
            ("ratio", n("1")),
            ("paid", AttributeValue::Bool(false)),
            ("tags", AttributeValue::Ss(vec!["a".into()])),
            (
                "address",
                AttributeValue::M(HashMap::from([("city".into(), s("Rome"))])),
            ),
            ("status", s("Open")),
            ("counts", AttributeValue::M(HashMap::new())),
            ("color", s("an attribute keyschema does not know")),
        ]
    };
    // Line 1: every required field (`note` and `approved_by` missing), an
    // unknown attribute, a string set, and numbers as another SDK writes them.
    let mut first = fields();
    first.push(("memo", s("by hand")));
    put(1, first).await;
    // Line 2: `memo` missing, which the struct requires.
    put(2, fields()).await;
    store.put_record(&ledger("INV-3", 3)).await.expect("put");

    let got = store
        .get_record::<Ledger>(&Ledger::get_key("INV-3", 1))
        .await
        .expect("a row");
    let got = got.expect("present");
    assert_eq!(
        (got.memo.as_str(), got.amount, got.ratio),
        ("by hand", 12, 1.0)
    );
    assert_eq!(
        (got.note, got.approved_by, got.tags),
        (None, String::new(), vec!["a".to_string()])
    );
    assert_eq!(got.address.city, "Rome");

    match store
        .get_record::<Ledger>(&Ledger::get_key("INV-3", 2))
        .await
    {
        Err(RowError::Value { key, source, .. }) => {
            assert_eq!(source, ValueError::Missing { field: "memo" });
            assert_eq!(key, Ledger::get_key("INV-3", 2));
        }
        other => panic!("expected a missing field, got {other:?}"),
    }
    // The scan reports line 2 and reads on.
    let items: Vec<_> = Ledger::scan()
        .invoice_id("INV-3")
        .request()
        .stream(&store)
        .records()
        .collect()
        .await;
    let lines: Vec<Option<u16>> = items
        .iter()
        .map(|i| i.as_ref().ok().map(|l| l.line_no))
        .collect();
    assert_eq!(lines, [Some(1), None, Some(3)]);
    let error = items[1].as_ref().expect_err("line 2").to_string();
    assert!(error.contains("`memo` is missing"), "{error}");
}

#[tokio::test]
async fn values_dynamodb_cannot_hold_are_refused_before_anything_is_sent() {
    let store = store::<Ledger>("limits").await;
    let refused = |line: Ledger| {
        let store = store.clone();
        async move {
            let key = line.encode();
            let error = store.put_record(&line).await.expect_err("refused");
            assert_eq!(
                store.get_record::<Ledger>(&key).await.expect("get"),
                None,
                "nothing was written"
            );
            error
        }
    };
    for ratio in [f64::NAN, f64::INFINITY, 1e300] {
        let mut line = ledger("INV-4", 1);
        line.ratio = ratio;
        match refused(line).await {
            RowError::Store(DynamoError::Attribute { field, message, .. }) => {
                assert_eq!(field, "ratio");
                assert!(message.contains("DynamoDB"), "{message}");
            }
            other => panic!("expected an attribute error, got {other:?}"),
        }
    }
    let mut line = ledger("INV-4", 2);
    line.counts = (0..1).map(|_| (String::new(), 1)).collect();
    let message = refused(line).await.to_string();
    assert!(message.contains("empty map key"), "{message}");
    // 400 KB in all: the names and the values counted.
    let mut line = ledger("INV-4", 3);
    line.memo = "x".repeat(400 * 1024);
    let message = refused(line).await.to_string();
    assert!(
        message.contains("above DynamoDB's limit of 409600 bytes"),
        "{message}"
    );
}

#[tokio::test]
async fn raw_bytes_for_a_key_type_with_value_fields_are_refused() {
    let store = store::<Ledger>("raw-on-rows").await;
    let line = ledger("INV-5", 1);
    match store.put_row(&line, b"not a field map").await {
        Err(DynamoError::NotFields { schema, .. }) => assert_eq!(schema, "Ledger"),
        other => panic!("expected NotFields, got {other:?}"),
    }
    assert_eq!(
        store
            .get_record::<Ledger>(&line.encode())
            .await
            .expect("get"),
        None,
        "nothing was written"
    );
}

/// The ledger line as an older version of the program declared it: a
/// field since removed (`legacy`), the fields in another order, none of
/// the ones added since.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(then = (invoice_id), line_no)]
struct LedgerV1 {
    invoice_id: String,
    line_no: u16,
    #[rowkey(value)]
    memo: String,
    #[rowkey(value)]
    legacy: u32,
    #[rowkey(value)]
    amount: i64,
}

/// The next version: `legacy` dropped, `note` and `approved_by` added.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(then = (invoice_id), line_no)]
struct LedgerV2 {
    invoice_id: String,
    line_no: u16,
    #[rowkey(value)]
    amount: i64,
    #[rowkey(value)]
    note: Option<String>,
    #[rowkey(value)]
    memo: String,
    #[rowkey(value, default)]
    approved_by: String,
}

#[tokio::test]
async fn items_an_older_struct_wrote_read_with_the_next() {
    let table = fresh_table("evolve");
    let v1 = DynamoStore::connect_local::<LedgerV1>(&endpoint(), &table).expect("a store");
    v1.create_table().await.expect("create");
    let old = LedgerV1 {
        invoice_id: "INV-9".into(),
        line_no: 1,
        memo: "from v1".into(),
        legacy: 7,
        amount: 300,
    };
    v1.put_record(&old).await.expect("put v1");
    let v2 = DynamoStore::connect_local::<LedgerV2>(&endpoint(), &table).expect("a store");
    let read = v2
        .get_record::<LedgerV2>(&old.encode())
        .await
        .expect("get v2")
        .expect("stored");
    assert_eq!(
        read,
        LedgerV2 {
            invoice_id: "INV-9".into(),
            line_no: 1,
            amount: 300,
            note: None,
            memo: "from v1".into(),
            approved_by: String::new(),
        }
    );
    // And back: v1 reads what v2 wrote, its removed field named as missing.
    v2.put_record(&read).await.expect("put v2");
    match v1.get_record::<LedgerV1>(&old.encode()).await {
        Err(RowError::Value { source, .. }) => {
            assert_eq!(source, ValueError::Missing { field: "legacy" })
        }
        other => panic!("v1 needs `legacy`: {other:?}"),
    }
}

/// The line before it had value fields, and after, with value fields that
/// all may be missing.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(then = (invoice_id), line_no)]
struct LineRaw {
    invoice_id: String,
    line_no: u16,
}

#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(then = (invoice_id), line_no)]
struct LineSoft {
    invoice_id: String,
    line_no: u16,
    #[rowkey(value)]
    note: Option<String>,
    #[rowkey(value, default)]
    count: u32,
}

/// An item `put_row` wrote before the key type had value fields is an
/// error for the whole-row type, by get and by scan, never a row of
/// defaults (every field of `LineSoft` may be missing).
#[tokio::test]
async fn a_raw_item_is_not_read_as_a_row_of_defaults() {
    let table = fresh_table("raw-then-rows");
    let raw = DynamoStore::connect_local::<LineRaw>(&endpoint(), &table).expect("store");
    assert!(raw.create_table().await.expect("create"));
    let line = LineRaw {
        invoice_id: "INV-9".into(),
        line_no: 1,
    };
    raw.put_row(&line, b"old payload").await.expect("put_row");
    let soft = DynamoStore::connect_local::<LineSoft>(&endpoint(), &table).expect("store");
    match soft.get_record::<LineSoft>(&line.encode()).await {
        Err(RowError::Store(DynamoError::RawValue { .. })) => {}
        other => panic!("expected RawValue, got {other:?}"),
    }
    let scanned: Vec<_> = LineSoft::scan()
        .invoice_id("INV-9")
        .request()
        .stream(&soft)
        .records()
        .collect()
        .await;
    assert_eq!(scanned.len(), 1);
    let message = scanned[0].as_ref().expect_err("an error item").to_string();
    assert!(message.contains("holds a raw value"), "{message}");
}

/// A `None` value field has no attribute, so a GSI over it is sparse:
/// DynamoDB refuses `NULL` as an index key, and the write used to fail.
#[tokio::test]
async fn a_gsi_over_an_optional_value_field_is_sparse() {
    use keyschema::store::dynamodb::sdk::types::{
        AttributeDefinition, GlobalSecondaryIndex, KeySchemaElement, KeyType, Projection,
        ProjectionType, ProvisionedThroughput, ScalarAttributeType,
    };
    let table = fresh_table("gsi-note");
    let store = DynamoStore::connect_local::<LineSoft>(&endpoint(), &table).expect("store");
    let attribute = |name: &str, ty| {
        AttributeDefinition::builder()
            .attribute_name(name)
            .attribute_type(ty)
            .build()
            .expect("attribute")
    };
    let key = |name: &str, ty| {
        KeySchemaElement::builder()
            .attribute_name(name)
            .key_type(ty)
            .build()
            .expect("key")
    };
    let throughput = ProvisionedThroughput::builder()
        .read_capacity_units(5)
        .write_capacity_units(5)
        .build()
        .expect("throughput");
    store
        .client()
        .create_table()
        .table_name(&table)
        .attribute_definitions(attribute("pk", ScalarAttributeType::B))
        .attribute_definitions(attribute("sk", ScalarAttributeType::B))
        .attribute_definitions(attribute("note", ScalarAttributeType::S))
        .key_schema(key("pk", KeyType::Hash))
        .key_schema(key("sk", KeyType::Range))
        .global_secondary_indexes(
            GlobalSecondaryIndex::builder()
                .index_name("by_note")
                .key_schema(key("note", KeyType::Hash))
                .projection(
                    Projection::builder()
                        .projection_type(ProjectionType::KeysOnly)
                        .build(),
                )
                .provisioned_throughput(throughput.clone())
                .build()
                .expect("gsi"),
        )
        .provisioned_throughput(throughput)
        .send()
        .await
        .expect("CreateTable with a GSI on note");
    // The table and its GSI are CREATING for a moment: writes wait.
    for _ in 0..200 {
        let described = store
            .client()
            .describe_table()
            .table_name(&table)
            .send()
            .await
            .expect("DescribeTable");
        let t = described.table().expect("a table");
        let active = t.table_status()
            == Some(&keyschema::store::dynamodb::sdk::types::TableStatus::Active)
            && t.global_secondary_indexes().iter().all(|g| {
                g.index_status()
                    == Some(&keyschema::store::dynamodb::sdk::types::IndexStatus::Active)
            });
        if active {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    let rows: Vec<LineSoft> = (0..4)
        .map(|n| LineSoft {
            invoice_id: "INV-3".into(),
            line_no: n,
            note: (n % 2 == 0).then(|| "check".to_string()),
            count: u32::from(n),
        })
        .collect();
    store
        .put_records(&rows)
        .await
        .expect("puts, None notes included");
    for row in &rows {
        let got = store.get_record::<LineSoft>(&row.encode()).await;
        assert_eq!(got.expect("get").as_ref(), Some(row));
    }
    let indexed = store
        .client()
        .scan()
        .table_name(&table)
        .index_name("by_note")
        .send()
        .await
        .expect("Scan the GSI");
    assert_eq!(indexed.count(), 2, "only the rows with a note");
}
