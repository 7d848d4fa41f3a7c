//! Indexes on the services, checked with their own clients: on DynamoDB
//! each index is a GSI over two attributes of the row's item (created by
//! `create_table`, sparse, under DynamoDB's key limits), and an index scan
//! never trusts the GSI's eventually consistent answer for a row; on
//! Bigtable an entry is a row of its own beside the row.
#![cfg(all(feature = "bigtable", feature = "dynamodb"))]

mod common;

use common::index_model::{Hit, HitByPage, HitByTag};
use common::{cbt, dynalite, emulator};
use futures_util::StreamExt;
use keyschema::store::bigtable::BigtableStore;
use keyschema::store::dynamodb::sdk::primitives::Blob;
use keyschema::store::dynamodb::sdk::types::AttributeValue;
use keyschema::store::dynamodb::DynamoError;
use keyschema::store::{AsyncRecordStore, RowError};
use keyschema::{Index, RowKey};

fn hit(user: &str, ts: u16, page: &str, tag: Option<&str>) -> Hit {
    Hit {
        user: user.into(),
        ts,
        page: page.into(),
        tag: tag.map(Into::into),
        n: 1,
    }
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("a runtime")
}

/// A fresh table on the emulator for `Hit` and its indexes.
async fn bigtable(name: &str) -> BigtableStore {
    let table = emulator::fresh_table(name);
    let store =
        BigtableStore::connect_emulator(&emulator::host(), cbt::PROJECT, cbt::INSTANCE, &table)
            .await
            .expect("connect");
    store.create_table_for::<Hit>().await.expect("a table");
    store
}

async fn by_page<S: keyschema::store::AsyncStore>(store: &S, page: &str) -> Vec<(String, u16)> {
    let mut rows = HitByPage::scan().page(page).request().stream_rows(store);
    let mut out = Vec::new();
    while let Some(row) = rows.next().await {
        let row = row.expect("a row");
        out.push((row.user, row.ts));
    }
    out
}

#[test]
fn each_index_is_a_sparse_gsi_over_the_items_attributes() {
    rt().block_on(async {
        let store = dynalite::store::<Hit>("index-gsi").await;
        let described = store
            .client()
            .describe_table()
            .table_name(store.table())
            .send()
            .await
            .expect("DescribeTable");
        let table = described.table().expect("a table");
        let mut gsis: Vec<String> = table
            .global_secondary_indexes()
            .iter()
            .map(|g| {
                let keys: Vec<String> = g
                    .key_schema()
                    .iter()
                    .map(|k| format!("{} {}", k.attribute_name(), k.key_type().as_str()))
                    .collect();
                format!(
                    "{}: {}",
                    g.index_name().unwrap_or_default(),
                    keys.join(", ")
                )
            })
            .collect();
        gsis.sort();
        assert_eq!(
            gsis,
            [
                "HitByPage: HitByPage_pk HASH, HitByPage_sk RANGE",
                "HitByTag: HitByTag_pk HASH, HitByTag_sk RANGE"
            ]
        );

        store
            .put_record(&hit("u1", 3, "/a", Some("x")))
            .await
            .expect("put");
        store
            .put_record(&hit("u2", 4, "/a", None))
            .await
            .expect("put");
        let item = |user: &str, ts: u16| {
            let key = Hit::get_key(user, ts);
            let (pk, sk) = Hit::schema().split_key(&key).expect("a key");
            (pk.to_vec(), sk.to_vec())
        };
        let get = |(pk, sk): (Vec<u8>, Vec<u8>)| {
            store
                .client()
                .get_item()
                .table_name(store.table())
                .key("pk", AttributeValue::B(Blob::new(pk)))
                .key("sk", AttributeValue::B(Blob::new(sk)))
                .send()
        };
        let tagged = get(item("u1", 3)).await.expect("GetItem");
        let tagged = tagged.item().expect("an item");
        let entry = HitByPage::entry_key(&hit("u1", 3, "/a", Some("x"))).expect("an entry");
        let (pk, sk) = HitByPage::schema().split_key(&entry).expect("an entry key");
        assert_eq!(
            tagged.get("HitByPage_pk"),
            Some(&AttributeValue::B(Blob::new(pk)))
        );
        assert_eq!(
            tagged.get("HitByPage_sk"),
            Some(&AttributeValue::B(Blob::new(sk)))
        );
        assert!(tagged.contains_key("HitByTag_pk"));
        // Sparse: no tag, no attributes, so not in the GSI.
        let untagged = get(item("u2", 4)).await.expect("GetItem");
        let untagged = untagged.item().expect("an item");
        assert!(!untagged.contains_key("HitByTag_pk") && !untagged.contains_key("HitByTag_sk"));
        assert!(untagged.contains_key("HitByPage_pk"));

        // The GSI as DynamoDB's own Query reads it.
        let queried = store
            .client()
            .query()
            .table_name(store.table())
            .index_name("HitByTag")
            .key_condition_expression("#p = :p")
            .expression_attribute_names("#p", "HitByTag_pk")
            .expression_attribute_values(
                ":p",
                AttributeValue::B(Blob::new(
                    HitByTag::schema()
                        .split_key(
                            &HitByTag::entry_key(&hit("u1", 3, "/a", Some("x"))).expect("entry"),
                        )
                        .expect("split")
                        .0
                        .to_vec(),
                )),
            )
            .send()
            .await
            .expect("Query");
        assert_eq!(queried.count(), 1);
        assert_eq!(
            by_page(&store, "/a").await,
            [("u2".to_string(), 4), ("u1".to_string(), 3)]
        );
    });
}

