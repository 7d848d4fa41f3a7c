//! Native indexes on DynamoDB (issue 41): GSIs keyed on the items' own
//! typed attributes (multi-attribute keys), written and read by the
//! library, checked against a plain map: random puts, batches, replaces
//! and deletes with the indexed fields changing and an `Option` field going
//! `Some` -> `None` -> `Some`, then every index scanned both ways, paged
//! with cursors resumed by a new client, with and without a range; the
//! GSIs as `DescribeTable` shows them; the writes DynamoDB would refuse,
//! refused first.
//!
//! They need a server with multi-attribute GSI keys (DynamoDB Local 3.3 or
//! later), so they are ignored in the README's test command and
//! `.ci/dynamodb-local` runs them with `--include-ignored`, failing when
//! any of them did not run.
#![cfg(feature = "dynamodb")]

mod common;

use common::dynalite::{endpoint, fresh_table};
use futures_util::StreamExt;
use keyschema::store::dynamodb::{DynamoError, DynamoStore};
use keyschema::store::{AsyncRecordStore, RowError};
use keyschema::{Cursor, Index, RowKey, ScanRequest};
use proptest::prelude::*;
use std::collections::BTreeMap;

/// A user's visits; by site (salted, newest first), by tag (sparse: a
/// visit without a tag has no entry) and by site and time bucket.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(
    prefix = "v",
    then = (user), ts,
    index(BySite, prefix = "s", salt = hash(site) % 4, then = (site), rev(ts), user, dynamodb = native),
    index(ByTag, prefix = "t", then = (tag), user, ts, dynamodb = native),
    index(ByBucket, prefix = "b", then = (site), bucket(ts, 100), ts, user, dynamodb = native),
    index(ByCount, prefix = "c", then = (site), rev(n), user, ts, dynamodb = native),
)]
pub struct Visit {
    pub user: String,
    pub ts: i64,
    #[rowkey(value)]
    pub site: String,
    #[rowkey(value)]
    pub tag: Option<String>,
    #[rowkey(value)]
    pub n: u32,
}

async fn store(prefix: &str) -> DynamoStore {
    let store =
        DynamoStore::connect_local::<Visit>(&endpoint(), &fresh_table(prefix)).expect("a store");
    assert!(store.create_table().await.expect("create table"), "created");
    store
}

/// The rows of `request`, `take` at most, and the cursor after them.
async fn rows<I: Index<Row = Visit>>(
    request: ScanRequest<I>,
    store: &DynamoStore,
    take: Option<usize>,
) -> (Vec<Visit>, Cursor) {
    let mut rows = request.stream_rows(store);
    let mut out = Vec::new();
    while take.is_none_or(|k| out.len() < k) {
        match rows.next().await {
            Some(row) => out.push(row.expect("a row")),
            None => break,
        }
    }
    assert_eq!(rows.stale_entries(), 0, "no stale entry");
    (out, rows.cursor())
}

#[tokio::test]
#[ignore = "needs multi-attribute GSIs: DynamoDB Local 3.3 (.ci/dynamodb-local)"]
async fn a_native_index_is_read_in_its_declared_order() {
    let store = store("native-smoke").await;
    let visit = |user: &str, ts: i64, site: &str, tag: Option<&str>| Visit {
        user: user.into(),
        ts,
        site: site.into(),
        tag: tag.map(Into::into),
        n: 1,
    };
    let all = vec![
        visit("u1", 5, "shop", Some("a")),
        visit("u2", 9, "shop", None),
        visit("u1", -7, "shop", Some("a")),
        visit("u3", i64::MIN, "shop", Some("b")),
        visit("u3", i64::MAX, "news", Some("a")),
    ];
    store.put_records(&all).await.expect("put");
    let (got, _) = rows(BySite::scan().site("shop").request(), &store, None).await;
    let ts: Vec<i64> = got.iter().map(|v| v.ts).collect();
    assert_eq!(ts, [9, 5, -7, i64::MIN]);
    let (got, _) = rows(ByTag::scan().tag("a").request().reverse(), &store, None).await;
    let keys: Vec<(String, i64)> = got.iter().map(|v| (v.user.clone(), v.ts)).collect();
    assert_eq!(
        keys,
        [("u3".into(), i64::MAX), ("u1".into(), 5), ("u1".into(), -7)]
    );
    let (got, _) = rows(ByBucket::scan().site("shop").request(), &store, None).await;
    let ts: Vec<i64> = got.iter().map(|v| v.ts).collect();
    assert_eq!(ts, [i64::MIN, -7, 5, 9]);
}

