//! Salting a live table from a cut-over: the Bigtable salting article's
//! migration ("change the code to salt the row keys past a point in time;
//! the older keys stay unsalted"), done with `#[rowkey_was]`.
//!
//! 1. The `events` workload (Zipf-skewed users) is written unsalted up to T.
//! 2. The key type is cut over at T: newer events get the salted layout,
//!    older ones keep theirs. The hotspot report shows the hottest region's
//!    share of the writes before and after.
//! 3. Typed scans read one table across the cut-over (the older layout's
//!    ranges before T, the salted layout's from T).
//! 4. The backfill copies the older rows into the salted layout, verifies
//!    them bucket by bucket, the readers move to `Phase::New`, and the
//!    older rows are deleted. The same scans give the same rows, whole
//!    (key and value fields), at every step.
//!
//! Run: `cargo run --release --example rebucket [-- --events N] [--data-dir DIR]`

#[allow(dead_code)]
#[path = "events.rs"]
mod events;

use events::{Payload, Rng, Zipf, SITES, USERS};
use keyschema::backfill::Backfill;
use keyschema::history::Phase;
use keyschema::hotspot::HotspotReport;
use keyschema::store::{RecordStore, RedbStore};
use keyschema::{splits, RowKey};
use std::path::PathBuf;
use std::time::Instant;

/// The events workload starts here; the cut-over is half-way through it.
const BASE: u64 = 1_700_000_000;
const CUT_OVER: u64 = 1_700_100_000;

/// Salted from `CUT_OVER` on; unsalted before (the layout the table had).
/// A whole row: the action and its payload are value fields, which the
/// layout change leaves alone (only keys move).
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = hash(user_id, site) % 8, then = user_id, site, rev(timestamp))]
#[rowkey_was(salt = none, until = timestamp >= 1_700_100_000)]
pub struct Event {
    pub user_id: String,
    pub site: String,
    pub timestamp: u64,
    #[rowkey(value)]
    pub action: String,
    #[rowkey(value)]
    pub payload: Payload,
}

const ACTIONS: [&str; 4] = ["view", "click", "purchase", "scroll"];

/// Users active at any one time.
const ACTIVE: usize = 2_000;

