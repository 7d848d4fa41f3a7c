//! Split planning and hotspot reports on a Zipf workload with one celebrity
//! user: the three designs of the Bigtable salting article.

use keyschema::hotspot::HotspotReport;
use keyschema::{splits, RowKey};

#[derive(RowKey)]
#[rowkey(then = timestamp, user_id)]
struct TimeFirst {
    timestamp: u64,
    user_id: String,
}

#[derive(RowKey)]
#[rowkey(salt = hash(user_id) % 8, then = user_id, timestamp)]
struct ByUser {
    user_id: String,
    timestamp: u64,
}

#[derive(RowKey)]
#[rowkey(salt = hash(*) % 8, then = user_id, timestamp)]
struct WholeKey {
    user_id: String,
    timestamp: u64,
}

/// 20% of events from one celebrity, the rest Zipf over 5,000 users; ids are hex.
fn workload(n: usize) -> Vec<(String, u64)> {
    let mut state = 42u64;
    (0..n)
        .map(|i| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let u = (state >> 11) as f64 / (1u64 << 53) as f64;
            let user = if u < 0.2 {
                0
            } else {
                (5000f64.powf((u - 0.2) / 0.8) as u64).max(1)
            };
            (format!("{user:04x}"), 1_700_000_000 + i as u64)
        })
        .collect()
}

fn shares(
    keys: &[Vec<u8>],
    schema: &keyschema::Schema,
    regions: usize,
) -> (HotspotReport, Vec<Vec<u8>>) {
    let (warmup, measured) = keys.split_at(keys.len() / 2);
    let per_bucket = regions / schema.buckets() as usize;
    let points = splits::plan(schema, warmup.iter().map(Vec::as_slice), per_bucket);
    (HotspotReport::new(&points, measured), points)
}

#[test]
fn the_three_designs_hottest_regions() {
    let events = workload(100_000);
    let time_first: Vec<Vec<u8>> = events
        .iter()
        .map(|(u, t)| TimeFirst::get_key(*t, u))
        .collect();
    let by_user: Vec<Vec<u8>> = events.iter().map(|(u, t)| ByUser::get_key(u, *t)).collect();
    let whole: Vec<Vec<u8>> = events
        .iter()
        .map(|(u, t)| WholeKey::get_key(u, *t))
        .collect();

    let (a, _) = shares(&time_first, TimeFirst::schema(), 32);
    let (b, _) = shares(&by_user, ByUser::schema(), 32);
    let (c, _) = shares(&whole, WholeKey::schema(), 32);
    println!(
        "hottest region: timestamp-first {:.3}, salted by user {:.3}, salted over the key {:.3}",
        a.hottest_share(),
        b.hottest_share(),
        c.hottest_share()
    );
    // Timestamp-first: new writes all land after the last split.
    assert!(a.hottest_share() > 0.99);
    assert_eq!(a.hottest_region().0, a.regions() - 1);
    // Salted by user: users spread, but the celebrity's 20% stays in one region.
    assert!(
        b.hottest_share() >= 0.19 && b.hottest_share() < 0.35,
        "{}",
        b.hottest_share()
    );
    // Salted over the whole key: the celebrity spreads over every bucket (1/N each).
    assert!(c.hottest_share() < 2.0 / 32.0, "{}", c.hottest_share());
}

#[test]
fn splits_follow_the_keys_that_occur() {
    let events = workload(20_000);
    let keys: Vec<Vec<u8>> = events.iter().map(|(u, t)| ByUser::get_key(u, *t)).collect();
    let points = splits::plan(ByUser::schema(), keys.iter().map(Vec::as_slice), 4);
    assert_eq!(points.len(), 8 * 4 - 1);
    assert!(points.windows(2).all(|w| w[0] < w[1]), "sorted");
    // Aligned to buckets: every salt boundary is a split, and no region straddles two buckets.
    for b in 1..8u8 {
        assert!(points.contains(&vec![b]), "bucket {b} starts a region");
    }
    // Inside the buckets, the user-id part of each split uses characters the
    // ids really use (hex), not bytes spread evenly over 0..=255. (Within the
    // celebrity's rows a split may go on into the timestamp: that cuts a hot
    // user's range by time, as it should.)
    for p in points.iter().filter(|p| p.len() > 1) {
        let id: Vec<u8> = p[1..].iter().copied().take_while(|&b| b != 0).collect();
        assert!(
            id.iter().all(u8::is_ascii_hexdigit),
            "{:?}",
            p.escape_ascii().to_string()
        );
    }
    // Every region gets a share of the sample near 1/32.
    let report = HotspotReport::new(&points, &keys);
    assert!(report.hottest_share() < 0.25, "{}", report.hottest_share());
}

#[test]
fn split_commands() {
    assert_eq!(
        splits::hbase_create("t", "v", &[vec![0x00, b'a'], vec![0xFF]]),
        r#"create 't', 'v', SPLITS => ["\x00a", "\xFF"]"#
    );
    let text = [b"user1".to_vec(), b"user5".to_vec()];
    assert_eq!(
        splits::cbt_createtable("t", "v", &text).unwrap(),
        "cbt createtable t families=v splits=user1,user5"
    );
    assert!(
        splits::cbt_createtable("t", "v", &[b"a,b".to_vec()]).is_err(),
        "a comma would split the key"
    );
}
