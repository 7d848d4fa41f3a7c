//! The layout change as a model (issue 18) on the Bigtable emulator, through
//! the async API: `common::layout_model` runs random interleavings of every
//! public operation against a map, and this file drives each on a
//! `BigtableStore` (typed writes and gets, paged scans as streams,
//! `copy_batch_async`, `copy_async`, `verify_async`, `delete_older_async`).
//! A crash is a store that dies after some compare-and-sets, in front of
//! the real emulator; a restart drops the client and connects a new one,
//! with a new backfill from the checkpoint.
#![cfg(feature = "bigtable")]

mod common;

use common::emulator;
use common::history::{Event, Request};
use common::layout_model::{fresh_backfill as fresh, op, run, scan_from, Driver, Page};
use futures_util::StreamExt;
use keyschema::backfill::{Backfill, Progress, Verification};
use keyschema::history::Phase;
use keyschema::store::bigtable::{BigtableError, BigtableStore};
use keyschema::store::{AsyncStore, BoxFuture, BoxRowStream, Cas, Direction, Mutation, Row};
use keyschema::{Cursor, KeyRange, RowKey};
use proptest::prelude::*;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use tokio::runtime::Runtime;

/// What the dying store reports.
#[derive(Debug)]
enum Fault {
    Died,
    Store(BigtableError),
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fault::Died => f.write_str("injected: the process died"),
            Fault::Store(e) => write!(f, "store: {e}"),
        }
    }
}

impl std::error::Error for Fault {}

/// The emulator's store, dying after `left` compare-and-sets (the ones
/// before it landed on the emulator).
struct Dying<'s> {
    inner: &'s BigtableStore,
    left: AtomicUsize,
}

impl AsyncStore for Dying<'_> {
    type Error = Fault;

    fn scan_stream(
        &self,
        range: &KeyRange,
        direction: Direction,
        limit: Option<usize>,
    ) -> BoxRowStream<Fault> {
        self.inner
            .scan_stream(range, direction, limit)
            .map(|r| r.map_err(Fault::Store))
            .boxed()
    }

    fn get_many(&self, keys: Vec<Vec<u8>>) -> BoxFuture<'_, Result<Vec<Row>, Fault>> {
        Box::pin(async move { self.inner.get_many(keys).await.map_err(Fault::Store) })
    }

    fn write(&self, batch: Vec<Mutation>) -> BoxFuture<'_, Result<(), Fault>> {
        Box::pin(async move { self.inner.write(batch).await.map_err(Fault::Store) })
    }

    fn compare_and_write(&self, batch: Vec<Cas>) -> BoxFuture<'_, Result<Vec<bool>, Fault>> {
        Box::pin(async move {
            let left = self.left.load(Ordering::SeqCst);
            let n = batch.len().min(left);
            self.left.store(left - n, Ordering::SeqCst);
            let mut batch = batch;
            let cut = n < batch.len();
            batch.truncate(n);
            let applied = AsyncStore::compare_and_write(self.inner, batch)
                .await
                .map_err(Fault::Store)?;
            if cut {
                return Err(Fault::Died);
            }
            Ok(applied)
        })
    }
}

/// The model's operations on the emulator, each run to its end on `rt`.
struct Emulated {
    rt: Runtime,
    table: String,
    store: BigtableStore,
    backfill: Backfill<Event>,
    checkpoint: PathBuf,
}

async fn connect(table: &str) -> BigtableStore {
    BigtableStore::connect_emulator(&emulator::host(), "keyschema", "test", table)
        .await
        .expect("connect")
}

impl Emulated {
    fn new(dir: &std::path::Path, case: usize) -> Self {
        let rt = Runtime::new().expect("a runtime");
        let table = emulator::fresh_table(&format!("model{case}"));
        let store = rt.block_on(async {
            let store = connect(&table).await;
            store.create_table_for::<Event>().await.expect("create");
            store
        });
        let checkpoint = dir.join("backfill.checkpoint");
        Emulated {
            rt,
            table,
            store,
            backfill: fresh(&checkpoint),
            checkpoint,
        }
    }

    fn dying(&self, n: usize) -> Dying<'_> {
        Dying {
            inner: &self.store,
            left: AtomicUsize::new(n),
        }
    }
}

