//! A store reads the table's GSIs again when what it read may be out of
//! date (issue 41, from a new user's trial): a form learned while the
//! index's GSI was absent is provisional, read again before an index
//! write or read once ten seconds have passed, and at once when the
//! server refuses a Query for its key schema (the read retried with the
//! table's forms, or refused as a `TableMismatch`); `check_table` reads
//! the table afresh. `item_for` refuses before the store has read the
//! table when the table decides an index's form, and a store of a schema
//! document that lists indexes refuses writes (they would leave the rows
//! out of the GSIs).
//!
//! They need a server with multi-attribute GSI keys (DynamoDB Local 3.3 or
//! later), so they are ignored in the README's test command and
//! `.ci/dynamodb-local` runs them with `--include-ignored`.
#![cfg(feature = "dynamodb")]

mod common;

use common::dynalite::{endpoint, fresh_table};
use common::native_table::visit;
use futures_util::StreamExt;
use keyschema::record::encode_values;
use keyschema::store::dynamodb::sdk::types::AttributeValue;
use keyschema::store::dynamodb::{DynamoError, DynamoStore, ItemShape};
use keyschema::store::{AsyncRecordStore, RowError};
use keyschema::{RowKey, Schema};
use std::collections::HashMap;

// The same visits: without the index; with `BySite` native by default
// (no `dynamodb = ...`), declared native, declared encoded; and `building`
// native by default and encoded.
#[allow(dead_code)]
mod bare {
    super::visit!();
}
#[allow(dead_code)]
mod cur {
    super::visit!(index(BySite, prefix = "s", then = (site), rev(ts), user));
}
#[allow(dead_code)]
mod nat {
    super::visit!(index(
        BySite,
        prefix = "s",
        then = (site),
        rev(ts),
        user,
        dynamodb = native
    ));
}
#[allow(dead_code)]
mod enc {
    super::visit!(index(
        BySite,
        prefix = "s",
        then = (site),
        rev(ts),
        user,
        dynamodb = encoded
    ));
}
#[allow(dead_code)]
mod cur_building {
    super::visit!(index(
        BySite,
        building,
        prefix = "s",
        then = (site),
        rev(ts),
        user
    ));
}
#[allow(dead_code)]
mod enc_building {
    super::visit!(index(
        BySite,
        building,
        prefix = "s",
        then = (site),
        rev(ts),
        user,
        dynamodb = encoded
    ));
}

macro_rules! visit_of {
    ($module:ident, $user:expr, $ts:expr) => {
        $module::Visit {
            user: $user.into(),
            ts: $ts,
            site: "a".into(),
            n: 7,
        }
    };
}

/// The users of `$module`'s `BySite` scan of site `a` through `$store`,
/// in its order, or the first error.
macro_rules! by_site {
    ($module:ident, $store:expr) => {
        async {
            let mut rows = $module::BySite::scan()
                .site("a")
                .request()
                .stream_rows($store);
            let mut users = Vec::new();
            while let Some(row) = rows.next().await {
                users.push(row?.user);
            }
            Ok::<Vec<String>, RowError<DynamoError>>(users)
        }
    };
}

/// The reason of a `TableMismatch`, or a panic naming what came instead.
fn mismatch<T: std::fmt::Debug>(result: Result<T, RowError<DynamoError>>) -> String {
    match result {
        Err(RowError::Store(DynamoError::TableMismatch { reason, .. })) => reason,
        other => panic!("wanted a TableMismatch, got {other:?}"),
    }
}

fn store<K: RowKey>(table: &str) -> DynamoStore {
    DynamoStore::connect_local::<K>(&endpoint(), table).expect("a store")
}

/// A fresh table made without the index.
async fn bare_table(name: &str) -> String {
    let table = fresh_table(name);
    assert!(store::<bare::Visit>(&table)
        .create_table()
        .await
        .expect("create"));
    table
}

