//! An index added to a live DynamoDB table (issue 20): the table written
//! by the binary before the index, the index declared `building` and its
//! GSI created with `add_indexes`, the older items given their index
//! attributes by `IndexBackfill::build_async` (a Scan and conditional
//! UpdateItems), crashes between batches resumed from the checkpoint in a
//! fresh object, and writers of both binaries meanwhile. Checked against a
//! plain map through the finished index's own scans, and with boto3's view
//! of the table's GSIs in `index_services`.
#![cfg(feature = "dynamodb")]

mod common;

use common::dynalite;
use futures_util::StreamExt;
use keyschema::index::IndexBackfill;
use keyschema::store::dynamodb::{DynamoError, DynamoStore};
use keyschema::store::{
    AsyncRecordStore, AsyncStore, BoxFuture, BoxRowStream, BoxTableStream, Cas, Direction,
    EntryChange, Mutation, Row, TablePass,
};
use keyschema::{KeyRange, RowKey, Schema};
use proptest::prelude::*;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// The rows as the binary before the index writes them.
mod before {
    use keyschema::RowKey;
    #[derive(RowKey, Debug, Clone, PartialEq)]
    #[rowkey(salt = hash(user) % 4, then = (user), ts)]
    pub struct Visit {
        pub user: String,
        pub ts: u16,
        #[rowkey(value)]
        pub site: Option<String>,
        #[rowkey(value)]
        pub n: u32,
    }
}

/// The same rows with the index, still being built.
mod building {
    use keyschema::RowKey;
    #[derive(RowKey, Debug, Clone, PartialEq)]
    #[rowkey(
        salt = hash(user) % 4,
        then = (user), ts,
        index(BySite, building, prefix = "s", salt = hash(site) % 4, then = (site), rev(ts), user, dynamodb = encoded),
    )]
    pub struct Visit {
        pub user: String,
        pub ts: u16,
        #[rowkey(value)]
        pub site: Option<String>,
        #[rowkey(value)]
        pub n: u32,
    }
}

/// The same rows once the index is built.
mod built {
    use keyschema::RowKey;
    #[derive(RowKey, Debug, Clone, PartialEq)]
    #[rowkey(
        salt = hash(user) % 4,
        then = (user), ts,
        index(BySite, prefix = "s", salt = hash(site) % 4, then = (site), rev(ts), user, dynamodb = encoded),
    )]
    pub struct Visit {
        pub user: String,
        pub ts: u16,
        #[rowkey(value)]
        pub site: Option<String>,
        #[rowkey(value)]
        pub n: u32,
    }
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("a runtime")
}

async fn connect<K: RowKey>(table: &str) -> DynamoStore {
    DynamoStore::connect_local::<K>(&dynalite::endpoint(), table).expect("a store")
}

/// Whether the server is DynamoDB Local (`.ci/run` sets the endpoint),
/// which adds a GSI to an existing table; dynalite takes the UpdateTable
/// and makes none.
fn adds_gsis() -> bool {
    std::env::var("DYNAMODB_ENDPOINT").is_ok()
}

/// A table as the binary before the index made it, its store. On dynalite
/// the table has the GSI from the start (dynalite cannot add one later),
/// and the older items still carry no index attributes.
async fn table_before(name: &str) -> (String, DynamoStore) {
    let table = dynalite::fresh_table(name);
    let old_store = connect::<before::Visit>(&table).await;
    if adds_gsis() {
        assert!(old_store.create_table().await.expect("create"));
    } else {
        let built = connect::<built::Visit>(&table).await;
        assert!(built.create_table().await.expect("create"));
    }
    (table, old_store)
}

/// `add_indexes` on the building binary's store: creates the GSI where the
/// server can, and finds it there on dynalite.
async fn add_gsi(store: &DynamoStore) {
    if adds_gsis() {
        assert_eq!(store.add_indexes().await.expect("add"), vec!["BySite"]);
    }
    assert_eq!(
        store.add_indexes().await.expect("again"),
        Vec::<&str>::new()
    );
}

type Model = BTreeMap<(String, u16), (Option<String>, u32)>;

fn old(user: &str, ts: u16, site: Option<&str>, n: u32) -> before::Visit {
    before::Visit {
        user: user.into(),
        ts,
        site: site.map(Into::into),
        n,
    }
}

fn new(user: &str, ts: u16, site: Option<&str>, n: u32) -> building::Visit {
    building::Visit {
        user: user.into(),
        ts,
        site: site.map(Into::into),
        n,
    }
}

/// Every site's rows through the built index, latest first.
async fn through_index(store: &DynamoStore, sites: &[&str]) -> Vec<(String, u16, String, u32)> {
    let mut out = Vec::new();
    for site in sites {
        let mut rows = built::BySite::scan()
            .site(*site)
            .request()
            .stream_rows(store);
        while let Some(row) = rows.next().await {
            let row = row.expect("a row");
            out.push((row.user, row.ts, row.site.unwrap_or_default(), row.n));
        }
    }
    out
}

