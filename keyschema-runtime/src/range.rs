//! Byte ranges of keys: [`KeyRange`], [`ScanRangeSet`], the scan
//! [`Direction`](crate::store::Direction) and [`prefix_successor`]. Plain
//! values with no knowledge of schemas or stores: everything above uses them.

use std::ops::Bound;

/// The bit set in [`KeyRange::bucket`] of the ranges a scan reads in a key
/// type's older layout (`#[rowkey_was]`): buckets of the two layouts stay
/// apart in scan plans and cursors.
pub const OLDER_LAYOUT: u32 = 1 << 31;

/// The order a scan yields rows in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Ascending keys.
    Forward,
    /// Descending keys.
    Reverse,
}

/// A half-open range of keys in one salt bucket: `start <= key < end`.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct KeyRange {
    start: Vec<u8>,
    end: Option<Vec<u8>>,
    bucket: u32,
}

impl KeyRange {
    /// A range from raw bounds; `end = None` means no upper bound.
    pub fn new(start: Vec<u8>, end: Option<Vec<u8>>, bucket: u32) -> Self {
        KeyRange { start, end, bucket }
    }

    /// The first key in the range (inclusive).
    pub fn start(&self) -> &[u8] {
        &self.start
    }

    /// The first key after the range (exclusive); `None` when the range runs
    /// to the end of the key space.
    pub fn end(&self) -> Option<&[u8]> {
        self.end.as_deref()
    }

    /// The salt bucket every key of the range is in (0 when unsalted). A
    /// range in a key type's older layout (`#[rowkey_was]`) has the bit
    /// [`OLDER_LAYOUT`] set as well. A range that spans buckets (given
    /// only to a store that [reads across
    /// buckets](crate::store::Store::reads_across_buckets)) is tagged 0.
    pub fn bucket(&self) -> u32 {
        self.bucket
    }

    /// The range with another bucket tag.
    pub(crate) fn with_bucket(mut self, bucket: u32) -> Self {
        self.bucket = bucket;
        self
    }

    /// Whether `key` lies in the range.
    pub fn contains(&self, key: &[u8]) -> bool {
        key >= self.start.as_slice() && self.end.as_deref().is_none_or(|end| key < end)
    }

    /// The part of the range strictly after `last` in `direction`: for
    /// `Forward` the keys above `last`, for `Reverse` the keys below it.
    /// `None` when nothing is left. Resuming a scan after the last row it
    /// returned (a cursor, a broken stream) is exactly this.
    ///
    /// ```
    /// use keyschema::store::Direction;
    /// use keyschema::KeyRange;
    ///
    /// let range = KeyRange::new(b"a".to_vec(), Some(b"d".to_vec()), 0);
    /// let rest = range.after(b"b", Direction::Forward).unwrap();
    /// assert_eq!((rest.start(), rest.end()), (&b"b\x00"[..], Some(&b"d"[..])));
    /// let rest = range.after(b"b", Direction::Reverse).unwrap();
    /// assert_eq!((rest.start(), rest.end()), (&b"a"[..], Some(&b"b"[..])));
    /// assert_eq!(range.after(b"d", Direction::Forward), None);
    /// ```
    pub fn after(&self, last: &[u8], direction: Direction) -> Option<KeyRange> {
        match direction {
            Direction::Forward => {
                let mut next = Vec::with_capacity(last.len() + 1);
                next.extend_from_slice(last);
                next.push(0); // the smallest key above `last`
                let start = next.max(self.start.clone());
                let keep = self.end.as_deref().is_none_or(|end| start.as_slice() < end);
                keep.then(|| KeyRange::new(start, self.end.clone(), self.bucket))
            }
            Direction::Reverse => {
                let end = match self.end.as_deref() {
                    Some(end) if end < last => end.to_vec(),
                    _ => last.to_vec(),
                };
                (self.start.as_slice() < end.as_slice())
                    .then(|| KeyRange::new(self.start.clone(), Some(end), self.bucket))
            }
        }
    }
}

impl KeyRange {
    /// The part of the range at or after `at` in `direction` (`at`
    /// included); `None` when nothing is left.
    pub(crate) fn at_or_after(&self, at: &[u8], direction: Direction) -> Option<KeyRange> {
        match direction {
            Direction::Forward => {
                let start = at.max(self.start.as_slice()).to_vec();
                let keep = self.end.as_deref().is_none_or(|end| start.as_slice() < end);
                keep.then(|| KeyRange::new(start, self.end.clone(), self.bucket))
            }
            Direction::Reverse => {
                // The smallest key above `at` ends the range: `at` is in it.
                let mut above = Vec::with_capacity(at.len() + 1);
                above.extend_from_slice(at);
                above.push(0);
                self.after(&above, Direction::Reverse)
            }
        }
    }
}

impl std::fmt::Debug for KeyRange {
    /// Bytes as escaped byte strings, readable in a log:
    /// `KeyRange { bucket: 3, start: b"\x03u1\x00", end: Some(b"\x03u1\x01") }`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        struct Bytes<'a>(&'a [u8]);
        impl std::fmt::Debug for Bytes<'_> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "b\"{}\"", self.0.escape_ascii())
            }
        }
        f.debug_struct("KeyRange")
            .field("bucket", &self.bucket)
            .field("start", &Bytes(&self.start))
            .field("end", &self.end.as_deref().map(Bytes))
            .finish()
    }
}

