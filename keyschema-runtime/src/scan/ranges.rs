//! A merged scan of key ranges given as they are, for a layout known at
//! run time (a schema document's, [`Schema::from_document`]), with the
//! async driver of typed scans: the rows as stored, in key order after the
//! salt, at most `concurrency` requests in flight, a limit, either
//! direction and a cursor. The command line tool's `scan` reads a live
//! table through it.

use super::cursor::Cursor;
use super::merge::ScanOptions;
use super::plan::Plan;
use super::stream::Merge;
use crate::range::{Direction, KeyRange};
use crate::schema::Schema;
use crate::store::{AsyncStore, Row, RowError};
use futures_core::Stream;
use std::pin::Pin;
use std::task::{Context, Poll};

/// A scan of `ranges` of a layout's table merged into key order, as a
/// typed scan merges its buckets: by the key after the header (prefix and
/// salt), ties (a `random % N` row's copies) in the order the ranges are
/// given, so give them by bucket ([`ScanRangeSet`](crate::ScanRangeSet)'s
/// order). Each row comes with the [`bucket`](KeyRange::bucket) of its
/// range. What [`DynSchema::ranges`](crate::dynamic::DynSchema::ranges)
/// selects, read without the Rust type:
///
/// ```
/// use keyschema::dynamic::{DynSchema, Value};
/// use keyschema::{RangeScan, RowKey, Schema};
///
/// #[derive(RowKey)]
/// #[rowkey(salt = hash(user_id, site) % 8, then = user_id, site, rev(timestamp))]
/// struct Event { user_id: String, site: String, timestamp: u64 }
///
/// let document = Event::schema().to_json();
/// let layout = DynSchema::from_json(&document)?;
/// // `user_id` bound, `site` (hashed) not: one range per bucket, merged.
/// let ranges = layout.ranges(&[Value::from("u1")], None)?;
/// assert_eq!(ranges.len(), 8);
/// let scan = RangeScan::new(Schema::from_document(&document)?, ranges.iter().cloned())
///     .limit(10)
///     .concurrency(4);
/// // `scan.stream(&store)`: the rows of an `AsyncStore` (Cloud Bigtable, DynamoDB).
/// # let _ = scan;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct RangeScan {
    schema: &'static Schema,
    ranges: Vec<KeyRange>,
    options: ScanOptions,
}

impl RangeScan {
    /// A scan of `ranges` of `schema`'s table, forward, every row, at most
    /// [`DEFAULT_CONCURRENCY`](crate::DEFAULT_CONCURRENCY) requests at once.
    pub fn new(schema: &'static Schema, ranges: impl IntoIterator<Item = KeyRange>) -> Self {
        RangeScan {
            schema,
            ranges: ranges.into_iter().collect(),
            options: ScanOptions::default(),
        }
    }

    /// At most `n` rows. Each range is asked for `n + 1` (one past the
    /// limit, so that a page's [`cursor`](MergedRows::cursor) knows when
    /// nothing is left).
    pub fn limit(mut self, n: usize) -> Self {
        self.options.limit = Some(n);
        self
    }

    /// Each range asked for at most `n` rows (at least 1), whatever the
    /// limit: a reader that counts keys rather than rows (a `random % N`
    /// row's copies as one) or skips rows of another layout stops on its
    /// own, and bounds what each range sends.
    pub fn per_range(mut self, n: usize) -> Self {
        self.options.per_source = Some(n.max(1));
        self
    }

    /// Descending key order.
    pub fn reverse(mut self) -> Self {
        self.options.direction = Direction::Reverse;
        self.options.direction_chosen = true;
        self
    }

    /// At most `n` requests in flight (at least 1): before the first row,
    /// every range's first page is asked for, `n` at a time.
    pub fn concurrency(mut self, n: usize) -> Self {
        self.options.concurrency = n.max(1);
        self
    }

    /// Resumes after the row a [`MergedRows::cursor`] of the same scan (the
    /// same layout, ranges and direction) stopped at; another scan's cursor
    /// is refused as the first item ([`CursorError::OtherRequest`](crate::CursorError::OtherRequest)).
    pub fn after(mut self, cursor: Cursor) -> Self {
        if !self.options.direction_chosen {
            self.options.direction = cursor.direction;
        }
        self.options.after = Some(cursor);
        self
    }

    /// The scan's rows on `store`, as they arrive.
    pub fn stream<S: AsyncStore>(&self, store: &S) -> MergedRows<S::Error> {
        let core = super::merge::ScanCore::new(
            self.schema,
            Plan::Listed(self.ranges.clone()),
            self.describe(),
            self.options.clone(),
            None,
        );
        MergedRows {
            merge: Merge::new(store, self.schema, self.schema, core),
        }
    }

    /// What identifies the scan for its cursor: its ranges.
    fn describe(&self) -> Vec<u8> {
        let mut out = b"ranges".to_vec();
        for r in &self.ranges {
            out.extend_from_slice(&(r.start().len() as u64).to_be_bytes());
            out.extend_from_slice(r.start());
            match r.end() {
                Some(end) => {
                    out.extend_from_slice(&(end.len() as u64).to_be_bytes());
                    out.extend_from_slice(end);
                }
                None => out.extend_from_slice(&u64::MAX.to_be_bytes()),
            }
            out.extend_from_slice(&r.bucket().to_be_bytes());
        }
        out
    }
}

/// The rows of a [`RangeScan`], each with its range's bucket, in merged
/// key order. A row the store cannot read ([`AsyncStore::item_error`]: an
/// item another program wrote) is an error item and the scan reads on;
/// any other error ends it.
pub struct MergedRows<E> {
    merge: Merge<E>,
}

impl<E> MergedRows<E> {
    /// Where the scan stands: give it to [`RangeScan::after`] to read on.
    pub fn cursor(&self) -> Cursor {
        self.merge.core.cursor()
    }
}

impl<E> Unpin for MergedRows<E> {}

impl<E> Stream for MergedRows<E> {
    type Item = Result<(u32, Row), RowError<E>>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let merge = &mut self.get_mut().merge;
        match merge.poll_row(cx) {
            Poll::Ready(Some(Ok((i, row)))) => {
                merge.core.returned(i, &row.0);
                Poll::Ready(Some(Ok((merge.core.plan.bucket(i), row))))
            }
            Poll::Ready(Some(Err(e))) => Poll::Ready(Some(Err(e))),
            Poll::Ready(None) => Poll::Ready(None),
            Poll::Pending => Poll::Pending,
        }
    }
}
