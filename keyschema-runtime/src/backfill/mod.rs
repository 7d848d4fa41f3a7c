//! The backfill of a layout change (`#[rowkey_was]`): re-keys the rows of
//! the older layout into the declared one, then, in a separate explicit
//! step, deletes the older rows.
//!
//! Both steps go in batches, keep a cursor (in a checkpoint file, when one
//! is given) after every batch, and resume from it after a crash; both are
//! idempotent when re-run (a copy writes the same key and value again; a
//! delete of a deleted key is a no-op). Between them, [`Backfill::verify`]
//! counts the rows and sums a checksum of them per salt bucket of the
//! declared layout, under both layouts, and [`Backfill::delete_older`]
//! refuses to run without a verification that matched.
//!
//! ```
//! use keyschema::backfill::Backfill;
//! use keyschema::history::Phase;
//! use keyschema::store::{MemoryStore, RowStore};
//! use keyschema::RowKey;
//!
//! #[derive(RowKey, Debug, Clone, PartialEq)]
//! #[rowkey(salt = hash(user_id) % 8, then = user_id, rev(ts))]
//! #[rowkey_was(salt = none, until = ts >= 1000)]
//! struct Visit { user_id: String, ts: u64 }
//!
//! let store = MemoryStore::new();
//! for ts in [10, 20, 1000, 2000] {
//!     store.put_row_in(Phase::Split, &Visit { user_id: "u1".into(), ts }, b"v")?;
//! }
//! let mut backfill = Backfill::<Visit>::new()?;
//! let copied = backfill.copy(&store)?;
//! assert_eq!(copied.rows_done, 2); // the two rows before the cut-over
//! let verified = backfill.verify(&store)?;
//! assert!(verified.matches());
//! // Readers move to Phase::New here; then the older rows go.
//! let deleted = backfill.delete_older(&store, &verified)?;
//! assert_eq!(deleted.rows_done, 2);
//! let rows: Vec<u64> = Visit::scan().user_id("u1").phase(Phase::New).run(&store)
//!     .map(|r| r.map(|(v, _)| v.ts)).collect::<Result<_, _>>()?;
//! assert_eq!(rows, [2000, 1000, 20, 10]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod checkpoint;
mod error;
mod progress;
mod verify;

pub use error::BackfillError;
pub use progress::{Progress, Step};
pub use verify::{BucketCheck, Verification};

use crate::error::DecodeError;
use crate::history::{Cut, History};
use crate::key::RowKey;
use crate::range::{Direction, KeyRange, OLDER_LAYOUT};
use crate::scan::builder::ScanState;
use crate::store::layout::unambiguous;
use crate::store::{AsyncStore, Mutation, Row, Store};
use checkpoint::{read_checkpoint, write_checkpoint};
use futures_core::Stream;
use progress::Mark;
use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::time::Instant;

/// The backfill of key type `K`'s layout change; see the [module docs](self).
#[derive(Debug)]
pub struct Backfill<K> {
    history: &'static History,
    /// The older layout's ranges (every row of it), in key order.
    ranges: Vec<KeyRange>,
    batch: usize,
    checkpoint: Option<PathBuf>,
    mark: Option<Mark>,
    key: PhantomData<fn() -> K>,
}

/// The default rows per batch: one write request each.
const BATCH: usize = 1_000;

/// A batch reads at most this many times its size of the older ranges (keys
/// of the declared layout inside them are read and left), so that a batch
/// stays bounded and the cursor moves.
const SCAN_FACTOR: usize = 8;

impl<K: RowKey> Backfill<K> {
    /// A backfill of `K`, from the start (or from its checkpoint, once
    /// [`checkpoint`](Self::checkpoint) names one).
    pub fn new() -> Result<Self, BackfillError<std::convert::Infallible>> {
        let history = K::history().ok_or(BackfillError::NoHistory(K::schema().name()))?;
        let ranges = ScanState::new(K::schema())
            .ranges_in(history.older())
            .into_iter()
            .map(|r| {
                let bucket = r.bucket() | OLDER_LAYOUT;
                r.with_bucket(bucket)
            })
            .collect();
        Ok(Backfill {
            history,
            ranges,
            batch: BATCH,
            checkpoint: None,
            mark: None,
            key: PhantomData,
        })
    }

