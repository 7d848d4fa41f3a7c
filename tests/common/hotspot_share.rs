//! What the `keyschema hotspot` tests on a big table (`tests/cli_hotspot.rs`
//! on Bigtable, `tests/cli_hotspot_dynamodb.rs` on DynamoDB) share: a hot
//! user planted in the last salt buckets, the truth counted from the rows
//! written, and the checks that a report's bucket shares are within a
//! stated tolerance of it.

use super::cli::section;
use std::collections::BTreeMap;

/// The sites every user visits.
pub const SITES: [&str; 5] = ["shop", "news", "blog", "mail", "docs"];

/// The sites of user `hot` whose rows land in buckets 6 and 7 (of 8), the
/// last two, by `bucket_of(site)`; at least one.
pub fn hot_sites(bucket_of: impl Fn(&str) -> u32) -> Vec<&'static str> {
    let sites: Vec<&str> = SITES.into_iter().filter(|s| bucket_of(s) >= 6).collect();
    assert!(!sites.is_empty(), "some site of `hot` hashes to 6 or 7");
    sites
}

/// `background` rows of `users` users (row `i`: user `u{i % users}`, the
/// sites in turn per `users` rows, timestamp `i`), then `hot` rows of user
/// `hot` on `hot_sites`: two thirds on the first, so that one bucket is
/// clearly hottest. `row(user, site, timestamp)` makes a row.
pub fn planted<R>(
    background: u64,
    users: u64,
    hot: u64,
    hot_sites: &[&str],
    row: impl Fn(&str, &str, u64) -> R,
) -> Vec<R> {
    let mut rows: Vec<R> = (0..background)
        .map(|i| {
            let site = SITES[(i / users) as usize % SITES.len()];
            row(&format!("u{}", i % users), site, i)
        })
        .collect();
    let last = hot_sites.len() - 1;
    rows.extend((0..hot).map(|i| {
        let site = if i % 3 == 0 {
            hot_sites[last]
        } else {
            hot_sites[0]
        };
        row("hot", site, i)
    }));
    rows
}

/// Shares (0 to 1) of each key of `counts`.
pub fn shares(counts: &BTreeMap<u32, u64>) -> BTreeMap<u32, f64> {
    let n: u64 = counts.values().sum();
    counts
        .iter()
        .map(|(k, c)| (*k, *c as f64 / n.max(1) as f64))
        .collect()
}

/// Each of the 8 buckets' share of `rows`, by `bucket`: the truth a
/// report's shares are held to.
pub fn truth<R>(rows: &[R], bucket: impl Fn(&R) -> u32) -> BTreeMap<u32, f64> {
    let mut counts: BTreeMap<u32, u64> = (0..8).map(|b| (b, 0)).collect();
    for r in rows {
        *counts.entry(bucket(r)).or_default() += 1;
    }
    shares(&counts)
}

/// A report's `by bucket` section: each bucket and its sampled keys.
pub fn bucket_counts(stdout: &str) -> Vec<(u32, u64)> {
    section(stdout, "by bucket")
        .into_iter()
        .map(|(name, count)| {
            let b = name
                .trim_start_matches("bucket ")
                .parse()
                .unwrap_or_else(|_| panic!("`{name}` is not a bucket in\n{stdout}"));
            (b, count)
        })
        .collect()
}

/// Keys sampled per bucket over several reports, pooled.
#[derive(Debug)]
pub struct Pooled(BTreeMap<u32, u64>);

impl Default for Pooled {
    fn default() -> Self {
        Self::new()
    }
}

impl Pooled {
    /// No keys yet, in each of the 8 buckets.
    pub fn new() -> Self {
        Pooled((0..8).map(|b| (b, 0)).collect())
    }

    /// Adds a report's `by bucket` counts.
    pub fn add(&mut self, stdout: &str) {
        for (b, count) in bucket_counts(stdout) {
            *self.0.entry(b).or_default() += count;
        }
    }

    /// Asserts that each bucket's share of the pooled keys is within
    /// `tolerance` (0 to 1) of its share of the rows.
    pub fn assert_within(&self, truth: &BTreeMap<u32, f64>, tolerance: f64) {
        let n: u64 = self.0.values().sum();
        let seen = shares(&self.0);
        for (b, share) in truth {
            assert!(
                (seen[b] - share).abs() < tolerance,
                "bucket {b}: {:.3} of {n} sampled keys, {share:.3} of the rows written: {seen:?}",
                seen[b]
            );
        }
    }
}

/// Asserts that a report of `sampled` keys lists the 8 buckets, each with
/// a share within `tolerance` of its share of the rows, and names the
/// truly hottest one, which it returns.
pub fn assert_report_within(
    stdout: &str,
    sampled: u64,
    truth: &BTreeMap<u32, f64>,
    tolerance: f64,
) -> u32 {
    let printed = bucket_counts(stdout);
    assert_eq!(printed.len(), 8, "{stdout}");
    for (b, count) in &printed {
        let share = *count as f64 / sampled as f64;
        assert!(
            (share - truth[b]).abs() < tolerance,
            "bucket {b}: {share:.3} against {:.3}\n{stdout}",
            truth[b]
        );
    }
    let hottest = truth
        .iter()
        .max_by(|a, b| a.1.total_cmp(b.1))
        .map(|(b, _)| *b)
        .expect("a bucket");
    assert!(
        stdout.contains(&format!("  hottest: bucket {hottest}, ")),
        "{stdout}"
    );
    hottest
}
