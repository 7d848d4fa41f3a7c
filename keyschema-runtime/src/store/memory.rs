//! An in-memory store on a `BTreeMap`, for tests and examples.

use super::source::RowSource;
use super::{Cas, Direction, Mutation, Plan, Row, Store};
use crate::limits::{check_key_len, KeyTooLong};
use crate::range::KeyRange;
use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::{Arc, PoisonError, RwLock};

/// A thread-safe, in-memory [`Store`]. Batches are atomic; scans page through
/// the map (16 rows under the first lock, then twice as many each time up
/// to 1,024) and never copy a whole range. A scan is not a snapshot: it
/// sees the writes made between its pages, and returns each row as it was
/// when its page was read (a row deleted after that is still returned). A
/// write of a key longer than [`MAX_KEY_LEN`](crate::MAX_KEY_LEN) is
/// refused ([`KeyTooLong`]), and nothing of its batch is written: no key
/// type would decode it back.
///
/// ```
/// use keyschema::store::{Direction, MemoryStore, Store};
/// use keyschema::KeyRange;
///
/// let store = MemoryStore::new();
/// store.put(b"a", b"1")?;
/// store.put(b"b", b"2")?;
/// let all = KeyRange::new(Vec::new(), None, 0);
/// let keys: Vec<Vec<u8>> = store.scan(&all, Direction::Reverse)?.map(|r| r.unwrap().0).collect();
/// assert_eq!(keys, [b"b".to_vec(), b"a".to_vec()]);
/// # Ok::<(), keyschema::KeyTooLong>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct MemoryStore {
    map: Arc<RwLock<BTreeMap<Vec<u8>, Vec<u8>>>>,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// The number of rows.
    pub fn len(&self) -> usize {
        self.map
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    /// Whether the store holds no row.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Store for MemoryStore {
    type Error = KeyTooLong;
    type Rows<'a> = MemoryRows;
    type Lent<'a> = MemoryRows;

    /// `memory:` and the address of the map its clones share.
    fn identity(&self) -> Option<String> {
        Some(format!("memory:{:p}", Arc::as_ptr(&self.map)))
    }

    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, KeyTooLong> {
        Ok(self
            .map
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(key)
            .cloned())
    }

    /// Under one read lock.
    fn get_many(&self, keys: &[Vec<u8>]) -> Result<Vec<Option<Vec<u8>>>, KeyTooLong> {
        let map = self.map.read().unwrap_or_else(PoisonError::into_inner);
        Ok(keys.iter().map(|key| map.get(key).cloned()).collect())
    }

    fn write_batch(&self, batch: &[Mutation]) -> Result<(), KeyTooLong> {
        for m in batch {
            if let Mutation::Put { key, .. } = m {
                check_key_len(key)?;
            }
        }
        let mut map = self.map.write().unwrap_or_else(PoisonError::into_inner);
        for m in batch {
            match m {
                Mutation::Put { key, value } => map.insert(key.clone(), value.clone()),
                Mutation::Delete { key } => map.remove(key),
            };
        }
        Ok(())
    }

    /// Under the write lock: each mutation's old value read (with the
    /// batch's earlier writes), its planned mutations and itself staged,
    /// then every key checked, then all applied, or nothing.
    /// One transaction (one lock on memory).
    fn planned_writes_are_atomic(&self) -> bool {
        true
    }

    /// One ordered key space: a range is read by its bounds alone.
    fn reads_across_buckets(&self) -> bool {
        true
    }

    fn write_batch_planned(&self, batch: &[Mutation], plan: &mut Plan) -> Result<(), KeyTooLong> {
        let mut map = self.map.write().unwrap_or_else(PoisonError::into_inner);
        let mut staged: BTreeMap<Vec<u8>, Option<Vec<u8>>> = BTreeMap::new();
        for (i, m) in batch.iter().enumerate() {
            let old = match staged.get(m.key()) {
                Some(staged) => staged.clone(),
                None => map.get(m.key()).cloned(),
            };
            for m in plan(i, old.as_deref()).into_iter().chain([m.clone()]) {
                match m {
                    Mutation::Put { key, value } => {
                        check_key_len(&key)?;
                        staged.insert(key, Some(value));
                    }
                    Mutation::Delete { key } => {
                        staged.insert(key, None);
                    }
                }
            }
        }
        for (key, value) in staged {
            match value {
                Some(value) => map.insert(key, value),
                None => map.remove(&key),
            };
        }
        Ok(())
    }

    fn compare_and_write(&self, batch: &[Cas]) -> Result<Vec<bool>, KeyTooLong> {
        for cas in batch.iter().filter(|cas| cas.set.is_some()) {
            check_key_len(&cas.key)?;
        }
        let mut map = self.map.write().unwrap_or_else(PoisonError::into_inner);
        Ok(batch
            .iter()
            .map(|cas| {
                let applies = cas.holds(map.get(&cas.key).map(Vec::as_slice));
                if applies {
                    match &cas.set {
                        Some(value) => map.insert(cas.key.clone(), value.clone()),
                        None => map.remove(&cas.key),
                    };
                }
                applies
            })
            .collect())
    }

    /// Copies each page of rows into one buffer and lends each row from
    /// it: no allocation per row.
    fn scan_into(&self, range: &KeyRange, direction: Direction) -> Result<MemoryRows, KeyTooLong> {
        self.scan(range, direction)
    }

    fn scan(&self, range: &KeyRange, direction: Direction) -> Result<MemoryRows, KeyTooLong> {
        // BTreeMap::range panics on inverted bounds; such a range is empty.
        let empty = range.end().is_some_and(|end| end <= range.start());
        Ok(MemoryRows {
            map: Arc::clone(&self.map),
            lower: Bound::Included(range.start().to_vec()),
            upper: range
                .end()
                .map_or(Bound::Unbounded, |e| Bound::Excluded(e.to_vec())),
            direction,
            page: Page::default(),
            next_page: FIRST_PAGE,
            done: empty,
        })
    }
}

