//! Building an index added to a live table: the entries of the rows
//! written before it, in batches with a checkpoint, and a verification
//! that counts both sides.

use super::check::stored_entry;
use super::{EntryError, Index, IndexVerification};
use crate::backfill::checkpoint::{
    read_checkpoint, same_store, store_word, write_checkpoint, Marks,
};
use crate::backfill::progress::Mark;
use crate::backfill::{BackfillError, Progress, Step};
use crate::key::RowKey;
use crate::range::{Direction, KeyRange};
use crate::scan::builder::ScanState;
use crate::store::{Mutation, Store};
use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The backfill of index `I`: writes the entry of every row of `I::Row`
/// (those written before the index existed have none), in batches, with
/// its place kept in a checkpoint file when one is given; then
/// [`verify`](Self::verify) counts both sides.
///
/// The procedure for an index added to a live table:
///
/// 1. Declare it `index(Name, building, ...)` and deploy that everywhere:
///    every write now keeps its entries, and its scans are refused
///    ([`IndexError::Building`](super::IndexError::Building)).
/// 2. Run [`build`](Self::build) (resumable: run it again after a crash,
///    in this process or another, with the same checkpoint file).
/// 3. Run [`verify`](Self::verify) until it [`matches`](IndexVerification::matches).
/// 4. Drop `building` and deploy: the index scans.
///
/// Writers run meanwhile: a row a writer changes while the build reads it
/// keeps the entry the writer wrote, and the build's entry for the older
/// version (if any) is left behind stale, which index scans skip and
/// `verify` counts.
///
/// Both make a row's entry from its key and the value fields the index is
/// over alone, read by name, as a write finds a row's old entries: rows an
/// older version of the struct wrote (without a required field it has
/// since gained) are built and verified like any other. A row whose key or
/// indexed fields do not read stops the build
/// ([`BackfillError::Value`], naming the row and the field: rewrite or
/// delete it, then resume); `verify` counts it
/// [`unreadable`](IndexVerification::unreadable), lists it with why, and
/// goes on.
///
/// ```
/// use keyschema::index::IndexBackfill;
/// use keyschema::store::{MemoryStore, RecordStore};
/// use keyschema::RowKey;
///
/// // The rows, as the binary before the index wrote them.
/// #[derive(RowKey, Debug, Clone, PartialEq)]
/// #[rowkey(salt = hash(id) % 4, then = id)]
/// struct Before { id: u32, #[rowkey(value)] city: String }
///
/// // The same rows with the index, still being built.
/// #[derive(RowKey, Debug, Clone, PartialEq)]
/// #[rowkey(salt = hash(id) % 4, then = id, index(ByCity, building, prefix = "c", then = city, id))]
/// struct Shop { id: u32, #[rowkey(value)] city: String }
///
/// let store = MemoryStore::new();
/// store.put_record(&Before { id: 1, city: "Kyoto".into() })?;
/// store.put_record(&Shop { id: 2, city: "Osaka".into() })?; // with its entry
/// let mut backfill = IndexBackfill::<ByCity>::new();
/// assert_eq!(backfill.build(&store)?.rows_written, 2);
/// let verified = backfill.verify(&store)?;
/// assert!(verified.matches(), "{verified:?}");
/// assert_eq!((verified.rows, verified.entries), (2, 2));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct IndexBackfill<I> {
    /// Every range of the row type, in key order.
    pub(super) ranges: Vec<KeyRange>,
    pub(super) batch: usize,
    checkpoint: Option<PathBuf>,
    marks: Option<Marks>,
    index: PhantomData<fn() -> I>,
}

/// The default rows per batch: one write each.
const BATCH: usize = 1_000;

impl<I: Index> Default for IndexBackfill<I> {
    fn default() -> Self {
        Self::new()
    }
}

impl<I: Index> IndexBackfill<I> {
    /// The backfill of index `I`, over every row of its row type.
    pub fn new() -> Self {
        IndexBackfill {
            ranges: ScanState::new(<I::Row as RowKey>::schema())
                .ranges()
                .into_iter()
                .collect(),
            batch: BATCH,
            checkpoint: None,
            marks: None,
            index: PhantomData,
        }
    }

    /// Rows per batch (at least 1; default 1,000).
    pub fn batch(mut self, rows: usize) -> Self {
        self.batch = rows.max(1);
        self
    }

    /// Keeps the build's place in `path` after every batch, and resumes
    /// from it (a file that does not exist yet is a fresh start).
    pub fn checkpoint(mut self, path: impl AsRef<Path>) -> Self {
        self.checkpoint = Some(path.as_ref().to_path_buf());
        self.marks = None;
        self
    }

    /// Writes the entry of every row, resuming where the checkpoint says;
    /// a build that finished starts a new pass. Returns how far it got.
    pub fn build<S: Store>(&mut self, store: &S) -> Result<Progress, BackfillError<S::Error>> {
        let mut mark = match self.resume(store.identity())? {
            Some(mark) => mark,
            None => Mark::fresh(Step::Build, self.count(store)?),
        };
        let started = Instant::now();
        let mut this_run = 0;
        while let Some(range) = self.next_range(&mark) {
            let (mut read, mut puts, mut last) = (0, Vec::new(), None);
            if let Some(range) = range {
                for row in store
                    .scan(&range, Direction::Forward)
                    .map_err(BackfillError::Store)?
                {
                    let (key, value) = row.map_err(BackfillError::Store)?;
                    if let Some(entry) = entry_of::<I, S::Error>(&key, &value)? {
                        puts.push(Mutation::Put {
                            key: entry,
                            value: Vec::new(),
                        });
                    }
                    last = Some(key);
                    read += 1;
                    if read == self.batch {
                        break;
                    }
                }
            }
            let written = puts.len();
            store.write_batch(&puts).map_err(BackfillError::Store)?;
            this_run += read as u64;
            self.advance(&mut mark, read, written, last)?;
        }
        Ok(self.progress(&mark, started, this_run))
    }

