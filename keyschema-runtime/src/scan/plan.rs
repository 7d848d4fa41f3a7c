//! The ranges a typed scan reads, one per source, made when a driver opens
//! the source rather than all up front: an unbound scan over
//! `salt = hash(id) % 65536` names 65,536 ranges, and an unordered page of
//! 10 rows opens one or two of them.

use super::builder::ScanState;
use crate::range::KeyRange;
use crate::schema::Schema;

/// The ranges of a scan request, in the order the drivers number their
/// sources.
#[derive(Debug, Clone)]
pub(crate) enum Plan {
    /// Ranges made up front: one range, an expansion over time buckets, or
    /// the two layouts of a history.
    Listed(Vec<KeyRange>),
    /// One range per salt bucket, made on demand: source `i` is bucket `i`.
    PerBucket {
        state: ScanState,
        schema: &'static Schema,
        buckets: u32,
    },
}

impl Plan {
    /// The plan of a request without a layout history: per bucket when it
    /// needs one range per salt bucket, else its ranges listed.
    pub(crate) fn of(state: &ScanState, schema: &'static Schema) -> Plan {
        match state.per_bucket(schema) {
            // Whether a range is empty does not depend on its bucket.
            Some(buckets) if state.salt_range(schema, 0).is_some() => Plan::PerBucket {
                state: state.clone(),
                schema,
                buckets,
            },
            Some(_) => Plan::Listed(Vec::new()),
            None => Plan::Listed(state.ranges_in(schema).into_iter().collect()),
        }
    }

    /// The number of sources.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        match self {
            Plan::Listed(ranges) => ranges.len(),
            Plan::PerBucket { buckets, .. } => *buckets as usize,
        }
    }

    /// Source `i`'s range.
    pub(crate) fn range(&self, i: usize) -> Option<KeyRange> {
        match self {
            Plan::Listed(ranges) => ranges.get(i).cloned(),
            Plan::PerBucket {
                state,
                schema,
                buckets,
            } => u32::try_from(i)
                .ok()
                .filter(|b| b < buckets)
                .and_then(|b| state.salt_range(schema, b)),
        }
    }

    /// Source `i`'s bucket tag (its range's [`KeyRange::bucket`]).
    #[inline]
    pub(crate) fn bucket(&self, i: usize) -> u32 {
        match self {
            Plan::Listed(ranges) => ranges.get(i).map_or(0, KeyRange::bucket),
            Plan::PerBucket { .. } => i as u32,
        }
    }
}
