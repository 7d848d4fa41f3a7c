//! The sync driver of a typed scan, over a [`Store`]: one store scan per
//! bucket range, each row decoded where the store lends it
//! ([`Store::scan_into`]). Merged, every source is open and a loser tree picks the next
//! row; unordered, one source is open at a time, opened when reached.

use super::cursor::Cursor;
use super::finish::{Finish, Lend};
use super::merge::{before, Keyed, ScanCore, ScanOptions};
use super::plan::Plan;
use super::tree::LoserTree;
use crate::history::Phase;
use crate::key::RowKey;
use crate::range::Direction;
use crate::store::{LentRow, RowError, RowSource, Store, TypedRow};
use std::marker::PhantomData;

/// One bucket's scan in the sync driver.
struct Source<R> {
    /// Once read from: lends a row not yet returned; `None` when the
    /// source ran out, reached its limit or failed.
    /// Boxed: a store's lent rows hold their page (a `MemoryRows` is about
    /// 200 bytes), and a merge over 65,536 buckets holds a source each.
    rows: Option<Box<R>>,
    /// The source's first row, found by a walk over every bucket
    /// ([`walk`](super::walk)) and held in the driver's `heads` (where its
    /// key starts and ends and its value ends) until the merge takes it;
    /// `rows` is opened after it then.
    head: Option<(usize, usize, usize)>,
    /// Rows pulled from the store so far (the per-bucket limit).
    pulled: usize,
    /// Where the components start in its keys.
    header: usize,
    /// The row's place in the merge by the first 16 bytes of its body
    /// ([`rank_of`]), [`NO_ROW`] without a row: most comparisons of the
    /// merge end here, without a call to `memcmp`.
    rank: u128,
}

/// The rank of a source without a row: it loses every match (a tie with
/// a row's rank is decided by [`Source::has_row`]).
const NO_ROW: u128 = u128::MAX;

/// A row's rank: the first 16 bytes of its body, zero-padded, big-endian,
/// inverted in reverse; the smaller rank comes first. Two rows of different
/// ranks order as their ranks do (a shorter body padded with zeros is a
/// prefix of the other up to its end); equal ranks compare whole bodies.
#[inline]
fn rank_of(body: &[u8], direction: Direction) -> u128 {
    match direction {
        Direction::Forward => prefix_of(body),
        Direction::Reverse => !prefix_of(body),
    }
}

impl<R: RowSource> Source<R> {
    /// The current row's key and value: the head found by the walk (in
    /// `heads`), or where the store lends it.
    #[inline]
    fn row<'a>(&'a self, heads: &'a [u8]) -> Option<(&'a [u8], &'a [u8])> {
        match (self.head, &self.rows) {
            (Some((start, key_end, value_end)), _) => Some((
                heads.get(start..key_end).unwrap_or_default(),
                heads.get(key_end..value_end).unwrap_or_default(),
            )),
            // Two calls, each returning its slice in registers (one call
            // returning both returns them through memory, and reading
            // them back right away stalls: measured slower).
            (None, Some(rows)) => Some((rows.key(), rows.value())),
            (None, None) => None,
        }
    }

    /// The current row's part after the header.
    #[inline]
    fn body<'a>(&'a self, heads: &'a [u8]) -> &'a [u8] {
        let key = self.row(heads).map_or(&[][..], |(key, _)| key);
        key.get(self.header..).unwrap_or_default()
    }

    /// Whether the source holds a row not yet returned.
    #[inline]
    fn has_row(&self) -> bool {
        self.head.is_some() || self.rows.is_some()
    }
}

/// An ordered merge over more sources than this finds their first rows by
/// one walk of the table ([`walk`](super::walk)) rather than a seek each.
const WALK_FROM: usize = 64;

/// The first 16 bytes of `body`, zero-padded, as a big-endian number: if
/// two bodies' prefixes differ, they order as their prefixes do (a shorter
/// body padded with zeros is a prefix of the other up to its end).
#[inline]
fn prefix_of(body: &[u8]) -> u128 {
    if let Some(head) = body.first_chunk::<16>() {
        return u128::from_be_bytes(*head);
    }
    let mut bytes = [0u8; 16];
    let n = body.len().min(16);
    bytes[..n].copy_from_slice(&body[..n]);
    u128::from_be_bytes(bytes)
}