/// Sorted, non-overlapping key ranges that together hold exactly the keys a
/// scan asks for.
///
/// ```
/// use keyschema::RowKey;
///
/// #[derive(RowKey)]
/// #[rowkey(salt = hash(user_id, site) % 8, then = user_id, site, rev(timestamp))]
/// struct Event { user_id: String, site: String, timestamp: u64 }
///
/// // Every hashed field bound: the salt is known, one range.
/// let one = Event::scan().user_id("u1").site("s").ranges();
/// assert_eq!(one.len(), 1);
/// assert!(one.contains(&Event::get_key("u1", "s", 5)));
/// assert!(!one.contains(&Event::get_key("u10", "s", 5)));
///
/// // `site` unbound: the rows of `u1` may be in any bucket, one range each.
/// let all = Event::scan().user_id("u1").ranges();
/// assert_eq!(all.len(), 8);
/// assert_eq!(all.iter().map(|r| r.bucket()).collect::<Vec<_>>(), (0..8).collect::<Vec<_>>());
/// assert_eq!(
///     format!("{:?}", all.iter().next().unwrap()),
///     r#"KeyRange { bucket: 0, start: b"\x00u1\x00", end: Some(b"\x00u1\x01") }"#
/// );
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct ScanRangeSet {
    ranges: Vec<KeyRange>,
}

impl ScanRangeSet {
    /// A set from ranges that are sorted by start and do not overlap.
    ///
    /// # Panics
    ///
    /// When the ranges are unsorted or overlap.
    pub fn from_sorted(ranges: Vec<KeyRange>) -> Self {
        for pair in ranges.windows(2) {
            let end = pair[0].end();
            assert!(
                end.is_some_and(|end| end <= pair[1].start()),
                "key ranges must be sorted and must not overlap"
            );
        }
        ScanRangeSet { ranges }
    }

    /// A set from ranges the caller built sorted by start: disjoint, except
    /// that the ranges of a layout history's two layouts may overlap.
    pub(crate) fn from_sorted_unchecked(ranges: Vec<KeyRange>) -> Self {
        ScanRangeSet { ranges }
    }

    /// The number of ranges.
    pub fn len(&self) -> usize {
        self.ranges.len()
    }

    /// Whether the set holds no range (the scan can match nothing).
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// The ranges, in key order.
    pub fn iter(&self) -> std::slice::Iter<'_, KeyRange> {
        self.ranges.iter()
    }

    /// Whether `key` lies in one of the ranges.
    pub fn contains(&self, key: &[u8]) -> bool {
        let after = self.ranges.partition_point(|r| r.start() <= key);
        let Some((last, before)) = self.ranges[..after].split_last() else {
            return false;
        };
        // Disjoint ranges: only the last one starting at or before `key`
        // can hold it; a layout history's two layouts may overlap, so a
        // miss looks at the earlier ones too.
        last.contains(key) || before.iter().any(|r| r.contains(key))
    }
}

impl<'a> IntoIterator for &'a ScanRangeSet {
    type Item = &'a KeyRange;
    type IntoIter = std::slice::Iter<'a, KeyRange>;
    fn into_iter(self) -> Self::IntoIter {
        self.ranges.iter()
    }
}

impl IntoIterator for ScanRangeSet {
    type Item = KeyRange;
    type IntoIter = std::vec::IntoIter<KeyRange>;
    fn into_iter(self) -> Self::IntoIter {
        self.ranges.into_iter()
    }
}

/// The smallest byte string greater than every string that starts with
/// `prefix`; `None` when there is none (`prefix` empty or all 0xFF).
///
/// ```
/// use keyschema::prefix_successor;
///
/// assert_eq!(prefix_successor(b"ab"), Some(b"ac".to_vec()));
/// assert_eq!(prefix_successor(b"a\xff"), Some(b"b".to_vec()));
/// assert_eq!(prefix_successor(b"\xff\xff"), None);
/// ```
pub fn prefix_successor(prefix: &[u8]) -> Option<Vec<u8>> {
    let keep = prefix.iter().rposition(|&b| b != 0xFF)?;
    let mut next = prefix[..=keep].to_vec();
    next[keep] += 1;
    Some(next)
}

/// The range of keys that start with `prefix` and whose next component's
/// key bytes (inverted when `descending`) lie within `lo..hi`, each bound
/// given as that component's bytes in the key; `None` when it is empty.
/// Exact because encodings are prefix-free (`docs/ENCODING.md`, "Scan ranges").
pub(crate) fn bounds_under(
    prefix: Vec<u8>,
    lo: Bound<&Vec<u8>>,
    hi: Bound<&Vec<u8>>,
    descending: bool,
) -> Option<(Vec<u8>, Option<Vec<u8>>)> {
    // A descending component's encoding is inverted: its value's upper
    // bound limits where keys start, and its lower bound where they end.
    let (low, high) = if descending { (hi, lo) } else { (lo, hi) };
    let joined = |e: &Vec<u8>| [prefix.as_slice(), e].concat();
    let start = match low {
        Bound::Unbounded => Some(prefix.clone()),
        Bound::Included(e) => Some(joined(e)),
        // Prefix-free encodings: no other value's encoding extends `e`.
        Bound::Excluded(e) => prefix_successor(&joined(e)),
    }?;
    let end = match high {
        Bound::Unbounded => prefix_successor(&prefix),
        Bound::Included(e) => prefix_successor(&joined(e)),
        Bound::Excluded(e) => Some(joined(e)),
    };
    match &end {
        Some(end) if *end <= start => None,
        _ => Some((start, end)),
    }
}
