//! The index model's driver on an async store of a service (Bigtable,
//! DynamoDB), a runtime of its own: each operation as the async record
//! calls a user makes, a crash as a `Cut` of the store's calls, a restart
//! as a new client on the same table. It drives the model of the module it
//! is in (`super::index_model`): `tests/index_model_services.rs` includes
//! it beside `common::index_model` (encoded on DynamoDB), and
//! `tests/dynamodb_native_model.rs` once per native declaration.

use super::index_model::{
    by_page, by_tag, Driver, Hit, HitByPage, HitByTag, HitV1, HitV1ByPage, HitV1ByTag, Key, Scan,
};
use super::index_model_backfill::Verified;
use crate::common::cut::Cut;
use futures_util::StreamExt;
use keyschema::index::IndexBackfill;
use keyschema::store::{AsyncRecordStore, AsyncStore, Mutation};
use keyschema::{Cursor, Index, RowKey, ScanRequest};
use std::future::Future;
use tokio::runtime::Runtime;

pub fn key_of(key: &Key) -> Vec<u8> {
    Hit::get_key(&key.0, key.1)
}

pub fn text<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

/// A store of the model's rows on one service.
pub trait Service: AsyncStore + Clone + Send + Sync + 'static {
    /// A new table of `Hit` rows, created.
    fn create(rt: &Runtime) -> (String, Self);
    /// A new client on the same table.
    fn reconnect(table: &str) -> impl Future<Output = Self>;
    /// The store's own typed delete.
    fn delete(&self, row: &Hit) -> impl Future<Output = Result<(), String>>;
    /// Whether a Query reads one partition only.
    const ONE_PARTITION: bool;
    /// Whether the model writes rows of the struct's older version
    /// (`HitV1`) here too.
    const OLDER_WRITES: bool;
}

pub struct Services<S> {
    rt: Runtime,
    table: String,
    store: Cut<S>,
    stale: u64,
}

impl<S: Service> Services<S>
where
    S::Error: std::fmt::Display,
{
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("a runtime");
        let (table, store) = S::create(&rt);
        Services {
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

impl<S: Service> Driver for Services<S>
where
    S::Error: std::fmt::Display,
{
    fn put(&mut self, row: &Hit) -> Result<(), String> {
        self.rt.block_on(self.store.put_record(row)).map_err(text)
    }
    fn put_many(&mut self, rows: &[Hit]) -> Result<(), String> {
        self.rt.block_on(self.store.put_records(rows)).map_err(text)
    }
    fn put_older(&mut self, row: &HitV1) -> Option<Result<(), String>> {
        S::OLDER_WRITES.then(|| self.rt.block_on(self.store.put_record(row)).map_err(text))
    }
    fn verify_older(&mut self) -> Option<Result<(bool, u64), String>> {
        if !S::OLDER_WRITES {
            return None;
        }
        let store = &self.store.inner;
        Some(self.rt.block_on(async {
            let by_page = IndexBackfill::<HitV1ByPage>::new()
                .verify_async(store)
                .await
                .map_err(text)?;
            let by_tag = IndexBackfill::<HitV1ByTag>::new()
                .verify_async(store)
                .await
                .map_err(text)?;
            Ok((
                by_page.matches() && by_tag.matches(),
                by_page.stale + by_tag.stale,
            ))
        }))
    }
    fn backfill(&mut self, build: bool) -> Option<Verified> {
        let store = &self.store.inner;
        Some(self.rt.block_on(async {
            if build {
                let mut by_page = IndexBackfill::<HitByPage>::new().batch(3);
                by_page.build_async(store).await.map_err(text)?;
                let mut by_tag = IndexBackfill::<HitByTag>::new().batch(3);
                by_tag.build_async(store).await.map_err(text)?;
            }
            Ok([
                IndexBackfill::<HitByPage>::new()
                    .verify_async(store)
                    .await
                    .map_err(text)?,
                IndexBackfill::<HitByTag>::new()
                    .verify_async(store)
                    .await
                    .map_err(text)?,
            ])
        }))
    }
    fn replace(&mut self, row: &Hit) -> Result<(), String> {
        self.rt
            .block_on(self.store.replace_record(row))
            .map_err(text)
    }
    fn delete(&mut self, key: &Key) -> Result<(), String> {
        let row = Hit::decode(&key_of(key)).map_err(text)?;
        // The store's own typed delete, as a user calls it.
        self.rt.block_on(Service::delete(&self.store.inner, &row))
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
        let store = self.rt.block_on(S::reconnect(&self.table));
        self.store = Cut::new(store);
    }
    fn transactional(&self) -> bool {
        false
    }
    fn stale_seen(&mut self) -> u64 {
        std::mem::take(&mut self.stale)
    }
    fn needs_partition(&self) -> bool {
        S::ONE_PARTITION
    }
}
