//! The `events` workload on Cloud Bigtable: per-user event history, salted
//! by user and site, newest first (the Bigtable salting article and KARTE).
//!
//! Creates the table pre-split at the 8 salt boundaries, with the family of
//! the events' value fields (or keeps it when it exists), ingests skewed
//! events as whole rows in batches with progress and rows/s, then reads the
//! heaviest user's latest events, whole, through a typed scan that sends one
//! ReadRows per bucket concurrently and merges them in key order. One row is
//! printed as Bigtable holds it: a column per value field, named after it
//! (and, when `cbt` is on the `PATH` and the store is an emulator, as
//! `cbt read` prints it).
//!
//! Where it runs:
//! - `BIGTABLE_EMULATOR_HOST=host:port`: that emulator;
//! - nothing set: it starts `cbtemulator` (the Google Cloud CLI's emulator) on
//!   a free loopback port and stops it at the end;
//! - `--project P --instance I` with `BIGTABLE_ACCESS_TOKEN` set (for example
//!   from `gcloud auth print-access-token`): a real instance, over TLS.
//!
//! Run: `cargo run --release --features bigtable --example bigtable_events [-- --events N] [--table T]`

#[path = "common/bigtable_event.rs"]
mod bigtable_event;
#[path = "common/emulator.rs"]
mod emulator;

use bigtable_event::Event;

