//! Per-user event history, salted by user and site, newest first: the key
//! design of the Bigtable salting article and of KARTE's event store.
//!
//! Generates events for 100,000 users whose activity is Zipf-skewed (a few
//! users produce most events), prints keys the way a person tracing a
//! hotspot would read them, shows how the salt spreads the load over the
//! buckets, proves every key decodes back to its event, then ingests them
//! into the embedded store (redb) and reads a heavy user's latest events
//! back through a typed scan.
//!
//! Run: `cargo run --release --example events [-- --events N] [--data-dir DIR]`
//! (without `--data-dir`, the data lives in a temporary directory).

use keyschema::store::{RecordStore, RedbStore, Store};
use keyschema::RowKey;
use serde::{Deserialize, Serialize};
use std::io::Write as _;
use std::path::PathBuf;
use std::time::Instant;

/// One user action, a whole row. The key is
/// `hash(user_id, site) % 8 | user_id | site | rev(timestamp)`; the action
/// and its payload are value fields, stored beside the key.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = hash(user_id, site) % 8, then = user_id, site, rev(timestamp))]
pub struct Event {
    pub user_id: String,
    pub site: String,
    pub timestamp: u64,
    #[rowkey(value)]
    pub action: String,
    #[rowkey(value)]
    pub payload: Payload,
}

/// What came with an action.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
pub struct Payload {
    pub page: String,
    pub referrer: Option<String>,
}

/// The same fields salted over the whole key: one user's events spread over
/// every bucket ("N hotspots of strength 1/N"), at the price of a scan per
/// bucket even for one user and site.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = hash(*) % 8, then = user_id, site, rev(timestamp))]
pub struct EventSpread {
    pub user_id: String,
    pub site: String,
    pub timestamp: u64,
}

pub const USERS: usize = 100_000;
pub const SITES: [&str; 5] = [
    "shop.example",
    "news.example",
    "blog.example",
    "docs.example",
    "mail.example",
];
const ACTIONS: [&str; 4] = ["view", "click", "purchase", "scroll"];

/// splitmix64: small, fast and deterministic, so every run shows the same numbers.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Samples user ranks with probability proportional to 1 / rank^s.
pub struct Zipf {
    cdf: Vec<f64>,
}

impl Zipf {
    pub fn new(n: usize, s: f64) -> Self {
        let mut acc = 0.0;
        let mut cdf: Vec<f64> = (1..=n)
            .map(|rank| {
                acc += 1.0 / (rank as f64).powf(s);
                acc
            })
            .collect();
        for c in &mut cdf {
            *c /= acc;
        }
        Zipf { cdf }
    }
    pub fn sample(&self, rng: &mut Rng) -> usize {
        let u = rng.unit();
        self.cdf.partition_point(|&c| c < u).min(self.cdf.len() - 1)
    }
}