/// The rows of a typed scan: decoded keys with their values.
///
/// Ordered (the default), it merges the buckets by the key bytes after the
/// salt, which is the declared order, holding one row per bucket.
/// Unordered, it reads the buckets one after the other, opening each when
/// it is reached. [`cursor`](Self::cursor) says where to resume.
pub struct TypedRows<'s, K, S: Store + 's> {
    driver: Driver<'s, K, S>,
    /// The row [`next_ref`](Self::next_ref) decodes into, and its value.
    lent: Option<K>,
    /// The lent value is `lent_value[..lent_len]`: the buffer only grows,
    /// and its length is kept apart (reading a `Vec`'s pointer and length
    /// together right after its length was written stalls the load).
    lent_value: Vec<u8>,
    lent_len: usize,
}

/// The sources of a typed scan and where it stands.
struct Driver<'s, K, S: Store + 's> {
    store: &'s S,
    core: ScanCore,
    /// Merged: one per source. Unordered: the current source.
    sources: Vec<Source<S::Lent<'s>>>,
    tree: LoserTree,
    /// Merged: the winner's next row that ranks strictly below this wins
    /// again without a replay ([`LoserTree::bar`]): a run of rows from one
    /// source costs one comparison each.
    bar: u128,
    /// The sources' first rows found by a walk (see [`Source::head`]).
    heads: Vec<u8>,
    /// A store error met while reading ahead, returned after the row in hand.
    deferred: Option<S::Error>,
    key: PhantomData<fn() -> K>,
}

impl<'s, K: RowKey, S: Store> TypedRows<'s, K, S> {
    pub(crate) fn new(
        store: &'s S,
        plan: Plan,
        request: Vec<u8>,
        options: ScanOptions,
        phase: Option<Phase>,
    ) -> Self {
        let history = K::history().zip(phase);
        let driver = Driver {
            store,
            core: ScanCore::new(K::schema(), plan, request, options, history),
            sources: Vec::new(),
            tree: LoserTree::default(),
            bar: 0,
            heads: Vec::new(),
            deferred: None,
            key: PhantomData,
        };
        TypedRows {
            driver,
            lent: None,
            lent_value: Vec::new(),
            lent_len: 0,
        }
    }

    /// Where the scan stands: resume with `.after(cursor)` on the same request
    /// to get exactly the rows not yet returned. Before the first row, the
    /// cursor given (or this request's start); after a refused cursor
    /// (`RowError::Cursor`), this request's start.
    pub fn cursor(&self) -> Cursor {
        self.driver.core.cursor()
    }

    /// Takes the limit off the scan before it starts (an index scan counts
    /// the rows it returns itself).
    pub(crate) fn take_limit(&mut self) -> Option<usize> {
        self.driver.core.options.limit.take()
    }

