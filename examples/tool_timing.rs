//! How long the `keyschema` command takes on a live table, as a person
//! waits for it: the first row of a whole-table `scan` (the command piped
//! into `head -1`), and a full `hotspot` with its default sample.
//!
//! It runs the tool (built separately, `cargo build --release -p
//! keyschema-cli`) against a table that exists, several times, and prints
//! each time and the median. The figures in the guide's tool chapter came
//! from a 400,000-row emulator table written by `bigtable_events`:
//!
//! ```text
//! export BIGTABLE_EMULATOR_HOST=127.0.0.1:8086      # cbtemulator -host 127.0.0.1 -port 8086
//! cargo run --release --features bigtable --example bigtable_events -- --events 400000 --table events --schema-out events.json
//! cargo build --release -p keyschema-cli
//! cargo run --release --example tool_timing -- --schema events.json --bigtable keyschema/demo/events --limit 400000
//! ```
//!
//! Options: `--keyschema PATH` (default `target/release/keyschema`),
//! `--runs N` (default 3), `--limit N` (the scan's, default 400000).

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

struct Options {
    tool: String,
    schema: String,
    table: String,
    runs: usize,
    limit: String,
}

fn options() -> Result<Options, String> {
    let mut o = Options {
        tool: "target/release/keyschema".into(),
        schema: String::new(),
        table: String::new(),
        runs: 3,
        limit: "400000".into(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().ok_or(format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--keyschema" => o.tool = value,
            "--schema" => o.schema = value,
            "--bigtable" => o.table = value,
            "--limit" => o.limit = value,
            "--runs" => o.runs = value.parse().map_err(|e| format!("--runs: {e}"))?,
            other => return Err(format!("unknown option {other}")),
        }
    }
    if o.schema.is_empty() || o.table.is_empty() {
        return Err("usage: tool_timing --schema DOC.json --bigtable P/I/T [--keyschema PATH] [--runs N] [--limit N] (with BIGTABLE_EMULATOR_HOST for the emulator)".into());
    }
    Ok(o)
}

/// The time to the scan's first line on standard output; the rest is not
/// read (the tool stops on the closed pipe, as under `head -1`).
fn first_row(o: &Options) -> Result<Duration, String> {
    let start = Instant::now();
    let mut child = Command::new(&o.tool)
        .args([
            "-s",
            &o.schema,
            "--bigtable",
            &o.table,
            "scan",
            "--limit",
            &o.limit,
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("{}: {e}", o.tool))?;
    let stdout = child.stdout.take().ok_or("no standard output")?;
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .map_err(|e| format!("reading the scan: {e}"))?;
    let took = start.elapsed();
    let _ = child.kill();
    let _ = child.wait();
    if line.is_empty() {
        return Err("the scan printed no row: is the table written?".into());
    }
    Ok(took)
}

/// The time of a whole `hotspot`, its report discarded.
fn hotspot(o: &Options) -> Result<Duration, String> {
    let start = Instant::now();
    let status = Command::new(&o.tool)
        .args(["-s", &o.schema, "--bigtable", &o.table, "hotspot"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map_err(|e| format!("{}: {e}", o.tool))?;
    if !status.success() {
        return Err(format!("hotspot exited with {status}"));
    }
    Ok(start.elapsed())
}

fn report(what: &str, mut times: Vec<Duration>) {
    times.sort();
    let shown: Vec<String> = times
        .iter()
        .map(|t| format!("{:.2} s", t.as_secs_f64()))
        .collect();
    let median = times[times.len() / 2].as_secs_f64();
    println!("{what:<28} median {median:.2} s  ({})", shown.join(", "));
}

fn main() -> Result<(), String> {
    let o = options()?;
    let runs = o.runs.max(1);
    let scans = (0..runs).map(|_| first_row(&o)).collect::<Result<_, _>>()?;
    report("scan | head -1", scans);
    let spots = (0..runs).map(|_| hotspot(&o)).collect::<Result<_, _>>()?;
    report("hotspot (default --rows)", spots);
    Ok(())
}
