//! The backfill of a layout change (`#[rowkey_was]`): re-keys the rows of
//! the older layout into the declared one, then, in a separate explicit
//! step, deletes the older rows.
//!
//! Both steps go in batches, keep a cursor (in a checkpoint file, when one
//! is given; each step its own) after every batch, and resume from it after
//! a crash, in this process or another; a step that finished starts a new
//! pass when run again. Between them, [`Backfill::verify`] counts the rows
//! and sums a checksum of them per salt bucket of the declared layout,
//! under both layouts, and looks up each older row's declared row;
//! [`Backfill::delete_older`] refuses to begin without a verification that
//! matched, and to resume without one that covers every older row.
//!
//! Other writers run meanwhile, so each row is written by compare-and-set
//! ([`Cas`](crate::store::Cas)):
//!
//! * The **copy** runs while every writer is in `Phase::Split` or
//!   `Phase::Dual` (they write a row before the cut-over to both layouts,
//!   and delete a row from both). It makes each declared row of the span
//!   hold what its older row holds, absent included: a declared row whose
//!   older row an older binary deleted goes too. A row a writer changes
//!   while the copy writes it is written again. A row the older binary
//!   wrote past the cut-over is moved to the declared layout, unless a
//!   newer one is there. Do not run the copy once any process is in
//!   `Phase::New`: the declared layout is then the newer one. Once the
//!   delete began (its mark, or the checkpoint, says so) the copy is
//!   refused ([`BackfillError::DeleteBegan`]).
//! * The **delete** runs in `Phase::New`. It moves each older row: into the
//!   declared layout only if its row is absent there (a present one is
//!   newer), then out of the older layout only if it still holds what was
//!   read. No row is lost if the table changed since the verification.
//!
//! Older binaries stop before [`Backfill::verify`]: a row one of them
//! changes after a verification that matched is not looked at again.
//! A verification and a checkpoint belong to the store they were made on
//! ([`Store::identity`]); on another they are refused
//! ([`BackfillError::OtherStore`]).
//!
//! On Cloud Bigtable and DynamoDB a writer's two keys are two requests: a
//! row written in the instant between them can leave the layouts
//! differing, which the next `verify` reports and a copy pass repairs.
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

mod apply;
pub(crate) mod checkpoint;
mod error;
pub(crate) mod progress;
mod rows;
mod verify;

pub use error::BackfillError;
pub use progress::{Progress, Step};
pub use verify::{BucketCheck, Verification};

use crate::history::History;
use crate::key::RowKey;
use crate::range::{Direction, KeyRange, OLDER_LAYOUT};
use crate::scan::builder::ScanState;
use crate::store::{AsyncStore, Row, Store};
use apply::{Answer, Apply, Next, Pair};
use checkpoint::{same_store, store_word, Marks};
use futures_core::Stream;
use progress::Mark;
use std::collections::HashMap;
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
    /// The declared layout's ranges: the copy reads them after the older
    /// ones, for declared rows whose older row is gone.
    declared: Vec<KeyRange>,
    batch: usize,
    checkpoint: Option<PathBuf>,
    /// Each step's mark, once read from the checkpoint or made.
    marks: Option<Marks>,
    key: PhantomData<fn() -> K>,
}

/// The default rows per batch: one write request each.
const BATCH: usize = 1_000;

