//! A live table's rows of several ranges merged in key order as they
//! arrive, from the library's concurrent merged scan ([`RangeScan`]: one
//! store stream per range, the first rows fetched `concurrency` ranges at
//! a time, then one row at a time from the range whose row was taken), so
//! the first row prints as soon as every range has answered once. Rows of
//! equal keys after the salt (a `random % N` row's copies) come out
//! together, one group per key. A row the store cannot read (an item error:
//! another program's value) is reported and the read goes on.

use futures_util::StreamExt;
use keyschema::store::{AsyncStore, Direction, Row, RowError};
use keyschema::{KeyRange, RangeScan, Schema};

/// One key's rows: each copy with its bucket, lowest bucket first.
pub type Group = Vec<(u32, Row)>;

/// What the reader of the merged rows wants next.
pub trait Sink {
    /// One key's rows; `false` ends the read.
    fn group(&mut self, group: Group) -> Result<bool, String>;
    /// A row the store could not read.
    fn item_error(&mut self, error: String);
}

/// Reads `ranges` of `store` through the library's merged scan
/// ([`RangeScan`]: in key order after the salt, `concurrency` requests at
/// once, each range asked for at most `per_range` rows) into `sink`, one
/// key's rows at a time; whether rows were left unread when the sink ended
/// the read.
pub async fn merged<S: AsyncStore>(
    store: &S,
    schema: &'static Schema,
    ranges: &[KeyRange],
    direction: Direction,
    per_range: Option<usize>,
    concurrency: usize,
    sink: &mut dyn Sink,
) -> Result<bool, String> {
    let header = schema.header_len();
    let mut scan = RangeScan::new(schema, ranges.iter().cloned()).concurrency(concurrency);
    if direction == Direction::Reverse {
        scan = scan.reverse();
    }
    if let Some(n) = per_range {
        scan = scan.per_range(n);
    }
    let mut rows = scan.stream(store);
    let body = |key: &[u8]| key.get(header..).unwrap_or_default().to_vec();
    let mut group: Group = Vec::new();
    loop {
        let next = match rows.next().await {
            Some(Ok(row)) => Some(row),
            Some(Err(RowError::Store(e))) if S::item_error(&e) => {
                sink.item_error(e.to_string());
                continue;
            }
            Some(Err(RowError::Store(e))) => return Err(e.to_string()),
            Some(Err(e)) => return Err(e.to_string()),
            None => None,
        };
        // A copy of the group's key (same key after the salt) joins it.
        if let (Some((_, (key, _))), Some((_, (first, _)))) = (&next, group.first()) {
            if body(key) == body(first) {
                group.extend(next);
                continue;
            }
        }
        if !group.is_empty() && !sink.group(std::mem::take(&mut group))? {
            return Ok(next.is_some());
        }
        match next {
            Some(row) => group.push(row),
            None => return Ok(false),
        }
    }
}