    /// Counts both sides: every row and whether its entry is there, every
    /// entry and whether its row has it; a row whose entry cannot be made
    /// is counted [`unreadable`](IndexVerification::unreadable) and the
    /// count goes on. Reads only.
    pub fn verify<S: Store>(
        &self,
        store: &S,
    ) -> Result<IndexVerification, BackfillError<S::Error>> {
        let mut v = IndexVerification::default();
        for range in &self.ranges {
            for row in store
                .scan(range, Direction::Forward)
                .map_err(BackfillError::Store)?
            {
                let (key, value) = row.map_err(BackfillError::Store)?;
                let Some(entry) = v.row::<I>(&key, &value) else {
                    continue;
                };
                let present = store.get(&entry).map_err(BackfillError::Store)?.is_some();
                v.found(key, present);
            }
        }
        for range in ScanState::new(I::schema()).ranges() {
            for entry in store
                .scan(&range, Direction::Forward)
                .map_err(BackfillError::Store)?
            {
                let (entry, _) = entry.map_err(BackfillError::Store)?;
                let named = I::decode(&entry).map_err(|source| BackfillError::Row {
                    key: entry.clone(),
                    source,
                })?;
                let row_key = named.row_key();
                let value = store.get(&row_key).map_err(BackfillError::Store)?;
                v.entry::<I>(&entry, value.as_deref().map(|value| (&row_key[..], value)));
            }
        }
        Ok(v)
    }

    /// The range the next batch reads after `mark`: `None` when the build
    /// is done, `Some(None)` when the mark's range has nothing left.
    pub(super) fn next_range(&self, mark: &Mark) -> Option<Option<KeyRange>> {
        let range = self.ranges.get(mark.range)?;
        Some(match &mark.after {
            None => Some(range.clone()),
            Some(last) => range.after(last, Direction::Forward),
        })
    }

    /// Moves `mark` past a batch that read `read` rows (the last one
    /// `last`) and wrote `written` entries, and saves it: a batch shorter
    /// than the batch size finished its range.
    pub(super) fn advance<E>(
        &mut self,
        mark: &mut Mark,
        read: usize,
        written: usize,
        last: Option<Vec<u8>>,
    ) -> Result<(), BackfillError<E>> {
        mark.done += read as u64;
        mark.written += written as u64;
        if let Some(count) = mark.counts.get_mut(mark.range) {
            *count += read as u64;
        }
        if read < self.batch {
            mark.range += 1;
            mark.after = None;
        } else {
            mark.after = last;
        }
        self.save(mark.clone())
    }

    /// The mark a build resumes from on the store named `identity` (a
    /// checkpoint made on another store refused); `None` for a new pass.
    pub(super) fn resume<E>(
        &mut self,
        identity: Option<String>,
    ) -> Result<Option<Mark>, BackfillError<E>> {
        let this = store_word(identity);
        let ranges = self.ranges.len();
        let marks = self.marks()?;
        same_store("checkpoint", marks.store.as_deref(), this.as_deref())?;
        if marks.store.is_none() {
            marks.store = this;
        }
        Ok(marks.copy.clone().filter(|m| m.range < ranges))
    }

    /// The build's mark, read from the checkpoint the first time.
    fn marks<E>(&mut self) -> Result<&mut Marks, BackfillError<E>> {
        if self.marks.is_none() {
            let marks = match &self.checkpoint {
                Some(path) => read_checkpoint(path, I::schema().name())?,
                None => Marks::default(),
            };
            self.marks = Some(marks);
        }
        Ok(self.marks.get_or_insert_with(Marks::default))
    }

    pub(super) fn save<E>(&mut self, mark: Mark) -> Result<(), BackfillError<E>> {
        let marks = self.marks()?;
        marks.copy = Some(mark);
        let marks = marks.clone();
        if let Some(path) = &self.checkpoint {
            write_checkpoint(path, I::schema().name(), &marks)?;
        }
        Ok(())
    }

    /// Rows per range, for the progress.
    fn count<S: Store>(&self, store: &S) -> Result<Vec<u64>, BackfillError<S::Error>> {
        self.ranges
            .iter()
            .map(|range| {
                let mut n = 0;
                for row in store
                    .scan(range, Direction::Forward)
                    .map_err(BackfillError::Store)?
                {
                    row.map_err(BackfillError::Store)?;
                    n += 1;
                }
                Ok(n)
            })
            .collect()
    }

    pub(super) fn progress(&self, mark: &Mark, started: Instant, this_run: u64) -> Progress {
        let secs = started.elapsed().as_secs_f64();
        Progress {
            step: Step::Build,
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
                .map(|(r, (total, done))| (r.bucket(), total.saturating_sub(*done)))
                .collect(),
            finished: mark.range >= self.ranges.len(),
        }
    }
}

/// The entry of the row stored under `key` with `value`, made from its
/// key and the value fields the index is over alone (a row an older
/// version of the struct wrote has its entry), or why it cannot be: the
/// build stops there.
pub(super) fn entry_of<I: Index, E>(
    key: &[u8],
    value: &[u8],
) -> Result<Option<Vec<u8>>, BackfillError<E>> {
    stored_entry::<I>(key, value).map_err(|error| match error {
        EntryError::Key(source) => BackfillError::Row {
            key: key.to_vec(),
            source,
        },
        EntryError::Value(source) => BackfillError::Value {
            key: key.to_vec(),
            source,
        },
    })
}
