//! The Python package (`python/`) against the Rust code: its unittest suite
//! run from `cargo test`, with the vectors of `docs/ENCODING.md` and a
//! cross-language check in which Rust writes random rows of every layout of
//! the catalog (10,000 for each example schema) with their keys, renderings,
//! damaged keys with their errors, and scan ranges, and Python must
//! reproduce each one. Fails if Python fails, is missing, or runs no test.

mod common;

use common::catalog::{self, Sample, Visit};
use common::fields_json;
use keyschema::dynamic::{DynSchema, Value, ValueRange};
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::TestRunner;
use std::fmt::Write as _;
use std::ops::Bound;
use std::path::Path;
use std::process::Command;

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn json_string(s: &str) -> String {
    Value::from(s).to_json()
}

fn ranges_json(set: Result<keyschema::ScanRangeSet, keyschema::dynamic::ValueError>) -> String {
    match set {
        Err(_) => "null".into(),
        Ok(set) => {
            let items: Vec<String> = set
                .iter()
                .map(|r| {
                    let end = r
                        .end()
                        .map_or("null".to_string(), |e| format!("\"{}\"", hex(e)));
                    format!("[\"{}\",{end},{}]", hex(r.start()), r.bucket())
                })
                .collect();
            format!("[{}]", items.join(","))
        }
    }
}

/// `null` for an open end, else the value and whether it is included.
fn bound_json(b: &Bound<Value>) -> String {
    match b {
        Bound::Included(v) => format!("{{\"value\":{},\"inclusive\":true}}", v.to_json()),
        Bound::Excluded(v) => format!("{{\"value\":{},\"inclusive\":false}}", v.to_json()),
        Bound::Unbounded => "null".into(),
    }
}

struct Write<'a> {
    dir: &'a Path,
    runner: TestRunner,
    rows: Vec<(String, usize)>,
}

impl Visit for Write<'_> {
    fn visit<K: Sample>(&mut self) {
        let rows = if K::SOURCE.is_empty() { 1_000 } else { 10_000 };
        let schema = DynSchema::from_json(&K::schema().to_json()).expect("schema reads back");
        let name = std::any::type_name::<K>()
            .rsplit("::")
            .next()
            .unwrap_or("K")
            .to_string();
        let mut out = format!(
            "{{\"name\":{},\"rows\":{rows},\"schema\":{}}}\n",
            json_string(&name),
            K::schema().to_json()
        );
        let strategy = K::strategy();
        let sample = |runner: &mut TestRunner| strategy.new_tree(runner).expect("a row").current();
        let mut previous = sample(&mut self.runner);
        for i in 0..rows {
            let row = sample(&mut self.runner);
            let key = row.encode();
            let values = row.values();
            let bucket = match schema.salt() {
                Some(s) if s.is_random() => {
                    K::schema().bucket_of(&key).expect("bucket").to_string()
                }
                _ => "null".into(),
            };
            let _ = write!(
                out,
                "{{\"fields\":{},\"bucket\":{bucket},\"key\":\"{}\",\"rendered\":{}",
                fields_json(&schema, &values),
                hex(&key),
                json_string(&K::render(&key))
            );
            if i < 1_000 {
                let n = key.len();
                let mut flipped = key.clone();
                flipped[i % n] ^= 1 << (i % 8);
                let mut longer = key.clone();
                longer.push(i as u8);
                let damaged: Vec<String> = [key[..i % n].to_vec(), flipped, longer]
                    .iter()
                    .map(|bad| {
                        // The spec's reader (`DynSchema`, which `tests/dynamic.rs`
                        // holds equal to `K` except on values a Rust type cannot
                        // hold, such as a chrono date past year 262143).
                        let error = schema
                            .decode(bad)
                            .err()
                            .map_or("null".into(), |e| json_string(&e.to_string()));
                        format!(
                            "{{\"key\":\"{}\",\"error\":{error},\"rendered\":{}}}",
                            hex(bad),
                            json_string(&schema.render(bad))
                        )
                    })
                    .collect();
                let _ = write!(out, ",\"damaged\":[{}]", damaged.join(","));
            }
            if i < 200 {
                let mut scans = Vec::new();
                for (k, derived) in row.prefix_ranges().into_iter().enumerate() {
                    scans.push(format!(
                        "{{\"bound\":{k},\"ranges\":{}}}",
                        ranges_json(Ok(derived))
                    ));
                }
                // A range on each field after an equality prefix, between
                // this row's value and the previous row's.
                let other = previous.values();
                for k in 0..values.len() {
                    let kinds = [i % 3, (i / 3) % 3];
                    let pick = |v: &Value, kind: usize| match kind {
                        0 => Bound::Included(v.clone()),
                        1 => Bound::Excluded(v.clone()),
                        _ => Bound::Unbounded,
                    };
                    let (lo, hi) = if values[k].to_json() <= other[k].to_json() {
                        (&values[k], &other[k])
                    } else {
                        (&other[k], &values[k])
                    };
                    let range: ValueRange = (pick(lo, kinds[0]), pick(hi, kinds[1]));
                    let (lo_json, hi_json) = (bound_json(&range.0), bound_json(&range.1));
                    let set = schema.ranges(&values[..k], Some(range));
                    scans.push(format!(
                        "{{\"bound\":{k},\"lo\":{lo_json},\"hi\":{hi_json},\"ranges\":{}}}",
                        ranges_json(set)
                    ));
                }
                let _ = write!(out, ",\"scans\":[{}]", scans.join(","));
            }
            out.push_str("}\n");
            previous = row;
        }
        std::fs::write(self.dir.join(format!("{name}.jsonl")), out).expect("write rows");
        self.rows.push((name, rows));
    }
}