    /// Rows per batch (each batch is one `write_batch`, then a checkpoint).
    pub fn batch(mut self, rows: usize) -> Self {
        self.batch = rows.max(1);
        self
    }

    /// Keeps the cursor in `path` after every batch (written to a temporary
    /// file and renamed, so a crash leaves the old or the new cursor), and
    /// resumes from it.
    pub fn checkpoint(mut self, path: impl AsRef<Path>) -> Self {
        self.checkpoint = Some(path.as_ref().to_path_buf());
        self
    }

    /// Whether an older row belongs to the backfill: for a cut-over by
    /// field, the rows before it (the older layout holds no other).
    fn older_row(&self, key: &[u8]) -> Result<Option<K>, DecodeError> {
        let row = match K::decode_older(key) {
            Ok(row) => row,
            // A key of the declared layout inside an older range.
            Err(e) => {
                return if K::decode(key).is_ok() {
                    Ok(None)
                } else {
                    Err(e)
                }
            }
        };
        if !self.history.same_components(K::schema()) && K::decode(key).is_ok() {
            // Another row of the declared layout (a copy made earlier).
            return Ok(None);
        }
        Ok(match self.history.cut() {
            Cut::Field { .. } if row.past_cut_over() => None,
            _ => Some(row),
        })
    }

    /// The mutation a step makes of one older row; `None` to leave it.
    fn mutation<E>(
        &self,
        step: Step,
        (key, value): &Row,
    ) -> Result<Option<Mutation>, BackfillError<E>> {
        let row = self.older_row(key).map_err(|source| BackfillError::Row {
            key: key.clone(),
            source,
        })?;
        let Some(row) = row else { return Ok(None) };
        let declared = row.encode();
        Ok(match step {
            Step::Copy => {
                // An older row whose key reads in the declared layout too
                // was written around the library; reads take it for the
                // declared layout's, so it cannot be moved safely.
                unambiguous::<K>(key, true).map_err(|source| BackfillError::Row {
                    key: key.clone(),
                    source,
                })?;
                Some(Mutation::Put {
                    key: declared,
                    value: value.clone(),
                })
            }
            // The same bytes in both layouts: the row is already where it goes.
            Step::Delete if declared == *key => None,
            Step::Delete => Some(Mutation::Delete { key: key.clone() }),
        })
    }

    /// The mark of `step`: the one in hand, the checkpoint's, or a fresh one.
    fn mark<E>(&mut self, step: Step) -> Result<Option<Mark>, BackfillError<E>> {
        if let Some(mark) = self.mark.as_ref().filter(|m| m.step == step) {
            return Ok(Some(mark.clone()));
        }
        if let Some(path) = &self.checkpoint {
            if let Some(mark) = read_checkpoint(path, K::schema().name())? {
                if mark.step == step {
                    return Ok(Some(mark));
                }
                if mark.step == Step::Delete && step == Step::Copy {
                    // The copy finished before the delete began.
                    return Ok(Some(Mark {
                        step,
                        range: self.ranges.len(),
                        ..mark
                    }));
                }
            }
        }
        Ok(None)
    }

    fn save<E>(&mut self, mark: Mark) -> Result<(), BackfillError<E>> {
        if let Some(path) = &self.checkpoint {
            write_checkpoint(path, K::schema().name(), &mark)?;
        }
        self.mark = Some(mark);
        Ok(())
    }

    fn progress(&self, mark: &Mark, started: Instant, this_run: u64) -> Progress {
        let secs = started.elapsed().as_secs_f64();
        Progress {
            step: mark.step,
            rows_done: mark.done,
            rows_per_second: if secs > 0.0 {
                this_run as f64 / secs
            } else {
                0.0
            },
            remaining: self
                .ranges
                .iter()
                .zip(mark.totals.iter().zip(&mark.counts))
                .map(|(r, (total, done))| (r.bucket() & !OLDER_LAYOUT, total.saturating_sub(*done)))
                .collect(),
            finished: mark.range >= self.ranges.len(),
        }
    }

    /// Copies every older row not yet copied into the declared layout, in
    /// batches; resumes from the checkpoint. Idempotent.
    pub fn copy<S: Store>(&mut self, store: &S) -> Result<Progress, BackfillError<S::Error>> {
        self.run(store, Step::Copy)
    }

