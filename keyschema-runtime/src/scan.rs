//! Scan requests and the byte ranges they cover.
//!
//! A typed scan binds a prefix of a key's components by equality, then
//! optionally a range on the next one. [`ScanRangeSet`] is the set of
//! half-open byte ranges that holds exactly the keys matching the request:
//! one range when every hashed field is bound (the salt is known), one per
//! bucket otherwise.

use crate::cursor::Cursor;
use crate::encoding::{BucketKey, KeyArg, KeyComponent};
use crate::merge::{ScanOptions, TypedRows};
use crate::schema::{Order, Schema};
use crate::store::{Direction, Store};
use crate::RowKey;
use std::marker::PhantomData;
use std::ops::{Bound, Range, RangeFrom, RangeInclusive, RangeTo, RangeToInclusive};

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

    /// The salt bucket every key of the range is in (0 when unsalted).
    pub fn bucket(&self) -> u32 {
        self.bucket
    }

    /// Whether `key` lies in the range.
    pub fn contains(&self, key: &[u8]) -> bool {
        key >= self.start.as_slice() && self.end.as_deref().is_none_or(|end| key < end)
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
        after > 0 && self.ranges[after - 1].contains(key)
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
/// use keyschema::scan::prefix_successor;
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

/// The bound components of a scan under construction. Generated scan
/// builders wrap one.
#[doc(hidden)]
#[derive(Debug, Clone)]
pub struct ScanState {
    schema: &'static Schema,
    /// The encodings (inverted where descending) of the bound components.
    body: Vec<u8>,
    /// Where each bound component ends in `body`.
    ends: Vec<usize>,
    /// The bound components' plain binary encodings (text keys hash these).
    shadow: Vec<u8>,
    shadow_ends: Vec<usize>,
    /// Encoded (inverted where descending) bounds on the next component.
    range: Option<EncodedBounds>,
    /// A scan expanded over time buckets: one state per bucket value, used
    /// instead of this one (possibly none: an empty range).
    alternatives: Vec<ScanState>,
    expanded: bool,
}

/// The most bucket values a range on a bucketed field expands into when the
/// salt hashes the bucket (each bucket is then its own partition).
pub const MAX_BUCKET_EXPANSION: usize = 4096;

/// A scan request that cannot be turned into ranges.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ScanError {
    /// The range spans more bucket values than a scan expands into.
    #[error("the range on `{component}` spans {count} buckets of width {width}, more than the {max} a scan expands into; narrow the range")]
    TooManyBuckets {
        /// The bucketed field.
        component: &'static str,
        /// Bucket values the range spans.
        count: u128,
        /// The bucket width.
        width: u64,
        /// [`MAX_BUCKET_EXPANSION`].
        max: usize,
    },
    /// An open-ended range on a bucketed field whose bucket is hashed.
    #[error("the range on `{component}` is open-ended, but its bucket is hashed into the salt: each bucket is a separate partition, so give both ends")]
    Unbounded {
        /// The bucketed field.
        component: &'static str,
    },
}

/// The lower and upper bound of a range, each an encoded value.
type EncodedBounds = (Bound<Vec<u8>>, Bound<Vec<u8>>);

impl ScanState {
    pub fn new(schema: &'static Schema) -> Self {
        ScanState {
            schema,
            body: Vec::new(),
            ends: Vec::new(),
            shadow: Vec::new(),
            shadow_ends: Vec::new(),
            range: None,
            alternatives: Vec::new(),
            expanded: false,
        }
    }

    fn next_order(&self) -> Order {
        self.schema.components()[self.ends.len()].order()
    }

    fn push_equal<T: KeyComponent>(&mut self, value: &impl KeyArg<T>) {
        let index = self.ends.len();
        let components = self.schema.components();
        let sep = self.schema.sep();
        let mut binary = Vec::with_capacity(T::SIZE_HINT);
        value.encode_arg(&mut binary);
        self.shadow.extend_from_slice(&binary);
        self.shadow_ends.push(self.shadow.len());
        // A KeyArg<T> always encodes a valid T, so its text form exists.
        let _ = components[index].key_form(&binary, sep, &mut self.body);
        if let Some(sep) = sep {
            if components[index].text_width().is_some() && index + 1 < components.len() {
                self.body.push(sep);
            }
        }
        self.ends.push(self.body.len());
    }

    /// Binds a `reverse(...)` component: equality only.
    pub fn equal<T: KeyComponent>(mut self, value: &impl KeyArg<T>) -> Self {
        self.push_equal::<T>(value);
        self
    }