/// Ranges on a hashed `bucket(f, W)` field at the edges of
/// `MAX_BUCKET_EXPANSION` and of the bucket boundaries (inclusive and
/// exclusive ends, negative values): the typed scan and `DynSchema` agree
/// here, and Python must give the same count of ranges, or refuse the same
/// ones. Written to `limits.jsonl`; returns how many cases.
fn write_limit_edges(dir: &Path) -> usize {
    use catalog::{Availability, SignedBuckets};
    use keyschema::RowKey;
    let max = keyschema::MAX_BUCKET_EXPANSION as i64;
    let b = |v: i64, inclusive: bool| {
        if inclusive {
            Bound::Included(v)
        } else {
            Bound::Excluded(v)
        }
    };
    let mut cases: Vec<(Bound<i64>, Bound<i64>)> = Vec::new();
    for (width, base) in [(30, 60), (7, -7 * (max / 2))] {
        let full = base + width * max; // the first value past `max` buckets
        for (lo, hi) in [
            (b(0, true), b(60_000, false)),
            (b(0, true), b(60_000, true)),
            (b(base, true), b(full, false)),
            (b(base, true), b(full - 1, true)),
            (b(base, true), b(full, true)),
            (b(base - 1, false), b(full, false)),
            (b(base - 2, false), b(full, false)),
            (b(base, false), b(full + width - 1, true)),
            (b(base + width - 1, false), b(full + width, false)),
            (b(base + width - 1, false), b(base + width, false)),
            (b(base + 5, false), b(base + 6, false)),
        ] {
            cases.push((lo, hi));
        }
    }
    let mut out = String::new();
    for (i, (lo, hi)) in cases.iter().enumerate() {
        let availability = i < cases.len() / 2;
        let (schema_json, equal, dynamic, typed) = if availability {
            let u = |x: &Bound<i64>| x.map(|v| u32::try_from(v).unwrap_or(0));
            let (lo, hi) = (u(lo), u(hi));
            let schema = DynSchema::from_json(&Availability::schema().to_json()).unwrap();
            let range: ValueRange = (lo.map(Value::U32), hi.map(Value::U32));
            let dynamic = schema.ranges(&[Value::from("h1")], Some(range));
            let typed = Availability::scan().hotel_id("h1").day((lo, hi));
            (
                Availability::schema().to_json(),
                "[\"h1\"]",
                dynamic,
                typed.map(|s| s.ranges()).map_err(|e| e.to_string()),
            )
        } else {
            let schema = DynSchema::from_json(&SignedBuckets::schema().to_json()).unwrap();
            let range: ValueRange = (lo.map(Value::I64), hi.map(Value::I64));
            let dynamic = schema.ranges(&[], Some(range));
            let typed = SignedBuckets::scan().at((*lo, *hi));
            (
                SignedBuckets::schema().to_json(),
                "[]",
                dynamic,
                typed.map(|s| s.ranges()).map_err(|e| e.to_string()),
            )
        };
        let count = |r: &Result<keyschema::ScanRangeSet, String>| r.as_ref().map(|s| s.len()).ok();
        let dynamic = dynamic.map_err(|e| e.to_string());
        assert_eq!(
            count(&typed),
            count(&dynamic),
            "typed and DynSchema, case {i}: {lo:?} {hi:?}"
        );
        let json_bound = |x: &Bound<i64>| match x {
            Bound::Included(v) => format!("{{\"value\":{v},\"inclusive\":true}}"),
            Bound::Excluded(v) => format!("{{\"value\":{v},\"inclusive\":false}}"),
            Bound::Unbounded => "null".into(),
        };
        let count = count(&dynamic).map_or("null".to_string(), |n| n.to_string());
        let _ = writeln!(
            out,
            "{{\"schema\":{schema_json},\"equal\":{equal},\"lo\":{},\"hi\":{},\"ranges\":{count}}}",
            json_bound(lo),
            json_bound(hi)
        );
    }
    std::fs::write(dir.join("limits.edges"), out).expect("write the edges");
    cases.len()
}

