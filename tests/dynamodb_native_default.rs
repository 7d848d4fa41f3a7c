//! Indexes native by default (issue 41): an index without `dynamodb = ...`
//! is native where it can be, and the table decides. A table the previous
//! version made (its GSIs encoded, rows written) keeps working unchanged
//! when a struct with the default form opens it: the store reads the
//! table's GSIs once and writes and reads those indexes encoded, its scans
//! equal to a plain map, with the older binary reading what it wrote. A
//! new table gets native GSIs. A server without multi-attribute GSI keys
//! (dynalite) refuses such a table, and the error says what to do.
//!
//! The first two need a server with multi-attribute GSI keys (DynamoDB
//! Local 3.3 or later), so they are ignored in the README's test command
//! and `.ci/dynamodb-local` runs them with `--include-ignored`.
#![cfg(feature = "dynamodb")]

mod common;

use common::dynalite::{endpoint, fresh_table};
use common::native_table::{visit, SITES};
use futures_util::StreamExt;
use keyschema::store::dynamodb::sdk::types::AttributeValue;
use keyschema::store::dynamodb::{DynamoError, DynamoStore, IndexForm};
use keyschema::store::AsyncRecordStore;
use keyschema::{Index, RowKey};
use std::collections::BTreeMap;

/// The previous version's declaration: both indexes encoded (what an
/// undeclared index was before).
#[allow(dead_code)]
mod previous {
    super::visit!(
        index(
            BySite,
            prefix = "s",
            salt = hash(site) % 4,
            then = (site),
            rev(ts),
            user,
            dynamodb = encoded
        ),
        index(
            ByN,
            prefix = "n",
            then = (site),
            rev(n),
            user,
            ts,
            dynamodb = encoded
        )
    );
}

/// The same indexes, undeclared: native by default.
#[allow(dead_code)]
mod current {
    super::visit!(
        index(
            BySite,
            prefix = "s",
            salt = hash(site) % 4,
            then = (site),
            rev(ts),
            user
        ),
        index(ByN, prefix = "n", then = (site), rev(n), user, ts)
    );
}

/// (user, ts) to (site, n).
type Model = BTreeMap<(String, i64), (String, u32)>;

/// Every site's rows through an index, as (user, ts, n) in the scan's
/// order, against the map's in the index's: `by_ts` newest first then
/// user, else by `n` descending, then user, then ts.
async fn check<I, F>(model: &Model, scan: F, store: &DynamoStore, by_ts: bool, what: &str)
where
    I: Index,
    I::Row: RowKey + Into<(String, i64, u32)>,
    F: Fn(&str) -> keyschema::ScanRequest<I>,
{
    for site in SITES {
        let mut want: Vec<(String, i64, u32)> = model
            .iter()
            .filter(|(_, (s, _))| s == site)
            .map(|((u, ts), (_, n))| (u.clone(), *ts, *n))
            .collect();
        match by_ts {
            true => want.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0))),
            false => want.sort_by(|a, b| b.2.cmp(&a.2).then(a.0.cmp(&b.0)).then(a.1.cmp(&b.1))),
        }
        let mut rows = scan(site).stream_rows(store);
        let mut got = Vec::new();
        while let Some(row) = rows.next().await {
            got.push(row.expect("a row").into());
        }
        assert_eq!(got, want, "{what}: site {site}");
    }
}

macro_rules! into_tuple {
    ($($m:ident),*) => {$(
        impl From<$m::Visit> for (String, i64, u32) {
            fn from(v: $m::Visit) -> Self {
                (v.user, v.ts, v.n)
            }
        }
    )*};
}
into_tuple!(previous, current);

/// A deterministic stream of numbers.
fn numbers() -> impl FnMut() -> u64 {
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    }
}

fn row(r: u64) -> current::Visit {
    current::Visit {
        user: format!("u{}", r % 5),
        ts: (r >> 8) as i64 % 12 - 6,
        site: SITES[(r >> 16) as usize % 3].into(),
        n: (r >> 24) as u32 % 100,
    }
}

