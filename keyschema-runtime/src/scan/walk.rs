//! The first row of every bucket for an ordered merge over many buckets,
//! found by walking the table once instead of seeking each bucket.
//!
//! An ordered merge needs one row of every bucket before it can return
//! its first row: over `salt = hash(id) % 65536` that is 65,536 seeks of
//! the store (about 150 ns each in a `BTreeMap` of 100,000 keys, more on
//! disk) and as many opened scans. When the buckets hold few rows each,
//! reading the rows in key order is cheaper than seeking them: the walk
//! reads one scan over [`WINDOW`] buckets at a time, keeps each bucket's
//! first row in range, and seeks only past a bucket whose rows it would
//! otherwise read many of (more than [`SKIP_AFTER`] in a row). A bucket's scan is opened
//! only when the merge takes its first row, so a page of 10 rows opens
//! about 10. The unordered mode needs none of this: it reads the buckets
//! one after the other and opens the next only when one runs out.

use super::plan::Plan;
use crate::range::{Direction, KeyRange};
use crate::schema::Schema;
use crate::store::{RowSource, Store};

/// Rows of buckets already settled (or outside every range) read in a row
/// before the walk seeks the next bucket instead.
const SKIP_AFTER: usize = 16;

/// The buckets one scan of the walk spans at most: a store whose scans
/// read their whole range up front reads no more than a window past the
/// bucket it seeks.
const WINDOW: usize = 2048;

/// The first row of each bucket: its key and value in `bytes`.
#[derive(Debug, Default)]
pub(super) struct Heads {
    pub bytes: Vec<u8>,
    /// Per bucket: where its key starts and ends and its value ends in
    /// `bytes`; `None` when the bucket has no row in range.
    pub rows: Vec<Option<(usize, usize, usize)>>,
}

/// What a key's body (the part after the header) must satisfy to be in
/// every bucket's range: the same for each bucket of a per-bucket plan.
struct BodyRange {
    start: Vec<u8>,
    /// `None`: to the end of the bucket.
    end: Option<Vec<u8>>,
}

impl BodyRange {
    /// The body range of a per-bucket plan, read off its first and last
    /// ranges (which must agree); `None` for another plan, or when the
    /// buckets do not lie one after the other in key order.
    fn of(plan: &Plan, header: usize) -> Option<BodyRange> {
        let Plan::PerBucket { .. } = plan else {
            return None;
        };
        let split = |r: &KeyRange| {
            let head = r.start().get(..header)?.to_vec();
            let start = r.start()[header..].to_vec();
            // An end outside the bucket's header lies past all its keys.
            let end = r
                .end()
                .filter(|e| e.starts_with(&head))
                .map(|e| e[header..].to_vec());
            Some((head, BodyRange { start, end }))
        };
        let (first_head, first) = split(&plan.range(0)?)?;
        let (last_head, last) = split(&plan.range(plan.len().checked_sub(1)?)?)?;
        let agree = first.start == last.start && first.end == last.end;
        (agree && first_head <= last_head).then_some(first)
    }

    /// Whether `body`, of bucket `b`, is in range and past the cursor
    /// (`after`: its body and source; the sources after the cursor's
    /// include its body, as the merge orders equal bodies by source).
    fn holds(
        &self,
        body: &[u8],
        b: usize,
        after: Option<(&[u8], usize)>,
        direction: Direction,
    ) -> bool {
        let past = match (after, direction) {
            (None, _) => true,
            (Some((a, s)), Direction::Forward) => body > a || (b > s && body == a),
            (Some((a, s)), Direction::Reverse) => body < a || (b > s && body == a),
        };
        let above_start = self.start.is_empty() || body >= self.start.as_slice();
        past && above_start && self.end.as_deref().is_none_or(|e| body < e)
    }

    /// Whether the walk has passed every body of a bucket in range.
    fn passed(&self, body: &[u8], direction: Direction) -> bool {
        match direction {
            Direction::Forward => self.end.as_deref().is_some_and(|e| body >= e),
            Direction::Reverse => body < self.start.as_slice(),
        }
    }
}

/// Where a walk reads, and what it knows.
struct Walk<'a, S: Store> {
    store: &'a S,
    schema: &'static Schema,
    plan: &'a Plan,
    header: usize,
    direction: Direction,
    body: BodyRange,
}

