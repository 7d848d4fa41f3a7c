//! Typed scans: one store scan per bucket range, merged back into key order.

use crate::cursor::{Cursor, Position};
use crate::scan::KeyRange;
use crate::store::{Direction, Row, RowError, Store, TypedRow};
use crate::RowKey;
use std::cmp::Ordering;
use std::collections::binary_heap::{BinaryHeap, PeekMut};
use std::marker::PhantomData;

fn set_after(buf: &mut Vec<u8>, body: &[u8]) {
    buf.clear();
    buf.extend_from_slice(body);
}

/// Pulls the next row of a source, honouring the per-bucket limit.
fn pull<I, E>(source: &mut Source<I>, limit: Option<usize>) -> Result<Option<Row>, E>
where
    I: Iterator<Item = Result<Row, E>>,
{
    let Some(rows) = source.rows.as_mut() else {
        return Ok(None);
    };
    if limit.is_some_and(|n| source.pulled >= n) {
        source.rows = None;
        return Ok(None);
    }
    match rows.next() {
        Some(Ok(row)) => {
            source.pulled += 1;
            Ok(Some(row))
        }
        Some(Err(e)) => Err(e),
        None => {
            source.rows = None;
            source.position = Position::Done;
            Ok(None)
        }
    }
}

/// How a typed scan runs: set through the methods of [`ScanRequest`](crate::ScanRequest).
#[derive(Debug, Clone)]
pub(crate) struct ScanOptions {
    pub limit: Option<usize>,
    pub direction: Direction,
    pub ordered: bool,
    pub after: Option<Cursor>,
}

impl Default for ScanOptions {
    fn default() -> Self {
        ScanOptions {
            limit: None,
            direction: Direction::Forward,
            ordered: true,
            after: None,
        }
    }
}

/// One bucket's scan.
struct Source<I> {
    bucket: u32,
    rows: Option<I>,
    /// Rows pulled from the store so far (the per-bucket limit).
    pulled: usize,
    position: Position,
}

/// A row waiting in the merge: one per bucket at most.
struct Pending {
    key: Vec<u8>,
    value: Vec<u8>,
    source: usize,
    /// Where the key's logical part starts (after prefix and salt).
    header: usize,
    reverse: bool,
}

impl Pending {
    fn body(&self) -> &[u8] {
        self.key.get(self.header..).unwrap_or_default()
    }
}

impl PartialEq for Pending {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Pending {}
impl PartialOrd for Pending {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Pending {
    /// `BinaryHeap` pops the greatest: the next row is the smallest body
    /// forward, the largest in reverse.
    fn cmp(&self, other: &Self) -> Ordering {
        let by_key = self
            .body()
            .cmp(other.body())
            .then(self.source.cmp(&other.source));
        if self.reverse {
            by_key
        } else {
            by_key.reverse()
        }
    }
}

/// The rows of a typed scan: decoded keys with their values.
///
/// Ordered (the default), it merges the buckets by the key bytes after the
/// salt, which is the declared order, holding at most one pending row per
/// bucket. Unordered, it drains the buckets one after the other.
/// [`cursor`](Self::cursor) says where to resume.
pub struct TypedRows<'s, K, S: Store + 's> {
    store: &'s S,
    ranges: Vec<KeyRange>,
    started: bool,
    sources: Vec<Source<S::Rows<'s>>>,
    heap: BinaryHeap<Pending>,
    current: usize,
    options: ScanOptions,
    header: usize,
    returned: usize,
    last: Option<Vec<u8>>,
    /// A store error met while refilling, returned after the row in hand.
    deferred: Option<S::Error>,
    /// A store error was returned: the scan is over (resume from the cursor).
    failed: bool,
    key: PhantomData<fn() -> K>,
}

impl<'s, K: RowKey, S: Store> TypedRows<'s, K, S> {
    pub(crate) fn new(store: &'s S, ranges: Vec<KeyRange>, options: ScanOptions) -> Self {
        let header = K::schema().header_len();
        TypedRows {
            store,
            ranges,
            started: false,
            sources: Vec::new(),
            heap: BinaryHeap::new(),
            current: 0,
            options,
            header,
            returned: 0,
            last: None,
            deferred: None,
            failed: false,
            key: PhantomData,
        }
    }

    /// Where the scan stands: resume with `.after(cursor)` on the same request
    /// to get exactly the rows not yet returned.
    pub fn cursor(&self) -> Cursor {
        let mut positions: Vec<(u32, Position)> = if self.started {
            self.sources
                .iter()
                .map(|s| {
                    let position = match (&s.position, &self.last) {
                        (Position::Done, _) => Position::Done,
                        // Merged: every bucket restarts after the last row returned
                        // overall (rows pulled but not returned are read again).
                        (_, Some(last)) if self.options.ordered => Position::After(last.clone()),
                        (p, _) => p.clone(),
                    };
                    (s.bucket, position)
                })
                .collect()
        } else {
            self.ranges
                .iter()
                .map(|r| (r.bucket(), self.initial_position(r.bucket())))
                .collect()
        };
        // Buckets the request never scanned (empty ranges) are finished.
        positions.sort_by_key(|(b, _)| *b);
        Cursor {
            direction: self.options.direction,
            positions,
        }
    }