/// What the index must return: the model's rows with a site, per site,
/// latest first (ties by user).
fn expected(model: &Model, sites: &[&str]) -> Vec<(String, u16, String, u32)> {
    let mut out = Vec::new();
    for site in sites {
        let mut rows: Vec<_> = model
            .iter()
            .filter(|(_, (s, _))| s.as_deref() == Some(*site))
            .map(|((u, ts), (s, n))| (u.clone(), *ts, s.clone().unwrap_or_default(), *n))
            .collect();
        rows.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        out.extend(rows);
    }
    out
}

#[test]
fn an_index_added_to_a_live_dynamodb_table_is_built_and_verified() {
    rt().block_on(async {
        let (table, old_store) = table_before("live-index").await;
        let mut model = Model::new();
        for i in 0..40u16 {
            let site = match i % 5 {
                0 => None,
                k => Some(["a", "b", "c", "d"][usize::from(k - 1)]),
            };
            let row = old(&format!("u{}", i % 7), i, site, u32::from(i));
            old_store.put_record(&row).await.expect("old write");
            model.insert((row.user.clone(), i), (row.site.clone(), row.n));
        }

        let store = connect::<building::Visit>(&table).await;
        assert!(store.check_table().await.expect("check"));

        // The new binary writes meanwhile: new rows, a site changed, one
        // dropped to none, a delete.
        for (user, ts, site) in [
            ("n1", 100, Some("a")),
            ("u1", 1, Some("d")),
            ("u2", 2, None),
        ] {
            let row = new(user, ts, site, 7);
            store.put_record(&row).await.expect("new write");
            model.insert((user.into(), ts), (row.site.clone(), 7));
        }
        store
            .delete_row(&new("u3", 3, None, 0))
            .await
            .expect("delete");
        model.remove(&("u3".into(), 3));

        add_gsi(&store).await;

        // A crash after two batches; a fresh object resumes from the file.
        let dir = tempfile::tempdir().expect("a dir");
        let checkpoint = dir.path().join("by-site.checkpoint");
        let dying = Dying::new(store.clone(), 2);
        let mut backfill = IndexBackfill::<building::BySite>::new()
            .batch(7)
            .checkpoint(&checkpoint);
        let err = backfill.build_async(&dying).await.expect_err("died");
        assert!(err.to_string().contains("died"), "{err}");
        let before_resume = store.requests();
        let progress = IndexBackfill::<building::BySite>::new()
            .batch(7)
            .checkpoint(&checkpoint)
            .build_async(&store)
            .await
            .expect("resumed");
        assert!(progress.finished);
        assert_eq!(progress.rows_done, model.len() as u64);
        assert_eq!(progress.remaining, vec![(0, 0)]);
        let spent = store.requests();
        // One UpdateItem per older item with a site, over both runs (the
        // half-applied batch's items already carry theirs when the resumed
        // run reads them again); the resumed run reads on from its mark.
        let needs = (0..40u16)
            .filter(|i| i % 5 != 0 && ![1, 2, 3].contains(i))
            .count() as u64;
        assert_eq!(spent.update_item, needs, "{spent:?}");
        assert!(spent.scan - before_resume.scan <= (model.len() as u64).div_ceil(7) + 1);
        let verified = IndexBackfill::<building::BySite>::new()
            .verify_async(&store)
            .await
            .expect("verify");
        assert!(verified.matches(), "{verified:?}");
        let with_site = model.values().filter(|(s, _)| s.is_some()).count() as u64;
        assert_eq!(
            (verified.rows, verified.expected, verified.entries),
            (model.len() as u64, with_site, with_site)
        );

        let done = connect::<built::Visit>(&table).await;
        assert!(done.check_table().await.expect("the GSI is there"));
        let sites = ["a", "b", "c", "d"];
        assert_eq!(through_index(&done, &sites).await, expected(&model, &sites));
    });
}

