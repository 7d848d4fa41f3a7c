//! OpenTSDB-style metrics on an ordered store: why the key starts with the
//! metric, why it is salted, and how pre-splitting spreads the load — the
//! HBase article's lessons, measured with a hotspot report.
//!
//! The workload: datapoints for 40 metrics on 500 hosts, one "celebrity"
//! metric taking 30% of all writes, timestamps always increasing. Each key
//! design is pre-split into 32 regions from the first window of writes,
//! then measured on the writes that follow. Heatmaps (key space against
//! time, like Bigtable's Key Visualizer) are written as SVG.
//!
//! Run: `cargo run --release --example metrics [-- --out DIR]`

use keyschema::hotspot::{heatmap_svg, HotspotReport};
use keyschema::{splits, RowKey};

/// Timestamp first: every new write lands after the last split.
#[derive(RowKey, Debug, Clone)]
#[rowkey(then = timestamp, metric, host)]
pub struct TimeFirst {
    pub timestamp: u64,
    pub metric: String,
    pub host: String,
}

/// OpenTSDB's layout, salted by metric: metrics spread, the celebrity stays hot.
#[derive(RowKey, Debug, Clone)]
#[rowkey(salt = hash(metric) % 8, then = metric, timestamp, host)]
pub struct ByMetric {
    pub metric: String,
    pub timestamp: u64,
    pub host: String,
}

/// Salted over the whole key: the celebrity's writes spread over every bucket
/// ("N hotspots of strength 1/N"), at the price of N scans per metric query.
#[derive(RowKey, Debug, Clone)]
#[rowkey(salt = hash(*) % 8, then = metric, timestamp, host)]
pub struct Spread {
    pub metric: String,
    pub timestamp: u64,
    pub host: String,
}

struct Point {
    metric: String,
    timestamp: u64,
    host: String,
}

/// A small deterministic generator (splitmix64).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn workload(n: usize) -> Vec<Point> {
    let mut rng = Rng(7);
    (0..n)
        .map(|i| {
            let metric = if rng.unit() < 0.30 {
                "sys.cpu.user".to_string()
            } else {
                format!("app.metric.{:02}", rng.next() % 39)
            };
            // Hosts Zipf-ish: host k about 1/k as busy as host 1.
            let host = (500f64.powf(rng.unit()) as u64).saturating_sub(1);
            Point {
                metric,
                timestamp: 1_700_000_000 + i as u64,
                host: format!("host{host:03}"),
            }
        })
        .collect()
}

struct Design {
    name: &'static str,
    declaration: &'static str,
    keys: Vec<Vec<u8>>,
    splits: Vec<Vec<u8>>,
}

fn main() {
    let mut out_dir = std::path::PathBuf::from("target/hotspots");
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match (arg.as_str(), args.next()) {
            ("--out", Some(dir)) => out_dir = dir.into(),
            // One schema document per design.
            ("--schema-out", Some(dir)) => {
                let dir = std::path::PathBuf::from(dir);
                let written = std::fs::create_dir_all(&dir).and_then(|()| {
                    std::fs::write(dir.join("time_first.json"), TimeFirst::schema().to_json())?;
                    std::fs::write(dir.join("by_metric.json"), ByMetric::schema().to_json())?;
                    std::fs::write(dir.join("spread.json"), Spread::schema().to_json())
                });
                if let Err(e) = written {
                    eprintln!(
                        "cannot write the schema documents in {}: {e}",
                        dir.display()
                    );
                    std::process::exit(1);
                }
            }
            _ => {
                eprintln!("usage: metrics [--out DIR] [--schema-out DIR]");
                std::process::exit(2);
            }
        }
    }
    const WARMUP: usize = 100_000;
    const MEASURED: usize = 200_000;
    const WINDOWS: usize = 40;
    let points = workload(WARMUP + MEASURED);

    let mut designs = [
        Design {
            name: "timestamp-first",
            declaration: "then = timestamp, metric, host",
            keys: points
                .iter()
                .map(|p| TimeFirst::get_key(p.timestamp, &p.metric, &p.host))
                .collect(),
            splits: Vec::new(),
        },
        Design {
            name: "salted by metric",
            declaration: "salt = hash(metric) % 8, then = metric, timestamp, host",
            keys: points
                .iter()
                .map(|p| ByMetric::get_key(&p.metric, p.timestamp, &p.host))
                .collect(),
            splits: Vec::new(),
        },
        Design {
            name: "salted over the whole key",
            declaration: "salt = hash(*) % 8, then = metric, timestamp, host",
            keys: points
                .iter()
                .map(|p| Spread::get_key(&p.metric, p.timestamp, &p.host))
                .collect(),
            splits: Vec::new(),
        },
    ];
    // Pre-split each design into 32 regions from the first window's keys.
    let schemas = [TimeFirst::schema(), ByMetric::schema(), Spread::schema()];
    for (design, schema) in designs.iter_mut().zip(schemas) {
        let per_bucket = 32 / schema.buckets() as usize;
        design.splits = splits::plan(
            schema,
            design.keys[..WARMUP].iter().map(Vec::as_slice),
            per_bucket,
        );
    }

    if let Err(e) = std::fs::create_dir_all(&out_dir) {
        eprintln!("cannot create {}: {e}", out_dir.display());
        std::process::exit(1);
    }
    println!("{MEASURED} new datapoints after pre-splitting on {WARMUP}; 30% of writes go to sys.cpu.user");
    println!();
    println!(
        "{:<28} {:>8} {:>14} {:>12}   hottest region starts at",
        "design", "regions", "hottest share", "even share"
    );
    for (design, schema) in designs.iter().zip(schemas) {
        let measured = &design.keys[WARMUP..];
        let report = HotspotReport::new(&design.splits, measured);
        let (_, start) = report.hottest_region();
        println!(
            "{:<28} {:>8} {:>13.1}% {:>11.1}%   {}",
            design.name,
            report.regions(),
            100.0 * report.hottest_share(),
            100.0 / report.regions() as f64,
            if start.is_empty() {
                "(first region)".to_string()
            } else {
                schema.render_prefix(start)
            }
        );
        let windows: Vec<HotspotReport> = measured
            .chunks(MEASURED / WINDOWS)
            .map(|w| HotspotReport::new(&design.splits, w))
            .collect();
        let file = out_dir.join(format!("{}.svg", design.name.replace(' ', "-")));
        let title = format!("{}: {}", design.name, design.declaration);
        if let Err(e) = std::fs::write(&file, heatmap_svg(&title, &windows)) {
            eprintln!("cannot write {}: {e}", file.display());
            std::process::exit(1);
        }
    }
    println!();
    println!(
        "heatmaps (key space down, time across): {}/*.svg",
        out_dir.display()
    );
    println!();
    println!("split points of the metric-salted design, first 4, for HBase:");
    println!(
        "  {}",
        splits::hbase_create("tsdb", "t", &designs[1].splits[..4])
    );
    println!("and as salt boundaries only, for cbt (binary keys need the admin API):");
    match splits::cbt_createtable("tsdb", "t", &ByMetric::schema().salt_splits()) {
        Ok(cmd) => println!("  {cmd}"),
        Err(why) => println!("  {why}"),
    }
}
