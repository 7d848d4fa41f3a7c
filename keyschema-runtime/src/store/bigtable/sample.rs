//! What a table holds, sampled: SampleRowKeys' sections (keys that cut the
//! table into pieces of about equal stored size, with the bytes before
//! each) and samples of its row keys (a row-sample filter), for the tools
//! that plan splits and find hot keys on a live table. One attempt each,
//! no retry: diagnostics.

use super::{rpc_error, BigtableError, BigtableStore};
use crate::range::KeyRange;
use googleapis_tonic_google_bigtable_v2::google::bigtable::v2 as data;
use std::hash::BuildHasher;
use std::sync::Mutex;

/// A sample of a table's row keys spread over its whole key space
/// ([`BigtableStore::sample_spread`]).
#[derive(Debug, Clone, PartialEq)]
pub struct SpreadSample {
    /// The sampled keys, in key order.
    pub keys: Vec<Vec<u8>>,
    /// The chance each row of the table had to be in the sample (1: every
    /// row read).
    pub probability: f64,
    /// How many keys the server sent (the sample thins them as it goes).
    pub received: u64,
    /// How many ReadRows requests were sent.
    pub requests: u64,
}

/// The keys kept so far, each with its weight `w`: a key is kept while
/// `w < probability`, and `w` is uniform on `[0, q)` for a key read at the
/// server's sampling rate `q`, so every row of the table is kept with the
/// same chance, whatever the rate was when it was read.
struct Kept {
    keys: Vec<(f64, Vec<u8>)>,
    probability: f64,
    received: u64,
    requests: u64,
}

impl BigtableStore {
    /// The table's own split points: the row keys SampleRowKeys returns,
    /// in key order, without the empty key that ends the table. They cut
    /// the table into sections of about equal stored size (not its tablets,
    /// and not by traffic). Empty for a small table.
    pub async fn sample_row_keys(&self) -> Result<Vec<Vec<u8>>, BigtableError> {
        Ok(self
            .sample_row_sections()
            .await?
            .into_iter()
            .filter(|(key, _)| !key.is_empty())
            .map(|(key, _)| key)
            .collect())
    }

    /// SampleRowKeys as Bigtable answers it: each key with the approximate
    /// number of bytes stored before it (`offset_bytes`), in key order; the
    /// last key, when empty, ends the table, and its offset is the table's
    /// approximate size.
    pub async fn sample_row_sections(&self) -> Result<Vec<(Vec<u8>, i64)>, BigtableError> {
        let message = data::SampleRowKeysRequest {
            table_name: self.table_name.clone(),
            ..data::SampleRowKeysRequest::default()
        };
        let mut stream = self
            .data
            .clone()
            .sample_row_keys(self.request(message).await?)
            .await
            .map_err(|s| rpc_error("SampleRowKeys", 1, &s))?
            .into_inner();
        let mut sections = Vec::new();
        while let Some(response) = stream
            .message()
            .await
            .map_err(|s| rpc_error("SampleRowKeys", 1, &s))?
        {
            sections.push((response.row_key, response.offset_bytes));
        }
        Ok(sections)
    }

    /// Row keys of the whole table, each row taken with probability
    /// `probability` (Bigtable's row-sample filter), at most `limit` of
    /// them, in key order. Only the keys travel: each row's first cell,
    /// its value stripped. A `probability` outside (0, 1] reads every row.
    ///
    /// The limit cuts the table: once `limit` rows are sampled, the rest of
    /// the table is not read, so the keys are those of a key-order prefix.
    /// [`sample_spread`](Self::sample_spread) samples the whole key space.
    pub async fn sample_keys(
        &self,
        probability: f64,
        limit: usize,
    ) -> Result<Vec<Vec<u8>>, BigtableError> {
        let message = data::ReadRowsRequest {
            table_name: self.table_name.clone(),
            filter: Some(key_filter(probability, None)),
            rows_limit: i64::try_from(limit).unwrap_or(i64::MAX),
            ..data::ReadRowsRequest::default()
        };
        let mut keys = Vec::new();
        self.read_once(message, |row| {
            keys.push(row.key);
            true
        })
        .await?;
        keys.truncate(limit);
        Ok(keys)
    }