/// Regions of the table in the hotspot report.
const REGIONS: usize = 32;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut events_wanted = 200_000usize;
    let mut data_dir: Option<PathBuf> = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match (arg.as_str(), args.next()) {
            ("--events", Some(n)) if n.parse::<usize>().is_ok_and(|n| n >= 1_000) => {
                events_wanted = n.parse().unwrap_or(200_000)
            }
            ("--data-dir", Some(dir)) => data_dir = Some(PathBuf::from(dir)),
            // The version 3 document: both layouts and the cut-over.
            ("--schema-out", Some(path)) => std::fs::write(path, Event::schema().to_json())?,
            _ => {
                return Err(
                    "usage: rebucket [--events N (>= 1000)] [--data-dir DIR] [--schema-out FILE]"
                        .into(),
                )
            }
        }
    }
    let history = Event::history().ok_or("Event declares its older layout")?;
    println!("declared  {}", Event::schema());
    println!("older     {}", history.older());
    println!("cut-over  timestamp >= {CUT_OVER}: newer rows salted, older rows where they are");

    // The workload: Zipf-skewed users with sequential ids, the newest the
    // most active (the HBase article's sequential-id hotspot): at any time
    // the writes fall on a narrow band of ids.
    let zipf = Zipf::new(ACTIVE, 1.1);
    let mut rng = Rng(0x5EED);
    // The values from a generator of their own: the keys are the same
    // with or without them.
    let mut values = Rng(0xACE);
    let events: Vec<Event> = (0..events_wanted)
        .map(|i| {
            let newest = (i * (USERS - ACTIVE)) / events_wanted + ACTIVE;
            let r = values.next_u64();
            Event {
                user_id: format!("user{:06}", newest - zipf.sample(&mut rng)),
                site: SITES[(rng.next_u64() % SITES.len() as u64) as usize].to_string(),
                // Evenly over twice (CUT_OVER - BASE): half before the cut-over.
                timestamp: BASE + (i as u64 * 2 * (CUT_OVER - BASE)) / events_wanted as u64,
                action: ACTIONS[(r % ACTIONS.len() as u64) as usize].to_string(),
                payload: Payload {
                    page: format!("/p/{}", (r >> 8) % 50),
                    referrer: (r >> 16).is_multiple_of(3).then(|| "search".to_string()),
                },
            }
        })
        .collect();
    let (before, after): (Vec<&Event>, Vec<&Event>) =
        events.iter().partition(|e| !e.past_cut_over());

    let dir = match &data_dir {
        Some(d) => {
            std::fs::create_dir_all(d)?;
            None
        }
        None => Some(tempfile::tempdir()?),
    };
    let path = data_dir
        .clone()
        .or_else(|| dir.as_ref().map(|d| d.path().to_path_buf()))
        .ok_or("a data directory")?;
    let _ = std::fs::remove_file(path.join("rebucket.redb"));
    let store = RedbStore::open(path.join("rebucket.redb"))?;

    // 1 and 2: the events before the cut-over as the older binary wrote
    // them (`Phase::Old`: the older layout only), then the new binary's
    // from T on (`Split`: past the cut-over, the salted layout), in
    // batches, whole rows.
    let start = Instant::now();
    for chunk in events.chunks(10_000) {
        let (before, after): (Vec<&Event>, Vec<&Event>) =
            chunk.iter().partition(|e| e.timestamp < CUT_OVER);
        store.put_records_in(Phase::Old, before)?;
        store.put_records_in(Phase::Split, after)?;
    }
    println!(
        "\nwrote {} events ({} before the cut-over, unsalted; {} after, salted) in {:.2} s",
        events.len(),
        before.len(),
        after.len(),
        start.elapsed().as_secs_f64()
    );

    // The hotspot report: the table cut into 32 regions where its keys
    // fall (unsalted: at quantiles of the keys; salted: at the 8 salt
    // boundaries and quantiles inside each bucket), and the share of each
    // side's latest writes that the busiest region takes.
    let older_keys: Vec<Vec<u8>> = before.iter().filter_map(|e| e.encode_older()).collect();
    let newer_keys: Vec<Vec<u8>> = after.iter().map(|e| e.encode()).collect();
    let older_splits = splits::plan(
        history.older(),
        older_keys.iter().map(Vec::as_slice),
        REGIONS,
    );
    let newer_splits = splits::plan(
        Event::schema(),
        newer_keys.iter().map(Vec::as_slice),
        REGIONS / 8,
    );
    let window = |keys: &[Vec<u8>]| keys[keys.len() * 9 / 10..].to_vec();
    let unsalted = HotspotReport::new(&older_splits, window(&older_keys));
    let salted = HotspotReport::new(&newer_splits, window(&newer_keys));
    println!("\nthe last 10% of each side's writes over {REGIONS} regions:");
    println!(
        "  unsalted (before T): the hottest region takes {:.1}% (an even spread is {:.1}%)",
        100.0 * unsalted.hottest_share(),
        100.0 / unsalted.regions() as f64
    );
    println!(
        "  salted   (after T):  the hottest region takes {:.1}% (an even spread is {:.1}%)",
        100.0 * salted.hottest_share(),
        100.0 / salted.regions() as f64
    );

    // 3: scans across the cut-over, of the user with the most rows on both
    // sides of it.
    let straddle = CUT_OVER - 50_000..CUT_OVER + 50_000;
    let mut per_user = std::collections::HashMap::<&str, (usize, usize)>::new();
    for e in events.iter().filter(|e| straddle.contains(&e.timestamp)) {
        let sides = per_user.entry(e.user_id.as_str()).or_default();
        if e.past_cut_over() {
            sides.1 += 1;
        } else {
            sides.0 += 1;
        }
    }
    let heavy = per_user
        .iter()
        // Ties go to the lowest id, so every run shows the same user.
        .max_by_key(|(user, (before, after))| ((*before).min(*after), std::cmp::Reverse(**user)))
        .map(|(u, _)| u.to_string())
        .unwrap_or_default();
    let scans = |phase: Phase| -> Result<Vec<Vec<Event>>, Box<dyn std::error::Error>> {
        let mut out = Vec::new();
        for site in SITES {
            let rows: Vec<Event> = Event::scan()
                .user_id(heavy.as_str())
                .site(site)
                .timestamp(straddle.clone())
                .phase(phase)
                .run(&store)
                .records()
                .collect::<Result<_, _>>()?;
            out.push(rows);
        }
        let all: Vec<Event> = Event::scan()
            .user_id(heavy.as_str())
            .request()
            .phase(phase)
            .run(&store)
            .records()
            .collect::<Result<_, _>>()?;
        out.push(all);
        Ok(out)
    };
    let one = Event::scan()
        .user_id(heavy.as_str())
        .site(SITES[0])
        .timestamp(straddle.clone())
        .phase(Phase::Split);
    let by_layout = |ranges: &keyschema::ScanRangeSet| {
        let older = ranges
            .iter()
            .filter(|r| r.bucket() & keyschema::OLDER_LAYOUT != 0)
            .count();
        (older, ranges.len() - older)
    };
    let (o1, n1) = by_layout(&one.ranges());
    let (o2, n2) = by_layout(
        &Event::scan()
            .user_id(heavy.as_str())
            .request()
            .phase(Phase::Split)
            .ranges(),
    );
    println!("\nscans of {heavy} across the cut-over:");
    println!("  one site, 50,000 s either side of T: {o1} older range(s) before T + {n1} salted range(s) from T");
    println!("  every site, all time:                {o2} older range(s) + {n2} salted range(s), merged in key order");
    let split_rows = scans(Phase::Split)?;
    let per_site: Vec<usize> = split_rows[..SITES.len()].iter().map(Vec::len).collect();
    let (older_side, newer_side): (Vec<&Event>, Vec<&Event>) = split_rows[..SITES.len()]
        .iter()
        .flatten()
        .partition(|e| !e.past_cut_over());
    println!(
        "  rows per site: {per_site:?}: {} before T from the older layout, {} from T from the salted one; {} in the whole history",
        older_side.len(),
        newer_side.len(),
        split_rows[SITES.len()].len()
    );

    // 4: the backfill.
    let checkpoint = path.join("rebucket.checkpoint");
    let _ = std::fs::remove_file(&checkpoint);
    let mut backfill = Backfill::<Event>::new()?
        .batch(5_000)
        .checkpoint(&checkpoint);
    let copied = backfill.copy(&store)?;
    println!(
        "\nbackfill: copied {} older rows into the salted layout at {:.0} rows/s",
        copied.rows_done, copied.rows_per_second
    );
    assert_eq!(
        scans(Phase::Split)?,
        split_rows,
        "reads in Split skip the copies"
    );
    let verify_start = Instant::now();
    let verified = backfill.verify(&store)?;
    println!(
        "verify:   {} buckets, {} rows under both layouts, checksums {} ({:.2} s)",
        verified.buckets().len(),
        verified.buckets().iter().map(|b| b.older_rows).sum::<u64>(),
        if verified.matches() {
            "equal"
        } else {
            "DIFFERENT"
        },
        verify_start.elapsed().as_secs_f64()
    );
    assert!(verified.matches());
    assert_eq!(
        scans(Phase::New)?,
        split_rows,
        "Phase::New reads the salted layout alone"
    );
    let deleted = backfill.delete_older(&store, &verified)?;
    println!(
        "delete:   removed {} older rows at {:.0} rows/s",
        deleted.rows_done, deleted.rows_per_second
    );
    assert_eq!(
        scans(Phase::New)?,
        split_rows,
        "the same rows after the delete"
    );
    let (o3, n3) = by_layout(
        &Event::scan()
            .user_id(heavy.as_str())
            .request()
            .phase(Phase::New)
            .ranges(),
    );
    println!(
        "\nthe same scans, in Phase::New: {o3} older + {n3} salted range(s), the same {} rows",
        split_rows.iter().map(Vec::len).sum::<usize>()
    );
    // The oldest row of the heavy user's history, which the older binary
    // wrote before T: moved into the salted layout, read back whole.
    let whole = split_rows[SITES.len()]
        .iter()
        .min_by_key(|e| e.timestamp)
        .ok_or("the heavy user has rows")?;
    let written = events
        .iter()
        .find(|e| {
            e.user_id == whole.user_id && e.site == whole.site && e.timestamp == whole.timestamp
        })
        .ok_or("the row was written")?;
    assert!(!whole.past_cut_over(), "written by the older binary");
    assert_eq!(whole, written, "the row as written, value fields included");
    println!(
        "  {} (written before T, now salted): {} {}{}, as written",
        Event::render(&whole.encode()),
        whole.action,
        whole.payload.page,
        match &whole.payload.referrer {
            Some(r) => format!(" (from {r})"),
            None => String::new(),
        }
    );
    Ok(())
}
