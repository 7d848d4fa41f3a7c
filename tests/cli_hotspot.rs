//! `keyschema hotspot` on a table much larger than the old sampler's reach
//! (it read `20 × --rows` keys at probability 0.001 with a row limit, so
//! past `20,000 × --rows` rows it saw only a key-order prefix): a hot user
//! planted in the LAST salt buckets of a 150,000-row emulator table is
//! found with `--rows 5`, and every bucket's share is within a stated
//! tolerance of the truth counted from the rows written; `--since` sees
//! only fresh rows, `--svg` draws them and `--what-if` replays the sample
//! under another layout, each against ground truth from the rows written.

#![cfg(all(feature = "bigtable", feature = "dynamodb"))]

mod common;

#[path = "../examples/common/bigtable_event.rs"]
mod bigtable_event;

use bigtable_event::Event;
use common::cli::{document, run, section};
use common::hotspot_share::{self, assert_report_within, hot_sites, planted, shares, Pooled};
use common::{cbt, emulator};
use keyschema::store::bigtable::BigtableStore;
use keyschema::store::AsyncRecordStore;
use keyschema::RowKey;
use std::collections::BTreeMap;

/// The same rows under a 32-bucket salt of the user alone: the layout
/// `--what-if` replays the sample under.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = hash(user_id) % 32, then = user_id, site, rev(timestamp))]
struct Rebucketed {
    user_id: String,
    site: String,
    timestamp: u64,
}

fn event(user: &str, site: &str, timestamp: u64) -> Event {
    Event {
        user_id: user.into(),
        site: site.into(),
        timestamp,
        action: "view".into(),
        page: "/".into(),
        duration_ms: 1,
        referrer: None,
    }
}

fn bucket(e: &Event) -> u32 {
    Event::schema().bucket_of(&e.encode()).expect("bucket")
}