    /// The store the scan reads.
    pub(crate) fn store(&self) -> &'s S {
        self.driver.store
    }

    /// The next row, finished by `finish` from the decoded row and the
    /// key and value the store lends.
    #[inline]
    pub(crate) fn next_row<T>(
        &mut self,
        finish: impl Finish<K, T, S::Error>,
    ) -> Option<Result<T, RowError<S::Error>>> {
        Some(self.driver.next_row(finish)?.map_err(|e| *e))
    }

    /// The next row, lent: decoded into a row the scan keeps and reuses
    /// (its strings keep their capacity), with its value copied into a
    /// buffer the scan reuses, both borrowed until the next call. Once the
    /// buffers have grown to the longest row, nothing is allocated per row:
    /// the fastest way to read rows that are not kept (sum them, write them
    /// out, filter them). [`clone`](Clone::clone) a row to keep it. The
    /// rows, their order, errors and [`cursor`](Self::cursor) are the
    /// iterator's; the two can be mixed.
    ///
    /// ```
    /// use keyschema::store::{MemoryStore, RowStore};
    /// use keyschema::RowKey;
    ///
    /// #[derive(RowKey, Debug, Clone, PartialEq)]
    /// #[rowkey(salt = hash(user_id) % 4, then = user_id, rev(timestamp))]
    /// struct Visit {
    ///     user_id: String,
    ///     timestamp: u64,
    /// }
    ///
    /// let store = MemoryStore::new();
    /// for (user, t) in [("ann", 1), ("bob", 2), ("ann", 3)] {
    ///     store.put_row(&Visit { user_id: user.into(), timestamp: t }, b"v")?;
    /// }
    /// let mut rows = Visit::scan().run(&store);
    /// let mut seen = Vec::new();
    /// while let Some(row) = rows.next_ref() {
    ///     let (visit, value) = row?;
    ///     seen.push(format!("{} {} {}", visit.user_id, visit.timestamp, value.len()));
    /// }
    /// assert_eq!(seen, ["ann 3 1", "ann 1 1", "bob 2 1"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn next_ref(&mut self) -> Option<Result<LentRow<'_, K>, RowError<S::Error>>> {
        let item = self.driver.next_row(Lend {
            slot: &mut self.lent,
            value: &mut self.lent_value,
            len: &mut self.lent_len,
        });
        match item? {
            Ok(()) => {
                let value = self.lent_value.get(..self.lent_len).unwrap_or_default();
                Some(Ok((self.lent.as_ref()?, value)))
            }
            Err(e) => Some(Err(*e)),
        }
    }

    /// The next row with its key bytes.
    pub(crate) fn next_keyed(&mut self) -> Option<Result<Keyed<K>, RowError<S::Error>>> {
        self.next_row(|row, key: &[u8], value: &[u8]| Ok((key.to_vec(), row, value.to_vec())))
    }
}