/// Keys of both layouts of the history types of `common::history` (random
/// rows on both sides of the cut-over), with the layout the derived
/// `decode_stored` reads each in: Python's `decode_stored` must agree.
/// Written to `history.keys`; returns how many keys.
fn write_history_keys(dir: &Path) -> usize {
    use common::history::{Event, Thing};
    use keyschema::RowKey;
    fn line<K: RowKey>(out: &mut String, key: &[u8], fields: impl Fn(&K) -> String) {
        let (layout, fields) = match K::decode_stored(key) {
            Ok((row, true)) => ("declared", fields(&row)),
            Ok((row, false)) => ("older", fields(&row)),
            Err(keyschema::DecodeError::AmbiguousLayout { .. }) => ("ambiguous", "null".into()),
            Err(_) => ("error", "null".into()),
        };
        let _ = writeln!(
            out,
            "{{\"schema\":{},\"key\":\"{}\",\"layout\":\"{layout}\",\"fields\":{fields}}}",
            K::schema().to_json(),
            hex(key)
        );
    }
    let event_fields = |e: &Event| {
        format!(
            "{{\"user_id\":{},\"site\":{},\"timestamp\":{}}}",
            json_string(&e.user_id),
            json_string(&e.site),
            e.timestamp
        )
    };
    let thing_fields = |t: &Thing| format!("{{\"id\":{},\"seq\":{}}}", t.id, t.seq);
    let mut out = String::new();
    let mut n = 0;
    for i in 0..250u64 {
        let event = Event {
            user_id: format!("u{}", i % 17),
            site: ["", "s", "shop"][(i % 3) as usize].to_string(),
            timestamp: common::history::T - 125 + i,
        };
        for key in [event.encode(), event.encode_older().expect("a history")] {
            line::<Event>(&mut out, &key, event_fields);
            n += 1;
        }
        let thing = Thing {
            id: i.wrapping_mul(0x9e37_79b9_7f4a_7c15),
            seq: i as u32,
        };
        for key in [thing.encode(), thing.encode_older().expect("a history")] {
            line::<Thing>(&mut out, &key, thing_fields);
            n += 1;
        }
    }
    std::fs::write(dir.join("history.keys"), out).expect("write the history keys");
    n
}

#[test]
fn the_python_package_agrees_with_the_rust_code() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut writer = Write {
        dir: dir.path(),
        runner: TestRunner::deterministic(),
        rows: Vec::new(),
    };
    catalog::for_each(&mut writer);
    let edges = write_limit_edges(dir.path());
    let history = write_history_keys(dir.path());
    let root = env!("CARGO_MANIFEST_DIR");
    let output = Command::new("python3")
        .args([
            "-m",
            "unittest",
            "discover",
            "-v",
            "-s",
            "python/tests",
            "-t",
            "python",
        ])
        .current_dir(root)
        .env("KEYSCHEMA_CROSS_DIR", dir.path())
        .output()
        .expect("python3 runs (the README's test command needs Python 3.9+)");
    let stderr = String::from_utf8_lossy(&output.stderr);
    // The summary, and the cross-language counts, for the CI log.
    // (`-v` prints a test's name before its output, on the same line.)
    for line in stderr.lines() {
        if let Some(at) = line.find("cross ") {
            println!("python: {}", &line[at..]);
        } else if line.starts_with("Ran ") || line.starts_with("OK") || line.starts_with("FAILED") {
            println!("python: {line}");
        }
    }
    assert!(
        output.status.success(),
        "python's unittest failed:\n{stderr}"
    );
    let ran: usize = stderr
        .lines()
        .find_map(|l| {
            l.strip_prefix("Ran ")?
                .split_whitespace()
                .next()?
                .parse()
                .ok()
        })
        .expect("unittest prints how many tests ran");
    assert!(ran >= 7, "python ran {ran} tests:\n{stderr}");
    assert!(
        !stderr.contains("skipped"),
        "python skipped tests:\n{stderr}"
    );
    assert!(
        stderr.contains(&format!("cross limits: {edges} edges, {edges} agree")),
        "python did not check every limit edge:\n{stderr}"
    );
    assert!(
        stderr.contains(&format!("cross history: {history} keys, {history} agree")),
        "python did not check every history key:\n{stderr}"
    );
    for (name, rows) in &writer.rows {
        assert!(
            stderr.contains(&format!(
                "cross {name}: {rows} rows, {rows} encoded, {rows} decoded, {rows} rendered"
            )),
            "python did not check every row of {name}:\n{stderr}"
        );
    }
}
