//! Native indexes' GSIs on a live table (issue 41): the key schema and
//! projection `DescribeTable` shows, and a Query on them by field values
//! as another program writes it (the SDK alone, no keyschema read); a
//! table whose GSI has the other form refused with both forms named; a
//! native index added to a table of rows with `add_indexes` and built by
//! `IndexBackfill` (the attributes of its own put on the older items),
//! then read through it.
//!
//! They need a server with multi-attribute GSI keys (DynamoDB Local 3.3 or
//! later), so they are ignored in the README's test command and
//! `.ci/dynamodb-local` runs them with `--include-ignored`.
#![cfg(feature = "dynamodb")]

mod common;

use common::dynalite::{endpoint, fresh_table};
use common::native_table::visit;
use futures_util::StreamExt;
use keyschema::index::IndexBackfill;
use keyschema::store::dynamodb::sdk::types::{AttributeValue, KeyType, ProjectionType};
use keyschema::store::dynamodb::{DynamoError, DynamoStore};
use keyschema::store::AsyncRecordStore;
use keyschema::Index;

// The same rows under three declarations: without the index, with it
// native and `building`, with it native and built; and with it encoded.
#[allow(dead_code)]
mod plain {
    super::visit!();
}
#[allow(dead_code)]
mod building {
    super::visit!(
        index(
            BySite,
            building,
            prefix = "s",
            salt = hash(site) % 4,
            then = (site),
            rev(ts),
            user,
            dynamodb = native
        ),
        index(
            ByN,
            building,
            prefix = "n",
            then = (site),
            rev(n),
            user,
            ts,
            dynamodb = native
        )
    );
}
#[allow(dead_code)]
mod native {
    super::visit!(
        index(
            BySite,
            prefix = "s",
            salt = hash(site) % 4,
            then = (site),
            rev(ts),
            user,
            dynamodb = native
        ),
        index(
            ByN,
            prefix = "n",
            then = (site),
            rev(n),
            user,
            ts,
            dynamodb = native
        )
    );
}
#[allow(dead_code)]
mod encoded {
    super::visit!(index(
        BySite,
        prefix = "s",
        salt = hash(site) % 4,
        then = (site),
        rev(ts),
        user,
        dynamodb = encoded
    ));
}

fn visit(user: &str, ts: i64, site: &str, n: u32) -> native::Visit {
    native::Visit {
        user: user.into(),
        ts,
        site: site.into(),
        n,
    }
}

#[tokio::test]
#[ignore = "needs multi-attribute GSIs: DynamoDB Local 3.3 (.ci/dynamodb-local)"]
async fn describe_table_shows_the_native_key_schema_and_a_plain_query_reads_it() {
    let table = fresh_table("native-describe");
    let store = DynamoStore::connect_local::<native::Visit>(&endpoint(), &table).expect("a store");
    assert!(store.create_table().await.expect("create"));
    let described = store
        .client()
        .describe_table()
        .table_name(&table)
        .send()
        .await
        .expect("describe");
    let t = described.table().expect("a table");
    let typed = |name: &str| {
        t.attribute_definitions()
            .iter()
            .find(|d| d.attribute_name() == name)
            .map(|d| d.attribute_type().as_str().to_string())
            .unwrap_or_default()
    };
    let gsi = |name: &str| {
        let g = t
            .global_secondary_indexes()
            .iter()
            .find(|g| g.index_name() == Some(name))
            .expect("the GSI");
        let keys: Vec<String> = g
            .key_schema()
            .iter()
            .map(|k| {
                let kind = if *k.key_type() == KeyType::Hash {
                    "HASH"
                } else {
                    "RANGE"
                };
                format!(
                    "{} {kind} {}",
                    k.attribute_name(),
                    typed(k.attribute_name())
                )
            })
            .collect();
        let projection = g.projection().expect("a projection");
        (
            keys,
            projection.projection_type().cloned(),
            projection.non_key_attributes().to_vec(),
        )
    };
    assert_eq!(
        gsi("BySite"),
        (
            vec![
                "BySite_shard HASH N".to_string(),
                "site HASH S".to_string(),
                "BySite_ts_rev RANGE N".to_string(),
                "user RANGE S".to_string(),
            ],
            Some(ProjectionType::KeysOnly),
            vec![],
        )
    );
    assert_eq!(
        gsi("ByN"),
        (
            vec![
                "site HASH S".to_string(),
                "ByN_n_rev RANGE N".to_string(),
                "user RANGE S".to_string(),
                "ts RANGE N".to_string(),
            ],
            Some(ProjectionType::Include),
            vec!["n".to_string()],
        )
    );
    let rows = [
        visit("u1", 5, "shop", 1),
        visit("u2", 9, "shop", 2),
        visit("u3", -3, "shop", 3),
        visit("u1", 7, "news", 4),
    ];
    store.put_records(&rows).await.expect("put");
    // The shop's visits at ts 5 or later, newest first, by field values:
    // `BySite_ts_rev <= -5`, in DynamoDB's ascending order.
    let shard = native::BySite::entry_key(&rows[0]).expect("an entry")[2];
    let answer = store
        .client()
        .query()
        .table_name(&table)
        .index_name("BySite")
        .key_condition_expression("BySite_shard = :b AND site = :s AND BySite_ts_rev <= :t")
        .expression_attribute_values(":b", AttributeValue::N(shard.to_string()))
        .expression_attribute_values(":s", AttributeValue::S("shop".into()))
        .expression_attribute_values(":t", AttributeValue::N("-5".into()))
        .send()
        .await
        .expect("a query");
    let got: Vec<(String, String)> = answer
        .items()
        .iter()
        .map(|i| {
            let s = |n: &str| match i.get(n) {
                Some(AttributeValue::S(v)) => v.clone(),
                Some(AttributeValue::N(v)) => v.clone(),
                other => format!("{other:?}"),
            };
            (s("user"), s("BySite_ts_rev"))
        })
        .collect();
    assert_eq!(
        got,
        [("u2".into(), "-9".into()), ("u1".into(), "-5".into())]
    );
    // The library's own scan of the same range: the same rows.
    let mut scan = native::BySite::scan()
        .site("shop")
        .ts(5..)
        .stream_rows(&store);
    let mut users = Vec::new();
    while let Some(row) = scan.next().await {
        users.push(row.expect("a row").user);
    }
    assert_eq!(users, ["u2", "u1"]);
}

