//! Per-user event history, read per site too: a secondary index kept in
//! step with the rows, where a hand-written version keeps two key types,
//! two writes and two deletes in step by hand.
//!
//! The rows are the `events` workload (`hash(user_id, site) % 8 | user_id
//! | site | rev(timestamp)`); the index `EventBySite` lays the same rows
//! out by site, newest first (`hash(site, user_id) % 8 | s | site |
//! rev(timestamp) | user_id`). The example writes the first half of the
//! events with the binary before the index, deploys the index as
//! `building` (writes keep it, its scans are refused), builds the older
//! rows' entries with `IndexBackfill` and verifies both sides, then reads
//! each site's latest events through the index, deletes an event (its row
//! and its entry go together), and compares where the writes fall in both
//! layouts.
//!
//! With `--features bigtable` it then writes the same events to a Bigtable
//! emulator (one it starts itself, or `BIGTABLE_EMULATOR_HOST`), where a
//! row and its entries are separate rows written in three steps (new
//! entries, rows, old entries' deletes), and reads each site's latest
//! events through the index there.
//!
//! With `--features dynamodb` and `--dynamodb TABLE` it writes the first
//! 2,000 events to that DynamoDB table (on the server `DYNAMODB_ENDPOINT`
//! names, else AWS's), where `EventBySite` is a native GSI keyed on the
//! items' own attributes, and prints the boto3 call and the `aws dynamodb
//! query` command that read the index by field values.
//!
//! Run: `cargo run --release --example event_index [-- --events N] [--data-dir DIR]`
//! (`--features bigtable` for the Bigtable part; `--features dynamodb --
//! --dynamodb TABLE` for the DynamoDB part)

#[allow(dead_code)]
#[path = "events.rs"]
mod events;

#[path = "common/site_event.rs"]
mod site_event;

#[cfg(feature = "dynamodb")]
#[path = "common/dynamodb_index.rs"]
mod dynamodb_index;

#[cfg(feature = "bigtable")]
#[path = "common/emulator.rs"]
mod emulator;

use events::{Payload, Rng, Zipf, SITES, USERS};
use keyschema::hotspot::HotspotReport;
use keyschema::index::IndexBackfill;
use keyschema::store::{RecordStore, RedbStore, RowStore, Store};
use keyschema::{splits, Index, RowKey};
use site_event::{Event, EventBySite};
use std::path::PathBuf;
use std::time::Instant;

/// The rows as the binary before the index wrote them.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = hash(user_id, site) % 8, then = (user_id, site), rev(timestamp))]
pub struct EventBefore {
    pub user_id: String,
    pub site: String,
    pub timestamp: u64,
    #[rowkey(value)]
    pub action: String,
    #[rowkey(value)]
    pub payload: Payload,
}

/// The same rows while the index is being built.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(
    salt = hash(user_id, site) % 8,
    then = (user_id, site), rev(timestamp),
    index(EventBySiteBuilding, building, prefix = "s", salt = hash(site, user_id) % 8,
          then = (site), rev(timestamp), user_id),
)]
pub struct EventBuilding {
    pub user_id: String,
    pub site: String,
    pub timestamp: u64,
    #[rowkey(value)]
    pub action: String,
    #[rowkey(value)]
    pub payload: Payload,
}