/// The key attributes of the GSI `name`, as `name KEYTYPE`.
async fn gsi_keys(store: &DynamoStore, name: &str) -> Vec<String> {
    let described = store
        .client()
        .describe_table()
        .table_name(store.table())
        .send()
        .await
        .expect("describe");
    let table = described.table().expect("a table");
    let gsi = table
        .global_secondary_indexes()
        .iter()
        .find(|g| g.index_name() == Some(name))
        .expect("the GSI");
    gsi.key_schema()
        .iter()
        .map(|k| format!("{} {}", k.attribute_name(), k.key_type().as_str()))
        .collect()
}

/// The item of `row`, read by the SDK alone.
async fn item(store: &DynamoStore, v: &current::Visit) -> Vec<String> {
    let answer = store
        .client()
        .scan()
        .table_name(store.table())
        .send()
        .await
        .expect("scan");
    let found = answer
        .items()
        .iter()
        .find(|i| {
            i.get("user") == Some(&AttributeValue::S(v.user.clone()))
                && i.get("ts") == Some(&AttributeValue::N(v.ts.to_string()))
        })
        .expect("the item");
    let mut names: Vec<String> = found.keys().cloned().collect();
    names.sort();
    names
}

#[tokio::test]
#[ignore = "needs multi-attribute GSIs: DynamoDB Local 3.3 (.ci/dynamodb-local)"]
async fn a_table_the_previous_version_made_keeps_its_encoded_indexes() {
    let table = fresh_table("default-previous");
    let old = DynamoStore::connect_local::<previous::Visit>(&endpoint(), &table).expect("a store");
    assert!(old.create_table().await.expect("create"));
    let mut next = numbers();
    let rows: Vec<previous::Visit> = (0..30)
        .map(|_| {
            let v = row(next());
            previous::Visit {
                user: v.user,
                ts: v.ts,
                site: v.site,
                n: v.n,
            }
        })
        .collect();
    old.put_records(&rows)
        .await
        .expect("the previous version's rows");
    let mut model: Model = rows
        .iter()
        .map(|v| ((v.user.clone(), v.ts), (v.site.clone(), v.n)))
        .collect();

    // The current binary, opened without a check: its first index write
    // reads the table's GSIs, and each index stays encoded.
    let new = DynamoStore::connect_local::<current::Visit>(&endpoint(), &table).expect("a store");
    assert!(new.index_forms().iter().all(|(_, f)| f.is_native()));
    for step in 0..60 {
        let r = next();
        let v = row(r);
        match r >> 40 & 3 {
            0 => {
                new.delete_row(&v).await.expect("delete");
                model.remove(&(v.user.clone(), v.ts));
            }
            1 => {
                new.replace_record(&v).await.expect("replace");
                model.insert((v.user.clone(), v.ts), (v.site.clone(), v.n));
            }
            _ => {
                new.put_record(&v).await.expect("put");
                model.insert((v.user.clone(), v.ts), (v.site.clone(), v.n));
            }
        }
        if step % 20 == 19 {
            let (by_site, by_n) = (
                |s: &str| current::BySite::scan().site(s).request(),
                |s: &str| current::ByN::scan().site(s).request(),
            );
            check(&model, by_site, &new, true, "current, BySite").await;
            check(&model, by_n, &new, false, "current, ByN").await;
            let (old_site, old_n) = (
                |s: &str| previous::BySite::scan().site(s).request(),
                |s: &str| previous::ByN::scan().site(s).request(),
            );
            check(&model, old_site, &old, true, "previous, BySite").await;
            check(&model, old_n, &old, false, "previous, ByN").await;
        }
    }
    for (name, form) in new.index_forms() {
        let IndexForm::Encoded { why } = form else {
            panic!("{name} is {form}");
        };
        assert!(
            why.starts_with(&format!("the table's GSI `{name}` is encoded"))
                && why.contains("add_indexes"),
            "{why}"
        );
    }
    // Its items carry the encoded attributes, and no native one; the
    // table's GSIs are the ones it had.
    let written = model.keys().next().expect("a row").clone();
    let (site, n) = model[&written].clone();
    let v = current::Visit {
        user: written.0,
        ts: written.1,
        site,
        n,
    };
    let names = item(&new, &v).await;
    assert!(
        names.iter().any(|n| n == "BySite_pk") && names.iter().any(|n| n == "ByN_sk"),
        "{names:?}"
    );
    assert!(
        !names
            .iter()
            .any(|n| n.ends_with("_rev") || n.ends_with("_shard")),
        "{names:?}"
    );
    assert_eq!(
        gsi_keys(&new, "BySite").await,
        ["BySite_pk HASH", "BySite_sk RANGE"]
    );

    // check_table accepts the table and says the same of a fresh store.
    let fresh = DynamoStore::connect_local::<current::Visit>(&endpoint(), &table).expect("a store");
    assert!(fresh.check_table().await.expect("the table fits"));
    assert!(fresh.index_forms().iter().all(|(_, f)| !f.is_native()));
    // A fresh store's first read learns the forms too.
    let reader =
        DynamoStore::connect_local::<current::Visit>(&endpoint(), &table).expect("a store");
    check(
        &model,
        |s: &str| current::BySite::scan().site(s).request(),
        &reader,
        true,
        "a fresh reader",
    )
    .await;
}