#[test]
fn a_pass_never_overwrites_a_write_made_after_it_read() {
    rt().block_on(async {
        let (table, old_store) = table_before("live-race").await;
        for (user, ts) in [("a", 1), ("b", 2), ("c", 3)] {
            old_store
                .put_record(&old(user, ts, Some("x"), 0))
                .await
                .expect("write");
        }
        let store = connect::<building::Visit>(&table).await;
        add_gsi(&store).await;
        let index = building::BySite::schema();
        let mut read = Vec::new();
        let mut rows = store.rows(index, false, None, 100);
        while let Some(row) = rows.next().await {
            read.push(row.expect("a row"));
        }
        read.sort_by(|a, b| a.key.cmp(&b.key));
        assert_eq!(read.len(), 3);
        assert!(read.iter().all(|r| r.carried.is_none()));
        // After the pass read them: the old binary moves `a` to site y
        // (no index attributes), the new binary moves `b` to site z (its
        // own), and `c` is deleted.
        old_store
            .put_record(&old("a", 1, Some("y"), 0))
            .await
            .expect("old write");
        store
            .put_record(&new("b", 2, Some("z"), 0))
            .await
            .expect("new write");
        store
            .delete_row(&new("c", 3, None, 0))
            .await
            .expect("delete");
        let changes = read
            .into_iter()
            .map(|r| EntryChange {
                key: r.key,
                value: r.value,
                was: r.carried,
            })
            .collect();
        let applied = store.set_entries(index, changes).await.expect("set");
        assert_eq!(applied.len(), 3);
        assert!(applied.iter().all(|a| !a), "{applied:?}");
        // `c` was not brought back by the update.
        assert!(store
            .get_record::<building::Visit>(&new("c", 3, None, 0).encode())
            .await
            .expect("get")
            .is_none());
        // `b` is under z, `a` under nothing until a build reads it again.
        let v = IndexBackfill::<building::BySite>::new()
            .verify_async(&store)
            .await
            .expect("verify");
        assert_eq!(
            (v.rows, v.expected, v.present, v.entries),
            (2, 2, 1, 1),
            "{v:?}"
        );
        IndexBackfill::<building::BySite>::new()
            .build_async(&store)
            .await
            .expect("build");
        let done = connect::<built::Visit>(&table).await;
        let got = through_index(&done, &["x", "y", "z"]).await;
        assert_eq!(
            got,
            vec![
                ("a".into(), 1, "y".into(), 0),
                ("b".into(), 2, "z".into(), 0)
            ]
        );
    });
}

#[test]
fn a_building_index_may_lack_its_gsi_and_a_built_one_may_not() {
    rt().block_on(async {
        let table = dynalite::fresh_table("live-gsi");
        let old_store = connect::<before::Visit>(&table).await;
        assert!(old_store.create_table().await.expect("create"));
        // The building binary connects to the table without the GSI; the
        // built one is refused until the GSI exists.
        let store = connect::<building::Visit>(&table).await;
        assert!(store
            .check_table()
            .await
            .expect("a building index may lack its GSI"));
        let built = connect::<built::Visit>(&table).await;
        let refused = built.check_table().await.expect_err("no GSI yet");
        assert!(refused.to_string().contains("add_indexes"), "{refused}");
        if adds_gsis() {
            assert_eq!(store.add_indexes().await.expect("add"), vec!["BySite"]);
            assert!(built.check_table().await.expect("the GSI is there"));
            let described = store
                .client()
                .describe_table()
                .table_name(&table)
                .send()
                .await
                .expect("describe");
            let gsis = described
                .table()
                .expect("a table")
                .global_secondary_indexes();
            assert_eq!(gsis.len(), 1);
            let keys: Vec<_> = gsis[0]
                .key_schema()
                .iter()
                .map(|k| k.attribute_name().to_string())
                .collect();
            assert_eq!(keys, ["BySite_pk", "BySite_sk"]);
        } else {
            let err = store
                .add_indexes()
                .await
                .expect_err("dynalite makes no GSI");
            assert!(err.to_string().contains("made no such GSI"), "{err}");
        }
    });
}

/// One step of the live-add model.
#[derive(Debug, Clone)]
enum Op {
    /// The binary before the index writes (or rewrites) a row.
    Old(u8, u16, Option<u8>),
    /// The binary with the building index writes one.
    New(u8, u16, Option<u8>),
    /// The new binary deletes one.
    Delete(u8, u16),
    /// A build run that dies after `n` batches (resumed by the next).
    Build(Option<u8>),
}

fn op() -> impl Strategy<Value = Op> {
    let site = proptest::option::of(0..3u8);
    prop_oneof![
        3 => (0..4u8, 0..6u16, site.clone()).prop_map(|(u, t, s)| Op::Old(u, t, s)),
        2 => (0..4u8, 0..6u16, site).prop_map(|(u, t, s)| Op::New(u, t, s)),
        1 => (0..4u8, 0..6u16).prop_map(|(u, t)| Op::Delete(u, t)),
        2 => proptest::option::of(0..3u8).prop_map(Op::Build),
    ]
}

const SITES: [&str; 3] = ["s0", "s1", "s2"];