/// A GSI answers from a copy DynamoDB updates after the write: a Query may
/// return an item under the index value it had before. This item is what
/// such a lagging GSI returns (its index attributes say `/a`, its page is
/// `/b`): the index scan reads the row consistently and skips it.
#[test]
fn a_lagging_gsi_never_returns_a_row_under_an_old_index_value() {
    rt().block_on(async {
        let store = dynalite::store::<Hit>("index-lag").await;
        let old = hit("u1", 3, "/a", None);
        store.put_record(&old).await.expect("put");
        let entry = HitByPage::entry_key(&old).expect("an entry");
        let (epk, esk) = HitByPage::schema().split_key(&entry).expect("split");
        let key = old.encode();
        let (pk, sk) = Hit::schema().split_key(&key).expect("split");
        // The row now says `/b`, its index attributes still `/a`.
        store
            .client()
            .update_item()
            .table_name(store.table())
            .key("pk", AttributeValue::B(Blob::new(pk)))
            .key("sk", AttributeValue::B(Blob::new(sk)))
            .update_expression("SET page = :b, HitByPage_pk = :p, HitByPage_sk = :s")
            .expression_attribute_values(":b", AttributeValue::S("/b".into()))
            .expression_attribute_values(":p", AttributeValue::B(Blob::new(epk)))
            .expression_attribute_values(":s", AttributeValue::B(Blob::new(esk)))
            .send()
            .await
            .expect("UpdateItem");
        let mut rows = HitByPage::scan().page("/a").request().stream_rows(&store);
        assert!(
            rows.next().await.is_none(),
            "a row under an index value it no longer has"
        );
        assert_eq!(rows.stale_entries(), 1);
    });
}

#[test]
fn index_keys_over_dynamodbs_limits_are_refused_before_anything_is_sent() {
    rt().block_on(async {
        let store = dynalite::store::<Hit>("index-limit").await;
        let long = "p".repeat(3_000);
        let err = store
            .put_record(&hit("u1", 1, &long, None))
            .await
            .expect_err("refused");
        assert!(
            matches!(
                err,
                RowError::Store(DynamoError::Limit {
                    what: "index partition key",
                    ..
                })
            ),
            "{err}"
        );
        assert!(store
            .get_record::<Hit>(&Hit::get_key("u1", 1))
            .await
            .expect("get")
            .is_none());
        assert_eq!(store.requests().batch_write_item, 0);
    });
}

#[test]
fn a_bigtable_entry_is_a_row_of_its_own_beside_the_row() {
    rt().block_on(async {
        let store = bigtable("index-rows").await;
        let row = hit("u1", 3, "/a", Some("x"));
        store.put_record(&row).await.expect("put");
        let keys: Vec<Vec<u8>> = vec![
            row.encode(),
            HitByPage::entry_key(&row).expect("entry"),
            HitByTag::entry_key(&row).expect("entry"),
        ];
        let found = keyschema::store::AsyncStore::get_many_for(
            &store,
            HitByPage::schema(),
            keys[1..].to_vec(),
        )
        .await
        .expect("ReadRows");
        assert_eq!(found.len(), 2, "both entries are rows");
        assert!(
            found.iter().all(|(_, v)| v.is_empty()),
            "an entry's value is empty"
        );
        store.delete_row(&row).await.expect("delete");
        let left = keyschema::store::AsyncStore::get_many_for(
            &store,
            HitByPage::schema(),
            keys[1..].to_vec(),
        )
        .await
        .expect("ReadRows");
        assert!(left.is_empty(), "the delete removed the entries: {left:?}");
        assert!(by_page(&store, "/a").await.is_empty());
    });
}