#[tokio::test]
#[ignore = "needs multi-attribute GSIs: DynamoDB Local 3.3 (.ci/dynamodb-local)"]
async fn a_new_table_gets_native_gsis_by_default() {
    let table = fresh_table("default-new");
    let store = DynamoStore::connect_local::<current::Visit>(&endpoint(), &table).expect("a store");
    assert!(store.create_table().await.expect("create"));
    assert_eq!(
        gsi_keys(&store, "BySite").await,
        [
            "BySite_shard HASH",
            "site HASH",
            "BySite_ts_rev RANGE",
            "user RANGE"
        ]
    );
    assert_eq!(
        gsi_keys(&store, "ByN").await,
        ["site HASH", "ByN_n_rev RANGE", "user RANGE", "ts RANGE"]
    );
    let mut next = numbers();
    let mut model = Model::new();
    for _ in 0..40 {
        let v = row(next());
        store.put_record(&v).await.expect("put");
        model.insert((v.user.clone(), v.ts), (v.site.clone(), v.n));
    }
    check(
        &model,
        |s: &str| current::BySite::scan().site(s).request(),
        &store,
        true,
        "BySite",
    )
    .await;
    check(
        &model,
        |s: &str| current::ByN::scan().site(s).request(),
        &store,
        false,
        "ByN",
    )
    .await;
    assert!(store.index_forms().iter().all(|(_, f)| f.is_native()));
    let names = item(&store, &row(numbers()())).await;
    assert!(names.iter().any(|n| n == "BySite_shard"), "{names:?}");
    assert!(!names.iter().any(|n| n.ends_with("_pk")), "{names:?}");
}

#[tokio::test]
async fn a_server_without_multi_attribute_gsi_keys_says_what_to_do() {
    let table = fresh_table("default-refused");
    let store = DynamoStore::connect_local::<current::Visit>(&endpoint(), &table).expect("a store");
    // dynalite unless the tests run on another server (DynamoDB Local 3.3
    // in `.ci/dynamodb-local`, which makes the GSIs).
    let dynalite = std::env::var_os("DYNAMODB_ENDPOINT").is_none();
    match store.create_table().await {
        Err(DynamoError::Unsupported { reason, .. }) if dynalite => {
            assert!(
                reason.contains("the index `BySite` is native: HASH [BySite_shard N, site S]"),
                "{reason}"
            );
            assert!(
                reason.contains("declare the index `dynamodb = encoded`"),
                "{reason}"
            );
        }
        Ok(created) if !dynalite => assert!(created),
        other => panic!("dynalite: {dynalite}: {other:?}"),
    }
}
