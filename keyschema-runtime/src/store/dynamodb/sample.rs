//! A sample of a table's row keys, for the tools that plan splits and find
//! hot keys on a live table: a parallel Scan of the key attributes alone
//! over the whole table, every item kept with the same chance.
//!
//! Why the whole table: DynamoDB hashes each partition key to a segment, so
//! a segment holds whole partitions, and a hot partition (the thing a
//! hotspot report looks for) is one segment of thousands of items. A sample
//! of a few whole segments either misses it or is all of it; the first
//! page of each segment is its first partitions, not a spread. Nothing
//! short of reading every segment to its end gives each item the same
//! chance, as Bigtable's row-sample filter does on its server; DynamoDB has
//! no such filter, so the keys come back and are sampled here.

use super::{request_error, Counters, DynamoError, DynamoStore};
use aws_sdk_dynamodb::types::AttributeValue;
use futures_util::stream::{self, StreamExt};
use std::collections::{BinaryHeap, HashMap};
use std::hash::BuildHasher;
use std::sync::Mutex;

/// Segments read at once.
const CONCURRENCY: usize = 16;

/// A sample of a table's keys ([`DynamoStore::sample_keys`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeySample {
    /// The keys kept, in key order: `limit` of those read, each item with
    /// the same chance (all of them when the table holds no more).
    pub keys: Vec<Vec<u8>>,
    /// How many segments the parallel Scan cut the table into.
    pub segments: u32,
    /// How many items were read: the whole table, as it was during the Scan.
    pub read: u64,
    /// The item count DescribeTable reported before the Scan (DynamoDB
    /// updates it about every six hours; it only chose `segments`).
    pub reported: i64,
}

impl KeySample {
    /// Whether every item read was kept.
    pub fn whole_table(&self) -> bool {
        self.keys.len() as u64 == self.read
    }
}

/// How many segments a parallel Scan of a table DescribeTable says holds
/// `reported` items is cut into: one per 20,000 items, at least 4 and at
/// most 256. The count only sets how many requests run at once, never
/// which items are read: a stale or zero count reads the whole table too.
pub fn plan_segments(reported: i64) -> u32 {
    (reported / 20_000).clamp(4, 256) as u32
}

/// The keys kept so far: the `limit` of smallest random weight.
struct Kept {
    heap: BinaryHeap<(u64, Vec<u8>)>,
    read: u64,
}

impl DynamoStore {
    /// `limit` row keys of the table, each item with the same chance: a
    /// parallel Scan of the key attributes alone reads the whole table
    /// (as many segments as the item count asks for, 16 at once), and each key read gets a
    /// random weight; the `limit` keys of smallest weight are kept (a
    /// uniform sample without replacement, in memory of `limit` keys). A
    /// table of at most `limit` items is returned whole. The Scan costs
    /// the read capacity of the whole table, as an export does.
    /// `progress` is called with the items read so far after each page.
    ///
    /// A diagnostic: no retry; each page counts in
    /// [`requests`](Self::requests)`().scan`. Items without keyschema's key
    /// attributes are refused as [`DynamoError::ForeignItem`].
    pub async fn sample_keys(
        &self,
        limit: usize,
        progress: &(dyn Fn(u64, i64) + Sync),
    ) -> Result<KeySample, DynamoError> {
        let reported = self
            .client
            .describe_table()
            .table_name(&self.table)
            .send()
            .await
            .map_err(|e| request_error("DescribeTable", e))?
            .table()
            .and_then(|t| t.item_count())
            .unwrap_or(0);
        let segments = plan_segments(reported);
        let kept = Mutex::new(Kept {
            heap: BinaryHeap::with_capacity(limit.saturating_add(1).min(1 << 20)),
            read: 0,
        });
        let seed = std::collections::hash_map::RandomState::new();
        let keep = |key: Vec<u8>| {
            let weight = seed.hash_one(&key);
            let mut kept = kept.lock().unwrap_or_else(|e| e.into_inner());
            kept.read += 1;
            if kept.heap.len() < limit {
                kept.heap.push((weight, key));
            } else if kept.heap.peek().is_some_and(|top| weight < top.0) {
                kept.heap.pop();
                kept.heap.push((weight, key));
            }
            kept.read
        };
        let reads = (0..segments).map(|segment| {
            let keep = &keep;
            async move {
                self.scan_segment(segment, segments, keep, |read| progress(read, reported))
                    .await
            }
        });
        let mut reads = stream::iter(reads).buffer_unordered(CONCURRENCY);
        while let Some(result) = reads.next().await {
            result?;
        }
        drop(reads);
        let kept = kept.into_inner().unwrap_or_else(|e| e.into_inner());
        let mut keys: Vec<Vec<u8>> = kept.heap.into_iter().map(|(_, k)| k).collect();
        keys.sort();
        Ok(KeySample {
            keys,
            segments,
            read: kept.read,
            reported,
        })
    }

    /// Up to `n` keys of the table, the first page of a Scan of the key
    /// attributes: a cheap look at what the table holds, not a spread.
    pub async fn some_keys(&self, n: usize) -> Result<Vec<Vec<u8>>, DynamoError> {
        let limit = i32::try_from(n.max(1)).unwrap_or(i32::MAX);
        let response = self
            .key_scan(None)
            .limit(limit)
            .send()
            .await
            .map_err(|e| request_error("Scan", e))?;
        Counters::count(&self.counters.scan);
        response.items().iter().map(|i| self.key_of(i)).collect()
    }

    /// A Scan of the key attributes alone, from `start`.
    fn key_scan(
        &self,
        start: Option<HashMap<String, AttributeValue>>,
    ) -> aws_sdk_dynamodb::operation::scan::builders::ScanFluentBuilder {
        let mut projection = "#p".to_string();
        let mut request = self
            .client
            .scan()
            .table_name(&self.table)
            .expression_attribute_names("#p", &self.shape.partition_key)
            .set_exclusive_start_key(start);
        if self.has_sort_key() {
            projection.push_str(", #s");
            request = request.expression_attribute_names("#s", &self.shape.sort_key);
        }
        request.projection_expression(projection)
    }

    /// Gives each key of one segment to `keep`, to the segment's end.
    async fn scan_segment(
        &self,
        segment: u32,
        segments: u32,
        keep: impl Fn(Vec<u8>) -> u64,
        progress: impl Fn(u64),
    ) -> Result<(), DynamoError> {
        let mut start = None;
        loop {
            let request = self
                .key_scan(start.take())
                .segment(i32::try_from(segment).unwrap_or(i32::MAX))
                .total_segments(i32::try_from(segments).unwrap_or(i32::MAX));
            Counters::count(&self.counters.scan);
            let response = request.send().await.map_err(|e| request_error("Scan", e))?;
            let mut read = None;
            for item in response.items() {
                read = Some(keep(self.key_of(item)?));
            }
            if let Some(read) = read {
                progress(read);
            }
            start = response.last_evaluated_key().cloned();
            if start.is_none() {
                return Ok(());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::plan_segments;

    #[test]
    fn a_stale_or_zero_item_count_still_cuts_the_table_into_segments() {
        // DescribeTable's count lags up to six hours: a table filled since
        // says 0. It sets only how many requests run at once.
        assert_eq!(plan_segments(0), 4);
        assert_eq!(plan_segments(-1), 4);
        assert_eq!(plan_segments(100_000), 5);
        assert_eq!(plan_segments(10_000_000_000), 256);
    }
}