use emulator::start_emulator;
use futures_util::StreamExt;
use keyschema::record::cells;
use keyschema::store::bigtable::{BigtableStore, TokenError, TokenSource};
use keyschema::store::{AsyncRecordStore, AsyncStore};
use keyschema::RowKey;
use std::future::Future;
use std::pin::Pin;
use std::process::Command;
use std::time::Instant;

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
            // The schema document, for the `keyschema` tool and Python.
            "--schema-out" => {
                let path = value()?;
                std::fs::write(&path, Event::schema().to_json())
                    .map_err(|e| format!("cannot write {path}: {e}"))?
            }
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
fn events(n: usize) -> Vec<Event> {
    let mut rng = Rng(42);
    (0..n)
        .map(|i| {
            let r = rng.next();
            let user = if r.is_multiple_of(5) {
                0
            } else {
                (r >> 8) % 10_000
            };
            Event {
                user_id: format!("u{user}"),
                site: SITES[(r >> 40) as usize % SITES.len()].to_string(),
                timestamp: 1_700_000_000 + i as u64,
                action: ACTIONS[(r >> 50) as usize % ACTIONS.len()].to_string(),
                page: format!("/p/{}", (r >> 20) % 50),
                duration_ms: ((r >> 28) % 30_000) as u32,
                referrer: (r >> 58).is_multiple_of(3).then(|| "search".to_string()),
            }
        })
        .collect()
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = args()?;
    let mut _emulator = None;
    // The emulator's address, for `cbt` (a real instance needs its own login).
    let mut emulator_host = None;
    let store = match (
        std::env::var("BIGTABLE_EMULATOR_HOST"),
        std::env::var("BIGTABLE_ACCESS_TOKEN"),
    ) {
        (Ok(host), _) => {
            println!("Bigtable emulator at {host} (BIGTABLE_EMULATOR_HOST)");
            let store =
                BigtableStore::connect_emulator(&host, &args.project, &args.instance, &args.table)
                    .await?;
            emulator_host = Some(host);
            store
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
            let store =
                BigtableStore::connect_emulator(&host, &args.project, &args.instance, &args.table)
                    .await?;
            emulator_host = Some(host);
            store
        }
    };

    let created = store.create_table_for::<Event>().await?;
    let splits = Event::schema().salt_splits();
    println!(
        "table {}: {} ({} split points at the salt boundaries: {}; family {}, a column per value field)",
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
            .join(" "),
        Event::schema().family()
    );

    let events = events(args.events);
    println!();
    println!(
        "ingesting {} events as whole rows in batches of {BATCH} (each cut to Bigtable's request limits):",
        events.len()
    );
    let started = Instant::now();
    let mut per_bucket = [0usize; 8];
    for (n, chunk) in events.chunks(BATCH).enumerate() {
        for event in chunk {
            per_bucket[usize::from(event.encode()[0])] += 1;
        }
        // One MutateRows entry per row: a SetCell per value field.
        store.put_records(chunk).await?;
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
    let mut latest = Event::scan()
        .user_id("u0")
        .limit(10)
        .stream(&store)
        .records();
    println!("u0's first 10 rows in key order (site, then newest first), whole:");
    let mut n = 0;
    while let Some(row) = latest.next().await {
        let event = row?;
        n += 1;
        println!(
            "  {:<26} {:<8} {:<6} {:>6} ms{}",
            Event::render(&event.encode()),
            event.action,
            event.page,
            event.duration_ms,
            match &event.referrer {
                Some(r) => format!("  from {r}"),
                None => String::new(),
            }
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
        .stream(&store)
        .records();
    let mut newest = Vec::new();
    let mut actions = Vec::new();
    while let Some(row) = shop.next().await {
        let event = row?;
        newest.push(event.timestamp);
        actions.push(event.action);
    }
    println!(
        "u0's 5 newest on shop (one range): {newest:?} in {:.1} ms",
        started.elapsed().as_secs_f64() * 1e3
    );
    println!("  their actions: {}", actions.join(", "));
    assert!(newest.windows(2).all(|w| w[0] > w[1]), "newest first");

    show_first_row(&store, emulator_host.as_deref(), &args).await
}

/// The table's first row three ways: as the library reads it back (a typed
/// get), as Bigtable holds it (its cells, a column per value field), and,
/// on an emulator with `cbt` on the `PATH`, as `cbt read` prints it.
async fn show_first_row(
    store: &BigtableStore,
    emulator_host: Option<&str>,
    args: &Args,
) -> Result<(), Box<dyn std::error::Error>> {
    let mut first = Event::scan().limit(1).stream(store).records();
    let event = first.next().await.ok_or("the table has rows")??;
    let key = event.encode();
    let got = store
        .get_record::<Event>(&key)
        .await?
        .ok_or("the first row is stored")?;
    assert_eq!(got, event, "a get reads the row the scan read");
    println!();
    println!("the table's first row, {}:", Event::render(&key));
    println!("  get_record: {got:?}");

    // The cells under the key, as a ReadRows of the family returns them.
    let (_, value) = store
        .get_many_for(Event::schema(), vec![key.clone()])
        .await?
        .into_iter()
        .next()
        .ok_or("the first row is stored")?;
    println!(
        "  as Bigtable holds it: row key \"{}\", one cell per value field",
        escaped(&key)
    );
    // In the order Bigtable keeps them (by qualifier), then the fields
    // without a cell.
    let family = Event::schema().family();
    let fields = Event::schema().values();
    let stored = cells::read_cell_map(&value)?;
    for (qualifier, cell) in &stored {
        let field = fields.iter().find(|f| f.name.as_bytes() == *qualifier);
        let number = match (field, <[u8; 8]>::try_from(*cell)) {
            (Some(f), Ok(n)) if is_integer(f.type_name) => {
                format!("  = {} (64-bit big-endian)", i64::from_be_bytes(n))
            }
            _ => String::new(),
        };
        let column = format!("{family}:{}", escaped(qualifier));
        println!("    {column:<14} \"{}\"{number}", escaped(cell));
    }
    for field in fields {
        if !stored.iter().any(|(q, _)| *q == field.name.as_bytes()) {
            let column = format!("{family}:{}", field.name);
            println!("    {column:<14} no cell (the field is None)");
        }
    }

    // The same row through Google's `cbt`, when it is there (optional).
    if let Some(host) = emulator_host {
        cbt_read(host, args);
    }
    Ok(())
}

/// `cbt read TABLE count=1` with the format file the library writes for
/// the key type (integers print as numbers). Skipped, with a note, when
/// `cbt` cannot run.
fn cbt_read(host: &str, args: &Args) {
    let format = std::env::temp_dir().join(format!("{}.cbt.yml", args.table));
    if let Err(e) = std::fs::write(&format, cells::cbt_format_file(Event::schema())) {
        println!("  (cbt skipped: cannot write {}: {e})", format.display());
        return;
    }
    let output = Command::new("cbt")
        .env("BIGTABLE_EMULATOR_HOST", host)
        .args(["-project", &args.project, "-instance", &args.instance])
        .args(["read", &args.table, "count=1"])
        .arg(format!("format-file={}", format.display()))
        .output();
    let _ = std::fs::remove_file(&format);
    match output {
        Ok(out) if out.status.success() => {
            println!(
                "  cbt read {} count=1 format-file={} (cbt is on the PATH; the file, from cells::cbt_format_file, prints integers as numbers):",
                args.table,
                format.display()
            );
            // cbt prints the row key's bytes as they are: escaped here.
            for line in out.stdout.trim_ascii_end().split(|&b| b == b'\n') {
                println!("    {}", escaped_line(line));
            }
        }
        Ok(out) => println!(
            "  (cbt read failed: {})",
            String::from_utf8_lossy(&out.stderr).trim()
        ),
        Err(e) => println!("  (cbt not run: {e}; it ships with the Google Cloud CLI)"),
    }
}

/// Whether a value field's type (as written) is an integer, stored as a
/// 64-bit big-endian cell.
fn is_integer(type_name: &str) -> bool {
    let ty = type_name.replace(' ', "");
    let ty = ty
        .strip_prefix("Option<")
        .and_then(|t| t.strip_suffix('>'))
        .unwrap_or(&ty);
    matches!(
        ty,
        "i8" | "i16" | "i32" | "i64" | "u8" | "u16" | "u32" | "u64"
    )
}

/// A line of `cbt`'s output with the bytes that are not printable ASCII as
/// `\xNN` (the row key's salt byte, separators and reversed timestamp).
fn escaped_line(line: &[u8]) -> String {
    line.iter()
        .map(|&b| match b {
            0x20..=0x7e => char::from(b).to_string(),
            _ => format!("\\x{b:02x}"),
        })
        .collect()
}

/// Bytes as `cbt` prints them: printable ASCII as is, the rest `\xNN`.
fn escaped(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|&b| match b {
            b'"' | b'\\' => format!("\\{}", char::from(b)),
            0x20..=0x7e => char::from(b).to_string(),
            _ => format!("\\x{b:02x}"),
        })
        .collect()
}
