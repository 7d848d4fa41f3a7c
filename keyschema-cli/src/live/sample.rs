//! How `hotspot` and `splits` sample a live table: spread over the whole
//! key space on any table size (Bigtable: every row with the same chance,
//! the table read once by ranges at once; DynamoDB: every item with the
//! same chance, the table read once by a parallel Scan of its key
//! attributes), with progress on standard error when it is a terminal.

use super::progress::Ticker;
use super::{Live, Store};
use keyschema::dynamic::DynSchema;
use keyschema::KeyRange;
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// A sample of a live table's keys.
pub struct Sample {
    /// The keys, in key order.
    pub keys: Vec<Vec<u8>>,
    /// How they were taken and what they cover, for the report.
    pub how: String,
    /// SampleRowKeys' answer on Bigtable: keys with the bytes stored
    /// before each.
    pub sections: Option<Vec<(Vec<u8>, i64)>>,
}

impl Live {
    /// Up to `rows` keys of the table, spread over its whole key space.
    /// On Bigtable every row has the same chance to be taken (see
    /// `BigtableStore::sample_spread`): the table is cut at the bucket
    /// boundaries of `layouts` (one, or each of a shared table's) and SampleRowKeys' sections into ranges read at
    /// once, to their ends. With `since`, only rows with a cell written in
    /// that time (Bigtable's cell timestamps). On DynamoDB every item has
    /// the same chance too (`DynamoStore::sample_keys`): a parallel Scan of
    /// the key attributes reads the table once.
    pub fn sample(
        &self,
        layouts: &[&DynSchema],
        rows: usize,
        since: Option<Duration>,
    ) -> Result<Sample, String> {
        match &self.store {
            Store::Bigtable(s) => {
                let sections = self
                    .runtime
                    .block_on(s.sample_row_sections())
                    .map_err(|e| e.to_string())?;
                let pieces = pieces(layouts, &sections);
                let since_micros = since.map(|d| {
                    let now = SystemTime::now()
                        .duration_since(UNIX_EPOCH)
                        .unwrap_or_default();
                    i64::try_from(now.saturating_sub(d).as_micros()).unwrap_or(i64::MAX)
                });
                let progress = Progress::new(&pieces, &sections);
                let sample = self
                    .runtime
                    .block_on(s.sample_spread(
                        &pieces,
                        rows,
                        since_micros,
                        sections.last().map(|s| s.1),
                        &|i, key| progress.saw(i, key),
                    ))
                    .map_err(|e| e.to_string())?;
                progress.done();
                let recent = since.map_or(String::new(), |d| {
                    format!(" with a cell written in the last {}", show_duration(d))
                });
                let how = match sample.probability >= 1.0 {
                    true => format!(
                        "every row{recent} ({}), read in {} ranges at once",
                        sample.keys.len(),
                        pieces.len()
                    ),
                    false => format!(
                        "Bigtable row sample over the whole key space: each row{recent} taken with probability {:.3e}, {} ranges read at once to their ends by {} requests, {} keys received",
                        sample.probability,
                        pieces.len(),
                        sample.requests,
                        sample.received
                    ),
                };
                Ok(Sample {
                    keys: sample.keys,
                    how,
                    sections: Some(sections),
                })
            }
            Store::Dynamo(s) => {
                if since.is_some() {
                    return Err("--since on DynamoDB needs --time-field FIELD (a key field holding when the row was written): DynamoDB keeps no write time".into());
                }
                let ticker = Ticker::new();
                let progress = |read: u64, reported: i64| {
                    ticker.show(|| match reported {
                        n if n > 0 => format!(
                            "sampling: {read} items read of about {n} (DescribeTable's count)"
                        ),
                        _ => format!("sampling: {read} items read"),
                    })
                };
                let sample = self
                    .runtime
                    .block_on(s.sample_keys(rows, &progress))
                    .map_err(|e| e.to_string())?;
                ticker.done();
                Ok(Sample {
                    how: dynamo_how(&sample),
                    keys: sample.keys,
                    sections: None,
                })
            }
        }
    }
}

/// How a DynamoDB sample was taken, for the report's first line.
fn dynamo_how(sample: &keyschema::store::dynamodb::KeySample) -> String {
    let count = match sample.reported {
        n if n as u64 == sample.read => String::new(),
        n => format!(
            "; DescribeTable said {n} items, a count DynamoDB updates about every six hours"
        ),
    };
    // Counted in items; the segments are only how the Scan ran.
    let scan = format!(
        "a parallel Scan of the key attributes, {} segments at once",
        sample.segments
    );
    match sample.whole_table() {
        true => format!("every item: {} items read ({scan}){count}", sample.read),
        false => format!(
            "DynamoDB item sample over the whole table: {} items read, {} of them kept at random, each item with the same chance ({scan}){count}",
            sample.read,
            sample.keys.len()
        ),
    }
}