    fn set_range<T: KeyComponent, X: KeyArg<T>>(&mut self, lo: Bound<&X>, hi: Bound<&X>) {
        let component = &self.schema.components()[self.ends.len()];
        let sep = self.schema.sep();
        let encode = |x: &X| {
            let mut binary = Vec::with_capacity(T::SIZE_HINT);
            x.encode_arg(&mut binary);
            let mut bytes = Vec::with_capacity(binary.len() + 1);
            let _ = component.key_form(&binary, sep, &mut bytes);
            bytes
        };
        self.range = Some((lo.map(encode), hi.map(encode)));
    }

    /// Binds `bucket(field, WIDTH)` and the field after it by equality.
    fn push_bucket_equal<T: BucketKey>(
        &mut self,
        value: &impl KeyArg<T>,
        width: u64,
    ) -> Result<(), ()> {
        let mut encoded = Vec::new();
        value.encode_arg(&mut encoded);
        let plain = crate::encoding::decode_value::<T>(&encoded).map_err(|_| ())?;
        self.push_equal::<T>(&T::bucket_of(plain, width));
        self.push_equal::<T>(&plain);
        Ok(())
    }

    /// Binds a range on a bucketed field (at the bucket component).
    fn bucket_range<T: BucketKey>(
        mut self,
        lo: Bound<T>,
        hi: Bound<T>,
        width: u64,
    ) -> Result<Self, ScanError> {
        let index = self.ends.len();
        let component = self.schema.components()[index].name();
        let hashed = self
            .schema
            .salt()
            .is_some_and(|s| s.hashed().contains(&index));
        if !hashed {
            // bucket(f) is monotone in f: a range on f is one contiguous range
            // over (bucket, f) pairs.
            let components = self.schema.components();
            let sep = self.schema.sep();
            let encode = |v: &T| {
                let mut bytes = Vec::new();
                let bucket =
                    crate::encoding::encode_value::<T>(T::bucket_of(*v, width).as_key_ref());
                let _ = components[index].key_form(&bucket, sep, &mut bytes);
                if let Some(sep) = sep {
                    bytes.push(sep);
                }
                let value = crate::encoding::encode_value::<T>(v.as_key_ref());
                let _ = components[index + 1].key_form(&value, sep, &mut bytes);
                bytes
            };
            self.range = Some((lo.as_ref().map(encode), hi.as_ref().map(encode)));
            return Ok(self);
        }
        // Each bucket is its own salt bucket (a partition): one range per bucket value.
        let (Bound::Included(first) | Bound::Excluded(first)) = lo else {
            return Err(ScanError::Unbounded { component });
        };
        let (Bound::Included(last) | Bound::Excluded(last)) = hi else {
            return Err(ScanError::Unbounded { component });
        };
        let (b_lo, b_hi) = (T::bucket_index(first, width), T::bucket_index(last, width));
        if b_hi < b_lo {
            return Ok(self.with_alternatives(Vec::new()));
        }
        let count = (b_hi - b_lo + 1) as u128;
        if count > MAX_BUCKET_EXPANSION as u128 {
            return Err(ScanError::TooManyBuckets {
                component,
                count,
                width,
                max: MAX_BUCKET_EXPANSION,
            });
        }
        let alternatives = (b_lo..=b_hi)
            .map(|b| {
                let mut alt = self.clone();
                alt.push_equal::<T>(&T::bucket_value(b));
                let from = if b == b_lo {
                    lo
                } else {
                    Bound::Included(T::bucket_first(b, width))
                };
                let to = if b == b_hi {
                    hi
                } else {
                    Bound::Included(T::bucket_last(b, width))
                };
                alt.set_range::<T, T>(from.as_ref(), to.as_ref());
                alt
            })
            .collect();
        Ok(self.with_alternatives(alternatives))
    }

    fn with_alternatives(mut self, alternatives: Vec<ScanState>) -> Self {
        self.alternatives = alternatives;
        self.expanded = true;
        self
    }

    /// The key ranges holding exactly the matching keys.
    pub fn ranges(&self) -> ScanRangeSet {
        if self.expanded {
            let mut ranges: Vec<KeyRange> = self
                .alternatives
                .iter()
                .flat_map(|a| a.ranges().ranges)
                .collect();
            ranges.sort_by(|a, b| a.start.cmp(&b.start));
            return ScanRangeSet { ranges };
        }
        let schema = self.schema;
        let bound = self.ends.len();
        let mut ranges = Vec::new();
        let mut push = |bucket: Option<u32>| {
            let mut prefix = Vec::with_capacity(schema.header_len() + self.body.len());
            schema.push_header(bucket, &mut prefix);
            prefix.extend_from_slice(&self.body);
            if let Some((start, end)) = self.bounds_under(prefix) {
                ranges.push(KeyRange::new(start, end, bucket.unwrap_or(0)));
            }
        };
        match schema.salt() {
            None => push(None),
            Some(s) if !s.is_random() && s.hashed().iter().all(|&i| i < bound) => {
                let bucket = if schema.sep().is_some() {
                    schema.bucket_of_plain(s, &self.shadow, &self.shadow_ends)
                } else {
                    schema.bucket_of_body(s, &self.body, &self.ends)
                };
                push(Some(bucket))
            }
            Some(s) => (0..s.buckets()).for_each(|b| push(Some(b))),
        }
        ScanRangeSet { ranges }
    }