/// A batch reads at most this many times its size of the ranges (keys it
/// leaves are read too), so that a batch stays bounded and the cursor moves.
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
            declared: ScanState::new(K::schema())
                .ranges()
                .iter()
                .cloned()
                .collect(),
            batch: BATCH,
            checkpoint: None,
            marks: None,
            key: PhantomData,
        })
    }

    /// Rows per batch (each batch is one `write_batch`, then a checkpoint).
    pub fn batch(mut self, rows: usize) -> Self {
        self.batch = rows.max(1);
        self
    }

    /// Keeps each step's cursor in `path` after every batch (written to a
    /// temporary file and renamed, so a crash leaves the old or the new
    /// cursor), and resumes from it.
    pub fn checkpoint(mut self, path: impl AsRef<Path>) -> Self {
        self.checkpoint = Some(path.as_ref().to_path_buf());
        self.marks = None;
        self
    }

    /// How many ranges `step` reads: the copy reads the declared ones too.
    fn sources(&self, step: Step) -> usize {
        match step {
            Step::Copy | Step::Build => self.ranges.len() + self.declared.len(),
            Step::Delete => self.ranges.len(),
        }
    }

    /// Range `i` of a step, and whether it is the older layout's.
    fn source(&self, i: usize) -> (&KeyRange, bool) {
        match self.ranges.get(i) {
            Some(r) => (r, true),
            None => (&self.declared[i - self.ranges.len()], false),
        }
    }

    fn progress(&self, mark: &Mark, started: Instant, this_run: u64) -> Progress {
        let secs = started.elapsed().as_secs_f64();
        Progress {
            step: mark.step,
            rows_done: mark.done,
            rows_written: mark.written,
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
            finished: mark.range >= self.sources(mark.step),
        }
    }

    /// Whether `verified` allows the delete: one that matched to begin it;
    /// one that covers every older row to resume it (writers in
    /// `Phase::New` change declared rows alone, so the layouts differ by
    /// then). A verification of an earlier table state never begins it,
    /// nor one of another key type or made on another store than `this`;
    /// the delete's marks are [opened](Self::open) on the way.
    fn allowed<E>(
        &mut self,
        verified: &Verification,
        this: Option<&str>,
    ) -> Result<(), BackfillError<E>> {
        if verified.schema() != K::schema().name() {
            return Err(BackfillError::OtherSchema {
                verified: verified.schema(),
                schema: K::schema().name(),
            });
        }
        same_store("verification", verified.store(), this)?;
        self.open(this, Step::Delete)?;
        let began = self.marks()?.delete.is_some();
        if verified.matches() || (began && verified.covers()) {
            return Ok(());
        }
        Err(BackfillError::NotVerified {
            mismatched: verified.mismatched(),
            uncovered: verified.uncovered(),
            stranded: verified.stranded(),
        })
    }

    /// Brings every older row into the declared layout, in batches, and
    /// removes the declared rows whose older row is gone; resumes from the
    /// checkpoint, or starts a new pass when the last one finished.
    pub fn copy<S: Store>(&mut self, store: &S) -> Result<Progress, BackfillError<S::Error>> {
        self.open(store_word(store.identity()).as_deref(), Step::Copy)?;
        self.run(store, Step::Copy)
    }

    /// Moves every older row out of the older layout (into the declared
    /// one when its row is not there), in batches; resumes from the
    /// checkpoint. Refuses to begin unless `verified` matched, and to
    /// resume unless it covers every older row.
    pub fn delete_older<S: Store>(
        &mut self,
        store: &S,
        verified: &Verification,
    ) -> Result<Progress, BackfillError<S::Error>> {
        self.allowed(verified, store_word(store.identity()).as_deref())?;
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

    /// One batch of the copy: at most `batch` rows handled and the cursor
    /// saved. The progress says when the pass is finished.
    pub fn copy_batch<S: Store>(&mut self, store: &S) -> Result<Progress, BackfillError<S::Error>> {
        self.open(store_word(store.identity()).as_deref(), Step::Copy)?;
        Ok(self.batch_sync(store, Step::Copy, Instant::now(), 0)?.0)
    }

    fn start_sync<S: Store>(
        &mut self,
        store: &S,
        step: Step,
    ) -> Result<Mark, BackfillError<S::Error>> {
        if let Some(mark) = self.resume(step)? {
            return Ok(mark);
        }
        // Count each older range's rows once, for the progress.
        let mut totals = Vec::with_capacity(self.ranges.len());
        for range in &self.ranges {
            let mut n = 0;
            for row in store
                .scan(range, Direction::Forward)
                .map_err(BackfillError::Store)?
            {
                let row = row.map_err(BackfillError::Store)?;
                n += u64::from(self.pair::<S::Error>(step, true, &row.0)?.is_some());
            }
            totals.push(n);
        }
        self.fresh(step, totals)
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
            if let Some((range, older)) = self.next_range(&g) {
                for row in store
                    .scan(&range, Direction::Forward)
                    .map_err(BackfillError::Store)?
                {
                    if !self.take(&mut g, step, older, row.map_err(BackfillError::Store)?)? {
                        exhausted = false;
                        break;
                    }
                }
            }
            g.end_range(exhausted);
        }
        let written = apply_sync(store, std::mem::take(&mut g.pairs))?;
        self.finish(g.mark, g.older, written, started, this_run)
    }

    /// Whether the batch in hand takes more rows.
    fn gathering(&self, g: &Gather) -> bool {
        g.mark.range < self.sources(g.mark.step)
            && g.pairs.len() < self.batch
            && g.seen < self.batch * SCAN_FACTOR
    }

    /// The rest of the range the mark stands in, and whether it is the
    /// older layout's; `None` when it is empty.
    fn next_range(&self, g: &Gather) -> Option<(KeyRange, bool)> {
        let (range, older) = self.source(g.mark.range);
        let rest = match &g.mark.after {
            None => Some(range.clone()),
            Some(after) => range.after(after, Direction::Forward),
        };
        rest.map(|r| (r, older))
    }

    /// Takes one row read into the batch; `false` (the row left for the
    /// next batch) when the batch is full.
    fn take<E>(
        &self,
        g: &mut Gather,
        step: Step,
        older: bool,
        row: Row,
    ) -> Result<bool, BackfillError<E>> {
        if g.pairs.len() == self.batch || g.seen == self.batch * SCAN_FACTOR {
            return Ok(false);
        }
        if let Some(pair) = self.pair::<E>(step, older, &row.0)? {
            g.pairs.push(pair);
            if let Some(count) = g.mark.counts.get_mut(g.mark.range) {
                *count += 1;
                g.older += 1;
            }
        }
        g.mark.after = Some(row.0);
        g.seen += 1;
        Ok(true)
    }

    /// Saves the mark after a batch of `n` rows was applied.
    fn finish<E>(
        &mut self,
        mut mark: Mark,
        n: u64,
        written: u64,
        started: Instant,
        this_run: u64,
    ) -> Result<(Progress, u64), BackfillError<E>> {
        mark.done += n;
        mark.written += written;
        let progress = self.progress(&mark, started, this_run + n);
        self.save(mark)?;
        Ok((progress, n))
    }

    /// [`copy`](Self::copy) on an async store (Cloud Bigtable).
    pub async fn copy_async<S: AsyncStore>(
        &mut self,
        store: &S,
    ) -> Result<Progress, BackfillError<S::Error>> {
        self.check_async(store)?;
        self.open(store_word(store.identity()).as_deref(), Step::Copy)?;
        self.run_async(store, Step::Copy).await
    }

    /// [`copy_batch`](Self::copy_batch) on an async store.
    pub async fn copy_batch_async<S: AsyncStore>(
        &mut self,
        store: &S,
    ) -> Result<Progress, BackfillError<S::Error>> {
        self.check_async(store)?;
        self.open(store_word(store.identity()).as_deref(), Step::Copy)?;
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
        self.allowed(verified, store_word(store.identity()).as_deref())?;
        self.check_async(store)?;
        self.run_async(store, Step::Delete).await
    }

    /// Refuses, before any work, a store that holds another key type or
    /// cannot scan the ranges the backfill reads.
    pub(crate) fn check_async<S: AsyncStore>(
        &self,
        store: &S,
    ) -> Result<(), BackfillError<S::Error>> {
        store
            .check_key_type(K::schema())
            .and_then(|()| {
                self.ranges
                    .iter()
                    .chain(&self.declared)
                    .try_for_each(|range| store.check_range(range))
            })
            .map_err(BackfillError::Unsupported)
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
        if let Some(mark) = self.resume(step)? {
            return Ok(mark);
        }
        let mut totals = Vec::with_capacity(self.ranges.len());
        for range in &self.ranges {
            let mut n = 0;
            let mut rows = store.scan_for(K::schema(), range, Direction::Forward, None);
            while let Some(row) = next(&mut rows).await {
                let row = row.map_err(BackfillError::Store)?;
                n += u64::from(self.pair::<S::Error>(step, true, &row.0)?.is_some());
            }
            totals.push(n);
        }
        self.fresh(step, totals)
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
            if let Some((range, older)) = self.next_range(&g) {
                // One more than can be taken tells whether the range goes on.
                let want = self.batch * SCAN_FACTOR - g.seen + 1;
                let mut rows = store.scan_for(K::schema(), &range, Direction::Forward, Some(want));
                while let Some(row) = next(&mut rows).await {
                    if !self.take(&mut g, step, older, row.map_err(BackfillError::Store)?)? {
                        exhausted = false;
                        break;
                    }
                }
            }
            g.end_range(exhausted);
        }
        let written = apply_async(store, K::schema(), std::mem::take(&mut g.pairs)).await?;
        self.finish(g.mark, g.older, written, started, this_run)
    }
}