/// `Hit`'s rows as the binary before its indexes wrote them.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = hash(user) % 4, then = (user), ts)]
pub struct HitBefore {
    pub user: String,
    pub ts: u16,
    #[rowkey(value)]
    pub page: String,
    #[rowkey(value)]
    pub tag: Option<String>,
    #[rowkey(value)]
    pub n: i64,
}

/// The same rows while the by-page index (`HitByPage`'s layout) is built.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(
    salt = hash(user) % 4,
    then = (user), ts,
    index(HitByPageBuilding, building, prefix = "p", salt = hash(page) % 4, then = (page), rev(ts), user, dynamodb = encoded),
)]
pub struct HitBuilding {
    pub user: String,
    pub ts: u16,
    #[rowkey(value)]
    pub page: String,
    #[rowkey(value)]
    pub tag: Option<String>,
    #[rowkey(value)]
    pub n: i64,
}

#[test]
fn an_index_added_to_a_live_bigtable_table_is_built_and_verified() {
    rt().block_on(async {
        let store = bigtable("index-backfill").await;
        let before: Vec<HitBefore> = (0..30u16)
            .map(|ts| HitBefore {
                user: format!("u{}", ts % 4),
                ts,
                page: ["/a", "/b"][usize::from(ts % 2)].into(),
                tag: None,
                n: 0,
            })
            .collect();
        store.put_records(&before).await.expect("put");
        // Scans of the building index are refused.
        let mut refused = HitByPageBuilding::scan()
            .page("/a")
            .request()
            .stream_rows(&store);
        assert!(matches!(
            refused.next().await,
            Some(Err(RowError::Index(_)))
        ));
        // The new binary writes meanwhile, with the entry.
        let newer = HitBuilding {
            user: "u9".into(),
            ts: 99,
            page: "/a".into(),
            tag: None,
            n: 1,
        };
        store.put_record(&newer).await.expect("put");
        let dir = tempfile::tempdir().expect("a dir");
        let mut backfill = keyschema::index::IndexBackfill::<HitByPageBuilding>::new()
            .batch(7)
            .checkpoint(dir.path().join("by-page"));
        let unbuilt = backfill.verify_async(&store).await.expect("verify");
        assert_eq!(
            (unbuilt.rows, unbuilt.expected, unbuilt.present),
            (31, 31, 1)
        );
        let progress = backfill.build_async(&store).await.expect("build");
        assert!(progress.finished);
        assert_eq!((progress.rows_done, progress.rows_written), (31, 31));
        let verified = backfill.verify_async(&store).await.expect("verify");
        assert!(verified.matches(), "{verified:?}");
        assert_eq!(
            (verified.entries, verified.valid, verified.stale),
            (31, 31, 0)
        );
        let mut want: Vec<(String, u16)> = before
            .iter()
            .filter(|h| h.page == "/a")
            .map(|h| (h.user.clone(), h.ts))
            .chain([("u9".to_string(), 99)])
            .collect();
        want.sort_by_key(|w| std::cmp::Reverse(w.1));
        assert_eq!(by_page(&store, "/a").await, want);
    });
}

#[test]
fn a_dynamodb_build_corrects_index_attributes_another_program_wrote() {
    rt().block_on(async {
        let store = dynalite::store::<Hit>("index-build").await;
        let row = hit("u1", 5, "/a", None);
        store.put_record(&row).await.expect("write");
        // Another program sets the item's index attributes to another
        // page's entry.
        let wrong = HitByPage::entry_key(&hit("u1", 5, "/zzz", None)).expect("an entry");
        let (pk, sk) = HitByPage::schema().split_key(&wrong).expect("split");
        let key = row.encode();
        let (key_pk, key_sk) = Hit::schema().split_key(&key).expect("split");
        store
            .client()
            .update_item()
            .table_name(store.table())
            .key("pk", AttributeValue::B(Blob::new(key_pk)))
            .key("sk", AttributeValue::B(Blob::new(key_sk)))
            .update_expression("SET HitByPage_pk = :p, HitByPage_sk = :s")
            .expression_attribute_values(":p", AttributeValue::B(Blob::new(pk)))
            .expression_attribute_values(":s", AttributeValue::B(Blob::new(sk)))
            .send()
            .await
            .expect("the other program's update");
        let mut backfill = keyschema::index::IndexBackfill::<HitByPage>::new();
        let v = backfill.verify_async(&store).await.expect("verify");
        assert_eq!(
            (v.expected, v.present, v.entries, v.stale),
            (1, 0, 1, 1),
            "{v:?}"
        );
        assert!(
            by_page(&store, "/zzz").await.is_empty(),
            "never a row under a wrong entry"
        );
        let progress = backfill.build_async(&store).await.expect("build");
        assert_eq!((progress.rows_done, progress.rows_written), (1, 1));
        let v = backfill.verify_async(&store).await.expect("verify");
        assert!(v.matches(), "{v:?}");
        assert_eq!(by_page(&store, "/a").await, vec![("u1".to_string(), 5)]);
    });
}

