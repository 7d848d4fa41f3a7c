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

use crate::error::DecodeError;
use crate::history::{Cut, History};
use crate::key::RowKey;
use crate::range::{Direction, KeyRange, OLDER_LAYOUT};
use crate::scan::builder::ScanState;
use crate::store::layout::unambiguous;
use crate::store::{AsyncStore, Mutation, Row, Store};
use futures_core::Stream;
use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::time::Instant;

/// What went wrong in a backfill.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BackfillError<E> {
    /// The store failed; the checkpoint stands at the last batch written,
    /// so running again resumes there.
    #[error("store error: {0}")]
    Store(#[source] E),
    /// The key type declares no older layout.
    #[error("`{0}` declares no older layout (`#[rowkey_was(...)]`): there is nothing to backfill")]
    NoHistory(&'static str),
    /// A row of the older layout whose key does not read, or whose new key
    /// would be ambiguous: the backfill stops before it.
    #[error("row {} of the older layout cannot be re-keyed: {source}", key.escape_ascii())]
    Row {
        /// The older key.
        key: Vec<u8>,
        /// Why.
        #[source]
        source: DecodeError,
    },
    /// The checkpoint file cannot be read or written.
    #[error("checkpoint {path}: {reason}")]
    Checkpoint {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// `delete_older` without a verification that matched.
    #[error("the verification does not match ({0} buckets differ): the older rows are kept; run the copy again, then verify")]
    NotVerified(usize),
}

/// Which step a backfill is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Copying the older rows into the declared layout.
    Copy,
    /// Deleting the older rows.
    Delete,
}

/// How far a step is.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    /// The step.
    pub step: Step,
    /// Older rows copied (or deleted) so far, over every run.
    pub rows_done: u64,
    /// Rows per second over this run.
    pub rows_per_second: f64,
    /// Per salt bucket of the older layout: the rows still to do (counted
    /// when the step started).
    pub remaining: Vec<(u32, u64)>,
    /// Whether the step is complete.
    pub finished: bool,
}

/// Rows and a checksum per salt bucket of the declared layout: the older
/// rows (re-keyed) and the declared layout's rows of the same span.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BucketCheck {
    /// The declared layout's bucket.
    pub bucket: u32,
    /// Older rows whose declared key is in the bucket.
    pub older_rows: u64,
    /// Declared rows of the backfilled span in the bucket.
    pub declared_rows: u64,
    /// Sum of a hash of (declared key, value) over the older rows.
    pub older_checksum: u64,
    /// The same over the declared rows.
    pub declared_checksum: u64,
}

/// The result of [`Backfill::verify`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verification {
    /// One entry per bucket of the declared layout.
    pub buckets: Vec<BucketCheck>,
}

impl Verification {
    /// Whether every bucket has the same rows and checksum in both layouts.
    pub fn matches(&self) -> bool {
        self.mismatched() == 0
    }

    /// How many buckets differ.
    pub fn mismatched(&self) -> usize {
        self.buckets
            .iter()
            .filter(|b| b.older_rows != b.declared_rows || b.older_checksum != b.declared_checksum)
            .count()
    }
}

/// Where a step stands: the range being read and the last key done in it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Mark {
    step: Step,
    range: usize,
    after: Option<Vec<u8>>,
    done: u64,
    /// Rows per older range when the step started.
    totals: Vec<u64>,
    /// Rows done per older range.
    counts: Vec<u64>,
}