impl<'s, K: RowKey, S: Store> Driver<'s, K, S> {
    /// Opens source `i`'s store scan, narrowed past the cursor.
    fn open(&self, i: usize) -> Result<Source<S::Lent<'s>>, S::Error> {
        let rows = match self.core.range_for(i) {
            Some(range) => Some(Box::new(
                self.store.scan_into(&range, self.core.options.direction)?,
            )),
            None => None,
        };
        Ok(Source {
            rows,
            head: None,
            pulled: 0,
            header: self.core.header_of(i),
            rank: NO_ROW,
        })
    }

    /// Moves source `i` (in `slot`) to its next row, honouring the
    /// per-bucket limit; marks it done in the core when the store ran out.
    #[inline(always)]
    fn pull(&mut self, slot: usize, i: usize) -> Result<(), S::Error> {
        if self.sources[slot].head.is_some() {
            self.open_after_head(slot, i)?;
        }
        let limit = self.core.per_source_limit();
        let source = &mut self.sources[slot];
        let Some(rows) = source.rows.as_mut() else {
            return Ok(());
        };
        if limit.is_some_and(|n| source.pulled >= n) {
            source.rows = None;
            source.rank = NO_ROW;
            return Ok(());
        }
        let advanced = match rows.advance_key() {
            Ok(advanced) => advanced,
            Err(e) => {
                source.rows = None;
                source.rank = NO_ROW;
                return Err(e);
            }
        };
        if let Some(key) = advanced {
            source.pulled += 1;
            if self.core.options.ordered {
                let body = key.get(source.header..).unwrap_or_default();
                source.rank = rank_of(body, self.core.options.direction);
            }
        } else {
            source.rows = None;
            source.rank = NO_ROW;
            self.core.mark_done(i);
        }
        Ok(())
    }

    /// Source `i` (in `slot`), whose head the merge took: its scan opened
    /// after the head, unless its limit is reached or its range has no
    /// more.
    #[cold]
    fn open_after_head(&mut self, slot: usize, i: usize) -> Result<(), S::Error> {
        let limit = self.core.per_source_limit();
        let source = &mut self.sources[slot];
        let Some((start, key_end, _)) = source.head.take() else {
            return Ok(());
        };
        source.rank = NO_ROW;
        if limit.is_some_and(|n| source.pulled >= n) {
            return Ok(());
        }
        let head = self.heads.get(start..key_end).unwrap_or_default();
        let direction = self.core.options.direction;
        match self
            .core
            .plan
            .range(i)
            .and_then(|r| r.after(head, direction))
        {
            Some(range) => source.rows = Some(Box::new(self.store.scan_into(&range, direction)?)),
            None => self.core.mark_done(i),
        }
        Ok(())
    }

    /// Merged over many sources: their first rows found by one walk of
    /// the table; `false` when the plan is not one a walk reads.
    fn start_walk(&mut self) -> Result<bool, S::Error> {
        let core = &self.core;
        let walked = super::walk::first_rows(
            self.store,
            K::schema(),
            &core.plan,
            core.options.direction,
            core.resume_after(),
            |b| core.range_for(b),
        );
        let heads = match walked {
            None => return Ok(false),
            Some(heads) => heads?,
        };
        self.heads = heads.bytes;
        self.sources.reserve_exact(heads.rows.len());
        for (i, head) in heads.rows.into_iter().enumerate() {
            let header = self.core.header_of(i);
            let mut source = Source {
                rows: None,
                head,
                pulled: 0,
                header,
                rank: NO_ROW,
            };
            match head {
                Some((start, key_end, _)) => {
                    source.pulled = 1;
                    let key = self.heads.get(start..key_end).unwrap_or_default();
                    let body = key.get(header..).unwrap_or_default();
                    source.rank = rank_of(body, self.core.options.direction);
                }
                None => self.core.mark_done(i),
            }
            self.sources.push(source);
        }
        Ok(true)
    }

    /// Merged: opens every source and reads its first row.
    fn start_merge(&mut self) -> Result<(), S::Error> {
        if self.core.plan.len() > WALK_FROM
            && self.store.reads_across_buckets()
            && self.start_walk()?
        {
            self.build_tree();
            return Ok(());
        }
        for i in 0..self.core.plan.len() {
            let source = self.open(i)?;
            let empty = source.rows.is_none();
            self.sources.push(source);
            if empty {
                self.core.mark_done(i);
            } else {
                self.pull(i, i)?;
            }
        }
        self.build_tree();
        Ok(())
    }

    fn build_tree(&mut self) {
        let (sources, heads) = (&self.sources, &self.heads);
        let direction = self.core.options.direction;
        self.tree = LoserTree::build(sources.len(), |a, b| less(sources, heads, direction, a, b));
        self.bar = bar(&self.tree, sources);
    }

    /// The next row of the merge, decoded and finished by `finish` (from
    /// the row and its lent key and value).
    #[inline]
    fn next_merged<T>(
        &mut self,
        finish: &mut impl Finish<K, T, S::Error>,
    ) -> Option<Result<T, Box<RowError<S::Error>>>> {
        loop {
            let w = self.tree.winner()?;
            let (key, value) = self.sources.get(w)?.row(&self.heads)?;
            let item = finish.emit(&mut self.core, w, key, value);
            // Read the source's next row now, so that a source that ran
            // out is done in the cursor as its last row is returned.
            if let Err(e) = self.pull(w, w) {
                self.deferred = Some(e);
            }
            // A source without a row ranks NO_ROW, never below the bar.
            if self.sources[w].rank >= self.bar {
                let (sources, heads) = (&self.sources, &self.heads);
                let direction = self.core.options.direction;
                self.tree
                    .replay(w, |a, b| less(sources, heads, direction, a, b));
                self.bar = bar(&self.tree, sources);
            }
            if let Some(item) = item {
                return Some(item);
            }
        }
    }

    /// The next row read bucket after bucket, decoded and finished.
    #[inline]
    fn next_unordered<T>(
        &mut self,
        finish: &mut impl Finish<K, T, S::Error>,
    ) -> Option<Result<T, Box<RowError<S::Error>>>> {
        loop {
            let i = self.core.current;
            if i >= self.core.plan.len() {
                return None;
            }
            if self.sources.is_empty() {
                match self.open(i) {
                    Ok(source) if source.rows.is_none() => {
                        self.core.mark_done(i);
                        continue;
                    }
                    Ok(source) => self.sources.push(source),
                    Err(e) => return Some(Err(Box::new(self.fail(e)))),
                }
            }
            if let Err(e) = self.pull(0, i) {
                return Some(Err(Box::new(self.fail(e))));
            }
            let Some(rows) = self.sources[0].rows.as_ref() else {
                if self.core.current == i {
                    // The per-bucket limit: the page is full.
                    return None;
                }
                // The source ran out: on to the next.
                self.sources.clear();
                continue;
            };
            if let Some(item) = finish.emit(&mut self.core, i, rows.key(), rows.value()) {
                if self.core.limit_reached() {
                    // The page is full: one more read says whether the
                    // bucket ran out with it (then the cursor names the next
                    // bucket, or is finished after the last). The row read
                    // is not returned; an error here is the next page's.
                    let _ = self.pull(0, i);
                }
                return Some(item);
            }
        }
    }

    fn fail(&mut self, e: S::Error) -> RowError<S::Error> {
        self.core.failed = true;
        RowError::Store(e)
    }

    /// The next row, finished by `finish` from the decoded row and the
    /// key and value the store lends. The error is boxed: on the per-row
    /// path only a pointer is passed back.
    #[inline]
    pub(crate) fn next_row<T>(
        &mut self,
        mut finish: impl Finish<K, T, S::Error>,
    ) -> Option<Result<T, Box<RowError<S::Error>>>> {
        if !self.core.started || self.core.failed || self.deferred.is_some() {
            if let Err(stop) = self.prepare() {
                return stop.map(|e| Err(Box::new(e)));
            }
        }
        if self.core.limit_reached() {
            return None;
        }
        if self.core.options.ordered {
            self.next_merged(&mut finish)
        } else {
            self.next_unordered(&mut finish)
        }
    }

    /// Off the per-row path: a refusal, the end after a failure, an error
    /// met while reading ahead, or the start. `Err` ends the call with
    /// its item.
    #[cold]
    fn prepare(&mut self) -> Result<(), Option<RowError<S::Error>>> {
        if let Some(refused) = self.core.take_refusal() {
            return Err(Some(refused));
        }
        if self.core.limit_reached() {
            return Err(None);
        }
        if let Some(e) = self.deferred.take() {
            return Err(Some(self.fail(e)));
        }
        if !self.core.started {
            self.core.start();
            if self.core.options.ordered {
                self.start_merge().map_err(|e| Some(self.fail(e)))?;
            }
        }
        Ok(())
    }
}