    fn initial_position(&self, bucket: u32) -> Position {
        self.options
            .after
            .as_ref()
            .map_or(Position::Start, |c| c.position(bucket).clone())
    }

    /// Opens one store scan per range, restarted after the cursor's positions.
    fn start(&mut self) -> Result<(), S::Error> {
        self.started = true;
        let ranges = std::mem::take(&mut self.ranges);
        for range in &ranges {
            let position = self.initial_position(range.bucket());
            let Some(range) = self.resume(range, &position) else {
                self.sources.push(Source {
                    bucket: range.bucket(),
                    rows: None,
                    pulled: 0,
                    position: Position::Done,
                });
                continue;
            };
            let rows = self.store.scan(&range, self.options.direction)?;
            self.sources.push(Source {
                bucket: range.bucket(),
                rows: Some(rows),
                pulled: 0,
                position,
            });
        }
        self.ranges = ranges;
        if self.options.ordered {
            for i in 0..self.sources.len() {
                self.refill(i)?;
            }
        }
        Ok(())
    }

    /// `range` narrowed to the rows after `position`; `None` when nothing is left.
    fn resume(&self, range: &KeyRange, position: &Position) -> Option<KeyRange> {
        let body = match position {
            Position::Start => return Some(range.clone()),
            Position::Done => return None,
            Position::After(body) => body,
        };
        let head = range.start().get(..self.header).unwrap_or(range.start());
        let mut at = Vec::with_capacity(head.len() + body.len() + 1);
        at.extend_from_slice(head);
        at.extend_from_slice(body);
        match self.options.direction {
            Direction::Forward => {
                at.push(0); // the smallest key after `at`
                let start = at.max(range.start().to_vec());
                let narrowed =
                    KeyRange::new(start, range.end().map(<[u8]>::to_vec), range.bucket());
                (narrowed.end().is_none_or(|e| narrowed.start() < e)).then_some(narrowed)
            }
            Direction::Reverse => {
                let end = match range.end() {
                    Some(e) if e < at.as_slice() => e.to_vec(),
                    _ => at,
                };
                (range.start() < end.as_slice())
                    .then(|| KeyRange::new(range.start().to_vec(), Some(end), range.bucket()))
            }
        }
    }

    /// Pulls the next row of source `i`, honouring the per-bucket limit.
    fn pull(&mut self, i: usize) -> Result<Option<Row>, S::Error> {
        pull(&mut self.sources[i], self.options.limit)
    }

    /// Puts source `i`'s next row into the merge.
    fn refill(&mut self, i: usize) -> Result<(), S::Error> {
        if let Some((key, value)) = self.pull(i)? {
            self.heap.push(Pending {
                key,
                value,
                source: i,
                header: self.header,
                reverse: self.options.direction == Direction::Reverse,
            });
        }
        Ok(())
    }

    fn next_row(&mut self) -> Result<Option<(usize, Row)>, S::Error> {
        if !self.started {
            self.start()?;
        }
        if self.options.ordered {
            // Replace the smallest pending row by the next row of its bucket
            // in place: one sift instead of a pop and a push.
            let Some(mut top) = self.heap.peek_mut() else {
                return Ok(None);
            };
            let i = top.source;
            let next = pull(&mut self.sources[i], self.options.limit);
            let (key, value) = match next {
                Ok(Some((key, value))) => {
                    let key = std::mem::replace(&mut top.key, key);
                    let value = std::mem::replace(&mut top.value, value);
                    (key, value)
                }
                Ok(None) => {
                    let p = PeekMut::pop(top);
                    (p.key, p.value)
                }
                // Never drop the row in hand: the error waits for the next call.
                Err(e) => {
                    self.deferred = Some(e);
                    let p = PeekMut::pop(top);
                    (p.key, p.value)
                }
            };
            return Ok(Some((i, (key, value))));
        }
        while self.current < self.sources.len() {
            if let Some(row) = self.pull(self.current)? {
                return Ok(Some((self.current, row)));
            }
            self.current += 1;
        }
        Ok(None)
    }
}

impl<K: RowKey, S: Store> Iterator for TypedRows<'_, K, S> {
    type Item = Result<TypedRow<K>, RowError<S::Error>>;

    /// A store error is yielded once and ends the scan; [`cursor`](Self::cursor)
    /// then resumes exactly after the rows returned.
    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.options.limit.is_some_and(|n| self.returned >= n) {
            return None;
        }
        let next = match self.deferred.take() {
            Some(e) => Err(e),
            None => self.next_row(),
        };
        let (source, (key, value)) = match next {
            Ok(Some(row)) => row,
            Ok(None) => return None,
            Err(e) => {
                self.failed = true;
                return Some(Err(RowError::Store(e)));
            }
        };
        self.returned += 1;
        // Cursor bookkeeping reuses its buffers: no allocation per row.
        let body = key.get(self.header..).unwrap_or_default();
        if self.options.ordered {
            set_after(self.last.get_or_insert_with(Vec::new), body);
        } else {
            let position = &mut self.sources[source].position;
            match position {
                Position::After(buf) => set_after(buf, body),
                // The refill may already have marked the bucket done.
                Position::Done => {}
                Position::Start => *position = Position::After(body.to_vec()),
            }
        }
        Some(match K::decode(&key) {
            Ok(row) => Ok((row, value)),
            Err(source) => Err(RowError::Decode { key, source }),
        })
    }
}