/// The item stored under `key`, as the SDK reads it.
async fn raw_item(table: &str, key: &[u8]) -> HashMap<String, AttributeValue> {
    let s = store::<bare::Visit>(table);
    let (pk, sk) = bare::Visit::schema().split_key(key).expect("a key");
    s.client()
        .get_item()
        .table_name(table)
        .key("pk", AttributeValue::B(pk.to_vec().into()))
        .key("sk", AttributeValue::B(sk.to_vec().into()))
        .consistent_read(true)
        .send()
        .await
        .expect("get")
        .item()
        .cloned()
        .unwrap_or_default()
}

/// The attribute names of an item, sorted.
fn names(item: &HashMap<String, AttributeValue>) -> Vec<&str> {
    let mut names: Vec<&str> = item.keys().map(String::as_str).collect();
    names.sort_unstable();
    names
}

#[tokio::test]
#[ignore = "needs multi-attribute GSIs: DynamoDB Local 3.3 (.ci/dynamodb-local)"]
async fn a_query_refused_for_its_key_schema_reads_the_table_again() {
    let table = bare_table("reread-query").await;
    // `cur` reads the table before its put: no GSI yet, so native.
    let cur = store::<cur::Visit>(&table);
    cur.put_record(&visit_of!(cur, "u1", 1)).await.expect("put");
    // Another binary adds the GSI in the encoded form and writes its rows.
    let enc = store::<enc::Visit>(&table);
    assert_eq!(enc.add_indexes().await.expect("add"), ["BySite"]);
    for (user, ts) in [("u1", 1), ("u2", 2)] {
        enc.put_record(&visit_of!(enc, user, ts))
            .await
            .expect("put");
    }
    let want = by_site!(enc, &enc).await.expect("the encoded scan");
    assert_eq!(want, ["u2", "u1"]);
    // The open store's scan: the server refuses the native Query, the
    // store reads the table again and reads the encoded GSI.
    assert_eq!(by_site!(cur, &cur).await.expect("a scan"), want);
    assert!(!cur.index_forms()[0].1.is_native());
    assert!(cur.check_table().await.expect("the table fits"));
    // Its next put writes the encoded form: the row is in the GSI.
    cur.put_record(&visit_of!(cur, "u3", 3)).await.expect("put");
    let item = raw_item(&table, &visit_of!(cur, "u3", 3).encode()).await;
    assert!(item.contains_key("BySite_pk"), "{:?}", names(&item));
    assert_eq!(
        by_site!(enc, &enc).await.expect("a scan"),
        ["u3", "u2", "u1"]
    );
}

#[tokio::test]
#[ignore = "needs multi-attribute GSIs: DynamoDB Local 3.3 (.ci/dynamodb-local)"]
async fn check_table_reads_the_table_again_after_another_binary_adds_the_gsi() {
    for building in [false, true] {
        let table = bare_table("reread-check").await;
        let (open, other) = match building {
            false => (store::<cur::Visit>(&table), store::<enc::Visit>(&table)),
            true => (
                store::<cur_building::Visit>(&table),
                store::<enc_building::Visit>(&table),
            ),
        };
        // The open store checks the table: no GSI yet (building), or reads
        // it before a put.
        match building {
            false => cur_put(&open, "u1", 1).await,
            true => assert!(open.check_table().await.expect("fits")),
        }
        assert!(open.index_forms()[0].1.is_native());
        assert_eq!(other.add_indexes().await.expect("add"), ["BySite"]);
        // A fresh store accepts the table; so does the open one, which
        // reads it again and takes its form.
        assert!(store::<cur::Visit>(&table)
            .check_table()
            .await
            .expect("a fresh store fits"));
        assert!(open.check_table().await.expect("the open store fits"));
        assert!(!open.index_forms()[0].1.is_native(), "{building}");
    }
}

/// `cur`'s put of the visit of `user` at `ts` through `store`.
async fn cur_put(store: &DynamoStore, user: &str, ts: i64) {
    store
        .put_record(&visit_of!(cur, user, ts))
        .await
        .expect("put");
}