    /// `rows` row keys (fewer when the table holds fewer) drawn evenly from
    /// the whole key space: every row of `pieces` (ranges that together
    /// should cover the table; each is read by its own ReadRows request,
    /// all at once) has the same chance to be in the sample, wherever it
    /// is, so each part of the table is in the sample by its share of the
    /// rows. No row limit cuts the table: the pieces are read to their
    /// ends with Bigtable's row-sample filter. Its rate starts where about
    /// `2 × rows` keys should come back, by the table's size
    /// (`table_bytes`, SampleRowKeys' last offset) over the size of its
    /// first 1,000 rows, and falls as keys come in (a request is sent again
    /// from its last key at the lower rate), while the keys already kept
    /// are thinned to the same rate; a pass that brings fewer than `rows`
    /// keys at a rate below 1 is read again at a higher rate. So the server
    /// usually reads the table once.
    ///
    /// With `since` (microseconds since the Unix epoch), only rows with a
    /// cell written at or after it count (a timestamp-range filter): the
    /// rows written recently. `progress` is told each key received, with
    /// the index of its piece.
    pub async fn sample_spread(
        &self,
        pieces: &[KeyRange],
        rows: usize,
        since: Option<i64>,
        table_bytes: Option<i64>,
        progress: &(dyn Fn(usize, &[u8]) + Sync),
    ) -> Result<SpreadSample, BigtableError> {
        let rows = rows.max(1);
        let mut rate = match table_bytes {
            Some(bytes) if bytes > 0 => match self.row_bytes().await? {
                Some(per_row) => (2.0 * rows as f64 * per_row / bytes as f64).min(1.0),
                None => 1.0,
            },
            _ => 1.0,
        };
        let mut requests = 0;
        let mut received = 0;
        loop {
            let kept = Mutex::new(Kept {
                keys: Vec::new(),
                probability: rate,
                received: 0,
                requests: 0,
            });
            let seed = std::collections::hash_map::RandomState::new();
            let reads = pieces.iter().enumerate().map(|(i, piece)| {
                self.sample_piece((i, piece), rows, since, (&kept, &seed), progress)
            });
            for result in futures_util::future::join_all(reads).await {
                result?;
            }
            let mut kept = kept.into_inner().unwrap_or_else(|e| e.into_inner());
            requests += kept.requests;
            received += kept.received;
            if kept.keys.len() < rows && kept.probability < 1.0 {
                // Too low a rate for this table: again, at one that should
                // bring 2 × rows keys (every row when none came).
                rate = match kept.keys.len() {
                    0 => (rate * 1000.0).min(1.0),
                    n => (rate * 2.0 * rows as f64 / n as f64).min(1.0),
                };
                continue;
            }
            kept.thin(rows);
            let mut keys: Vec<Vec<u8>> = kept.keys.into_iter().map(|(_, k)| k).collect();
            keys.sort();
            return Ok(SpreadSample {
                keys,
                probability: kept.probability,
                received,
                requests,
            });
        }
    }

    /// The average size of the table's first 1,000 rows (their keys and
    /// latest cells), as SampleRowKeys counts bytes; `None` for an empty
    /// table.
    async fn row_bytes(&self) -> Result<Option<f64>, BigtableError> {
        let message = data::ReadRowsRequest {
            table_name: self.table_name.clone(),
            filter: Some(data::RowFilter {
                filter: Some(data::row_filter::Filter::CellsPerColumnLimitFilter(1)),
            }),
            rows_limit: 1000,
            ..data::ReadRowsRequest::default()
        };
        let (mut rows, mut bytes) = (0usize, 0usize);
        self.read_once(message, |row| {
            rows += 1;
            bytes += row.key.len();
            for c in &row.cells {
                bytes += c.family.len() + c.qualifier.len() + c.value.len() + 8;
            }
            true
        })
        .await?;
        Ok((rows > 0).then(|| bytes as f64 / rows as f64))
    }