impl Mark {
    /// The start of `step`, with the rows counted per range.
    fn fresh(step: Step, totals: Vec<u64>) -> Self {
        Mark {
            step,
            range: 0,
            after: None,
            done: 0,
            counts: vec![0; totals.len()],
            totals,
        }
    }
}

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

    /// Counts and checksums, per bucket of the declared layout, the older
    /// rows (re-keyed) and the declared rows of the same span (for a
    /// cut-over by field, those before it; for a migration, all).
    pub fn verify<S: Store>(&self, store: &S) -> Result<Verification, BackfillError<S::Error>> {
        let mut checks = self.empty_checks();
        for range in &self.ranges {
            for row in store
                .scan(range, Direction::Forward)
                .map_err(BackfillError::Store)?
            {
                let row = row.map_err(BackfillError::Store)?;
                self.tally_older::<S::Error>(&mut checks, &row)?;
            }
        }
        for range in ScanState::new(K::schema()).ranges().iter() {
            for row in store
                .scan(range, Direction::Forward)
                .map_err(BackfillError::Store)?
            {
                let row = row.map_err(BackfillError::Store)?;
                self.tally_declared(&mut checks, &row);
            }
        }
        Ok(Verification { buckets: checks })
    }

    fn empty_checks(&self) -> Vec<BucketCheck> {
        (0..K::schema().buckets())
            .map(|bucket| BucketCheck {
                bucket,
                older_rows: 0,
                declared_rows: 0,
                older_checksum: 0,
                declared_checksum: 0,
            })
            .collect()
    }

    fn tally_older<E>(
        &self,
        checks: &mut [BucketCheck],
        row: &Row,
    ) -> Result<(), BackfillError<E>> {
        let older = self
            .older_row(&row.0)
            .map_err(|source| BackfillError::Row {
                key: row.0.clone(),
                source,
            })?;
        if let Some(r) = older {
            let key = r.encode();
            if let Some(c) = K::schema()
                .bucket_of(&key)
                .ok()
                .and_then(|b| checks.get_mut(b as usize))
            {
                c.older_rows += 1;
                c.older_checksum = c.older_checksum.wrapping_add(checksum(&key, &row.1));
            }
        }
        Ok(())
    }

    fn tally_declared(&self, checks: &mut [BucketCheck], (key, value): &Row) {
        // The declared layout's rows of the backfilled span (a key that
        // reads in both layouts is the declared layout's).
        let Ok(row) = K::decode(key) else { return };
        if matches!(self.history.cut(), Cut::Field { .. }) && row.past_cut_over() {
            return;
        }
        if let Some(c) = K::schema()
            .bucket_of(key)
            .ok()
            .and_then(|b| checks.get_mut(b as usize))
        {
            c.declared_rows += 1;
            c.declared_checksum = c.declared_checksum.wrapping_add(checksum(key, value));
        }
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

    /// [`verify`](Self::verify) on an async store.
    pub async fn verify_async<S: AsyncStore>(
        &self,
        store: &S,
    ) -> Result<Verification, BackfillError<S::Error>> {
        let mut checks = self.empty_checks();
        for range in &self.ranges {
            let mut rows = store.scan_stream(range, Direction::Forward, None);
            while let Some(row) = next(&mut rows).await {
                let row = row.map_err(BackfillError::Store)?;
                self.tally_older::<S::Error>(&mut checks, &row)?;
            }
        }
        for range in ScanState::new(K::schema()).ranges().iter() {
            let mut rows = store.scan_stream(range, Direction::Forward, None);
            while let Some(row) = next(&mut rows).await {
                let row = row.map_err(BackfillError::Store)?;
                self.tally_declared(&mut checks, &row);
            }
        }
        Ok(Verification { buckets: checks })
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
async fn next<S: Stream + Unpin + ?Sized>(stream: &mut S) -> Option<S::Item> {
    std::future::poll_fn(|cx| Pin::new(&mut *stream).poll_next(cx)).await
}

/// A 64-bit hash of a row (the first 8 bytes of SHA-256 over the key's
/// length, the key and the value): summed per bucket, order-independent.
fn checksum(key: &[u8], value: &[u8]) -> u64 {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    h.update((key.len() as u64).to_be_bytes());
    h.update(key);
    h.update(value);
    let digest = h.finalize();
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    u64::from_be_bytes(first)
}

const CHECKPOINT_FORMAT: &str = "keyschema-backfill 1";

fn write_checkpoint<E>(path: &Path, schema: &str, mark: &Mark) -> Result<(), BackfillError<E>> {
    let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
    let list = |v: &[u64]| v.iter().map(u64::to_string).collect::<Vec<_>>().join(",");
    let text = format!(
        "{CHECKPOINT_FORMAT}\nschema {schema}\nstep {}\nrange {}\nafter {}\ndone {}\ntotals {}\ncounts {}\n",
        match mark.step {
            Step::Copy => "copy",
            Step::Delete => "delete",
        },
        mark.range,
        mark.after.as_deref().map_or("-".to_string(), hex),
        mark.done,
        list(&mark.totals),
        list(&mark.counts),
    );
    let fail = |e: std::io::Error| BackfillError::Checkpoint {
        path: path.to_path_buf(),
        reason: e.to_string(),
    };
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, text).map_err(fail)?;
    std::fs::rename(&tmp, path).map_err(fail)
}

fn read_checkpoint<E>(path: &Path, schema: &str) -> Result<Option<Mark>, BackfillError<E>> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(BackfillError::Checkpoint {
                path: path.to_path_buf(),
                reason: e.to_string(),
            })
        }
    };
    let bad = |reason: &str| BackfillError::Checkpoint {
        path: path.to_path_buf(),
        reason: reason.to_string(),
    };
    let mut lines = text.lines();
    if lines.next() != Some(CHECKPOINT_FORMAT) {
        return Err(bad("not a keyschema backfill checkpoint (version 1)"));
    }
    let mut field = |name: &str| {
        lines
            .next()
            .and_then(|l| l.strip_prefix(name))
            .and_then(|l| l.strip_prefix(' '))
            .map(str::to_string)
            .ok_or_else(|| bad(&format!("missing `{name}`")))
    };
    let owner = field("schema")?;
    if owner != schema {
        return Err(bad(&format!("it belongs to `{owner}`, not `{schema}`")));
    }
    let step = match field("step")?.as_str() {
        "copy" => Step::Copy,
        "delete" => Step::Delete,
        _ => return Err(bad("`step` is neither copy nor delete")),
    };
    let number = |s: String| s.parse::<u64>().map_err(|_| bad("a number does not read"));
    let range = number(field("range")?)? as usize;
    let after = match field("after")?.as_str() {
        "-" => None,
        h if h.len() % 2 == 0 => Some(
            (0..h.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&h[i..i + 2], 16))
                .collect::<Result<Vec<u8>, _>>()
                .map_err(|_| bad("`after` is not hex"))?,
        ),
        _ => return Err(bad("`after` is not hex")),
    };
    let done = number(field("done")?)?;
    let list = |s: String| -> Result<Vec<u64>, BackfillError<E>> {
        if s.is_empty() {
            return Ok(Vec::new());
        }
        s.split(',').map(|n| number(n.to_string())).collect()
    };
    let totals = list(field("totals")?)?;
    let counts = list(field("counts")?)?;
    if counts.len() != totals.len() {
        return Err(bad("`totals` and `counts` differ in length"));
    }
    Ok(Some(Mark {
        step,
        range,
        after,
        done,
        totals,
        counts,
    }))
}