impl Driver for Emulated {
    fn put_in(&mut self, phase: Phase, e: &Event, value: &[u8]) -> Result<(), String> {
        let put = AsyncStore::put_row_in(&self.store, phase, e, value);
        self.rt.block_on(put).map_err(|e| e.to_string())
    }
    fn replace_in(&mut self, phase: Phase, e: &Event, value: &[u8]) {
        let replace = AsyncStore::replace_row_in(&self.store, phase, e, value);
        self.rt.block_on(replace).expect("replace");
    }
    fn delete_in(&mut self, phase: Phase, e: &Event) {
        let delete = AsyncStore::delete_row_in(&self.store, phase, e);
        self.rt.block_on(delete).expect("delete");
    }
    fn delete_older_key(&mut self, e: &Event) {
        let key = e.encode_older().expect("a history");
        let delete = self.store.write(vec![Mutation::Delete { key }]);
        self.rt.block_on(delete).expect("delete");
    }
    fn get_in(&mut self, phase: Phase, e: &Event) -> Option<Vec<u8>> {
        let get = AsyncStore::get_row_in(&self.store, phase, e);
        self.rt.block_on(get).expect("get").map(|(_, v)| v)
    }
    fn older_holds(&mut self, e: &Event) -> bool {
        let key = e.encode_older().expect("a history");
        let get = self.store.get_many(vec![key]);
        !self.rt.block_on(get).expect("get").is_empty()
    }
    fn scan_page(
        &mut self,
        r: &Request,
        phase: Phase,
        after: Option<Cursor>,
    ) -> Result<Page, String> {
        let scan = scan_from(r, phase, after);
        let mut rows = scan.stream(&self.store);
        let page = self.rt.block_on(async {
            let mut page = Vec::new();
            while let Some(row) = rows.next().await {
                page.push(row.map_err(|e| e.to_string())?);
            }
            Ok::<_, String>(page)
        })?;
        Ok((page, rows.cursor()))
    }
    fn copy_batch(&mut self) -> Result<(), String> {
        let copy = self.backfill.copy_batch_async(&self.store);
        self.rt
            .block_on(copy)
            .map(|_| ())
            .map_err(|e| e.to_string())
    }
    fn crash_in_copy(&mut self, n: usize) -> Option<String> {
        // The process dies: its backfill object goes with it.
        let mut backfill = std::mem::replace(&mut self.backfill, fresh(&self.checkpoint));
        let dying = self.dying(n);
        let copy = backfill.copy_batch_async(&dying);
        self.rt.block_on(copy).err().map(|e| e.to_string())
    }
    fn restart(&mut self) {
        // A new process: a new client and a new backfill.
        self.store = self.rt.block_on(connect(&self.table));
        self.backfill = fresh(&self.checkpoint);
    }
    fn copy(&mut self) -> Progress {
        let copy = self.backfill.copy_async(&self.store);
        self.rt.block_on(copy).expect("copy")
    }
    fn verify(&mut self) -> Verification {
        let verify = self.backfill.verify_async(&self.store);
        self.rt.block_on(verify).expect("verify")
    }
    fn delete_older(&mut self, verified: &Verification, fail: Option<usize>) -> Result<(), String> {
        let Some(n) = fail else {
            let delete = self.backfill.delete_older_async(&self.store, verified);
            return self
                .rt
                .block_on(delete)
                .map(|_| ())
                .map_err(|e| e.to_string());
        };
        let mut backfill = std::mem::replace(&mut self.backfill, fresh(&self.checkpoint));
        let dying = self.dying(n);
        let delete = backfill.delete_older_async(&dying, verified);
        self.rt
            .block_on(delete)
            .map(|_| ())
            .map_err(|e| e.to_string())
    }
}

static CASES: AtomicUsize = AtomicUsize::new(0);

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]
    #[test]
    fn the_layout_change_agrees_with_a_map_bigtable_emulator(ops in prop::collection::vec(op(), 1..120)) {
        let dir = tempfile::tempdir().expect("temp dir");
        let case = CASES.fetch_add(1, Ordering::SeqCst);
        run(&mut Emulated::new(dir.path(), case), &ops)?;
    }
}
