//! The `events` workload on Cloud Bigtable: per-user event history, salted
//! by user and site, newest first (the Bigtable salting article and KARTE).
//!
//! Creates the table pre-split at the 8 salt boundaries (or keeps it when it
//! exists), ingests skewed events in batches with progress and rows/s, then
//! reads the heaviest user's latest events through a typed scan that sends
//! one ReadRows per bucket concurrently and merges them in key order.
//!
//! Where it runs:
//! - `BIGTABLE_EMULATOR_HOST=host:port`: that emulator;
//! - nothing set: it starts `cbtemulator` (the Google Cloud CLI's emulator) on
//!   a free loopback port and stops it at the end;
//! - `--project P --instance I` with `BIGTABLE_ACCESS_TOKEN` set (for example
//!   from `gcloud auth print-access-token`): a real instance, over TLS.
//!
//! Run: `cargo run --release --features bigtable --example bigtable_events [-- --events N] [--table T]`

use futures_util::StreamExt;
use keyschema::store::bigtable::{BigtableStore, TokenError, TokenSource};
use keyschema::RowKey;
use std::future::Future;
use std::net::{TcpListener, TcpStream};
use std::pin::Pin;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// One user action; the key is `hash(user_id, site) % 8 | user_id | site | rev(timestamp)`.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = hash(user_id, site) % 8, then = user_id, site, rev(timestamp))]
pub struct Event {
    pub user_id: String,
    pub site: String,
    pub timestamp: u64,
}

const EMULATOR: &str = "/usr/lib/google-cloud-sdk/platform/bigtable-emulator/cbtemulator";
const SITES: [&str; 5] = ["shop", "news", "blog", "docs", "mail"];
const ACTIONS: [&str; 4] = ["view", "click", "purchase", "scroll"];
const BATCH: usize = 10_000;

struct Args {
    events: usize,
    table: String,
    project: String,
    instance: String,
}

fn args() -> Result<Args, String> {
    let mut out = Args {
        events: 200_000,
        table: format!("events-{}", std::process::id()),
        project: "keyschema".into(),
        instance: "demo".into(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--events" => {
                out.events = value()?
                    .replace('_', "")
                    .parse()
                    .map_err(|e| format!("--events: {e}"))?
            }
            "--table" => out.table = value()?,
            "--project" => out.project = value()?,
            "--instance" => out.instance = value()?,
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(out)
}

/// A bearer token from the environment (`gcloud auth print-access-token`).
struct StaticToken(String);

impl TokenSource for StaticToken {
    fn token(&self) -> Pin<Box<dyn Future<Output = Result<String, TokenError>> + Send + '_>> {
        let token = self.0.clone();
        Box::pin(async move { Ok(token) })
    }
}

/// The emulator this example started; stopped when dropped.
struct Emulator(Child);