    /// Deletes every older row that the copy re-keyed, in batches; resumes
    /// from the checkpoint. Refuses unless `verified` matched.
    pub fn delete_older<S: Store>(
        &mut self,
        store: &S,
        verified: &Verification,
    ) -> Result<Progress, BackfillError<S::Error>> {
        if !verified.matches() {
            return Err(BackfillError::NotVerified(verified.mismatched()));
        }
        self.run(store, Step::Delete)
    }

    fn run<S: Store>(
        &mut self,
        store: &S,
        step: Step,
    ) -> Result<Progress, BackfillError<S::Error>> {
        let started = Instant::now();
        let mut this_run = 0;
        loop {
            let (progress, n) = self.batch_sync(store, step, started, this_run)?;
            this_run += n;
            if progress.finished {
                return Ok(progress);
            }
        }
    }

    /// One batch of the copy: at most `batch` rows copied and the cursor
    /// saved. The progress says when the copy is finished.
    pub fn copy_batch<S: Store>(&mut self, store: &S) -> Result<Progress, BackfillError<S::Error>> {
        Ok(self.batch_sync(store, Step::Copy, Instant::now(), 0)?.0)
    }

    fn start_sync<S: Store>(
        &mut self,
        store: &S,
        step: Step,
    ) -> Result<Mark, BackfillError<S::Error>> {
        if let Some(mark) = self.mark(step)? {
            return Ok(mark);
        }
        // Count each range's rows once, for the progress.
        let mut totals = Vec::with_capacity(self.ranges.len());
        for range in &self.ranges {
            let mut n = 0;
            for row in store
                .scan(range, Direction::Forward)
                .map_err(BackfillError::Store)?
            {
                let row = row.map_err(BackfillError::Store)?;
                if self.mutation::<S::Error>(step, &row)?.is_some() {
                    n += 1;
                }
            }
            totals.push(n);
        }
        Ok(Mark::fresh(step, totals))
    }

    fn batch_sync<S: Store>(
        &mut self,
        store: &S,
        step: Step,
        started: Instant,
        this_run: u64,
    ) -> Result<(Progress, u64), BackfillError<S::Error>> {
        let mut g = Gather::new(self.start_sync(store, step)?);
        while self.gathering(&g) {
            let mut exhausted = true;
            if let Some(range) = self.next_range(&g) {
                for row in store
                    .scan(&range, Direction::Forward)
                    .map_err(BackfillError::Store)?
                {
                    if !self.take(&mut g, step, row.map_err(BackfillError::Store)?)? {
                        exhausted = false;
                        break;
                    }
                }
            }
            g.end_range(exhausted);
        }
        let batch = std::mem::take(&mut g.batch);
        if !batch.is_empty() {
            store.write_batch(&batch).map_err(BackfillError::Store)?;
        }
        self.finish(g.mark, batch.len() as u64, started, this_run)
    }

    /// Whether the batch in hand takes more rows.
    fn gathering(&self, g: &Gather) -> bool {
        g.mark.range < self.ranges.len()
            && g.batch.len() < self.batch
            && g.seen < self.batch * SCAN_FACTOR
    }

    /// The rest of the range the mark stands in; `None` when it is empty.
    fn next_range(&self, g: &Gather) -> Option<KeyRange> {
        match &g.mark.after {
            None => Some(self.ranges[g.mark.range].clone()),
            Some(after) => self.ranges[g.mark.range].after(after, Direction::Forward),
        }
    }

    /// Takes one row read into the batch; `false` (the row left for the
    /// next batch) when the batch is full.
    fn take<E>(&self, g: &mut Gather, step: Step, row: Row) -> Result<bool, BackfillError<E>> {
        if g.batch.len() == self.batch || g.seen == self.batch * SCAN_FACTOR {
            return Ok(false);
        }
        if let Some(m) = self.mutation::<E>(step, &row)? {
            g.batch.push(m);
            g.mark.counts[g.mark.range] += 1;
        }
        g.mark.after = Some(row.0);
        g.seen += 1;
        Ok(true)
    }

    /// Saves the mark after a batch of `n` rows was written.
    fn finish<E>(
        &mut self,
        mut mark: Mark,
        n: u64,
        started: Instant,
        this_run: u64,
    ) -> Result<(Progress, u64), BackfillError<E>> {
        mark.done += n;
        let progress = self.progress(&mark, started, this_run + n);
        self.save(mark)?;
        Ok((progress, n))
    }