    /// The range of keys that start with `prefix` and whose next component
    /// lies within `self.range`; `None` when empty.
    fn bounds_under(&self, prefix: Vec<u8>) -> Option<(Vec<u8>, Option<Vec<u8>>)> {
        let Some((lo, hi)) = &self.range else {
            let end = prefix_successor(&prefix);
            return Some((prefix, end));
        };
        // A descending component's encoding is inverted: its value's upper
        // bound limits where keys start, and its lower bound where they end.
        let (low, high) = match self.next_order() {
            Order::Ascending => (lo, hi),
            Order::Descending => (hi, lo),
        };
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
}

/// A stage of a generated scan builder (`EventScan<N>`).
#[doc(hidden)]
pub trait ScanStage: Sized {
    type Key: RowKey;
    fn from_state(state: ScanState) -> Self;
}

/// Never implemented: the bound of the hidden scan methods that bind a field
/// out of key order. `M` names what to bind first.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "a scan binds the key's fields in key order: `{M}`",
    label = "bound before the fields that precede it in the key",
    note = "only a bound prefix of the key is one contiguous range of rows; bind the earlier fields first (`Key::scan().a(..).b(..)`), or bind a shorter prefix and filter the rows"
)]
pub trait BindInKeyOrder<M> {}

/// Marks an equality argument of a scan method.
#[doc(hidden)]
pub enum Equal {}

/// Marks a range argument of a scan method.
#[doc(hidden)]
pub enum Within {}

/// An argument to a scan builder method for a component of type `T`: a value
/// (equality; the scan may go on to the next component) or a range such as
/// `a..b`, `a..=b`, `a..`, `..b` (the last constraint of a scan).
///
/// `M` tells the two kinds apart; it is inferred and never written.
pub trait ScanArg<T, M> {
    /// What the scan becomes: the next builder stage after an equality, a
    /// finished [`ScanRequest`] after a range.
    type Output<S: ScanStage>;
    #[doc(hidden)]
    fn apply<S: ScanStage>(self, state: ScanState) -> Self::Output<S>;
}

impl<T: KeyComponent, A: KeyArg<T>> ScanArg<T, Equal> for A {
    type Output<S: ScanStage> = S;
    fn apply<S: ScanStage>(self, mut state: ScanState) -> S {
        state.push_equal::<T>(&self);
        S::from_state(state)
    }
}

macro_rules! range_arg {
    ($($range:ty => |$r:ident| ($lo:expr, $hi:expr)),* $(,)?) => {$(
        impl<T: KeyComponent, X: KeyArg<T>> ScanArg<T, Within> for $range {
            type Output<S: ScanStage> = ScanRequest<S::Key>;
            fn apply<S: ScanStage>(self, mut state: ScanState) -> ScanRequest<S::Key> {
                let $r = &self;
                state.set_range::<T, X>($lo, $hi);
                ScanRequest::from_state(state)
            }
        }
    )*};
}

range_arg! {
    Range<X> => |r| (Bound::Included(&r.start), Bound::Excluded(&r.end)),
    RangeInclusive<X> => |r| (Bound::Included(r.start()), Bound::Included(r.end())),
    RangeFrom<X> => |r| (Bound::Included(&r.start), Bound::Unbounded),
    RangeTo<X> => |r| (Bound::Unbounded, Bound::Excluded(&r.end)),
    RangeToInclusive<X> => |r| (Bound::Unbounded, Bound::Included(&r.end)),
    (Bound<X>, Bound<X>) => |r| (r.0.as_ref(), r.1.as_ref()),
}

/// An argument at a `bucket(field, WIDTH)` stage of a scan: a value of the
/// field (equality on both the bucket and the field; the scan goes on), or a
/// range of it (the scan ends, or fails if the range spans too many buckets).
pub trait BucketArg<T: BucketKey, M> {
    /// What the scan becomes.
    type Output<S: ScanStage>;
    #[doc(hidden)]
    fn apply<S: ScanStage>(self, state: ScanState, width: u64) -> Self::Output<S>;
}

impl<T: BucketKey, A: KeyArg<T>> BucketArg<T, Equal> for A {
    type Output<S: ScanStage> = S;
    fn apply<S: ScanStage>(self, mut state: ScanState, width: u64) -> S {
        // A KeyArg<T> of an integer always decodes back.
        let _ = state.push_bucket_equal::<T>(&self, width);
        S::from_state(state)
    }
}