#[tokio::test]
#[ignore = "needs multi-attribute GSIs: DynamoDB Local 3.3 (.ci/dynamodb-local)"]
async fn a_form_read_without_its_gsi_is_read_again_before_a_write_after_ten_seconds() {
    let mut tables = Vec::new();
    for building in [false, true] {
        let table = bare_table("reread-write").await;
        let open = match building {
            false => store::<cur::Visit>(&table),
            true => store::<cur_building::Visit>(&table),
        };
        cur_put(&open, "u1", 1).await;
        let key = visit_of!(cur, "u1", 1).encode();
        assert!(raw_item(&table, &key).await.contains_key("BySite_ts_rev"));
        let other = match building {
            false => store::<enc::Visit>(&table),
            true => store::<enc_building::Visit>(&table),
        };
        assert_eq!(other.add_indexes().await.expect("add"), ["BySite"]);
        tables.push((table, open));
    }
    // The documented window: a reading without the GSI stands ten seconds.
    tokio::time::sleep(std::time::Duration::from_millis(10_500)).await;
    for (table, open) in &tables {
        cur_put(open, "u2", 2).await;
        let item = raw_item(table, &visit_of!(cur, "u2", 2).encode()).await;
        assert!(
            item.contains_key("BySite_pk"),
            "{table}: {:?}",
            names(&item)
        );
        assert!(
            !item.contains_key("BySite_ts_rev"),
            "{table}: {:?}",
            names(&item)
        );
    }
    // In the GSI, as the encoded declaration reads it (u1 was written
    // before the GSI, in the native form, so it is not).
    let enc = store::<enc::Visit>(&tables[0].0);
    assert_eq!(by_site!(enc, &enc).await.expect("a scan"), ["u2"]);
}

#[tokio::test]
#[ignore = "needs multi-attribute GSIs: DynamoDB Local 3.3 (.ci/dynamodb-local)"]
async fn a_declared_native_index_whose_gsi_was_added_encoded_is_a_table_mismatch() {
    let table = bare_table("reread-declared").await;
    let nat = store::<nat::Visit>(&table);
    nat.put_record(&visit_of!(nat, "u1", 1)).await.expect("put");
    let enc = store::<enc::Visit>(&table);
    assert_eq!(enc.add_indexes().await.expect("add"), ["BySite"]);
    let reason = mismatch(by_site!(nat, &nat).await);
    assert!(reason.contains("declared `dynamodb = native`"), "{reason}");
    assert!(reason.contains("encoded form"), "{reason}");
    let reason = match nat.check_table().await {
        Err(DynamoError::TableMismatch { reason, .. }) => reason,
        other => panic!("{other:?}"),
    };
    assert!(reason.contains("declared `dynamodb = native`"), "{reason}");
}

#[tokio::test]
#[ignore = "needs multi-attribute GSIs: DynamoDB Local 3.3 (.ci/dynamodb-local)"]
async fn item_for_refuses_until_the_store_has_read_the_table() {
    let table = fresh_table("reread-item");
    let enc = store::<enc::Visit>(&table);
    assert!(enc.create_table().await.expect("create"));
    let row = visit_of!(cur, "u1", 1);
    let (key, values) = (row.encode(), encode_values(&row).expect("encodes"));
    let cur = store::<cur::Visit>(&table);
    match cur.item_for(&key, &values) {
        Err(e @ DynamoError::TableUnread { .. }) => {
            let message = e.to_string();
            assert!(message.contains("`BySite`"), "{message}");
            assert!(message.contains("check_table"), "{message}");
        }
        other => panic!("wanted a refusal, got {other:?}"),
    }
    assert!(cur.check_table().await.expect("fits"));
    let item = cur.item_for(&key, &values).expect("an item");
    assert!(item.contains_key("BySite_pk"), "{:?}", names(&item));
    assert!(!item.contains_key("BySite_ts_rev"), "{:?}", names(&item));
    // What a put writes.
    cur.put_record(&row).await.expect("put");
    assert_eq!(raw_item(&table, &key).await, item);
    // An index whose form is declared needs no reading.
    assert!(store::<enc::Visit>(&table).item_for(&key, &values).is_ok());
}