    /// [`copy`](Self::copy) on an async store (Cloud Bigtable).
    pub async fn copy_async<S: AsyncStore>(
        &mut self,
        store: &S,
    ) -> Result<Progress, BackfillError<S::Error>> {
        self.run_async(store, Step::Copy).await
    }

    /// [`copy_batch`](Self::copy_batch) on an async store.
    pub async fn copy_batch_async<S: AsyncStore>(
        &mut self,
        store: &S,
    ) -> Result<Progress, BackfillError<S::Error>> {
        Ok(self
            .batch_async(store, Step::Copy, Instant::now(), 0)
            .await?
            .0)
    }

    /// [`delete_older`](Self::delete_older) on an async store.
    pub async fn delete_older_async<S: AsyncStore>(
        &mut self,
        store: &S,
        verified: &Verification,
    ) -> Result<Progress, BackfillError<S::Error>> {
        if !verified.matches() {
            return Err(BackfillError::NotVerified(verified.mismatched()));
        }
        self.run_async(store, Step::Delete).await
    }

    async fn run_async<S: AsyncStore>(
        &mut self,
        store: &S,
        step: Step,
    ) -> Result<Progress, BackfillError<S::Error>> {
        let started = Instant::now();
        let mut this_run = 0;
        loop {
            let (progress, n) = self.batch_async(store, step, started, this_run).await?;
            this_run += n;
            if progress.finished {
                return Ok(progress);
            }
        }
    }

    async fn start_async<S: AsyncStore>(
        &mut self,
        store: &S,
        step: Step,
    ) -> Result<Mark, BackfillError<S::Error>> {
        if let Some(mark) = self.mark(step)? {
            return Ok(mark);
        }
        let mut totals = Vec::with_capacity(self.ranges.len());
        for range in &self.ranges {
            let mut n = 0;
            let mut rows = store.scan_stream(range, Direction::Forward, None);
            while let Some(row) = next(&mut rows).await {
                let row = row.map_err(BackfillError::Store)?;
                if self.mutation::<S::Error>(step, &row)?.is_some() {
                    n += 1;
                }
            }
            totals.push(n);
        }
        Ok(Mark::fresh(step, totals))
    }

    async fn batch_async<S: AsyncStore>(
        &mut self,
        store: &S,
        step: Step,
        started: Instant,
        this_run: u64,
    ) -> Result<(Progress, u64), BackfillError<S::Error>> {
        let mut g = Gather::new(self.start_async(store, step).await?);
        while self.gathering(&g) {
            let mut exhausted = true;
            if let Some(range) = self.next_range(&g) {
                // One more than can be taken tells whether the range goes on.
                let want = self.batch * SCAN_FACTOR - g.seen + 1;
                let mut rows = store.scan_stream(&range, Direction::Forward, Some(want));
                while let Some(row) = next(&mut rows).await {
                    if !self.take(&mut g, step, row.map_err(BackfillError::Store)?)? {
                        exhausted = false;
                        break;
                    }
                }
            }
            g.end_range(exhausted);
        }
        let batch = std::mem::take(&mut g.batch);
        let n = batch.len() as u64;
        if !batch.is_empty() {
            store.write(batch).await.map_err(BackfillError::Store)?;
        }
        self.finish(g.mark, n, started, this_run)
    }
}

/// A batch being gathered: the mark, the mutations, the rows read.
struct Gather {
    mark: Mark,
    batch: Vec<Mutation>,
    seen: usize,
}

impl Gather {
    fn new(mark: Mark) -> Self {
        Gather {
            mark,
            batch: Vec::new(),
            seen: 0,
        }
    }

    /// After reading a range: on to the next when it is exhausted.
    fn end_range(&mut self, exhausted: bool) {
        if exhausted {
            self.mark.range += 1;
            self.mark.after = None;
        }
    }
}

/// The next item of a boxed stream.
pub(crate) async fn next<S: Stream + Unpin + ?Sized>(stream: &mut S) -> Option<S::Item> {
    std::future::poll_fn(|cx| Pin::new(&mut *stream).poll_next(cx)).await
}