/// The tree's [`bar`](LoserTree::bar) over the sources' ranks.
#[inline]
fn bar<R>(tree: &LoserTree, sources: &[Source<R>]) -> u128 {
    tree.bar(|s| sources.get(s).map_or(NO_ROW, |x| x.rank))
}

/// Whether source `a`'s row comes before source `b`'s in the merge (a
/// source without a row never does).
#[inline]
fn less<R: RowSource>(
    sources: &[Source<R>],
    heads: &[u8],
    direction: Direction,
    a: usize,
    b: usize,
) -> bool {
    let (x, y) = (&sources[a], &sources[b]);
    if x.rank != y.rank {
        // `x.rank < y.rank`, as the borrow of a subtraction: no branch on
        // an outcome that goes either way.
        return x.rank.overflowing_sub(y.rank).1;
    }
    match (x.has_row(), y.has_row()) {
        (true, true) => before(x.body(heads), a, y.body(heads), b, direction),
        (full, _) => full,
    }
}

impl<'s, K: crate::record::Record, S: Store> TypedRows<'s, K, S> {
    /// The same rows, whole: each with its value fields read from its value
    /// (see [`RecordStore`](crate::store::RecordStore)).
    pub fn records(self) -> crate::store::Records<Self> {
        crate::store::Records::new(self)
    }
}

impl<K: RowKey, S: Store> Iterator for TypedRows<'_, K, S> {
    type Item = Result<TypedRow<K>, RowError<S::Error>>;

    /// A store error is yielded once and ends the scan; [`cursor`](Self::cursor)
    /// then resumes exactly after the rows returned.
    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        self.next_row(|row, _: &[u8], value: &[u8]| Ok((row, value.to_vec())))
    }
}