/// A write DynamoDB would refuse is refused before anything is sent: an
/// empty string a GSI is keyed on, and key attributes over DynamoDB's key
/// limits (2,048 bytes for the partition attributes together, 1,024 for
/// the sort attributes), counted as DynamoDB counts them; a write at the
/// limits is taken.
#[tokio::test]
#[ignore = "needs multi-attribute GSIs: DynamoDB Local 3.3 (.ci/dynamodb-local)"]
async fn writes_a_native_gsi_would_refuse_are_refused_first() {
    let store = store("native-refused").await;
    let visit = |user: String, site: String| Visit {
        user,
        ts: 5,
        site,
        tag: None,
        n: 1,
    };
    match store.put_record(&visit("u1".into(), String::new())).await {
        Err(RowError::Store(DynamoError::NativeKey {
            gsi,
            field,
            message,
            ..
        })) => {
            assert_eq!((gsi, field.as_str()), ("BySite", "site"));
            assert!(
                message.contains("declare the index `dynamodb = encoded`"),
                "{message}"
            );
        }
        other => panic!("{other:?}"),
    }
    // BySite's partition: `BySite_shard` (a one-digit N other than 0: 2
    // bytes) and `site`; its sort part: `BySite_ts_rev` (`-5`: 3 bytes) and
    // `user`. ByCount's sort part: `ByCount_n_rev` (`-1`: 3 bytes), `user`
    // and `ts` (`5`: 2 bytes), the longest.
    let off_shard_0 = |site: &String| {
        BySite::entry_key(&visit("u1".into(), site.clone())).is_some_and(|e| e[2] != 0)
    };
    let (site_max, site_over) = ('a'..='z')
        .map(|c| {
            (
                c.to_string().repeat(2048 - 2),
                c.to_string().repeat(2048 - 1),
            )
        })
        .find(|(max, over)| off_shard_0(max) && off_shard_0(over))
        .expect("a site of shard 1 to 3");
    let user_max = "u".repeat(1024 - 3 - 2);
    store
        .put_record(&visit(user_max.clone(), site_max.clone()))
        .await
        .expect("a write at DynamoDB's key limits");
    let (got, _) = rows(BySite::scan().site(&site_max).request(), &store, None).await;
    assert_eq!(got.len(), 1);
    for (user, site, what) in [
        (user_max.clone() + "u", "s".to_string(), "index sort key"),
        ("u1".to_string(), site_over, "index partition key"),
    ] {
        match store.put_record(&visit(user.clone(), site.clone())).await {
            Err(RowError::Store(DynamoError::Limit {
                what: w, len, max, ..
            })) => {
                assert_eq!((w, len), (what, max + 1), "{what}");
            }
            other => panic!("{what}: {other:?}"),
        }
        assert_eq!(
            store
                .get_record::<Visit>(&Visit::get_key(&user, 5))
                .await
                .expect("a get"),
            None,
            "nothing was written"
        );
    }
}

/// One step of the model.
#[derive(Debug, Clone)]
enum Op {
    Put(Visit),
    PutMany(Vec<Visit>),
    Replace(Visit),
    Delete(String, i64),
}

const USERS: [&str; 3] = ["u1", "u2", "u10"];
const SITES: [&str; 3] = ["a", "ab", "b"];
const TAGS: [&str; 2] = ["x", "xy"];
const TIMES: [i64; 9] = [i64::MIN, -250, -7, 0, 5, 99, 100, 250, i64::MAX];

fn visit() -> impl Strategy<Value = Visit> {
    (
        0..USERS.len(),
        prop::sample::select(TIMES.to_vec()),
        0..SITES.len(),
        prop::option::of(0..TAGS.len()),
        prop::sample::select(vec![0u32, 1, 7, u32::MAX]),
    )
        .prop_map(|(u, ts, s, tag, n)| Visit {
            user: USERS[u].into(),
            ts,
            site: SITES[s].into(),
            tag: tag.map(|t| TAGS[t].into()),
            n,
        })
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => visit().prop_map(Op::Put),
        1 => prop::collection::vec(visit(), 1..6).prop_map(Op::PutMany),
        2 => visit().prop_map(Op::Replace),
        1 => (0..USERS.len(), prop::sample::select(TIMES.to_vec()))
            .prop_map(|(u, ts)| Op::Delete(USERS[u].into(), ts)),
    ]
}

/// The map's rows that have an entry of `I` and `pick` takes, in the
/// index's declared order (its entry keys' byte order), reversed when
/// asked.
fn expected<I: Index<Row = Visit>>(
    model: &BTreeMap<(String, i64), Visit>,
    pick: impl Fn(&Visit) -> bool,
    reverse: bool,
) -> Vec<Visit> {
    let mut rows: Vec<(Vec<u8>, Visit)> = model
        .values()
        .filter(|v| pick(v))
        .filter_map(|v| Some((I::entry_key(v)?, v.clone())))
        .collect();
    rows.sort_by(|a, b| a.0.cmp(&b.0));
    if reverse {
        rows.reverse();
    }
    rows.into_iter().map(|(_, v)| v).collect()
}

