//! The state of a typed scan under construction: the components bound so
//! far, the range on the next one, and the key ranges they cover.
//!
//! A typed scan binds a prefix of a key's components by equality, then
//! optionally a range on the next one. [`ScanState::ranges`] is the set of
//! half-open byte ranges that holds exactly the keys matching it: one range
//! when every hashed field is bound (the salt is known), one per bucket
//! otherwise. Generated builders (`EventScan<N>`) wrap one.

use crate::encoding::{BucketKey, KeyArg, KeyComponent};
use crate::error::ScanError;
use crate::key::RowKey;
use crate::limits::MAX_BUCKET_EXPANSION;
use crate::range::{bounds_under, prefix_successor, KeyRange, ScanRangeSet};
use crate::schema::{Order, Schema};
use std::ops::Bound;

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

    pub(crate) fn push_equal<T: KeyComponent>(&mut self, value: &impl KeyArg<T>) {
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

    pub(crate) fn set_range<T: KeyComponent, X: KeyArg<T>>(
        &mut self,
        lo: Bound<&X>,
        hi: Bound<&X>,
    ) {
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
    pub(crate) fn push_bucket_equal<T: BucketKey>(
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
    pub(crate) fn bucket_range<T: BucketKey>(
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
        // The buckets holding a value of the range (docs/ENCODING.md, "Limits"):
        // an exclusive end on a bucket's first value leaves that bucket out.
        let value = |v: T| T::bucket_index(v, 1);
        let w = i128::from(width.max(1));
        let b_lo = (value(first) + i128::from(matches!(lo, Bound::Excluded(_)))).div_euclid(w);
        let b_hi = (value(last) - i128::from(matches!(hi, Bound::Excluded(_)))).div_euclid(w);
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
        self.ranges_in(self.schema)
    }

    /// The ranges of the same request under another layout with the same
    /// components (a key type's older layout: another prefix or salt).
    pub(crate) fn ranges_in(&self, schema: &'static Schema) -> ScanRangeSet {
        if self.expanded {
            let mut ranges: Vec<KeyRange> = self
                .alternatives
                .iter()
                .flat_map(|a| a.ranges_in(schema))
                .collect();
            ranges.sort_by(|a, b| a.start().cmp(b.start()));
            return ScanRangeSet::from_sorted_unchecked(ranges);
        }
        let ranges = match self.per_bucket(schema) {
            Some(buckets) => (0..buckets)
                .filter_map(|b| self.salt_range(schema, b))
                .collect(),
            None => self
                .salt_range(schema, self.known_bucket(schema))
                .into_iter()
                .collect(),
        };
        ScanRangeSet::from_sorted_unchecked(ranges)
    }

    /// How many ranges the request needs in `schema` when it needs one per
    /// salt bucket (a hashed field unbound, or a random salt); `None` when
    /// it needs one range (no salt, or the salt known), or is expanded.
    pub(crate) fn per_bucket(&self, schema: &Schema) -> Option<u32> {
        let s = schema.salt()?;
        let known = !s.is_random() && s.hashed().iter().all(|&i| i < self.ends.len());
        (!self.expanded && !known).then(|| s.buckets())
    }

    /// The bucket of the request's one range: the salt the bound fields
    /// hash to (0 without a salt).
    fn known_bucket(&self, schema: &Schema) -> u32 {
        match schema.salt() {
            Some(s) if !s.is_random() => {
                if schema.sep().is_some() {
                    schema.bucket_of_plain(s, &self.shadow, &self.shadow_ends)
                } else {
                    schema.bucket_of_body(s, &self.body, &self.ends)
                }
            }
            _ => 0,
        }
    }

    /// The request's range in salt bucket `bucket` of `schema` (the
    /// bucket ignored without a salt); `None` when the request matches
    /// nothing. Not for an expanded request.
    pub(crate) fn salt_range(&self, schema: &Schema, bucket: u32) -> Option<KeyRange> {
        let salted = schema.salt().is_some();
        let mut prefix = Vec::with_capacity(schema.header_len() + self.body.len());
        schema.push_header(salted.then_some(bucket), &mut prefix);
        prefix.extend_from_slice(&self.body);
        let (start, end) = self.bounds_under(prefix)?;
        Some(KeyRange::new(start, end, if salted { bucket } else { 0 }))
    }

    /// Feeds what identifies the request (its bound values, its range,
    /// its expansion) to `out`, for a cursor's fingerprint.
    pub(crate) fn describe(&self, out: &mut dyn FnMut(&[u8])) {
        out(&self.body);
        let bound = |b: &Bound<Vec<u8>>, out: &mut dyn FnMut(&[u8])| match b {
            Bound::Included(v) => out(&[&[1u8][..], v].concat()),
            Bound::Excluded(v) => out(&[&[2u8][..], v].concat()),
            Bound::Unbounded => out(&[0]),
        };
        match &self.range {
            Some((lo, hi)) => {
                out(&[1]);
                bound(lo, out);
                bound(hi, out);
            }
            None => out(&[0]),
        }
        out(&[u8::from(self.expanded)]);
        out(&(self.alternatives.len() as u64).to_be_bytes());
        for a in &self.alternatives {
            a.describe(out);
        }
    }

    /// The range of keys that start with `prefix` and whose next component
    /// lies within `self.range`; `None` when empty.
    fn bounds_under(&self, prefix: Vec<u8>) -> Option<(Vec<u8>, Option<Vec<u8>>)> {
        let Some((lo, hi)) = &self.range else {
            let end = prefix_successor(&prefix);
            return Some((prefix, end));
        };
        let descending = self.next_order() == Order::Descending;
        bounds_under(prefix, lo.as_ref(), hi.as_ref(), descending)
    }
}

/// Where a scan stands relative to a cut-over at one component.
pub(crate) enum Split {
    /// Every matching row is before the cut-over.
    Older,
    /// Every matching row is at or past it.
    Declared,
    /// The rows before it (the first request) and those at or past it (the
    /// second).
    Both {
        older: Box<ScanState>,
        declared: Box<ScanState>,
    },
}

impl ScanState {
    /// Splits the request at the cut-over `at` (an ascending encoding) on
    /// component `component`: by the bound value when the component is
    /// bound, by narrowing the range when the range is on it, else into
    /// two copies of the whole request (the rows then tell).
    pub(crate) fn split_at(&self, component: usize, at: &[u8]) -> Split {
        let bound = self.ends.len();
        if !self.expanded && component < bound {
            let start = if component == 0 {
                0
            } else {
                self.shadow_ends[component - 1]
            };
            let value = &self.shadow[start..self.shadow_ends[component]];
            return if value >= at {
                Split::Declared
            } else {
                Split::Older
            };
        }
        let both = || Split::Both {
            older: Box::new(self.clone()),
            declared: Box::new(self.clone()),
        };
        let (Some((lo, hi)), false, true) = (&self.range, self.expanded, component == bound) else {
            return both();
        };
        let c = &self.schema.components()[component];
        let mut cut = Vec::with_capacity(at.len() + 1);
        if c.key_form(at, self.schema.sep(), &mut cut).is_err() {
            return both();
        }
        let descending = c.order() == Order::Descending;
        // Compare key bytes in the component's value order.
        let less = |a: &[u8], b: &[u8]| if descending { a > b } else { a < b };
        let upper = match hi {
            Bound::Included(v) if less(v, &cut) => Bound::Included(v.clone()),
            Bound::Excluded(v) if !less(&cut, v) => Bound::Excluded(v.clone()),
            _ => Bound::Excluded(cut.clone()),
        };
        let lower = match lo {
            Bound::Included(v) if !less(v, &cut) => Bound::Included(v.clone()),
            Bound::Excluded(v) if !less(v, &cut) => Bound::Excluded(v.clone()),
            _ => Bound::Included(cut),
        };
        let mut older = self.clone();
        older.range = Some((lo.clone(), upper));
        let mut declared = self.clone();
        declared.range = Some((lower, hi.clone()));
        Split::Both {
            older: Box::new(older),
            declared: Box::new(declared),
        }
    }
}

/// A stage of a generated scan builder (`EventScan<N>`).
#[doc(hidden)]
pub trait ScanStage: Sized {
    type Key: RowKey;
    fn from_state(state: ScanState) -> Self;
}