fn main() {
    let mut events_wanted = 1_000_000usize;
    let mut data_dir: Option<PathBuf> = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match (arg.as_str(), args.next()) {
            ("--events", Some(n)) if n.parse::<usize>().is_ok_and(|n| n > 0) => {
                events_wanted = n.parse().unwrap_or(1)
            }
            ("--data-dir", Some(dir)) => data_dir = Some(PathBuf::from(dir)),
            // The layout as a JSON document, for the `keyschema` command line
            // tool and the Python package.
            ("--schema-out", Some(path)) => {
                if let Err(e) = std::fs::write(&path, Event::schema().to_json()) {
                    eprintln!("cannot write {path}: {e}");
                    std::process::exit(1);
                }
            }
            _ => {
                eprintln!("usage: events [--events N] [--data-dir DIR] [--schema-out FILE]");
                std::process::exit(2);
            }
        }
    }

    println!("schema  {}", Event::schema());
    println!();

    // Generate the workload.
    let start = Instant::now();
    let zipf = Zipf::new(USERS, 1.1);
    let mut rng = Rng(0x5EED);
    let base = 1_700_000_000u64;
    let mut events = Vec::with_capacity(events_wanted);
    let mut per_user = vec![0u32; USERS];
    for i in 0..events_wanted {
        let rank = zipf.sample(&mut rng);
        per_user[rank] += 1;
        events.push(Event {
            user_id: format!("user{rank:05}"),
            site: SITES[(rng.next_u64() % SITES.len() as u64) as usize].to_string(),
            timestamp: base + i as u64,
            action: ACTIONS[(rng.next_u64() % ACTIONS.len() as u64) as usize].to_string(),
            payload: Payload {
                page: format!("/p/{}", rng.next_u64() % 50),
                referrer: rng
                    .next_u64()
                    .is_multiple_of(3)
                    .then(|| "search".to_string()),
            },
        });
    }
    let heavy = per_user
        .iter()
        .enumerate()
        .max_by_key(|(_, n)| **n)
        .map(|(u, n)| (u, *n))
        .unwrap_or_default();
    let active = per_user.iter().filter(|&&n| n > 0).count();
    println!(
        "workload  {} events, {} of {USERS} users active; the heaviest user, user{:05}, has {} events ({:.1}%)",
        events.len(),
        active,
        heavy.0,
        heavy.1,
        100.0 * f64::from(heavy.1) / events.len() as f64
    );

    // Encode every key into one reused buffer.
    let encode_start = Instant::now();
    let mut keys: Vec<Vec<u8>> = Vec::with_capacity(events.len());
    let mut buf = Vec::with_capacity(64);
    for e in &events {
        buf.clear();
        e.encode_into(&mut buf);
        keys.push(buf.clone());
    }
    let encode_time = encode_start.elapsed();

    println!();
    println!("a few keys, as bytes and as a person reads them:");
    for e in events
        .iter()
        .filter(|e| e.user_id == format!("user{:05}", heavy.0))
        .take(3)
        .chain(events.iter().skip(1000).take(2))
    {
        let key = e.encode();
        println!("  {:<62} {}", hex(&key), Event::render(&key));
    }

    // The spread over buckets: what each tablet or region would serve.
    let mut per_bucket = vec![0usize; Event::BUCKETS as usize];
    for key in &keys {
        match Event::schema().bucket_of(key) {
            Ok(b) => per_bucket[b as usize] += 1,
            Err(e) => panic!("a key we just encoded has no bucket: {e}"),
        }
    }
    println!();
    println!(
        "rows per salt bucket (even is 1/{} = {:.1}%):",
        Event::BUCKETS,
        100.0 / f64::from(Event::BUCKETS)
    );
    let max = per_bucket.iter().copied().max().unwrap_or(1).max(1);
    for (b, n) in per_bucket.iter().enumerate() {
        let bar = "#".repeat(n * 40 / max);
        println!(
            "  bucket {b}  {n:>9}  {:>5.1}%  {bar}",
            100.0 * *n as f64 / keys.len() as f64
        );
    }
    let min = per_bucket.iter().copied().min().unwrap_or(0);
    println!(
        "  hottest/coldest bucket: {:.2}x",
        max as f64 / min.max(1) as f64
    );
    println!(
        "  (hash(user_id, site) keeps a user's site in one bucket, so the heaviest user stays hot)"
    );

    let mut spread = vec![0usize; EventSpread::BUCKETS as usize];
    for e in &events {
        let key = EventSpread::get_key(&e.user_id, &e.site, e.timestamp);
        if let Ok(b) = EventSpread::schema().bucket_of(&key) {
            spread[b as usize] += 1;
        }
    }
    let (lo, hi) = (
        spread.iter().min().copied().unwrap_or(0),
        spread.iter().max().copied().unwrap_or(0),
    );
    println!(
        "  with salt = hash(*) % 8 instead: buckets hold {:.1}% to {:.1}% of rows, hottest/coldest {:.2}x,",
        100.0 * lo as f64 / events.len() as f64,
        100.0 * hi as f64 / events.len() as f64,
        hi as f64 / lo.max(1) as f64
    );
    println!(
        "  but a scan for one user and site needs {} ranges instead of 1",
        EventSpread::scan()
            .user_id("user00000")
            .site(SITES[0])
            .ranges()
            .len()
    );

    // The heavy user's rows live in a few buckets (one per site); a scan for
    // one user and site is a single range, for one user alone one per bucket.
    let user = format!("user{:05}", heavy.0);
    let one = Event::scan().user_id(&user).site(SITES[0]).ranges();
    let all = Event::scan().user_id(&user).ranges();
    let matched = keys.iter().filter(|k| all.contains(k)).count();
    println!();
    println!(
        "scan ranges for {user}: {} for one site, {} for every site; those ranges hold {matched} keys (expected {})",
        one.len(),
        all.len(),
        heavy.1
    );
    assert_eq!(
        matched, heavy.1 as usize,
        "the scan ranges hold exactly the user's rows"
    );

    // Every key decodes back to its event's key fields.
    let decode_start = Instant::now();
    let mut round_trips = 0usize;
    for (key, e) in keys.iter().zip(&events) {
        match Event::decode(key) {
            Ok(back)
                if back.user_id == e.user_id
                    && back.site == e.site
                    && back.timestamp == e.timestamp =>
            {
                round_trips += 1
            }
            Ok(back) => panic!("{} decoded to {back:?}, not {e:?}", Event::render(key)),
            Err(err) => panic!("{} does not decode: {err}", Event::render(key)),
        }
    }
    let decode_time = decode_start.elapsed();
    println!();
    println!(
        "round trip: {round_trips} of {} keys decode back to their events",
        keys.len()
    );
    println!(
        "encode {:.0} ns/key, decode {:.0} ns/key (this build; benchmarks live in benches/)",
        encode_time.as_nanos() as f64 / keys.len() as f64,
        decode_time.as_nanos() as f64 / keys.len() as f64,
    );

    // Onto the embedded store: the directory given, or a temporary one removed at exit.
    let temp = match &data_dir {
        Some(_) => None,
        None => match tempfile::tempdir() {
            Ok(t) => Some(t),
            Err(e) => {
                eprintln!("cannot create a temporary directory: {e}");
                std::process::exit(1);
            }
        },
    };
    let dir = match (&data_dir, &temp) {
        (Some(dir), _) => dir.clone(),
        (None, Some(t)) => t.path().to_path_buf(),
        (None, None) => PathBuf::from("."),
    };
    if let Err(e) = run_on_store(&dir, &events, &keys, &user) {
        eprintln!("store error: {e}");
        std::process::exit(1);
    }
    println!();
    println!("total {:.1} s", start.elapsed().as_secs_f64());
}