#[tokio::test]
async fn hotspot_finds_a_hot_user_in_the_last_buckets_of_a_big_bigtable_table() {
    // The hot user's sites that hash to buckets 6 and 7, the last two.
    let hot_sites = hot_sites(|s| bucket(&event("hot", s, 0)));
    // 150,000 rows: 90,000 of 9,000 users, 60,000 of the hot user (two
    // thirds of them on its first such site: one bucket is clearly hottest).
    let rows = planted(90_000, 9000, 60_000, &hot_sites, event);
    let truth = hotspot_share::truth(&rows, bucket);

    let host = emulator::host();
    let table = emulator::fresh_table("cli-hot");
    let store = BigtableStore::connect_emulator(&host, cbt::PROJECT, cbt::INSTANCE, &table)
        .await
        .expect("connect");
    store.create_table_for::<Event>().await.expect("create");
    for chunk in rows.chunks(5000) {
        store.put_records(chunk).await.expect("write");
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let doc = document::<Event>(dir.path());
    let path = format!("{}/{}/{table}", cbt::PROJECT, cbt::INSTANCE);
    let tool = |args: &[&str]| {
        let mut all = vec!["--schema", &doc, "--bigtable", &path, "--emulator", &host];
        all.extend_from_slice(args);
        run(&all, b"")
    };

    // `--rows 5`, 40 times: 200 keys in all. Each bucket's share of them is
    // within 12 points of the truth (a binomial share of 200 has a standard
    // deviation of at most 3.5 points). The old sampler read only the
    // first two thirds of the table: buckets 6 and 7 (over 45% of the rows)
    // were never seen.
    let mut seen = Pooled::new();
    for _ in 0..40 {
        let (code, stdout, stderr) = tool(&["hotspot", "--rows", "5", "--top", "10"]);
        assert_eq!(code, 0, "{stderr}");
        seen.add(&stdout);
    }
    seen.assert_within(&truth, 0.12);

    let (_, stdout, _) = tool(&["hotspot", "--rows", "5"]);
    assert!(
        stdout.starts_with("5 keys sampled (Bigtable row sample over the whole key space"),
        "{stdout}"
    );

    // A bigger sample: every bucket within 3 points, the hottest named, the
    // hot user and its hashed pairs first, the picture drawn.
    let svg = dir.path().join("hot.svg");
    let other = dir.path().join("rebucketed.json");
    std::fs::write(&other, Rebucketed::schema().to_json()).expect("write");
    let (code, stdout, stderr) = tool(&[
        "hotspot",
        "--rows",
        "4000",
        "--svg",
        svg.to_str().expect("path"),
        "--what-if",
        other.to_str().expect("path"),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let hottest = assert_report_within(&stdout, 4000, &truth, 0.03);
    // Stored bytes per bucket (SampleRowKeys' offsets): rows of about one
    // size, so about the rows' shares.
    let stored: Vec<f64> = stdout
        .split("\n\n")
        .find(|b| b.starts_with("stored bytes (SampleRowKeys: "))
        .unwrap_or_else(|| panic!("no stored bytes in\n{stdout}"))
        .lines()
        .skip(1)
        .map(|l| {
            let pct = l
                .split_whitespace()
                .find(|w| w.ends_with('%'))
                .expect("a share");
            pct.trim_end_matches('%').parse::<f64>().expect("a share") / 100.0
        })
        .collect();
    assert_eq!(stored.len(), 8, "{stdout}");
    for (b, share) in stored.iter().enumerate() {
        assert!(
            (share - truth[&(b as u32)]).abs() < 0.03,
            "bucket {b}'s bytes: {stdout}"
        );
    }
    let pairs = section(&stdout, "by user_id, site together");
    assert!(pairs[0].0.starts_with("hot|"), "{stdout}");
    let users = section(&stdout, "by user_id (");
    assert_eq!(users[0].0, "hot", "{stdout}");
    assert!(
        ((users[0].1 as f64 / 4000.0) - 0.4).abs() < 0.03,
        "{stdout}"
    );
    let picture = std::fs::read_to_string(&svg).expect("the SVG");
    assert!(
        picture.starts_with("<svg ") && picture.trim_end().ends_with("</svg>"),
        "{picture}"
    );
    for b in 0..8 {
        assert!(
            picture.contains(&format!(">bucket {b}<")),
            "bucket {b} drawn"
        );
    }
    assert!(
        picture.contains(&format!(">{}<", pairs[0].0)),
        "the hot pair drawn"
    );

    // --what-if: the rows under a 32-bucket salt of the user alone. The
    // truth: where each row written would go, and the ranges a scan by
    // user reads under each layout (the derived scans').
    let mut moved: BTreeMap<u32, u64> = BTreeMap::new();
    for e in &rows {
        let key = Rebucketed {
            user_id: e.user_id.clone(),
            site: e.site.clone(),
            timestamp: e.timestamp,
        }
        .encode();
        *moved
            .entry(Rebucketed::schema().bucket_of(&key).expect("bucket"))
            .or_default() += 1;
    }
    let moved_hottest = shares(&moved).values().copied().fold(0.0, f64::max);
    let line = |label: &str| -> Vec<String> {
        stdout
            .lines()
            .find(|l| l.trim_start().starts_with(label))
            .unwrap_or_else(|| panic!("no {label:?} line in\n{stdout}"))
            .trim_start()[label.len()..]
            .split_whitespace()
            .map(str::to_string)
            .collect()
    };
    assert_eq!(line("salt buckets"), ["8", "32"], "{stdout}");
    let hottest_share = line("hottest bucket's share");
    let pct = |s: &str| s.trim_end_matches('%').parse::<f64>().expect("a share") / 100.0;
    assert!(
        (pct(&hottest_share[0]) - truth[&hottest]).abs() < 0.03,
        "{stdout}"
    );
    assert!(
        (pct(&hottest_share[1]) - moved_hottest).abs() < 0.03,
        "{moved_hottest}: {stdout}"
    );
    let scan = line("scan user_id=hot reads");
    let now = Event::scan().user_id("hot").ranges().len();
    let then = Rebucketed::scan().user_id("hot").ranges().len();
    let ranges = |n: usize| match n {
        1 => "1 range".to_string(),
        n => format!("{n} ranges"),
    };
    assert_eq!(
        scan.join(" "),
        format!("{} {}", ranges(now), ranges(then)),
        "{stdout}"
    );

    // --since: rows written after a pause are the only ones counted.
    tokio::time::sleep(std::time::Duration::from_secs(4)).await;
    let fresh: Vec<Event> = (0..3000u64)
        .map(|i| event(&format!("new{}", i % 300), "news", 1_000_000 + i))
        .collect();
    store.put_records(&fresh).await.expect("write");
    let (code, stdout, stderr) = tool(&["hotspot", "--since", "3s", "--rows", "100000"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout
            .starts_with("3000 keys sampled (every row with a cell written in the last 3s (3000)"),
        "{stdout}"
    );
    let mut fresh_buckets: BTreeMap<String, u64> = BTreeMap::new();
    for e in &fresh {
        *fresh_buckets
            .entry(format!("bucket {}", bucket(e)))
            .or_default() += 1;
    }
    let printed: BTreeMap<String, u64> = section(&stdout, "by bucket")
        .into_iter()
        .filter(|(_, c)| *c > 0)
        .collect();
    assert_eq!(printed, fresh_buckets, "{stdout}");
    println!("{stdout}");
}