proptest! {
    #![proptest_config(ProptestConfig { cases: 6, failure_persistence: None, ..ProptestConfig::default() })]

    /// Random writes of both binaries, deletes and build runs that die
    /// between batches, then one last build: the index equals the map.
    #[test]
    fn live_add_model(ops in proptest::collection::vec(op(), 1..30)) {
        rt().block_on(async {
            let (table, old_store) = table_before("live-model").await;
            let store = connect::<building::Visit>(&table).await;
            add_gsi(&store).await;
            let dir = tempfile::tempdir().expect("a dir");
            let checkpoint = dir.path().join("cp");
            let mut model = Model::new();
            for op in ops {
                match op {
                    Op::Old(u, ts, s) => {
                        let site = s.map(|s| SITES[usize::from(s)]);
                        old_store.put_record(&old(&format!("u{u}"), ts, site, 1)).await.expect("old");
                        model.insert((format!("u{u}"), ts), (site.map(Into::into), 1));
                    }
                    Op::New(u, ts, s) => {
                        let site = s.map(|s| SITES[usize::from(s)]);
                        store.put_record(&new(&format!("u{u}"), ts, site, 2)).await.expect("new");
                        model.insert((format!("u{u}"), ts), (site.map(Into::into), 2));
                    }
                    Op::Delete(u, ts) => {
                        store.delete_row(&new(&format!("u{u}"), ts, None, 0)).await.expect("delete");
                        model.remove(&(format!("u{u}"), ts));
                    }
                    Op::Build(dies) => {
                        let mut backfill = IndexBackfill::<building::BySite>::new().batch(3).checkpoint(&checkpoint);
                        match dies {
                            Some(n) => { let _ = backfill.build_async(&Dying::new(store.clone(), usize::from(n))).await; }
                            None => { backfill.build_async(&store).await.expect("build"); }
                        }
                    }
                }
            }
            // The last pass: resume (or start) and finish, then a full one
            // for rows the old binary wrote behind the resumed pass.
            for _ in 0..2 {
                IndexBackfill::<building::BySite>::new().batch(3).checkpoint(&checkpoint)
                    .build_async(&store).await.expect("build");
            }
            let v = IndexBackfill::<building::BySite>::new().verify_async(&store).await.expect("verify");
            assert!(v.matches(), "{v:?}");
            let done = connect::<built::Visit>(&table).await;
            assert_eq!(through_index(&done, &SITES).await, expected(&model, &SITES));
        });
    }
}

/// The DynamoDB store whose entry writes stop after `batches` batches:
/// a build process that dies (the last batch half applied).
struct Dying {
    inner: DynamoStore,
    batches: Arc<AtomicUsize>,
}

impl Dying {
    fn new(inner: DynamoStore, batches: usize) -> Self {
        Dying {
            inner,
            batches: Arc::new(AtomicUsize::new(batches)),
        }
    }
}

fn died() -> DynamoError {
    DynamoError::Request {
        operation: "UpdateItem",
        message: "the process died".into(),
    }
}

impl AsyncStore for Dying {
    type Error = DynamoError;
    fn scan_stream(
        &self,
        range: &KeyRange,
        d: Direction,
        limit: Option<usize>,
    ) -> BoxRowStream<DynamoError> {
        self.inner.scan_stream(range, d, limit)
    }
    fn get_many(&self, keys: Vec<Vec<u8>>) -> BoxFuture<'_, Result<Vec<Row>, DynamoError>> {
        AsyncStore::get_many(&self.inner, keys)
    }
    fn write(&self, batch: Vec<Mutation>) -> BoxFuture<'_, Result<(), DynamoError>> {
        AsyncStore::write(&self.inner, batch)
    }
    fn compare_and_write(&self, batch: Vec<Cas>) -> BoxFuture<'_, Result<Vec<bool>, DynamoError>> {
        AsyncStore::compare_and_write(&self.inner, batch)
    }
    fn keeps_indexes(&self) -> bool {
        true
    }
    fn identity(&self) -> Option<String> {
        self.inner.identity()
    }
    fn check_key_type(&self, schema: &'static Schema) -> Result<(), DynamoError> {
        self.inner.check_key_type(schema)
    }
    fn table_pass(&self) -> Option<&dyn TablePass<Error = DynamoError>> {
        Some(self)
    }
}

impl TablePass for Dying {
    type Error = DynamoError;
    fn rows(
        &self,
        index: &'static Schema,
        from_index: bool,
        after: Option<Vec<u8>>,
        page: usize,
    ) -> BoxTableStream<DynamoError> {
        self.inner.rows(index, from_index, after, page)
    }
    fn set_entries(
        &self,
        index: &'static Schema,
        mut changes: Vec<EntryChange>,
    ) -> BoxFuture<'_, Result<Vec<bool>, DynamoError>> {
        Box::pin(async move {
            let left = self.batches.load(Ordering::SeqCst);
            if left == 0 {
                // Half the batch reaches the table, then the process dies.
                changes.truncate(changes.len() / 2);
                self.inner.set_entries(index, changes).await?;
                return Err(died());
            }
            self.batches.store(left - 1, Ordering::SeqCst);
            self.inner.set_entries(index, changes).await
        })
    }
}