impl<'a, S: Store> Walk<'a, S> {
    /// The bucket at `place` in the walk's order; the order is its own
    /// inverse, so this is also bucket `place`'s place.
    fn bucket_at(&self, place: usize) -> usize {
        match self.direction {
            Direction::Forward => place,
            Direction::Reverse => self.plan.len() - 1 - place,
        }
    }

    /// A scan from the bucket at `place` (narrowed by `near`, its range
    /// past the cursor) to the end of its window; the window's end place.
    fn scan_from(&self, place: usize, near: &KeyRange) -> Result<(S::Lent<'a>, usize), S::Error> {
        let end = (place + WINDOW).min(self.plan.len());
        let far = self.plan.range(self.bucket_at(end - 1));
        let far = far.as_ref().unwrap_or(near);
        let range = match self.direction {
            Direction::Forward => {
                KeyRange::new(near.start().to_vec(), far.end().map(<[u8]>::to_vec), 0)
            }
            Direction::Reverse => {
                KeyRange::new(far.start().to_vec(), near.end().map(<[u8]>::to_vec), 0)
            }
        };
        Ok((self.store.scan_into(&range, self.direction)?, end))
    }
}

/// The first row in range past the cursor (`after`, a body and its source) of every
/// bucket of a per-bucket `plan`; `near(b)`: bucket `b`'s range past the
/// cursor. `None` when the plan is not one the walk can read (then the
/// merge opens each bucket itself).
pub(super) fn first_rows<S: Store>(
    store: &S,
    schema: &'static Schema,
    plan: &Plan,
    direction: Direction,
    after: Option<(&[u8], usize)>,
    near: impl Fn(usize) -> Option<KeyRange>,
) -> Option<Result<Heads, S::Error>> {
    let header = schema.header_len();
    let body = BodyRange::of(plan, header)?;
    let walk = Walk {
        store,
        schema,
        plan,
        header,
        direction,
        body,
    };
    Some(walk.run(after, near))
}

impl<S: Store> Walk<'_, S> {
    fn run(
        &self,
        after: Option<(&[u8], usize)>,
        near: impl Fn(usize) -> Option<KeyRange>,
    ) -> Result<Heads, S::Error> {
        let n = self.plan.len();
        let mut heads = Heads {
            bytes: Vec::new(),
            rows: vec![None; n],
        };
        let bucket_at = |place: usize| self.bucket_at(place);
        // The next bucket (by place) with a range past the cursor, from
        // `place` on.
        let seek = |place: usize| (place..n).find_map(|p| near(bucket_at(p)).map(|r| (p, r)));
        // The place of the next bucket without a head; those before it
        // are settled.
        let mut next = 0;
        let Some((first, range)) = seek(0) else {
            return Ok(heads);
        };
        let (mut rows, mut window_end) = self.scan_from(first, &range)?;
        let mut skipped = 0;
        while next < n {
            if !rows.advance()? {
                // The window is read: its buckets without a head have none.
                let Some((place, range)) = seek(window_end.max(next)) else {
                    break;
                };
                next = place;
                (rows, window_end) = self.scan_from(place, &range)?;
                skipped = 0;
                continue;
            }
            let key = rows.key();
            let place = self
                .schema
                .bucket_of(key)
                .ok()
                .map(|b| b as usize)
                .filter(|&b| b < n)
                .map(|b| self.bucket_at(b));
            // A key of no bucket, or of a settled one, is passed over.
            if let Some(place) = place.filter(|&p| p >= next) {
                // Every bucket between has no row left in range.
                next = place;
                let body = key.get(self.header..).unwrap_or_default();
                if self
                    .body
                    .holds(body, bucket_at(place), after, self.direction)
                {
                    let start = heads.bytes.len();
                    heads.bytes.extend_from_slice(key);
                    let key_end = heads.bytes.len();
                    heads.bytes.extend_from_slice(rows.value());
                    heads.rows[bucket_at(place)] = Some((start, key_end, heads.bytes.len()));
                    next = place + 1;
                    skipped = 0;
                    continue;
                }
                if self.body.passed(body, self.direction) {
                    next = place + 1;
                }
            }
            skipped += 1;
            if skipped > SKIP_AFTER && next < n {
                // Seek the next bucket with a range past the cursor.
                let Some((place, range)) = seek(next) else {
                    break;
                };
                next = place;
                (rows, window_end) = self.scan_from(place, &range)?;
                skipped = 0;
            }
        }
        Ok(heads)
    }
}
