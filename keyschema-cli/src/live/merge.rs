//! A live table's rows of several ranges merged in key order as they
//! arrive: one store stream per range (the stores' own `scan_for`, lazy
//! until polled), the first rows fetched `concurrency` ranges at a time,
//! then one row at a time from the range whose row was printed, so the
//! first row prints as soon as every range has answered once. Rows of
//! equal keys after the salt (a `random % N` row's copies) come out
//! together, one group per key. A row the store cannot read (an item error:
//! another program's value) is reported and the read goes on.

use futures_util::StreamExt;
use keyschema::store::{AsyncStore, BoxRowStream, Direction, Row};
use keyschema::{KeyRange, Schema};
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// One key's rows: each copy with its bucket, lowest bucket first.
pub type Group = Vec<(u32, Row)>;

/// What the reader of the merged rows wants next.
pub trait Sink {
    /// One key's rows; `false` ends the read.
    fn group(&mut self, group: Group) -> Result<bool, String>;
    /// A row the store could not read.
    fn item_error(&mut self, error: String);
}

/// A range's next row, waiting in the merge.
struct Head {
    body: Vec<u8>,
    source: usize,
    reverse: bool,
    row: Row,
}

impl PartialEq for Head {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Head {}

impl PartialOrd for Head {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// The heap's greatest is the next row: the smallest body (the greatest
/// reversed), ties by the lowest source.
impl Ord for Head {
    fn cmp(&self, other: &Self) -> Ordering {
        let by_body = self.body.cmp(&other.body);
        let by_body = if self.reverse {
            by_body
        } else {
            by_body.reverse()
        };
        by_body.then(other.source.cmp(&self.source))
    }
}

/// A stream's next row, its item errors reported on the way.
async fn pull<S: AsyncStore>(
    rows: &mut BoxRowStream<S::Error>,
    errors: &mut Vec<String>,
) -> Result<Option<Row>, String> {
    loop {
        match rows.next().await {
            Some(Ok(row)) => return Ok(Some(row)),
            Some(Err(e)) if S::item_error(&e) => errors.push(e.to_string()),
            Some(Err(e)) => return Err(e.to_string()),
            None => return Ok(None),
        }
    }
}

/// Reads `ranges` of `store` merged, each asked for at most `per_range`
/// rows, into `sink`; whether rows were left unread when the sink ended
/// the read.
#[allow(clippy::too_many_arguments)]
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
    let reverse = direction == Direction::Reverse;
    let mut streams: Vec<BoxRowStream<S::Error>> = ranges
        .iter()
        .map(|r| store.scan_for(schema, r, direction, per_range))
        .collect();
    let head = |source: usize, row: Row| Head {
        body: row.0.get(header..).unwrap_or_default().to_vec(),
        source,
        reverse,
        row,
    };
    let mut heap = BinaryHeap::with_capacity(streams.len());
    // Every range's first row, `concurrency` requests at a time.
    let mut start = 0;
    while start < streams.len() {
        let end = streams.len().min(start + concurrency.max(1));
        let firsts =
            futures_util::future::join_all(streams[start..end].iter_mut().map(|rows| async move {
                let mut errors = Vec::new();
                let row = pull::<S>(rows, &mut errors).await;
                (row, errors)
            }))
            .await;
        for (i, (row, errors)) in firsts.into_iter().enumerate() {
            errors.into_iter().for_each(|e| sink.item_error(e));
            if let Some(row) = row? {
                heap.push(head(start + i, row));
            }
        }
        start = end;
    }
    let mut errors = Vec::new();
    while let Some(first) = heap.pop() {
        let mut group = vec![first];
        // The next row of each range taken from, and any copy of the same key.
        while let Some(taken) = group.last().map(|h| h.source) {
            if let Some(row) = pull::<S>(&mut streams[taken], &mut errors).await? {
                heap.push(head(taken, row));
            }
            errors.drain(..).for_each(|e| sink.item_error(e));
            match heap.peek() {
                Some(next) if next.body == group[0].body => {
                    group.extend(heap.pop());
                }
                _ => break,
            }
        }
        let rows = group
            .into_iter()
            .map(|h| (ranges[h.source].bucket(), h.row))
            .collect();
        if !sink.group(rows)? {
            return Ok(!heap.is_empty());
        }
    }
    Ok(false)
}
