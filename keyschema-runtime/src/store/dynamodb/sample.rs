//! A sample of a table's row keys, for the tools that plan splits and find
//! hot keys on a live table: whole segments of a parallel Scan of the key
//! attributes alone.

use super::{request_error, Counters, DynamoError, DynamoStore};

/// The most segments a sample cuts the table into (DynamoDB allows 1,000,000).
const MAX_SEGMENTS: i64 = 1_000_000;

/// A sample of a table's keys ([`DynamoStore::sample_keys`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeySample {
    /// The keys read.
    pub keys: Vec<Vec<u8>>,
    /// How many segments the Scan cut the table into.
    pub segments: u32,
    /// How many of them were read, each whole, but the last when it held
    /// more than four times the keys asked for (see `cut`).
    pub segments_read: u32,
    /// Whether the last segment was cut short at four times the keys asked
    /// for: a table whose item count DescribeTable under-reports (it lags
    /// up to six hours) is one segment, and its first pages are not a
    /// spread sample.
    pub cut: bool,
}

impl KeySample {
    /// Whether every item of the table was read.
    pub fn whole_table(&self) -> bool {
        self.segments_read == self.segments && !self.cut
    }
}

impl DynamoStore {
    /// About `limit` row keys of the table, as a parallel Scan of the key
    /// attributes alone reads them. DynamoDB hashes each partition key to a
    /// segment, so a segment holds whole partitions chosen by hash: the
    /// table is cut into segments of about `limit / 8` items (by the item
    /// count DescribeTable reports, which DynamoDB updates about every six
    /// hours), and whole segments are read in a scattered order until
    /// `limit` keys are in. A partition's share of the sample is then its
    /// share of the table, as far as the segments read go. A table of at
    /// most `limit` items is read whole. More than `limit` keys may come
    /// back (whole segments); thin them evenly to keep the spread.
    ///
    /// A diagnostic: no retry; each page counts in
    /// [`requests`](Self::requests)`().scan`. Items without keyschema's key
    /// attributes are refused as [`DynamoError::ForeignItem`].
    pub async fn sample_keys(&self, limit: usize) -> Result<KeySample, DynamoError> {
        let items = self
            .client
            .describe_table()
            .table_name(&self.table)
            .send()
            .await
            .map_err(|e| request_error("DescribeTable", e))?
            .table()
            .and_then(|t| t.item_count())
            .unwrap_or(0);
        let per_segment = i64::try_from(limit / 8).unwrap_or(i64::MAX).max(1);
        let segments = (items / per_segment).clamp(1, MAX_SEGMENTS) as u32;
        // A stride coprime with the segment count visits every segment once,
        // spread over the hash space.
        let stride = (1..=segments)
            .rev()
            .find(|s| gcd(*s, segments) == 1 && *s <= segments / 2 + 1)
            .unwrap_or(1);
        let mut keys = Vec::new();
        let mut read = 0;
        let mut cut = false;
        while read < segments && keys.len() < limit && !cut {
            let segment = ((u64::from(read) * u64::from(stride)) % u64::from(segments)) as i32;
            cut = !self
                .scan_segment(segment, segments, limit.saturating_mul(4), &mut keys)
                .await?;
            read += 1;
        }
        Ok(KeySample {
            keys,
            segments,
            segments_read: read,
            cut,
        })
    }

    /// Appends the keys of one whole segment to `keys`, stopping at `cap`;
    /// whether the segment was read to its end.
    async fn scan_segment(
        &self,
        segment: i32,
        segments: u32,
        cap: usize,
        keys: &mut Vec<Vec<u8>>,
    ) -> Result<bool, DynamoError> {
        let mut projection = "#p".to_string();
        if self.has_sort_key() {
            projection.push_str(", #s");
        }
        let mut start = None;
        loop {
            let mut request = self
                .client
                .scan()
                .table_name(&self.table)
                .projection_expression(&projection)
                .expression_attribute_names("#p", &self.shape.partition_key)
                .set_exclusive_start_key(start.take());
            if segments > 1 {
                request = request
                    .segment(segment)
                    .total_segments(i32::try_from(segments).unwrap_or(i32::MAX));
            }
            if self.has_sort_key() {
                request = request.expression_attribute_names("#s", &self.shape.sort_key);
            }
            Counters::count(&self.counters.scan);
            let response = request.send().await.map_err(|e| request_error("Scan", e))?;
            for item in response.items() {
                keys.push(self.key_of(item)?);
            }
            start = response.last_evaluated_key().cloned();
            if start.is_none() {
                return Ok(true);
            }
            if keys.len() >= cap {
                return Ok(false);
            }
        }
    }
}

fn gcd(a: u32, b: u32) -> u32 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}