/// Ranges that cover the whole key space, cut at the bucket boundaries of
/// each of `layouts` and, for at least 8 ranges, at SampleRowKeys' keys of
/// even byte steps.
fn pieces(layouts: &[&DynSchema], sections: &[(Vec<u8>, i64)]) -> Vec<KeyRange> {
    let mut cuts: Vec<Vec<u8>> = Vec::new();
    for ranges in layouts.iter().filter_map(|l| l.ranges(&[], None).ok()) {
        for r in ranges.iter() {
            cuts.push(r.start().to_vec());
            cuts.extend(r.end().map(<[u8]>::to_vec));
        }
    }
    let keys: Vec<&Vec<u8>> = sections
        .iter()
        .map(|(k, _)| k)
        .filter(|k| !k.is_empty())
        .collect();
    let step = keys.len() / 8;
    if step > 0 {
        cuts.extend(keys.iter().step_by(step).map(|k| k.to_vec()));
    }
    cuts.retain(|c| !c.is_empty());
    cuts.sort();
    cuts.dedup();
    let mut pieces = Vec::with_capacity(cuts.len() + 1);
    let mut start = Vec::new();
    for cut in cuts {
        pieces.push(KeyRange::new(
            std::mem::replace(&mut start, cut.clone()),
            Some(cut),
            0,
        ));
    }
    pieces.push(KeyRange::new(start, None, 0));
    pieces
}

/// Where a long sample is, on standard error when it is a terminal: the
/// share of the table's stored bytes read (by SampleRowKeys' offsets).
struct Progress {
    ticker: Ticker,
    total: i64,
    offsets: Vec<(Vec<u8>, i64)>,
    starts: Vec<i64>,
    state: Mutex<(Vec<i64>, u64)>,
}

impl Progress {
    fn new(pieces: &[KeyRange], sections: &[(Vec<u8>, i64)]) -> Progress {
        let offsets: Vec<(Vec<u8>, i64)> = sections.to_vec();
        let total = offsets.last().map_or(0, |s| s.1).max(1);
        let mut p = Progress {
            ticker: Ticker::new(),
            total,
            offsets,
            starts: Vec::new(),
            state: Mutex::new((Vec::new(), 0)),
        };
        p.starts = pieces.iter().map(|r| p.offset(r.start())).collect();
        if let Ok(mut state) = p.state.lock() {
            state.0 = p.starts.clone();
        }
        p
    }

    /// The bytes stored before `key`, as SampleRowKeys estimates them.
    fn offset(&self, key: &[u8]) -> i64 {
        let i = self
            .offsets
            .partition_point(|(k, _)| !k.is_empty() && k.as_slice() <= key);
        match i {
            0 => 0,
            i => self.offsets[i - 1].1,
        }
    }

    fn saw(&self, piece: usize, key: &[u8]) {
        if !self.ticker.shown() {
            return;
        }
        let Ok(mut state) = self.state.lock() else {
            return;
        };
        state.1 += 1;
        let at = self.offset(key);
        if let Some(slot) = state.0.get_mut(piece) {
            *slot = at;
        }
        self.ticker.show(|| {
            let read: i64 = state.0.iter().zip(&self.starts).map(|(a, s)| a - s).sum();
            let pct = 100.0 * read as f64 / self.total as f64;
            format!(
                "sampling: about {pct:3.0}% of the table's bytes read, {} keys received",
                state.1
            )
        });
    }

    fn done(&self) {
        self.ticker.done();
    }
}

/// `--since`: `90s`, `15m`, `2h`, `1d` (a number alone is seconds).
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let n: u64 = number
        .parse()
        .map_err(|_| format!("--since {text}: expected a number and a unit: 90s, 15m, 2h, 1d"))?;
    let secs = match unit {
        "" | "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        _ => {
            return Err(format!(
                "--since {text}: the unit is s, m, h or d (90s, 15m, 2h, 1d)"
            ))
        }
    };
    Ok(Duration::from_secs(n.saturating_mul(secs)))
}

/// A duration as `--since` takes it.
pub fn show_duration(d: Duration) -> String {
    let s = d.as_secs();
    match s {
        s if s % 86_400 == 0 && s > 0 => format!("{}d", s / 86_400),
        s if s % 3600 == 0 && s > 0 => format!("{}h", s / 3600),
        s if s % 60 == 0 && s > 0 => format!("{}m", s / 60),
        s => format!("{s}s"),
    }
}