    /// One piece of [`sample_spread`](Self::sample_spread), read to its end.
    async fn sample_piece(
        &self,
        (index, piece): (usize, &KeyRange),
        rows: usize,
        since: Option<i64>,
        (kept, seed): (&Mutex<Kept>, &std::collections::hash_map::RandomState),
        progress: &(dyn Fn(usize, &[u8]) + Sync),
    ) -> Result<(), BigtableError> {
        let lock = || kept.lock().unwrap_or_else(|e| e.into_inner());
        let mut start = data::row_range::StartKey::StartKeyClosed(piece.start().to_vec());
        loop {
            let rate = {
                let mut kept = lock();
                kept.requests += 1;
                kept.probability
            };
            let message = data::ReadRowsRequest {
                table_name: self.table_name.clone(),
                rows: Some(data::RowSet {
                    row_keys: Vec::new(),
                    row_ranges: vec![data::RowRange {
                        start_key: Some(start.clone()),
                        end_key: piece
                            .end()
                            .map(|e| data::row_range::EndKey::EndKeyOpen(e.to_vec())),
                    }],
                }),
                filter: Some(key_filter(rate, since)),
                ..data::ReadRowsRequest::default()
            };
            let mut last = None;
            let mut slower = false;
            self.read_once(message, |row| {
                progress(index, &row.key);
                // Uniform on [0, rate): kept while below the probability.
                let w = seed.hash_one(&row.key) as f64 / 18_446_744_073_709_551_616.0 * rate;
                let mut kept = lock();
                kept.received += 1;
                if w < kept.probability {
                    kept.keys.push((w, row.key.clone()));
                    if kept.keys.len() >= rows.saturating_mul(3) {
                        kept.thin(rows);
                    }
                }
                // Far above the rate now kept: ask again at that rate.
                slower = kept.probability < rate * 0.25;
                last = Some(row.key);
                !slower
            })
            .await?;
            match (slower, last) {
                (true, Some(key)) => start = data::row_range::StartKey::StartKeyOpen(key),
                _ => return Ok(()),
            }
        }
    }
}

impl Kept {
    /// Keeps the `rows` keys of least weight; the probability falls to the
    /// weight of the first key dropped.
    fn thin(&mut self, rows: usize) {
        if self.keys.len() <= rows {
            return;
        }
        self.keys
            .select_nth_unstable_by(rows, |a, b| a.0.total_cmp(&b.0));
        self.probability = self.keys[rows].0;
        self.keys.truncate(rows);
    }
}

/// Each row's first cell, its value stripped (only keys travel): of the
/// rows the row-sample filter takes at `probability` (every row outside
/// (0, 1)), and with `since`, of the rows with a cell written since then.
fn key_filter(probability: f64, since: Option<i64>) -> data::RowFilter {
    use data::row_filter::{Chain, Filter};
    let one = |f| data::RowFilter { filter: Some(f) };
    let mut filters = Vec::new();
    if probability > 0.0 && probability < 1.0 {
        filters.push(one(Filter::RowSampleFilter(probability)));
    }
    if let Some(start) = since {
        filters.push(one(Filter::TimestampRangeFilter(data::TimestampRange {
            // Bigtable's timestamps are in milliseconds (the micros' last
            // three digits zero).
            start_timestamp_micros: start - start.rem_euclid(1000),
            end_timestamp_micros: 0,
        })));
    }
    filters.push(one(Filter::CellsPerRowLimitFilter(1)));
    filters.push(one(Filter::StripValueTransformer(true)));
    one(Filter::Chain(Chain { filters }))
}