/// Writes every event into the store in batches of 20,000 (one transaction
/// and one fsync each), then reads a heavy user's latest events back.
fn run_on_store(
    dir: &std::path::Path,
    events: &[Event],
    keys: &[Vec<u8>],
    heavy_user: &str,
) -> Result<(), Box<dyn std::error::Error>> {
    let store = RedbStore::open(dir)?;
    println!();
    println!("ingesting into {} ...", store.path().display());
    let start = Instant::now();
    let mut written = 0usize;
    for chunk in events.chunks(20_000) {
        // Whole rows: the key, and the value fields as one MessagePack map.
        store.put_records(chunk)?;
        written += chunk.len();
        if written.is_multiple_of(100_000) || written == keys.len() {
            progress(written, keys.len(), start);
        }
    }
    let ingest = start.elapsed();
    println!();
    println!(
        "ingested {written} rows in {:.1} s: {:.0} rows/s (batches of 20,000, one fsync each)",
        ingest.as_secs_f64(),
        written as f64 / ingest.as_secs_f64()
    );

    // Rows per bucket, counted by scanning each bucket's range.
    let start = Instant::now();
    let mut per_bucket = Vec::new();
    let mut total = 0usize;
    for range in Event::scan().ranges().iter() {
        let n = store
            .scan(range, keyschema::store::Direction::Forward)?
            .count();
        per_bucket.push(n);
        total += n;
    }
    let raw = start.elapsed();
    println!("stored rows per bucket: {per_bucket:?}");
    println!(
        "raw scan of all {total} rows: {:.0} rows/s",
        total as f64 / raw.as_secs_f64()
    );

    // The typed scans of whole rows: merged into key order, and unordered.
    let start = Instant::now();
    let ordered = Event::scan()
        .run(&store)
        .records()
        .try_fold(0usize, |n, r| r.map(|_| n + 1))?;
    let ordered_time = start.elapsed();
    let start = Instant::now();
    let unordered = Event::scan()
        .unordered()
        .run(&store)
        .records()
        .try_fold(0usize, |n, r| r.map(|_| n + 1))?;
    let unordered_time = start.elapsed();
    println!(
        "typed scan of whole rows: ordered 8-bucket merge {:.0} rows/s, unordered {:.0} rows/s ({ordered} and {unordered} rows)",
        ordered as f64 / ordered_time.as_secs_f64(),
        unordered as f64 / unordered_time.as_secs_f64()
    );

    // One heavy user's latest 10 events on one site: one range, newest first.
    let start = Instant::now();
    let latest: Vec<Event> = Event::scan()
        .user_id(heavy_user)
        .site(SITES[0])
        .limit(10)
        .run(&store)
        .records()
        .collect::<Result<_, _>>()?;
    let took = start.elapsed();
    println!();
    println!(
        "{heavy_user}'s latest 10 events on {} ({} µs, typed scan with limit 10):",
        SITES[0],
        took.as_micros()
    );
    for event in &latest {
        println!(
            "  {}  {:<8} {}{}",
            Event::render(&event.encode()),
            event.action,
            event.payload.page,
            match &event.payload.referrer {
                Some(r) => format!(" (from {r})"),
                None => String::new(),
            }
        );
    }
    Ok(())
}

fn progress(done: usize, total: usize, start: Instant) {
    let width = 40;
    let filled = done * width / total.max(1);
    let rate = done as f64 / start.elapsed().as_secs_f64().max(1e-9);
    print!(
        "\r  [{}{}] {done}/{total} rows, {rate:.0} rows/s",
        "#".repeat(filled),
        " ".repeat(width - filled)
    );
    let _ = std::io::stdout().flush();
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