#[tokio::test]
#[ignore = "needs multi-attribute GSIs: DynamoDB Local 3.3 (.ci/dynamodb-local)"]
async fn a_store_of_a_schema_document_that_lists_indexes_refuses_writes() {
    let table = fresh_table("reread-document");
    let typed = store::<cur::Visit>(&table);
    assert!(typed.create_table().await.expect("create"));
    let u1 = visit_of!(cur, "u1", 1);
    typed.put_record(&u1).await.expect("put");
    let schema = Schema::from_document(&cur::Visit::schema().to_json()).expect("a schema");
    let client = DynamoStore::local_client(&endpoint());
    let doc = DynamoStore::for_schema(client, &table, schema).expect("a store");
    let u2 = visit_of!(cur, "u2", 2);
    let (key, values) = (u2.encode(), encode_values(&u2).expect("encodes"));
    match doc.put(&key, &values).await {
        Err(e @ DynamoError::Unsupported { .. }) => {
            let message = e.to_string();
            assert!(message.contains("`BySite`"), "{message}");
        }
        other => panic!("wanted a refusal, got {other:?}"),
    }
    assert!(raw_item(&table, &key).await.is_empty());
    // It reads.
    assert!(doc.get(&u1.encode()).await.expect("get").is_some());
    assert_eq!(by_site!(cur, &typed).await.expect("a scan"), ["u1"]);
}

#[tokio::test]
#[ignore = "needs multi-attribute GSIs: DynamoDB Local 3.3 (.ci/dynamodb-local)"]
async fn key_fields_off_on_a_native_table_says_what_works() {
    let table = fresh_table("reread-key-fields");
    assert!(store::<cur::Visit>(&table)
        .create_table()
        .await
        .expect("create"));
    let off = store::<cur::Visit>(&table)
        .with_shape(ItemShape::default().key_fields(false))
        .expect("a shape");
    let reason = match off.check_table().await {
        Err(DynamoError::TableMismatch { reason, .. }) => reason,
        other => panic!("{other:?}"),
    };
    assert!(
        !reason.contains("declare the index `dynamodb = native`"),
        "{reason}"
    );
    assert!(reason.contains("key_fields(true)"), "{reason}");
}

#[tokio::test]
#[ignore = "needs multi-attribute GSIs: DynamoDB Local 3.3 (.ci/dynamodb-local)"]
async fn a_write_refused_for_a_gsi_added_since_the_reading_is_a_table_mismatch() {
    use keyschema::store::dynamodb::sdk::types::{
        AttributeDefinition, CreateGlobalSecondaryIndexAction, GlobalSecondaryIndexUpdate,
        KeySchemaElement, KeyType, Projection, ProjectionType, ScalarAttributeType,
    };
    let table = bare_table("reread-refused-write").await;
    let cur = store::<cur::Visit>(&table);
    cur_put(&cur, "u1", 1).await;
    // Another program adds a GSI `BySite` keyed on `site` as a number.
    let action = CreateGlobalSecondaryIndexAction::builder()
        .index_name("BySite")
        .key_schema(
            KeySchemaElement::builder()
                .attribute_name("site")
                .key_type(KeyType::Hash)
                .build()
                .expect("a key"),
        )
        .projection(
            Projection::builder()
                .projection_type(ProjectionType::KeysOnly)
                .build(),
        )
        .build()
        .expect("an action");
    cur.client()
        .update_table()
        .table_name(&table)
        .attribute_definitions(
            AttributeDefinition::builder()
                .attribute_name("site")
                .attribute_type(ScalarAttributeType::N)
                .build()
                .expect("a definition"),
        )
        .global_secondary_index_updates(
            GlobalSecondaryIndexUpdate::builder().create(action).build(),
        )
        .send()
        .await
        .expect("the GSI");
    // The put of a string `site` is refused by the server; the store reads
    // the table again and names the GSI.
    let reason = mismatch(cur.put_record(&visit_of!(cur, "u2", 2)).await);
    assert!(
        reason.starts_with("its GSI `BySite` is over [site HASH N], and `Visit`'s index `BySite` is native by default, so it needs a GSI over [site HASH S, BySite_ts_rev RANGE N, user RANGE S]: "),
        "{reason}"
    );
    assert!(raw_item(&table, &visit_of!(cur, "u2", 2).encode())
        .await
        .is_empty());
}
