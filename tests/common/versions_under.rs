//! The stores `common::versions`' stories run on: any sync store, and any
//! async one (each version's writes through a store of its own where the
//! store serves one key type, DynamoDB).

use super::versions::{odd, pageless, v0, v1, v2, BuildFailed, Got, Under};
use keyschema::backfill::Progress;
use keyschema::index::{IndexBackfill, IndexVerification};
use keyschema::store::{AsyncRecordStore, AsyncStore, Mutation, RecordStore, Store};
use keyschema::{Index, RowKey};

/// A sync store.
pub struct SyncUnder<S>(pub S);

impl<S: Store> Under for SyncUnder<S>
where
    S::Error: std::fmt::Display,
{
    fn put_v0(&self, row: &v0::Hit) {
        self.0.put_record(row).expect("version 0 writes");
    }
    fn put_v1(&self, rows: &[v1::Hit]) {
        self.0.put_records(rows).expect("version 1 writes");
    }
    fn put_v2(&self, row: &v2::Hit) {
        self.0.put_record(row).expect("version 2 writes");
    }
    fn put_odd(&self, row: &odd::Hit) {
        self.0.put_record(row).expect("another program writes");
    }
    fn put_pageless(&self, row: &pageless::Hit) {
        self.0.put_record(row).expect("another program writes");
    }
    fn put_entry(&self, entry: Vec<u8>) -> bool {
        let put = Mutation::Put {
            key: entry,
            value: Vec::new(),
        };
        self.0.write_batch(&[put]).expect("an entry alone");
        true
    }
    fn verify<I: Index<Row = v2::Hit>>(&self) -> Result<IndexVerification, String> {
        IndexBackfill::<I>::new()
            .verify(&self.0)
            .map_err(|e| e.to_string())
    }
    fn build<I: Index<Row = v2::Hit>>(&self) -> Result<Progress, BuildFailed> {
        IndexBackfill::<I>::new()
            .batch(2)
            .build(&self.0)
            .map_err(BuildFailed::of)
    }
    fn page_entries(&self, pages: &[&str]) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        for &page in pages {
            for entry in v2::HitByPage::scan().page(page).request().run(&self.0) {
                out.push(entry.expect("an entry").0.encode());
            }
        }
        out
    }
    fn tag_entries(&self, tags: &[&str]) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        for &tag in tags {
            for entry in v2::HitByTag::scan().tag(tag).request().run(&self.0) {
                out.push(entry.expect("an entry").0.encode());
            }
        }
        out
    }
    fn page_rows(&self, page: &str) -> (Vec<Got>, u64) {
        let request = v2::HitByPage::scan().page(page).request();
        let mut rows = request.run(&self.0).rows();
        let got = rows.by_ref().map(Got::of).collect();
        (got, rows.stale_entries())
    }
}

/// An async store: each version's writes through its own store (on
/// DynamoDB a store serves the one key type it was made for; elsewhere
/// clones of one).
pub struct AsyncUnder<S> {
    pub rt: tokio::runtime::Runtime,
    pub v0: S,
    pub v1: S,
    pub v2: S,
    pub odd: S,
    pub pageless: S,
}

impl<S: AsyncStore + Clone> AsyncUnder<S> {
    /// Every version's writes through clones of `store`.
    pub fn same(rt: tokio::runtime::Runtime, store: S) -> Self {
        AsyncUnder {
            rt,
            v0: store.clone(),
            v1: store.clone(),
            v2: store.clone(),
            odd: store.clone(),
            pageless: store,
        }
    }
}

impl<S: AsyncStore> Under for AsyncUnder<S>
where
    S::Error: std::fmt::Display,
{
    fn put_v0(&self, row: &v0::Hit) {
        self.rt
            .block_on(AsyncRecordStore::put_record(&self.v0, row))
            .expect("version 0 writes");
    }
    fn put_v1(&self, rows: &[v1::Hit]) {
        self.rt
            .block_on(AsyncRecordStore::put_records(&self.v1, rows))
            .expect("version 1 writes");
    }
    fn put_v2(&self, row: &v2::Hit) {
        self.rt
            .block_on(AsyncRecordStore::put_record(&self.v2, row))
            .expect("version 2 writes");
    }
    fn put_odd(&self, row: &odd::Hit) {
        self.rt
            .block_on(AsyncRecordStore::put_record(&self.odd, row))
            .expect("another program writes");
    }
    fn put_pageless(&self, row: &pageless::Hit) {
        self.rt
            .block_on(AsyncRecordStore::put_record(&self.pageless, row))
            .expect("another program writes");
    }
    fn put_entry(&self, entry: Vec<u8>) -> bool {
        if self.v2.keeps_indexes() {
            return false;
        }
        let put = Mutation::Put {
            key: entry,
            value: Vec::new(),
        };
        self.rt
            .block_on(AsyncStore::write(&self.v2, vec![put]))
            .expect("an entry alone");
        true
    }
    fn verify<I: Index<Row = v2::Hit>>(&self) -> Result<IndexVerification, String> {
        self.rt
            .block_on(IndexBackfill::<I>::new().verify_async(&self.v2))
            .map_err(|e| e.to_string())
    }
    fn build<I: Index<Row = v2::Hit>>(&self) -> Result<Progress, BuildFailed> {
        self.rt
            .block_on(IndexBackfill::<I>::new().batch(2).build_async(&self.v2))
            .map_err(BuildFailed::of)
    }
    fn page_entries(&self, pages: &[&str]) -> Vec<Vec<u8>> {
        use futures_util::StreamExt;
        let mut out = Vec::new();
        for &page in pages {
            let request = v2::HitByPage::scan().page(page).request();
            let entries: Vec<_> = self.rt.block_on(request.stream(&self.v2).collect());
            for entry in entries {
                out.push(entry.expect("an entry").0.encode());
            }
        }
        out
    }
    fn tag_entries(&self, tags: &[&str]) -> Vec<Vec<u8>> {
        use futures_util::StreamExt;
        let mut out = Vec::new();
        for &tag in tags {
            let request = v2::HitByTag::scan().tag(tag).request();
            let entries: Vec<_> = self.rt.block_on(request.stream(&self.v2).collect());
            for entry in entries {
                out.push(entry.expect("an entry").0.encode());
            }
        }
        out
    }
    fn page_rows(&self, page: &str) -> (Vec<Got>, u64) {
        use futures_util::StreamExt;
        let request = v2::HitByPage::scan().page(page).request();
        let mut rows = request.stream_rows(&self.v2);
        let got = self.rt.block_on(async {
            let mut got = Vec::new();
            while let Some(row) = rows.next().await {
                got.push(Got::of(row));
            }
            got
        });
        (got, rows.stale_entries())
    }
}