/// `request` read whole, and read in pages of `page` rows, each page after
/// the first by a new client resuming the cursor: both equal `want`.
async fn check<I: Index<Row = Visit>>(
    what: &str,
    request: impl Fn() -> ScanRequest<I>,
    store: &DynamoStore,
    page: usize,
    want: &[Visit],
) {
    let (whole, _) = rows(request(), store, None).await;
    assert_eq!(whole, want, "{what}: whole");
    let (mut got, mut cursor) = rows(request().limit(page), store, None).await;
    while !cursor.is_finished() {
        let fresh =
            DynamoStore::connect_local::<Visit>(&endpoint(), store.table()).expect("a new client");
        let (more, next) = rows(request().limit(page).after(cursor), &fresh, None).await;
        assert!(more.len() <= page, "{what}: a page of {} rows", more.len());
        got.extend(more);
        cursor = next;
    }
    assert_eq!(got, want, "{what}: paged by {page}");
}

fn run(ops: &[Op], page: usize) {
    let rt = tokio::runtime::Runtime::new().expect("a runtime");
    rt.block_on(async {
        let store = store("native-model").await;
        let mut model: BTreeMap<(String, i64), Visit> = BTreeMap::new();
        for op in ops {
            match op {
                Op::Put(v) => {
                    store.put_record(v).await.expect("put");
                    model.insert((v.user.clone(), v.ts), v.clone());
                }
                Op::PutMany(vs) => {
                    store.put_records(vs).await.expect("put many");
                    for v in vs {
                        model.insert((v.user.clone(), v.ts), v.clone());
                    }
                }
                Op::Replace(v) => {
                    store.replace_record(v).await.expect("replace");
                    model.insert((v.user.clone(), v.ts), v.clone());
                }
                Op::Delete(user, ts) => {
                    let row = Visit::decode(&Visit::get_key(user, *ts)).expect("a key");
                    store.delete_row(&row).await.expect("delete");
                    model.remove(&(user.clone(), *ts));
                }
            }
        }
        for reverse in [false, true] {
            for site in SITES {
                let on = |v: &Visit| v.site == site;
                let want = expected::<BySite>(&model, on, reverse);
                let by_site = || {
                    let r = BySite::scan().site(site).request();
                    if reverse {
                        r.reverse()
                    } else {
                        r
                    }
                };
                check(
                    &format!("BySite {site} reverse={reverse}"),
                    by_site,
                    &store,
                    page,
                    &want,
                )
                .await;
                // `rev(ts)`: "before 100" is `..100` in the field's terms.
                let before = |v: &Visit| v.site == site && v.ts < 100;
                let want = expected::<BySite>(&model, before, reverse);
                let before_100 = || {
                    let r = BySite::scan().site(site).ts(..100);
                    if reverse {
                        r.reverse()
                    } else {
                        r
                    }
                };
                check(
                    &format!("BySite {site} ..100 reverse={reverse}"),
                    before_100,
                    &store,
                    page,
                    &want,
                )
                .await;
                let want = expected::<ByBucket>(&model, on, reverse);
                let by_bucket = || {
                    let r = ByBucket::scan().site(site).request();
                    if reverse {
                        r.reverse()
                    } else {
                        r
                    }
                };
                check(
                    &format!("ByBucket {site} reverse={reverse}"),
                    by_bucket,
                    &store,
                    page,
                    &want,
                )
                .await;
                let within = |v: &Visit| v.site == site && (-7..=250).contains(&v.ts);
                let want = expected::<ByBucket>(&model, within, reverse);
                let bucket_range = || {
                    let r = ByBucket::scan()
                        .site(site)
                        .ts(-7..=250)
                        .expect("a range of 3 buckets");
                    if reverse {
                        r.reverse()
                    } else {
                        r
                    }
                };
                check(
                    &format!("ByBucket {site} -7..=250 reverse={reverse}"),
                    bucket_range,
                    &store,
                    page,
                    &want,
                )
                .await;
                let want = expected::<ByCount>(&model, on, reverse);
                let by_count = || {
                    let r = ByCount::scan().site(site).request();
                    if reverse {
                        r.reverse()
                    } else {
                        r
                    }
                };
                check(
                    &format!("ByCount {site} reverse={reverse}"),
                    by_count,
                    &store,
                    page,
                    &want,
                )
                .await;
            }
            for tag in TAGS {
                let on = |v: &Visit| v.tag.as_deref() == Some(tag);
                let want = expected::<ByTag>(&model, on, reverse);
                let by_tag = || {
                    let r = ByTag::scan().tag(tag).request();
                    if reverse {
                        r.reverse()
                    } else {
                        r
                    }
                };
                check(
                    &format!("ByTag {tag} reverse={reverse}"),
                    by_tag,
                    &store,
                    page,
                    &want,
                )
                .await;
            }
        }
    });
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, failure_persistence: None, ..ProptestConfig::default() })]
    #[test]
    #[ignore = "needs multi-attribute GSIs: DynamoDB Local 3.3 (.ci/dynamodb-local)"]
    fn native_index_scans_agree_with_a_map(ops in prop::collection::vec(op(), 1..40), page in 1usize..4) {
        run(&ops, page);
    }
}