const BASE: u64 = 1_700_000_000;
const ACTIONS: [&str; 4] = ["view", "click", "purchase", "scroll"];
/// Regions of the table in the hotspot report.
const REGIONS: usize = 32;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut events_wanted = 200_000usize;
    let mut data_dir: Option<PathBuf> = None;
    let mut dynamodb: Option<String> = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match (arg.as_str(), args.next()) {
            ("--events", Some(n)) if n.parse::<usize>().is_ok_and(|n| n >= 1_000) => {
                events_wanted = n.parse().unwrap_or(200_000)
            }
            ("--data-dir", Some(dir)) => data_dir = Some(PathBuf::from(dir)),
            ("--dynamodb", Some(table)) => dynamodb = Some(table),
            // The schema documents of the rows and of the index's entries.
            ("--schema-out", Some(path)) => std::fs::write(path, Event::schema().to_json())?,
            ("--index-schema-out", Some(path)) => {
                std::fs::write(path, EventBySite::schema().to_json())?
            }
            _ => return Err("usage: event_index [--events N (>= 1000)] [--data-dir DIR] [--schema-out FILE] [--index-schema-out FILE] [--dynamodb TABLE]".into()),
        }
    }
    println!("rows   {}", Event::schema());
    println!("index  {}", EventBySite::schema());

    let zipf = Zipf::new(USERS, 1.1);
    let mut rng = Rng(0x1DE);
    let events: Vec<Event> = (0..events_wanted)
        .map(|i| {
            let r = rng.next_u64();
            Event {
                user_id: format!("user{:06}", zipf.sample(&mut rng)),
                site: SITES[(r % SITES.len() as u64) as usize].to_string(),
                timestamp: BASE + i as u64,
                action: ACTIONS[((r >> 8) % ACTIONS.len() as u64) as usize].to_string(),
                payload: Payload {
                    page: format!("/p/{}", (r >> 16) % 50),
                    referrer: (r >> 24).is_multiple_of(3).then(|| "search".to_string()),
                },
            }
        })
        .collect();
    let sample = &events[0];
    println!(
        "\none event, two keys:\n  row    {}\n  entry  {}",
        Event::render(&sample.encode()),
        EventBySite::render(&EventBySite::entry_key(sample).ok_or("an entry")?),
    );

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
    let _ = std::fs::remove_file(path.join("event_index.redb"));
    let store = RedbStore::open(path.join("event_index.redb"))?;

    // 1: the first half, written by the binary before the index.
    let (older, newer) = events.split_at(events.len() / 2);
    let start = Instant::now();
    for chunk in older.chunks(10_000) {
        let rows: Vec<EventBefore> = chunk.iter().map(before).collect();
        store.put_records(&rows)?;
    }
    println!(
        "\n1. {} events written without the index ({:.0} rows/s)",
        older.len(),
        older.len() as f64 / start.elapsed().as_secs_f64()
    );

    // 2: the index deployed as `building`: every write keeps its entry
    // (one redb transaction reads the row, writes it and its entries).
    let start = Instant::now();
    for chunk in newer.chunks(10_000) {
        let rows: Vec<EventBuilding> = chunk.iter().map(building).collect();
        store.put_records(&rows)?;
    }
    println!(
        "2. {} events written with the index `building` ({:.0} rows/s, each with its entry)",
        newer.len(),
        newer.len() as f64 / start.elapsed().as_secs_f64()
    );
    let refused = EventBySiteBuilding::scan()
        .site(SITES[0])
        .run(&store)
        .rows()
        .next()
        .and_then(Result::err)
        .ok_or("a building index refuses its scans")?;
    println!("   its scans are refused meanwhile: {refused}");

    // 3: the older rows' entries, built and verified.
    let checkpoint = path.join("event_index.checkpoint");
    let _ = std::fs::remove_file(&checkpoint);
    let mut backfill = IndexBackfill::<EventBySiteBuilding>::new()
        .batch(5_000)
        .checkpoint(&checkpoint);
    let built = backfill.build(&store)?;
    println!(
        "3. backfill: {} rows read, {} entries written, {:.0} rows/s, finished: {}",
        built.rows_done, built.rows_written, built.rows_per_second, built.finished
    );
    let verified = backfill.verify(&store)?;
    println!(
        "   verify: {} rows, {} should have an entry, {} have it; {} entries, {} valid, {} stale: {}",
        verified.rows,
        verified.expected,
        verified.present,
        verified.entries,
        verified.valid,
        verified.stale,
        if verified.matches() { "complete" } else { "INCOMPLETE" }
    );
    if !verified.matches() {
        return Err("the index is not complete".into());
    }

    // 4: `building` dropped: each site's latest events, through the index.
    println!("\n4. each site's latest 3 events, through the index (8 buckets merged):");
    for site in SITES {
        let start = Instant::now();
        let latest: Vec<Event> = EventBySite::scan()
            .site(site)
            .limit(3)
            .run(&store)
            .rows()
            .collect::<Result<_, _>>()?;
        let micros = start.elapsed().as_secs_f64() * 1e6;
        let shown: Vec<String> = latest
            .iter()
            .map(|e| format!("{} {} {}", e.timestamp, e.user_id, e.action))
            .collect();
        println!("   {site:<13} {:>6.0} µs  {}", micros, shown.join(" | "));
        let want: Vec<&Event> = events
            .iter()
            .rev()
            .filter(|e| e.site == site)
            .take(3)
            .collect();
        if latest.iter().collect::<Vec<_>>() != want {
            return Err(format!("{site}: the index disagrees with the events written").into());
        }
    }

    // 5: a delete removes the row and its entry, in one transaction.
    let gone = events.last().ok_or("events")?;
    let entry = EventBySite::entry_key(gone).ok_or("an entry")?;
    store.delete_row(gone)?;
    let row_left = store.get(&gone.encode())?.is_some();
    let entry_left = store.get(&entry)?.is_some();
    let latest = EventBySite::scan()
        .site(gone.site.as_str())
        .limit(1)
        .run(&store)
        .rows()
        .next()
        .transpose()?;
    println!(
        "\n5. deleted {} {}: row left {row_left}, entry left {entry_left}; {}'s latest is now {:?}",
        gone.user_id,
        gone.timestamp,
        gone.site,
        latest.map(|e| e.timestamp)
    );
    if row_left || entry_left {
        return Err("a delete left a key behind".into());
    }

    // 6: where the latest 10% of the writes fall in each layout.
    let rows: Vec<Vec<u8>> = events.iter().map(RowKey::encode).collect();
    let entries: Vec<Vec<u8>> = events.iter().filter_map(EventBySite::entry_key).collect();
    let window = |keys: &[Vec<u8>]| keys[keys.len() * 9 / 10..].to_vec();
    let report = |schema: &keyschema::Schema, keys: &[Vec<u8>]| {
        let splits = splits::plan(schema, keys.iter().map(Vec::as_slice), REGIONS / 8);
        HotspotReport::new(&splits, window(keys))
    };
    let by_user = report(Event::schema(), &rows);
    let by_site = report(EventBySite::schema(), &entries);
    println!("\n6. the latest 10% of the writes over {REGIONS} regions per layout:");
    for (name, r) in [("rows by user", &by_user), ("index by site", &by_site)] {
        println!(
            "   {name:<14} the hottest region takes {:.1}% (an even spread is {:.1}%)",
            100.0 * r.hottest_share(),
            100.0 / r.regions() as f64
        );
    }
    #[cfg(feature = "bigtable")]
    on_bigtable(&events[..events.len().min(20_000)])?;
    if let Some(table) = dynamodb {
        #[cfg(feature = "dynamodb")]
        dynamodb_index::run(&table, &events[..events.len().min(2_000)])?;
        #[cfg(not(feature = "dynamodb"))]
        return Err(format!(
            "--dynamodb {table}: this build has no DynamoDB store; run it with --features dynamodb"
        )
        .into());
    }
    Ok(())
}

