//! [`IndexBackfill`] on a store that keeps its indexes itself (DynamoDB):
//! the whole table read in the store's own order through its
//! [`TablePass`], and each row that lacks its entry (or carries a wrong
//! one) given it by a change the store applies only while the row is as
//! read. The checkpoint keeps the last row of the pass.

use super::backfill::{entry_of, IndexBackfill};
use super::Index;
use super::IndexVerification;
use crate::backfill::progress::Mark;
use crate::backfill::{BackfillError, Progress, Step};
use crate::store::{BoxTableStream, EntryChange, TablePass, TableRow};
use std::time::Instant;

/// The next row of a pass.
async fn next_row<E>(rows: &mut BoxTableStream<E>) -> Option<Result<TableRow, E>> {
    std::future::poll_fn(|cx| rows.as_mut().poll_next(cx)).await
}

impl<I: Index> IndexBackfill<I> {
    /// The build through a store's table pass: batches of rows read after
    /// the mark, the changes of each batch applied together.
    pub(super) async fn build_table<E: std::error::Error + Send + Sync + 'static>(
        &mut self,
        pass: &dyn TablePass<Error = E>,
        identity: Option<String>,
    ) -> Result<Progress, BackfillError<E>> {
        let mut mark = match self.resume(identity)? {
            Some(mark) => mark,
            None => Mark::fresh(Step::Build, vec![count::<I, E>(pass).await?]),
        };
        let started = Instant::now();
        let mut this_run = 0;
        let finished = self.ranges.len();
        while mark.range < finished {
            let mut rows = pass.rows(I::schema(), false, mark.after.clone(), self.batch);
            let (mut read, mut last, mut changes) = (0, None, Vec::new());
            while read < self.batch {
                let Some(row) = next_row(&mut rows).await else {
                    break;
                };
                let row = row.map_err(BackfillError::Store)?;
                if entry_of::<I, E>(&row.key, &row.value)? != row.carried {
                    changes.push(EntryChange {
                        key: row.key.clone(),
                        value: row.value,
                        was: row.carried,
                    });
                }
                last = Some(row.key);
                read += 1;
            }
            drop(rows);
            let written = match changes.is_empty() {
                true => 0,
                false => pass
                    .set_entries(I::schema(), changes)
                    .await
                    .map_err(BackfillError::Store)?
                    .into_iter()
                    .filter(|applied| *applied)
                    .count(),
            };
            this_run += read as u64;
            mark.done += read as u64;
            mark.written += written as u64;
            if let Some(count) = mark.counts.first_mut() {
                *count += read as u64;
            }
            if read < self.batch {
                mark.range = finished;
                mark.after = None;
            } else {
                mark.after = last;
            }
            self.save(mark.clone())?;
        }
        Ok(self.progress(&mark, started, this_run))
    }

    /// The verification through a store's table pass: the table's rows
    /// and the entries each carries, then the rows the index holds (read
    /// from the index itself, so after DynamoDB's propagation).
    pub(super) async fn verify_table<E: std::error::Error + Send + Sync + 'static>(
        &self,
        pass: &dyn TablePass<Error = E>,
    ) -> Result<IndexVerification, BackfillError<E>> {
        let mut v = IndexVerification::default();
        let mut rows = pass.rows(I::schema(), false, None, self.batch);
        while let Some(row) = next_row(&mut rows).await {
            let row = row.map_err(BackfillError::Store)?;
            let Some(entry) = v.row::<I>(&row.key, &row.value) else {
                continue;
            };
            let present = row.carried.as_ref() == Some(&entry);
            v.found(row.key, present);
        }
        let mut entries = pass.rows(I::schema(), true, None, self.batch);
        while let Some(row) = next_row(&mut entries).await {
            let row = row.map_err(BackfillError::Store)?;
            // The GSI holds the row's item: the entry is the one it carries.
            match &row.carried {
                Some(entry) => v.entry::<I>(entry, Some((&row.key, &row.value))),
                None => v.entry::<I>(&[], None),
            }
        }
        Ok(v)
    }
}

/// The rows of the table, for the progress.
async fn count<I: Index, E: std::error::Error + Send + Sync + 'static>(
    pass: &dyn TablePass<Error = E>,
) -> Result<u64, BackfillError<E>> {
    let mut rows = pass.rows(I::schema(), false, None, 1_000);
    let mut n = 0;
    while let Some(row) = next_row(&mut rows).await {
        row.map_err(BackfillError::Store)?;
        n += 1;
    }
    Ok(n)
}
