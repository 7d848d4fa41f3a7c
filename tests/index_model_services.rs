//! Indexes as a model (issue 20) on the Bigtable emulator: random
//! interleavings of the async record operations against a plain map
//! (`common::index_model`). Bigtable applies each row atomically, not a
//! write and its entries: a write reads the rows' old values, then writes
//! the new entries, the rows, and the old entries' deletes, three
//! requests. A crash stops a write after any of them (`common::cut`: the
//! requests after the cut never leave); a restart is a new client on the
//! same table, and every scan page after the first is read by one. Another
//! program's delete removes the row alone. Every index scan must equal the
//! map: no row that is not in the table, none missed.
#![cfg(feature = "bigtable")]

mod common;

use common::cut::Cut;
use common::index_model::{by_page, by_tag, op, run, Driver, Hit, Key, Scan};
use common::{cbt, emulator};
use futures_util::StreamExt;
use keyschema::store::bigtable::BigtableStore;
use keyschema::store::{AsyncRecordStore, AsyncStore, Mutation};
use keyschema::{Cursor, Index, RowKey, ScanRequest};
use proptest::prelude::*;
use tokio::runtime::Runtime;

fn key_of(key: &Key) -> Vec<u8> {
    Hit::get_key(&key.0, key.1)
}

fn text<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

struct Bigtable {
    rt: Runtime,
    table: String,
    store: Cut<BigtableStore>,
    stale: u64,
}

impl Bigtable {
    fn new() -> Self {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("a runtime");
        let table = emulator::fresh_table("index-model");
        let store = rt.block_on(async {
            let store = connect(&table).await;
            store.create_table_for::<Hit>().await.expect("a table");
            store
        });
        Bigtable {
            rt,
            table,
            store: Cut::new(store),
            stale: 0,
        }
    }

    /// The rows of `request` after `take` of them (all when `None`), and
    /// the cursor after them.
    fn rows<I: Index<Row = Hit>>(
        &mut self,
        request: ScanRequest<I>,
        take: Option<usize>,
    ) -> Result<(Vec<Hit>, Cursor), String> {
        let mut rows = request.stream_rows(&self.store);
        let page = self.rt.block_on(async {
            let mut page = Vec::new();
            while take.is_none_or(|k| page.len() < k) {
                match rows.next().await {
                    Some(row) => page.push(row.map_err(text)?),
                    None => break,
                }
            }
            Ok::<_, String>(page)
        })?;
        self.stale += rows.stale_entries();
        Ok((page, rows.cursor()))
    }

    fn scan(
        &mut self,
        scan: &Scan,
        after: Option<Cursor>,
        take: Option<usize>,
    ) -> Result<(Vec<Hit>, Cursor), String> {
        if let Some(request) = by_page(scan, after.clone()) {
            return self.rows(request, take);
        }
        let request = by_tag(scan, after).ok_or("a page or a tag scan")?;
        self.rows(request, take)
    }
}

async fn connect(table: &str) -> BigtableStore {
    BigtableStore::connect_emulator(&emulator::host(), cbt::PROJECT, cbt::INSTANCE, table)
        .await
        .expect("connect")
}

impl Driver for Bigtable {
    fn put(&mut self, row: &Hit) -> Result<(), String> {
        self.rt.block_on(self.store.put_record(row)).map_err(text)
    }
    fn put_many(&mut self, rows: &[Hit]) -> Result<(), String> {
        self.rt.block_on(self.store.put_records(rows)).map_err(text)
    }
    fn replace(&mut self, row: &Hit) -> Result<(), String> {
        self.rt
            .block_on(self.store.replace_record(row))
            .map_err(text)
    }
    fn delete(&mut self, key: &Key) -> Result<(), String> {
        let row = Hit::decode(&key_of(key)).map_err(text)?;
        // The store's own typed delete, as a user calls it.
        self.rt
            .block_on(self.store.inner.delete_row(&row))
            .map_err(text)
    }
    fn get(&mut self, key: &Key) -> Result<Option<Hit>, String> {
        self.rt
            .block_on(self.store.get_record::<Hit>(&key_of(key)))
            .map_err(text)
    }
    fn scan_page(
        &mut self,
        scan: &Scan,
        after: Option<Cursor>,
    ) -> Result<(Vec<Hit>, Cursor), String> {
        if after.is_some() {
            self.restart();
        }
        self.scan(scan, after, None)
    }
    fn scan_first(&mut self, scan: &Scan, k: usize) -> Result<(Vec<Hit>, Cursor), String> {
        self.scan(scan, None, Some(k))
    }
    fn foreign_delete(&mut self, key: &Key) {
        let delete = Mutation::Delete { key: key_of(key) };
        self.rt
            .block_on(AsyncStore::write(&self.store.inner, vec![delete]))
            .expect("another program's delete");
    }
    fn crash_in_put(&mut self, row: &Hit, steps: usize) {
        self.store.cut_after(Some(steps));
        let _ = self.rt.block_on(self.store.put_record(row));
        self.store.cut_after(None);
    }
    fn restart(&mut self) {
        let store = self.rt.block_on(connect(&self.table));
        self.store = Cut::new(store);
    }
    fn transactional(&self) -> bool {
        false
    }
    fn stale_seen(&mut self) -> u64 {
        std::mem::take(&mut self.stale)
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
    #[test]
    fn index_scans_agree_with_a_map_on_bigtable(ops in prop::collection::vec(op(), 1..50)) {
        run(&mut Bigtable::new(), &ops)?;
    }
}