/// The same index on a Bigtable emulator: the events written with their
/// entries, each site's latest events read through the index, a delete.
#[cfg(feature = "bigtable")]
fn on_bigtable(events: &[Event]) -> Result<(), Box<dyn std::error::Error>> {
    use futures_util::StreamExt;
    use keyschema::store::bigtable::BigtableStore;
    use keyschema::store::{AsyncRecordStore, AsyncStore};

    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let mut _emulator = None;
    let host = match std::env::var("BIGTABLE_EMULATOR_HOST") {
        Ok(host) => host,
        Err(_) => {
            let (host, started) = emulator::start_emulator()?;
            _emulator = Some(started);
            host
        }
    };
    rt.block_on(async {
        let store = BigtableStore::connect_emulator(&host, "demo", "demo", "event_index").await?;
        store.create_table_for::<Event>().await?;
        println!(
            "
7. on the Bigtable emulator at {host}: {} events, table split at both layouts' buckets",
            events.len()
        );
        let start = Instant::now();
        for chunk in events.chunks(1_000) {
            // One ReadRows for the old values, then the new entries, the
            // rows, and the old entries' deletes: three MutateRows.
            store.put_records(chunk).await?;
        }
        println!(
            "   written with their entries: {:.0} rows/s",
            events.len() as f64 / start.elapsed().as_secs_f64()
        );
        for site in SITES {
            let start = Instant::now();
            let mut rows = EventBySite::scan().site(site).limit(3).stream_rows(&store);
            let mut latest = Vec::new();
            while let Some(row) = rows.next().await {
                latest.push(row?);
            }
            let ms = start.elapsed().as_secs_f64() * 1e3;
            let want: Vec<&Event> = events
                .iter()
                .rev()
                .filter(|e| e.site == site)
                .take(3)
                .collect();
            if latest.iter().collect::<Vec<_>>() != want {
                return Err(format!("{site}: the index disagrees with the events written").into());
            }
            let shown: Vec<String> = latest
                .iter()
                .map(|e| format!("{} {}", e.timestamp, e.user_id))
                .collect();
            println!("   {site:<13} {ms:>5.1} ms  {}", shown.join(" | "));
        }
        let gone = events.last().ok_or("events")?;
        let entry = EventBySite::entry_key(gone).ok_or("an entry")?;
        store.delete_row(gone).await?;
        let left = store
            .get_many_for(EventBySite::schema(), vec![entry.clone()])
            .await?;
        let row = store.get_record::<Event>(&gone.encode()).await?;
        println!(
            "   deleted {} {}: row left {}, entry {} left {}",
            gone.user_id,
            gone.timestamp,
            row.is_some(),
            EventBySite::render(&entry),
            !left.is_empty()
        );
        if row.is_some() || !left.is_empty() {
            return Err("a delete left a key behind".into());
        }
        Ok::<(), Box<dyn std::error::Error>>(())
    })
}

fn before(e: &Event) -> EventBefore {
    EventBefore {
        user_id: e.user_id.clone(),
        site: e.site.clone(),
        timestamp: e.timestamp,
        action: e.action.clone(),
        payload: e.payload.clone(),
    }
}

fn building(e: &Event) -> EventBuilding {
    EventBuilding {
        user_id: e.user_id.clone(),
        site: e.site.clone(),
        timestamp: e.timestamp,
        action: e.action.clone(),
        payload: e.payload.clone(),
    }
}