impl Drop for Emulator {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start_emulator() -> Result<(String, Emulator), Box<dyn std::error::Error>> {
    let port = TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
    let child = Command::new(EMULATOR)
        .args(["-host", "127.0.0.1", "-port", &port.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| {
            format!("cannot start {EMULATOR}: {e} (set BIGTABLE_EMULATOR_HOST to use another)")
        })?;
    let emulator = Emulator(child);
    let host = format!("127.0.0.1:{port}");
    let deadline = Instant::now() + Duration::from_secs(20);
    while TcpStream::connect(&host).is_err() {
        if Instant::now() > deadline {
            return Err(format!("the emulator did not answer on {host} within 20 s").into());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok((host, emulator))
}

/// splitmix64: deterministic, so every run shows the same numbers.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// Events of 10,000 users; user `u0` is heavy (a fifth of all events), the
/// rest uniform, one second apart.
fn events(n: usize) -> Vec<(Event, &'static str)> {
    let mut rng = Rng(42);
    (0..n)
        .map(|i| {
            let r = rng.next();
            let user = if r.is_multiple_of(5) {
                0
            } else {
                (r >> 8) % 10_000
            };
            let event = Event {
                user_id: format!("u{user}"),
                site: SITES[(r >> 40) as usize % SITES.len()].to_string(),
                timestamp: 1_700_000_000 + i as u64,
            };
            (event, ACTIONS[(r >> 50) as usize % ACTIONS.len()])
        })
        .collect()
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = args()?;
    let mut _emulator = None;
    let store = match (
        std::env::var("BIGTABLE_EMULATOR_HOST"),
        std::env::var("BIGTABLE_ACCESS_TOKEN"),
    ) {
        (Ok(host), _) => {
            println!("Bigtable emulator at {host} (BIGTABLE_EMULATOR_HOST)");
            BigtableStore::connect_emulator(&host, &args.project, &args.instance, &args.table)
                .await?
        }
        (Err(_), Ok(token)) => {
            println!(
                "Cloud Bigtable, projects/{}/instances/{}",
                args.project, args.instance
            );
            BigtableStore::connect(
                &args.project,
                &args.instance,
                &args.table,
                StaticToken(token),
            )
            .await?
        }
        (Err(_), Err(_)) => {
            let (host, emulator) = start_emulator()?;
            println!("started the Bigtable emulator on {host}");
            _emulator = Some(emulator);
            BigtableStore::connect_emulator(&host, &args.project, &args.instance, &args.table)
                .await?
        }
    };

    let created = store.create_table_for::<Event>().await?;
    let splits = Event::schema().salt_splits();
    println!(
        "table {}: {} ({} split points at the salt boundaries: {})",
        store.table_name(),
        if created {
            "created"
        } else {
            "already there, kept"
        },
        splits.len(),
        splits
            .iter()
            .map(|s| Event::schema().render_prefix(s))
            .collect::<Vec<_>>()
            .join(" ")
    );

    let events = events(args.events);
    println!();
    println!(
        "ingesting {} events in batches of {BATCH} (each cut to Bigtable's request limits):",
        events.len()
    );
    let started = Instant::now();
    let mut per_bucket = [0usize; 8];
    for (n, chunk) in events.chunks(BATCH).enumerate() {
        for (event, _) in chunk {
            per_bucket[usize::from(event.encode()[0])] += 1;
        }
        store
            .put_rows(
                chunk
                    .iter()
                    .map(|(event, action)| (event, action.as_bytes())),
            )
            .await?;
        let done = (n * BATCH + chunk.len()) as f64;
        let secs = started.elapsed().as_secs_f64();
        println!(
            "  {:>9} rows  {:>6.1} s  {:>9.0} rows/s",
            done as usize,
            secs,
            done / secs.max(1e-9)
        );
    }
    let secs = started.elapsed().as_secs_f64();
    println!(
        "ingested {} rows in {secs:.1} s: {:.0} rows/s",
        events.len(),
        events.len() as f64 / secs.max(1e-9)
    );
    println!("rows per salt bucket (one tablet each): {per_bucket:?}");

    // The heaviest user: its sites sit in several buckets; one ReadRows per
    // bucket, all in flight, merged by (site, newest first).
    println!();
    let started = Instant::now();
    let mut latest = Event::scan().user_id("u0").limit(10).stream(&store);
    println!("u0's first 10 rows in key order (site, then newest first):");
    let mut n = 0;
    while let Some(row) = latest.next().await {
        let (event, action) = row?;
        n += 1;
        println!(
            "  {:<34} {}",
            Event::render(&event.encode()),
            String::from_utf8_lossy(&action)
        );
    }
    println!(
        "{n} rows from {} bucket ranges in {:.1} ms",
        Event::scan().user_id("u0").ranges().len(),
        started.elapsed().as_secs_f64() * 1e3
    );

    // One site: the salt is known, one range, newest first.
    let started = Instant::now();
    let mut shop = Event::scan()
        .user_id("u0")
        .site("shop")
        .limit(5)
        .stream(&store);
    let mut newest = Vec::new();
    while let Some(row) = shop.next().await {
        newest.push(row?.0.timestamp);
    }
    println!(
        "u0's 5 newest on shop (one range): {newest:?} in {:.1} ms",
        started.elapsed().as_secs_f64() * 1e3
    );
    assert!(newest.windows(2).all(|w| w[0] > w[1]), "newest first");
    Ok(())
}