#[tokio::test]
#[ignore = "needs multi-attribute GSIs: DynamoDB Local 3.3 (.ci/dynamodb-local)"]
async fn a_gsi_of_the_other_form_is_refused_naming_both() {
    let table = fresh_table("native-other-form");
    let old = DynamoStore::connect_local::<encoded::Visit>(&endpoint(), &table).expect("a store");
    assert!(old.create_table().await.expect("create"));
    let new = DynamoStore::connect_local::<native::Visit>(&endpoint(), &table).expect("a store");
    match new.check_table().await {
        Err(DynamoError::TableMismatch { reason, .. }) => {
            assert!(
                reason.contains("its GSI `BySite` is in the encoded form, over [BySite_pk HASH B, BySite_sk RANGE B], and `Visit`'s index `BySite` is declared `dynamodb = native`, so it needs a GSI over [BySite_shard HASH N, site HASH S, BySite_ts_rev RANGE N, user RANGE S]: "),
                "{reason}"
            );
            assert!(
                reason.contains("declare the native index under a new name"),
                "{reason}"
            );
        }
        other => panic!("{other:?}"),
    }
    // And the other way round.
    let table = fresh_table("native-other-form");
    let native = DynamoStore::connect_local::<native::Visit>(&endpoint(), &table).expect("a store");
    assert!(native.create_table().await.expect("create"));
    let old = DynamoStore::connect_local::<encoded::Visit>(&endpoint(), &table).expect("a store");
    match old.check_table().await {
        Err(DynamoError::TableMismatch { reason, .. }) => {
            assert_eq!(
                reason,
                "its GSI `BySite` is the index's native form, over [BySite_shard HASH N, site HASH S, BySite_ts_rev RANGE N, user RANGE S], and `Visit`'s index `BySite` is declared `dynamodb = encoded`, so it needs a GSI over [BySite_pk HASH B, BySite_sk RANGE B]: leave `dynamodb` out of the index's declaration (the table then decides: native here) or declare it `dynamodb = native`, to read and write through this GSI"
            );
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
#[ignore = "needs multi-attribute GSIs: DynamoDB Local 3.3 (.ci/dynamodb-local)"]
async fn a_native_index_added_to_a_live_table_is_built_and_read() {
    let table = fresh_table("native-added");
    let before = DynamoStore::connect_local::<plain::Visit>(&endpoint(), &table).expect("a store");
    assert!(before.create_table().await.expect("create"));
    let older: Vec<plain::Visit> = (0..30)
        .map(|i| plain::Visit {
            user: format!("u{}", i % 7),
            ts: i64::from(i) * 37 - 500,
            site: ["a", "b", "ab"][i as usize % 3].into(),
            n: u32::try_from(i % 5).expect("small"),
        })
        .collect();
    before.put_records(&older).await.expect("older rows");
    let store =
        DynamoStore::connect_local::<building::Visit>(&endpoint(), &table).expect("a store");
    let mut created = store.add_indexes().await.expect("add");
    created.sort_unstable();
    assert_eq!(created, ["ByN", "BySite"]);
    let mut backfill = IndexBackfill::<building::BySite>::new();
    let built = backfill.build_async(&store).await.expect("build");
    assert_eq!(built.rows_written, 30, "{built:?}");
    let verified = IndexBackfill::<building::BySite>::new()
        .verify_async(&store)
        .await
        .expect("verify");
    assert!(verified.matches(), "{verified:?}");
    let done = DynamoStore::connect_local::<native::Visit>(&endpoint(), &table).expect("a store");
    done.check_table().await.expect("the table fits");
    for site in ["a", "b", "ab"] {
        let mut want: Vec<(i64, String)> = older
            .iter()
            .filter(|v| v.site == site)
            .map(|v| (v.ts, v.user.clone()))
            .collect();
        want.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        let mut rows = native::BySite::scan()
            .site(site)
            .request()
            .stream_rows(&done);
        let mut got = Vec::new();
        while let Some(row) = rows.next().await {
            let row = row.expect("a row");
            got.push((row.ts, row.user));
        }
        assert_eq!(got, want, "{site}");
    }
}