/// Runs the write protocol for a batch on a sync store; returns the keys
/// written.
fn apply_sync<S: Store>(store: &S, pairs: Vec<Pair>) -> Result<u64, BackfillError<S::Error>> {
    let mut apply = Apply::new(pairs);
    let mut answer = Answer::Start;
    loop {
        answer = match apply.step(answer) {
            Next::Read(keys) => Answer::Read(
                keys.iter()
                    .map(|k| store.get(k))
                    .collect::<Result<_, _>>()
                    .map_err(BackfillError::Store)?,
            ),
            Next::Write(cas) => Answer::Wrote(
                store
                    .compare_and_write(&cas)
                    .map_err(BackfillError::Store)?,
            ),
            Next::Done => return Ok(apply.written),
            Next::Contended(key) => return Err(BackfillError::Contended { key }),
        };
    }
}

/// [`apply_sync`] on an async store.
async fn apply_async<S: AsyncStore>(
    store: &S,
    schema: &'static crate::schema::Schema,
    pairs: Vec<Pair>,
) -> Result<u64, BackfillError<S::Error>> {
    let mut apply = Apply::new(pairs);
    let mut answer = Answer::Start;
    loop {
        answer = match apply.step(answer) {
            Next::Read(keys) => {
                let mut wanted = keys.clone();
                wanted.sort();
                wanted.dedup();
                let found: HashMap<Vec<u8>, Vec<u8>> = store
                    .get_many_for(schema, wanted)
                    .await
                    .map_err(BackfillError::Store)?
                    .into_iter()
                    .collect();
                Answer::Read(keys.iter().map(|k| found.get(k).cloned()).collect())
            }
            Next::Write(cas) => Answer::Wrote(
                store
                    .compare_and_write_for(schema, cas)
                    .await
                    .map_err(BackfillError::Store)?,
            ),
            Next::Done => return Ok(apply.written),
            Next::Contended(key) => return Err(BackfillError::Contended { key }),
        };
    }
}

/// A batch being gathered: the mark, the rows' pairs, the rows read.
struct Gather {
    mark: Mark,
    pairs: Vec<Pair>,
    seen: usize,
    /// Pairs of older rows (the rest are declared rows the copy checks).
    older: u64,
}

impl Gather {
    fn new(mark: Mark) -> Self {
        Gather {
            mark,
            pairs: Vec::new(),
            seen: 0,
            older: 0,
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
