//! Whole rows as a model (issue 19) on memory and redb: random
//! interleavings of the public record operations against a plain map
//! (`common::rows_model`). A restart is a fresh store object on the same
//! data (redb: the file closed and opened again); a crash in a batch is the
//! process dying after it, since a batch is one transaction here. Another
//! program's row is a MessagePack map with a field this struct lacks.

mod common;

use common::rows_model::{op, request, run, Amount, Driver, Key, Scan, Visit};
use keyschema::store::{MemoryStore, RecordStore, RedbStore, RowStore, Store};
use keyschema::{Cursor, RowKey};
use proptest::prelude::*;
use serde::Serialize;

/// What another program writes: the amount and a field of its own.
#[derive(Serialize)]
struct Foreign<'a> {
    written_by: &'a str,
    amount: i64,
}

fn foreign_bytes(amount: i64) -> Vec<u8> {
    rmp_serde::to_vec_named(&Foreign {
        written_by: "billing-v1",
        amount,
    })
    .expect("msgpack")
}

/// One driver over any sync store, reopened by `reopen`.
struct Sync<S: Store> {
    store: Option<S>,
    reopen: Box<dyn Fn(Option<S>) -> S>,
}

impl<S: Store> Sync<S>
where
    S::Error: std::fmt::Debug,
{
    fn new(reopen: impl Fn(Option<S>) -> S + 'static) -> Self {
        Sync {
            store: Some(reopen(None)),
            reopen: Box::new(reopen),
        }
    }

    fn store(&self) -> &S {
        self.store.as_ref().expect("a store")
    }
}

fn text<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

impl<S: Store> Driver for Sync<S>
where
    S::Error: std::fmt::Debug + std::fmt::Display,
{
    fn put(&mut self, row: &Visit) -> Result<(), String> {
        self.store().put_record(row).map_err(text)
    }
    fn put_many(&mut self, rows: &[Visit]) -> Result<(), String> {
        self.store().put_records(rows).map_err(text)
    }
    fn replace(&mut self, row: &Visit) -> Result<(), String> {
        self.store().replace_record(row).map_err(text)
    }
    fn delete(&mut self, key: &Key) -> Result<(), String> {
        let row = Visit::decode(&Visit::get_key(&key.0, key.1)).map_err(text)?;
        self.store().delete_row(&row).map_err(text)
    }
    fn get(&mut self, key: &Key) -> Result<Option<Visit>, String> {
        self.store()
            .get_record::<Visit>(&Visit::get_key(&key.0, key.1))
            .map_err(text)
    }
    fn get_amount(&mut self, key: &Key) -> Result<Option<Amount>, String> {
        self.store()
            .get_projected::<Amount>(&Visit::get_key(&key.0, key.1))
            .map_err(text)
    }
    fn scan_page(
        &mut self,
        scan: &Scan,
        after: Option<Cursor>,
    ) -> Result<(Vec<Visit>, Cursor), String> {
        if after.is_some() {
            self.restart();
        }
        let mut rows = request(scan, after).run(self.store()).records();
        let page = rows.by_ref().collect::<Result<Vec<_>, _>>().map_err(text)?;
        Ok((page, rows.inner().cursor()))
    }
    fn scan_amounts(&mut self, scan: &Scan) -> Result<Vec<Amount>, String> {
        request(scan, None)
            .project::<Amount>()
            .run(self.store())
            .collect::<Result<Vec<_>, _>>()
            .map_err(text)
    }
    fn foreign(&mut self, key: &Key, amount: i64) {
        let k = Visit::get_key(&key.0, key.1);
        self.store()
            .put(&k, &foreign_bytes(amount))
            .expect("another program's write");
    }
    fn crash_in_put_many(&mut self, rows: &[Visit], _micros: u64) {
        self.store().put_records(rows).expect("the batch");
    }
    fn restart(&mut self) {
        let old = self.store.take();
        self.store = Some((self.reopen)(old));
    }
}

fn memory() -> Sync<MemoryStore> {
    let shared = MemoryStore::new();
    Sync::new(move |_| shared.clone())
}

fn redb(dir: &std::path::Path) -> Sync<RedbStore> {
    let path = dir.to_path_buf();
    Sync::new(move |old| {
        drop(old); // redb holds a lock on its file until closed
        RedbStore::open(&path).expect("redb")
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]
    #[test]
    fn whole_rows_agree_with_a_map_on_memory(ops in prop::collection::vec(op(), 1..80)) {
        run(&mut memory(), &ops)?;
    }

    #[test]
    fn whole_rows_agree_with_a_map_on_redb(ops in prop::collection::vec(op(), 1..80)) {
        let dir = tempfile::tempdir().expect("a temp dir");
        run(&mut redb(dir.path()), &ops)?;
    }
}