macro_rules! bucket_range_arg {
    ($($range:ty => |$r:ident| ($lo:expr, $hi:expr)),* $(,)?) => {$(
        impl<T: BucketKey> BucketArg<T, Within> for $range {
            type Output<S: ScanStage> = Result<ScanRequest<S::Key>, ScanError>;
            fn apply<S: ScanStage>(self, state: ScanState, width: u64) -> Self::Output<S> {
                let $r = self;
                state.bucket_range::<T>($lo, $hi, width).map(ScanRequest::from_state)
            }
        }
    )*};
}

bucket_range_arg! {
    Range<T> => |r| (Bound::Included(r.start), Bound::Excluded(r.end)),
    RangeInclusive<T> => |r| (Bound::Included(*r.start()), Bound::Included(*r.end())),
    RangeFrom<T> => |r| (Bound::Included(r.start), Bound::Unbounded),
    RangeTo<T> => |r| (Bound::Unbounded, Bound::Excluded(r.end)),
    RangeToInclusive<T> => |r| (Bound::Unbounded, Bound::Included(r.end)),
    (Bound<T>, Bound<T>) => |r| (r.0, r.1),
}

/// A scan request: equality on a prefix of the components, maybe a range on
/// the next one, and how to run it.
///
/// ```
/// use keyschema::store::{MemoryStore, RowStore};
/// use keyschema::RowKey;
///
/// #[derive(RowKey, Debug, Clone, PartialEq)]
/// #[rowkey(salt = hash(user_id, site) % 8, then = user_id, site, rev(timestamp))]
/// struct Event { user_id: String, site: String, timestamp: u64 }
///
/// let store = MemoryStore::new();
/// for (site, ts) in [("a", 1), ("b", 2), ("a", 3), ("c", 4), ("b", 5)] {
///     let e = Event { user_id: "u1".into(), site: site.into(), timestamp: ts };
///     store.put_row(&e, b"")?;
/// }
/// // The user's rows sit in up to 8 buckets; the merge returns them in key
/// // order (by site, then newest first), two per page.
/// let mut page = Event::scan().user_id("u1").limit(2).run(&store);
/// let first: Vec<(String, u64)> = page.by_ref().map(|r| r.map(|(e, _)| (e.site, e.timestamp))).collect::<Result<_, _>>()?;
/// assert_eq!(first, [("a".to_string(), 3), ("a".to_string(), 1)]);
/// let rest: Vec<u64> = Event::scan().user_id("u1").after(page.cursor()).run(&store)
///     .map(|r| r.map(|(e, _)| e.timestamp)).collect::<Result<_, _>>()?;
/// assert_eq!(rest, [5, 2, 4]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
#[must_use = "a scan does nothing until it runs"]
pub struct ScanRequest<K> {
    state: ScanState,
    options: ScanOptions,
    key: PhantomData<fn() -> K>,
}

impl<K: RowKey> ScanRequest<K> {
    #[doc(hidden)]
    pub fn from_state(state: ScanState) -> Self {
        ScanRequest {
            state,
            options: ScanOptions::default(),
            key: PhantomData,
        }
    }

    /// The key ranges holding exactly the matching keys (whatever the cursor).
    pub fn ranges(&self) -> ScanRangeSet {
        self.state.ranges()
    }

    /// Returns at most `n` rows; each bucket is asked for at most `n`.
    pub fn limit(mut self, n: usize) -> Self {
        self.options.limit = Some(n);
        self
    }

    /// Descending key order (for a `rev` timestamp: oldest first).
    pub fn reverse(mut self) -> Self {
        self.options.direction = Direction::Reverse;
        self
    }

    /// Rows as they come, bucket after bucket, without merging into key order.
    pub fn unordered(mut self) -> Self {
        self.options.ordered = false;
        self
    }

    /// Resumes after the rows a previous run of the same request returned.
    /// The scan continues in the cursor's direction.
    pub fn after(mut self, cursor: Cursor) -> Self {
        self.options.direction = cursor.direction;
        self.options.after = Some(cursor);
        self
    }

    /// Runs the scan on an async store (Cloud Bigtable): one request per
    /// bucket, all in flight together, merged like [`run`](Self::run).
    pub fn stream<S: crate::AsyncStore>(&self, store: &S) -> crate::AsyncTypedRows<K, S::Error> {
        crate::AsyncTypedRows::new(
            store,
            self.ranges().into_iter().collect(),
            self.options.clone(),
        )
    }

    /// Runs the scan on `store`: decoded rows with their values.
    pub fn run<'s, S: Store>(&self, store: &'s S) -> TypedRows<'s, K, S> {
        TypedRows::new(
            store,
            self.ranges().into_iter().collect(),
            self.options.clone(),
        )
    }
}
