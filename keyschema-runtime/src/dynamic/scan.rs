//! Scan ranges of a [`DynSchema`]: what a typed scan with the same binding
//! would read, range for range.

use super::{DynField, DynSchema, Plains, Transform, ValueError};
use crate::error::ScanError;
use crate::limits::MAX_BUCKET_EXPANSION;
use crate::range::{bounds_under, prefix_successor, KeyRange, ScanRangeSet};
use crate::schema::Order;
use std::ops::Bound;

use super::value::Value;

/// A range on one field, as [`DynSchema::ranges`] takes it.
pub type ValueRange = (Bound<Value>, Bound<Value>);

/// A range on one component, as its key bytes.
type KeyBounds = (Bound<Vec<u8>>, Bound<Vec<u8>>);

/// The bound components of a scan: their key bytes and plain encodings.
#[derive(Clone, Default)]
struct Binding {
    body: Vec<u8>,
    /// Plain encodings of the bound components, for the salt.
    plains: Plains,
    range: Option<KeyBounds>,
    /// The component the range is on.
    ranged: Option<usize>,
}

impl DynSchema {
    /// The bytes every key of this layout begins with: its prefix as keys
    /// hold it (docs/ENCODING.md: escaped and `0x00`-terminated in a binary
    /// key, followed by the separator in a text key), empty without a
    /// prefix. Two layouts can share a table, each key telling its layout
    /// by these bytes, when neither's begins the other's.
    ///
    /// ```
    /// use keyschema::dynamic::DynSchema;
    /// use keyschema::RowKey;
    ///
    /// #[derive(RowKey)]
    /// #[rowkey(prefix = "ev", salt = hash(user_id) % 8, then = user_id)]
    /// struct Event { user_id: String }
    /// #[derive(RowKey)]
    /// #[rowkey(format = text(sep = "#"), prefix = "ev", then = user_id)]
    /// struct TextEvent { user_id: String }
    ///
    /// let binary = DynSchema::from_json(&Event::schema().to_json())?;
    /// assert_eq!(binary.key_prefix(), b"ev\x00");
    /// assert!(Event { user_id: "u1".into() }.encode().starts_with(&binary.key_prefix()));
    /// let text = DynSchema::from_json(&TextEvent::schema().to_json())?;
    /// assert_eq!(text.key_prefix(), b"ev#");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn key_prefix(&self) -> Vec<u8> {
        let head = self.head();
        let mut key = Vec::new();
        head.push(Some(0), &mut key);
        key.truncate(head.salt_at());
        key
    }

    /// The key ranges a typed scan reads when it binds the first
    /// `equal.len()` fields by equality and then, optionally, a range on
    /// the next field: one range when every hashed field is bound, one per
    /// bucket otherwise, several for a range over a hashed bucket. The same
    /// ranges as the derived `K::scan()...ranges()`.
    ///
    /// ```
    /// use keyschema::dynamic::{DynSchema, Value};
    /// use keyschema::RowKey;
    /// use std::ops::Bound;
    ///
    /// #[derive(RowKey)]
    /// #[rowkey(salt = hash(metric) % 8, then = metric, timestamp, host)]
    /// struct Point { metric: String, timestamp: u64, host: String }
    ///
    /// let schema = DynSchema::from_json(&Point::schema().to_json())?;
    /// let range = (Bound::Included(Value::U64(100)), Bound::Excluded(Value::U64(200)));
    /// let ranges = schema.ranges(&[Value::from("cpu")], Some(range))?;
    /// assert_eq!(ranges, Point::scan().metric("cpu").timestamp(100..200).ranges());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn ranges(
        &self,
        equal: &[Value],
        range: Option<ValueRange>,
    ) -> Result<ScanRangeSet, ValueError> {
        let bound = equal.len() + usize::from(range.is_some());
        if bound > self.fields.len() {
            return Err(ValueError::Count {
                given: bound,
                expected: self.fields.len(),
                fields: self.field_list(),
            });
        }
        let mut state = Binding::default();
        for (field, value) in self.fields.iter().zip(equal) {
            field.check(value)?;
            if let Some((b, width)) = field.bucket {
                self.push(&mut state, b, &field.bucket_value(value, width));
            }
            self.push(&mut state, field.component, value);
        }
        let Some((lo, hi)) = range else {
            return Ok(self.collect(&[state]));
        };
        let field = &self.fields[equal.len()];
        for v in [&lo, &hi] {
            if let Bound::Included(v) | Bound::Excluded(v) = v {
                field.check(v)?;
            }
        }
        let refuse = |reason| {
            Err(ValueError::Range {
                field: field.name.to_string(),
                reason,
            })
        };
        let own = &self.components[field.component];
        if own.transform == Transform::Reverse {
            return refuse("it is stored `reverse`d: bind it by equality");
        }
        if self.sep().is_some() && !field.encoding.is_text_ordered() {
            return refuse("in a text key its text order is not its value order: bind it by equality, or use the binary format");
        }
        let states = match field.bucket {
            None => {
                let mut state = state;
                let encode = |v: &Value| {
                    let mut bytes = Vec::new();
                    own.key_form(v, self.sep(), &mut bytes);
                    bytes
                };
                state.range = Some((lo.as_ref().map(encode), hi.as_ref().map(encode)));
                state.ranged = Some(field.component);
                vec![state]
            }
            Some((b, width)) => self.bucket_range(state, field, b, width, lo, hi)?,
        };
        Ok(self.collect(&states))
    }

    fn push(&self, state: &mut Binding, index: usize, value: &Value) {
        let c = &self.components[index];
        let sep = self.sep();
        state.plains.push(c.encoding, value);
        c.key_form(value, sep, &mut state.body);
        if let Some(sep) = sep {
            if c.encoding.text_width().is_some() && index + 1 < self.components.len() {
                state.body.push(sep);
            }
        }
    }

    /// A range on a bucketed field: one range over (bucket, field) pairs, or,
    /// when the bucket is hashed, one scan per bucket value.
    fn bucket_range(
        &self,
        state: Binding,
        field: &DynField,
        b: usize,
        width: u64,
        lo: Bound<Value>,
        hi: Bound<Value>,
    ) -> Result<Vec<Binding>, ValueError> {
        let name = self.components[b].name;
        let hashed = self.salt.as_ref().is_some_and(|s| s.hashed.contains(&b));
        let sep = self.sep();
        if !hashed {
            let encode = |v: &Value| {
                let mut bytes = Vec::new();
                self.components[b].key_form(&field.bucket_value(v, width), sep, &mut bytes);
                if let Some(sep) = sep {
                    bytes.push(sep);
                }
                self.components[field.component].key_form(v, sep, &mut bytes);
                bytes
            };
            let mut state = state;
            state.range = Some((lo.as_ref().map(encode), hi.as_ref().map(encode)));
            state.ranged = Some(b);
            return Ok(vec![state]);
        }
        let (Bound::Included(first) | Bound::Excluded(first)) = &lo else {
            return Err(ScanError::Unbounded { component: name }.into());
        };
        let (Bound::Included(last) | Bound::Excluded(last)) = &hi else {
            return Err(ScanError::Unbounded { component: name }.into());
        };
        // The buckets holding a value of the range (docs/ENCODING.md, "Limits"):
        // an exclusive end on a bucket's first value leaves that bucket out.
        let w = i128::from(width.max(1));
        let value = |v: &Value| v.as_i128().unwrap_or(0);
        let b_lo = (value(first) + i128::from(matches!(lo, Bound::Excluded(_)))).div_euclid(w);
        let b_hi = (value(last) - i128::from(matches!(hi, Bound::Excluded(_)))).div_euclid(w);
        if b_hi < b_lo {
            return Ok(Vec::new());
        }
        let count = (b_hi - b_lo + 1) as u128;
        if count > MAX_BUCKET_EXPANSION as u128 {
            return Err(ScanError::TooManyBuckets {
                component: name,
                count,
                width,
                max: MAX_BUCKET_EXPANSION,
            }
            .into());
        }
        let base = field.encoding.base();
        let int = |v: i128| Value::clamped_int(base, v).unwrap_or(Value::U8(0));
        let own = &self.components[field.component];
        let encode = |v: &Value| {
            let mut bytes = Vec::new();
            own.key_form(v, sep, &mut bytes);
            bytes
        };
        Ok((b_lo..=b_hi)
            .map(|bucket| {
                let mut alt = state.clone();
                self.push(&mut alt, b, &int(bucket));
                let from = if bucket == b_lo {
                    lo.clone()
                } else {
                    Bound::Included(int(bucket.saturating_mul(w)))
                };
                let to = if bucket == b_hi {
                    hi.clone()
                } else {
                    Bound::Included(int(bucket
                        .saturating_add(1)
                        .saturating_mul(w)
                        .saturating_sub(1)))
                };
                alt.range = Some((from.as_ref().map(encode), to.as_ref().map(encode)));
                alt.ranged = Some(field.component);
                alt
            })
            .collect())
    }

    /// The ranges of each alternative, sorted by start.
    fn collect(&self, states: &[Binding]) -> ScanRangeSet {
        let head = self.head();
        let mut ranges = Vec::new();
        for state in states {
            let bound = state.plains.len();
            let mut push = |bucket: Option<u32>| {
                let mut prefix = Vec::with_capacity(head.len() + state.body.len());
                head.push(bucket, &mut prefix);
                prefix.extend_from_slice(&state.body);
                let span = match (&state.range, state.ranged) {
                    (Some((lo, hi)), Some(c)) => {
                        let descending = self.components[c].order == Order::Descending;
                        bounds_under(prefix, lo.as_ref(), hi.as_ref(), descending)
                    }
                    _ => {
                        let end = prefix_successor(&prefix);
                        Some((prefix, end))
                    }
                };
                if let Some((start, end)) = span {
                    ranges.push(KeyRange::new(start, end, bucket.unwrap_or(0)));
                }
            };
            match &self.salt {
                None => push(None),
                Some(s) if !s.random && s.hashed.iter().all(|&h| h < bound) => {
                    push(Some(s.bucket_of(&state.plains)))
                }
                Some(s) => (0..s.buckets).for_each(|b| push(Some(b))),
            }
        }
        ranges.sort_by(|a, b| a.start().cmp(b.start()));
        ScanRangeSet::from_sorted_unchecked(ranges)
    }
}