/// On Bigtable (async, chunks pipelined): an entry another program wrote
/// that does not decode comes back as an error in its place, also when a
/// scan is stopped before it and resumed from its cursor.
#[test]
fn a_damaged_entry_comes_back_in_its_place_across_pages_on_bigtable() {
    rt().block_on(async {
        let store = bigtable("index-damaged").await;
        for (i, ts) in [60u16, 50, 40, 30, 20, 10].into_iter().enumerate() {
            let row = hit(&format!("u{i}"), ts, "/a", None);
            store.put_record(&row).await.expect("put");
        }
        let mut damaged = HitByPage::entry_key(&hit("u9", 35, "/a", None)).expect("an entry");
        damaged.pop();
        keyschema::store::AsyncStore::write(
            &store,
            vec![keyschema::store::Mutation::Put {
                key: damaged,
                value: Vec::new(),
            }],
        )
        .await
        .expect("the damaged entry");
        let shown = |r: Result<Hit, RowError<_>>| match r {
            Ok(h) => h.ts.to_string(),
            Err(RowError::Decode { .. }) => "decode error".to_string(),
            Err(e) => panic!("{e:?}"),
        };
        let whole: Vec<String> = HitByPage::scan()
            .page("/a")
            .request()
            .stream_rows(&store)
            .map(shown)
            .collect()
            .await;
        assert_eq!(whole, ["60", "50", "40", "decode error", "30", "20", "10"]);
        for stop in 0..whole.len() {
            let mut page = HitByPage::scan().page("/a").request().stream_rows(&store);
            let mut got = Vec::new();
            while got.len() < stop {
                let Some(row) = page.next().await else { break };
                got.push(shown(row));
            }
            let rest: Vec<String> = HitByPage::scan()
                .page("/a")
                .after(page.cursor())
                .stream_rows(&store)
                .map(shown)
                .collect()
                .await;
            got.extend(rest);
            assert_eq!(got, whole, "stopped after {stop}");
        }
    });
}

/// Another program copies an item, its index attributes and all, under
/// other keys (a migration script, a restore): the encoded GSI then holds
/// the one entry on several items. An index scan returns the row that
/// entry names once, not once per copy.
#[test]
fn copied_items_carrying_one_entry_return_its_row_once() {
    rt().block_on(async {
        let store = dynalite::store::<Hit>("index-copies").await;
        store
            .put_record(&hit("u1", 3, "/a", None))
            .await
            .expect("put");
        store
            .put_record(&hit("u2", 4, "/a", None))
            .await
            .expect("put");
        let key = Hit::get_key("u1", 3);
        let (pk, sk) = Hit::schema().split_key(&key).expect("a key");
        let original = store
            .client()
            .get_item()
            .table_name(store.table())
            .key("pk", AttributeValue::B(Blob::new(pk.to_vec())))
            .key("sk", AttributeValue::B(Blob::new(sk.to_vec())))
            .consistent_read(true)
            .send()
            .await
            .expect("GetItem")
            .item()
            .cloned()
            .expect("the item");
        // Five copies under other users' keys, every attribute kept.
        for n in 0..5u16 {
            let copy_key = Hit::get_key(&format!("c{n}"), 3);
            let (pk, sk) = Hit::schema().split_key(&copy_key).expect("a key");
            let mut copy = original.clone();
            copy.insert("pk".into(), AttributeValue::B(Blob::new(pk.to_vec())));
            copy.insert("sk".into(), AttributeValue::B(Blob::new(sk.to_vec())));
            store
                .client()
                .put_item()
                .table_name(store.table())
                .set_item(Some(copy))
                .send()
                .await
                .expect("PutItem");
        }
        let mut rows = by_page(&store, "/a").await;
        rows.sort();
        assert_eq!(rows, [("u1".to_string(), 3), ("u2".to_string(), 4)]);
    });
}