/// The rows of a [`MemoryStore`] scan.
#[derive(Debug)]
pub struct MemoryRows {
    map: Arc<RwLock<BTreeMap<Vec<u8>, Vec<u8>>>>,
    lower: Bound<Vec<u8>>,
    upper: Bound<Vec<u8>>,
    direction: Direction,
    page: Page,
    /// The number of rows the next page reads.
    next_page: usize,
    done: bool,
}

/// Rows copied out of the map under one read lock: their bytes in one
/// buffer, and where each key and value ends.
#[derive(Debug, Default)]
struct Page {
    bytes: Vec<u8>,
    /// Per row: the end of its key and of its value in `bytes`.
    ends: Vec<(usize, usize)>,
    /// The next row to return.
    next: usize,
    /// The row lent by [`RowSource`]: where its key starts, its key ends
    /// and its value ends in `bytes` (all 0: none).
    current: (usize, usize, usize),
}

impl Page {
    /// Moves to the next row; `false` when the page has none.
    #[inline]
    fn step(&mut self) -> bool {
        let Some(&(key_end, value_end)) = self.ends.get(self.next) else {
            self.current = (0, 0, 0);
            return false;
        };
        let start = match self.next.checked_sub(1) {
            Some(j) => self.ends.get(j).map_or(0, |e| e.1),
            None => 0,
        };
        self.current = (start, key_end, value_end);
        self.next += 1;
        true
    }

    /// The current row's key.
    #[inline]
    fn key(&self) -> &[u8] {
        let (start, key_end, _) = self.current;
        self.bytes.get(start..key_end).unwrap_or_default()
    }

    /// The current row's value.
    #[inline]
    fn value(&self) -> &[u8] {
        let (_, key_end, value_end) = self.current;
        self.bytes.get(key_end..value_end).unwrap_or_default()
    }
}

/// The first page is small (a scan with a limit of 10 copies little), and
/// each next one twice as large, up to [`PAGE`].
const FIRST_PAGE: usize = 16;
const PAGE: usize = 1024;

impl MemoryRows {
    fn fill(&mut self) {
        let map = self.map.read().unwrap_or_else(PoisonError::into_inner);
        let bounds = (
            self.lower.as_ref().map(Vec::as_slice),
            self.upper.as_ref().map(Vec::as_slice),
        );
        let range = map.range::<[u8], _>(bounds);
        let page = &mut self.page;
        page.bytes.clear();
        page.ends.clear();
        page.next = 0;
        page.current = (0, 0, 0);
        let mut copy = |(k, v): (&Vec<u8>, &Vec<u8>)| {
            page.bytes.extend_from_slice(k);
            let key_end = page.bytes.len();
            page.bytes.extend_from_slice(v);
            page.ends.push((key_end, page.bytes.len()));
        };
        let want = self.next_page;
        match self.direction {
            Direction::Forward => range.take(want).for_each(&mut copy),
            Direction::Reverse => range.rev().take(want).for_each(&mut copy),
        }
        drop(map);
        self.next_page = (want * 2).min(PAGE);
        self.done = page.ends.len() < want;
        if let Some(i) = page.ends.len().checked_sub(1) {
            let start = i.checked_sub(1).map_or(0, |j| page.ends[j].1);
            let last = page.bytes[start..page.ends[i].0].to_vec();
            match self.direction {
                Direction::Forward => self.lower = Bound::Excluded(last),
                Direction::Reverse => self.upper = Bound::Excluded(last),
            }
        }
    }
}

impl Iterator for MemoryRows {
    type Item = Result<Row, KeyTooLong>;

    fn next(&mut self) -> Option<Self::Item> {
        match self.advance() {
            Ok(true) => Some(Ok((self.key().to_vec(), self.value().to_vec()))),
            Ok(false) => None,
            Err(e) => Some(Err(e)),
        }
    }
}

impl RowSource for MemoryRows {
    type Error = KeyTooLong;

    #[inline]
    fn advance(&mut self) -> Result<bool, KeyTooLong> {
        if self.page.next >= self.page.ends.len() {
            if self.done {
                self.page.current = (0, 0, 0);
                return Ok(false);
            }
            self.fill();
        }
        Ok(self.page.step())
    }

    #[inline]
    fn key(&self) -> &[u8] {
        self.page.key()
    }

    #[inline]
    fn value(&self) -> &[u8] {
        self.page.value()
    }
}
