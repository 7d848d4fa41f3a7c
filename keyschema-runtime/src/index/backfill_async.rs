//! [`IndexBackfill`] on an async store (Bigtable): the same build and
//! verification as on a sync one, each batch of rows read with one
//! streamed request and its entries written with one.

use super::backfill::{entry_of, IndexBackfill};
use super::Index;
use super::IndexVerification;
use crate::backfill::progress::Mark;
use crate::backfill::{BackfillError, Progress, Step};
use crate::key::RowKey;
use crate::range::{Direction, KeyRange};
use crate::scan::builder::ScanState;
use crate::store::{AsyncStore, BoxRowStream, Mutation, Row, TablePass};
use std::collections::HashSet;
use std::time::Instant;

/// A store's whole-table pass.
type Pass<'s, E> = &'s dyn TablePass<Error = E>;

/// The next row of a streamed scan.
async fn next_row<E>(rows: &mut BoxRowStream<E>) -> Option<Result<Row, E>> {
    std::future::poll_fn(|cx| rows.as_mut().poll_next(cx)).await
}

impl<I: Index> IndexBackfill<I> {
    /// [`build`](Self::build) on an async store. On a store that keeps its
    /// indexes itself (DynamoDB, each index a GSI over attributes of the
    /// row's item) the build reads the whole table in the store's order (a
    /// Scan) and gives each item written before the index its attributes
    /// (a conditional UpdateItem, applied only while the item is as the
    /// Scan read it); the checkpoint keeps the last item done. Create the
    /// GSI first ([`DynamoStore::add_indexes`](crate::store::dynamodb::DynamoStore::add_indexes)).
    pub async fn build_async<S: AsyncStore>(
        &mut self,
        store: &S,
    ) -> Result<Progress, BackfillError<S::Error>> {
        let schema = <I::Row as RowKey>::schema();
        if let Some(pass) = self.check_async(store)? {
            return self.build_table(pass, store.identity()).await;
        }
        let mut mark = match self.resume(store.identity())? {
            Some(mark) => mark,
            None => Mark::fresh(Step::Build, self.count_async(store).await?),
        };
        let started = Instant::now();
        let mut this_run = 0;
        while let Some(range) = self.next_range(&mark) {
            let (mut read, mut last, mut puts) = (0, None, Vec::new());
            if let Some(range) = range {
                let mut rows = store.scan_for(schema, &range, Direction::Forward, Some(self.batch));
                while let Some(row) = next_row(&mut rows).await {
                    let (key, value) = row.map_err(BackfillError::Store)?;
                    if let Some(entry) = entry_of::<I, S::Error>(&key, &value)? {
                        puts.push(Mutation::Put {
                            key: entry,
                            value: Vec::new(),
                        });
                    }
                    last = Some(key);
                    read += 1;
                }
            }
            let written = puts.len();
            if !puts.is_empty() {
                store.write(puts).await.map_err(BackfillError::Store)?;
            }
            this_run += read as u64;
            self.advance(&mut mark, read, written, last)?;
        }
        Ok(self.progress(&mark, started, this_run))
    }

    /// [`verify`](Self::verify) on an async store: rows and entries read
    /// in batches, each batch's other side looked up in one request.
    pub async fn verify_async<S: AsyncStore>(
        &self,
        store: &S,
    ) -> Result<IndexVerification, BackfillError<S::Error>> {
        let row_schema = <I::Row as RowKey>::schema();
        if let Some(pass) = self.check_async(store)? {
            return self.verify_table(pass).await;
        }
        let mut v = IndexVerification::default();
        // Rows: each one's entry looked up.
        for range in &self.ranges {
            let mut rows = store.scan_for(row_schema, range, Direction::Forward, None);
            let mut batch: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
            loop {
                let row = next_row(&mut rows).await;
                let done = row.is_none();
                if let Some(row) = row {
                    let (key, value) = row.map_err(BackfillError::Store)?;
                    if let Some(entry) = v.row::<I>(&key, &value) {
                        batch.push((key, entry));
                    }
                }
                if batch.len() >= self.batch || (done && !batch.is_empty()) {
                    let entries = batch.iter().map(|(_, e)| e.clone()).collect();
                    let found: HashSet<Vec<u8>> = store
                        .get_many_for(I::schema(), entries)
                        .await
                        .map_err(BackfillError::Store)?
                        .into_iter()
                        .map(|(k, _)| k)
                        .collect();
                    for (key, entry) in batch.drain(..) {
                        let present = found.contains(&entry);
                        v.found(key, present);
                    }
                }
                if done {
                    break;
                }
            }
        }
        // Entries: each one's row read and checked.
        let ranges: Vec<KeyRange> = ScanState::new(I::schema()).ranges().into_iter().collect();
        for range in &ranges {
            let mut entries = store.scan_for(I::schema(), range, Direction::Forward, None);
            let mut batch: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
            loop {
                let entry = next_row(&mut entries).await;
                let done = entry.is_none();
                if let Some(entry) = entry {
                    let (entry, _) = entry.map_err(BackfillError::Store)?;
                    let named = I::decode(&entry).map_err(|source| BackfillError::Row {
                        key: entry.clone(),
                        source,
                    })?;
                    batch.push((entry, named.row_key()));
                }
                if batch.len() >= self.batch || (done && !batch.is_empty()) {
                    let keys = batch.iter().map(|(_, r)| r.clone()).collect();
                    let rows: std::collections::HashMap<Vec<u8>, Vec<u8>> = store
                        .get_many_for(row_schema, keys)
                        .await
                        .map_err(BackfillError::Store)?
                        .into_iter()
                        .collect();
                    for (entry, row) in batch.drain(..) {
                        let value = rows.get(&row).map(|value| (&row[..], &value[..]));
                        v.entry::<I>(&entry, value);
                    }
                }
                if done {
                    break;
                }
            }
        }
        Ok(v)
    }

    /// Checks the store before any work: its key type, and either the
    /// ranges it will read or, on a store that keeps its indexes itself,
    /// its table pass (returned; a store without one is refused).
    fn check_async<'s, S: AsyncStore>(
        &self,
        store: &'s S,
    ) -> Result<Option<Pass<'s, S::Error>>, BackfillError<S::Error>> {
        store
            .check_key_type(<I::Row as RowKey>::schema())
            .map_err(BackfillError::Store)?;
        if store.keeps_indexes() {
            return match store.table_pass() {
                Some(pass) => Ok(Some(pass)),
                None => Err(BackfillError::StoreKeepsIndexes {
                    index: I::schema().name(),
                }),
            };
        }
        for range in &self.ranges {
            store.check_range(range).map_err(BackfillError::Store)?;
        }
        Ok(None)
    }

    /// Rows per range, for the progress.
    async fn count_async<S: AsyncStore>(
        &self,
        store: &S,
    ) -> Result<Vec<u64>, BackfillError<S::Error>> {
        let schema = <I::Row as RowKey>::schema();
        let mut totals = Vec::with_capacity(self.ranges.len());
        for range in &self.ranges {
            let mut rows = store.scan_for(schema, range, Direction::Forward, None);
            let mut n = 0;
            while let Some(row) = next_row(&mut rows).await {
                row.map_err(BackfillError::Store)?;
                n += 1;
            }
            totals.push(n);
        }
        Ok(totals)
    }
}
