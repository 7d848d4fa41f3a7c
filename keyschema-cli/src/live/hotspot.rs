//! `keyschema hotspot`: where a sample of a table's keys falls, by what the
//! keys mean: which salt bucket, which value of the hashed fields together
//! (on DynamoDB, which partition key), which value of each key field; with
//! bars, an SVG (`--svg`), rows written recently only (`--since`) and the
//! same sample under another layout (`--what-if`). Key Visualizer shows a
//! hot range of bytes; this says which user, which site and which bucket.

use super::picture::{bar, svg};
use crate::values;
use keyschema::dynamic::{DynSchema, Value};
use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The options of `hotspot` beyond the sample's.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct HotspotArgs {
    /// Also write the picture as an SVG file: the salt buckets, and the
    /// hottest values of the hashed fields together (on DynamoDB, the
    /// partition key).
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
    /// Count only the rows written in this time (`90s`, `15m`, `2h`, `1d`):
    /// on Bigtable, rows with a cell written since then (cell timestamps);
    /// with `--time-field`, keys whose time field is that recent.
    #[arg(long, value_name = "DURATION")]
    pub since: Option<String>,
    /// The key field holding when a row was written (an integer of
    /// `--time-unit`s since the Unix epoch, or a timestamp), for `--since`
    /// on DynamoDB and sample files.
    #[arg(long, value_name = "FIELD")]
    pub time_field: Option<String>,
    /// The unit of `--time-field`: s, ms, us or ns.
    #[arg(long, default_value = "s", value_name = "UNIT")]
    pub time_unit: String,
    /// Another schema document for the same rows: each sampled row is
    /// placed under that layout too, and the hottest bucket's share and a
    /// scan's ranges are printed side by side.
    #[arg(long, value_name = "OTHER.json")]
    pub what_if: Option<PathBuf>,
}

impl HotspotArgs {
    /// `--since` read, and whether the store's cell timestamps apply (no
    /// `--time-field`).
    pub fn since(&self) -> Result<Option<Duration>, String> {
        self.since
            .as_deref()
            .map(super::sample::parse_duration)
            .transpose()
    }

    /// `--since` for the store to apply: only without `--time-field`.
    pub fn store_since(&self) -> Result<Option<Duration>, String> {
        Ok(self.since()?.filter(|_| self.time_field.is_none()))
    }
}

/// The more buckets than this are listed by rank, not in bucket order.
const MOST_LISTED: u32 = 64;

/// Reports on `keys` (taken as `source` says); `sections` are Bigtable's
/// SampleRowKeys answer when it has one. `false` when some keys are not of
/// the layout (counted, the first shown).
pub fn hotspot(
    layout: &DynSchema,
    keys: &[Vec<u8>],
    source: &str,
    sections: Option<&[(Vec<u8>, i64)]>,
    top: usize,
    args: &HotspotArgs,
    out: &mut impl Write,
) -> Result<bool, String> {
    let w = |out: &mut dyn Write, line: String| writeln!(out, "{line}").map_err(|e| e.to_string());
    let mut decoded = Vec::with_capacity(keys.len());
    let mut foreign = Vec::new();
    for key in keys {
        match layout.decode(key) {
            Ok(values) => decoded.push((key, values)),
            // As stored (a rendering would put the document's prefix
            // before a key that lacks it), and why it is not one.
            Err(e) => foreign.push(format!(
                "{} ({e})",
                crate::forms::write(key, crate::forms::Output::Escaped)
            )),
        }
    }
    w(
        out,
        format!("{} sampled ({source})", plural(keys.len(), "key")),
    )?;
    if let Some(first) = foreign.first() {
        w(
            out,
            format!(
                "{} keys are not keys of `{}` and are left out; the first: {first}; {}",
                foreign.len(),
                layout.name(),
                super::SHARED_HINT
            ),
        )?;
    }
    if let (Some(field), Some(since)) = (&args.time_field, args.since()?) {
        decoded = recent(layout, decoded, field, &args.time_unit, since)?;
        w(
            out,
            format!(
                "{} of them written in the last {} (by the key field `{field}`)",
                decoded.len(),
                super::sample::show_duration(since)
            ),
        )?;
    }
    let n = decoded.len();
    if n == 0 {
        return Ok(foreign.is_empty());
    }
    if n < 1000 {
        w(out, format!("(a sample of {} is small: shares move by several points from sample to sample; --rows 10000 or more)", plural(n, "key")))?;
    }
    let mut bucket_rows = Vec::new();
    if let Some(salt) = layout.salt() {
        let buckets = salt.buckets();
        let mut hits: HashMap<u32, usize> = HashMap::new();
        for (key, _) in &decoded {
            if let Ok(b) = layout.bucket_of(key) {
                *hits.entry(b).or_default() += 1;
            }
        }
        let even = 100.0 / f64::from(buckets);
        let most = hits.values().copied().max().unwrap_or(0);
        let listed: Vec<(u32, usize)> = match buckets <= MOST_LISTED {
            // The key space top to bottom: a hot range is a long bar in its place.
            true => (0..buckets)
                .map(|b| (b, hits.get(&b).copied().unwrap_or(0)))
                .collect(),
            false => ranked(hits.iter().map(|(b, c)| (*b, *c)), top),
        };
        w(
            out,
            format!(
                "\nby bucket ({buckets} buckets, {} holding sampled keys; an even share is {even:.1}%):",
                hits.len()
            ),
        )?;
        for &(bucket, count) in &listed {
            w(
                out,
                format!(
                    "  bucket {bucket:<6} {}  {}",
                    share(count, n),
                    bar(count, most)
                ),
            )?;
        }
        bucket_rows = listed
            .iter()
            .map(|(b, c)| (format!("bucket {b}"), *c))
            .collect();
        if let Some((bucket, count)) = ranked(hits.into_iter(), 1).first() {
            let times = pct(*count, n) / even;
            w(
                out,
                format!("  hottest: bucket {bucket}, {times:.2}x an even share"),
            )?;
        }
    }
    let mut hot_rows = Vec::new();
    let mut hot_title = String::new();
    for (title, fields) in groups(layout) {
        let rows = section(&decoded, &fields, top, &title, n, out)?;
        if hot_rows.is_empty() || fields.len() > 1 {
            hot_title = title;
            hot_rows = rows;
        }
    }
    for (i, field) in layout.fields().iter().enumerate() {
        section(&decoded, &[i], top, field.name(), n, out)?;
    }
    if let Some(sections) = sections {
        stored(layout, sections, out)?;
    }
    if let Some(path) = &args.svg {
        let title = format!("hotspot: {source}");
        std::fs::write(path, svg(&title, &bucket_rows, &hot_rows, n, &hot_title))
            .map_err(|e| format!("--svg {}: {e}", path.display()))?;
    }
    if let Some(path) = &args.what_if {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("--what-if {}: {e}", path.display()))?;
        let other = DynSchema::from_json(&text)
            .map_err(|e| format!("--what-if {}: {e}", path.display()))?;
        super::whatif::what_if(layout, &other, &path.display().to_string(), &decoded, out)?;
    }
    Ok(foreign.is_empty())
}

/// The groups of fields counted as one value: the hashed fields together
/// (they choose a row's bucket) when more than one, and the partition key
/// of a DynamoDB layout (its bucket and leading fields), each with its title.
fn groups(layout: &DynSchema) -> Vec<(String, Vec<usize>)> {
    let index = |name: &str| layout.fields().iter().position(|f| f.name() == name);
    let names = |fields: &[usize]| {
        fields
            .iter()
            .map(|&i| layout.fields()[i].name())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut groups = Vec::new();
    if let Some(salt) = layout.salt().filter(|s| s.hashed().len() > 1) {
        let fields: Vec<usize> = salt
            .hashed()
            .iter()
            .filter_map(|&c| index(layout.components()[c].name()))
            .collect();
        groups.push((
            format!(
                "{} together (the hashed fields: they choose the bucket)",
                names(&fields)
            ),
            fields,
        ));
    }
    if let Some(p) = layout.partition_components() {
        let fields: Vec<usize> = layout.components()[..p.min(layout.components().len())]
            .iter()
            .filter_map(|c| index(c.name()))
            .collect();
        if !fields.is_empty() && !groups.iter().any(|(_, f)| *f == fields) {
            groups.push((format!("partition key ({})", names(&fields)), fields));
        }
    }
    groups
}

/// Counts the values of `fields` together (`a|b`), prints the hottest
/// `top` with bars, and returns them for the picture.
fn section(
    decoded: &[(&Vec<u8>, Vec<Value>)],
    fields: &[usize],
    top: usize,
    title: &str,
    n: usize,
    out: &mut impl Write,
) -> Result<Vec<(String, usize)>, String> {
    let mut counts: HashMap<String, usize> = HashMap::new();
    for (_, row) in decoded {
        let shown: Vec<String> = fields
            .iter()
            .filter_map(|&i| row.get(i).map(values::show))
            .collect();
        *counts.entry(shown.join("|")).or_default() += 1;
    }
    let distinct = counts.len();
    let ranked = ranked(counts.into_iter(), top);
    writeln!(out, "\nby {title} ({distinct} distinct values):").map_err(|e| e.to_string())?;
    if let Some((_, 1)) = ranked.first() {
        writeln!(out, "  no value is in more than one sampled key").map_err(|e| e.to_string())?;
        return Ok(Vec::new());
    }
    let most = ranked.first().map_or(0, |r| r.1);
    for (value, count) in &ranked {
        writeln!(
            out,
            "  {value:<24} {}  {}",
            share(*count, n),
            bar(*count, most)
        )
        .map_err(|e| e.to_string())?;
    }
    Ok(ranked)
}

/// The first `top` of `counts`, most first (ties by value).
fn ranked<T: Ord>(counts: impl Iterator<Item = (T, usize)>, top: usize) -> Vec<(T, usize)> {
    let mut ranked: Vec<(T, usize)> = counts.collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    ranked.truncate(top);
    ranked
}

/// The stored bytes per bucket (or in all) from SampleRowKeys' offsets:
/// its sections are of about equal size by design, so they show where the
/// bytes are, not where the traffic is.
fn stored(
    layout: &DynSchema,
    sections: &[(Vec<u8>, i64)],
    out: &mut impl Write,
) -> Result<(), String> {
    let w = |out: &mut dyn Write, line: String| writeln!(out, "{line}").map_err(|e| e.to_string());
    let total = sections.last().map_or(0, |s| s.1);
    let keys = sections.iter().filter(|s| !s.0.is_empty()).count();
    w(
        out,
        format!(
            "\nstored bytes (SampleRowKeys: {} sections of about equal size, by design; about {} in all):",
            keys + 1,
            bytes(total)
        ),
    )?;
    if layout.salt().is_none() || total <= 0 {
        return w(out, "  (sections cut by size show where the bytes are, not the traffic: see the shares above)".into());
    }
    // Section i holds the bytes between the key before it and its own key.
    let mut per: HashMap<u32, i64> = HashMap::new();
    let mut before: (&[u8], i64) = (&[], 0);
    for (key, offset) in sections {
        let b = layout.bucket_of(before.0).unwrap_or(0);
        *per.entry(b).or_default() += offset - before.1;
        before = (key, *offset);
    }
    let most = per.values().copied().max().unwrap_or(0).max(1);
    let buckets = layout.buckets().min(MOST_LISTED);
    for b in 0..buckets {
        let size = per.get(&b).copied().unwrap_or(0);
        w(
            out,
            format!(
                "  bucket {b:<6} {:>9}  {:5.1}%  {}",
                bytes(size),
                100.0 * size as f64 / total as f64,
                bar(
                    usize::try_from(size).unwrap_or(0),
                    usize::try_from(most).unwrap_or(1)
                )
            ),
        )?;
    }
    Ok(())
}

/// Sampled keys with their field values.
type Decoded<'a> = Vec<(&'a Vec<u8>, Vec<Value>)>;

/// The keys whose `field` (a time) is within `since` of now.
fn recent<'a>(
    layout: &DynSchema,
    decoded: Decoded<'a>,
    field: &str,
    unit: &str,
    since: Duration,
) -> Result<Decoded<'a>, String> {
    let (i, _) = layout
        .field(field)
        .map_err(|e| format!("--time-field: {e}"))?;
    let per_second: i128 = match unit {
        "s" => 1,
        "ms" => 1_000,
        "us" => 1_000_000,
        "ns" => 1_000_000_000,
        _ => return Err(format!("--time-unit {unit}: s, ms, us or ns")),
    };
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .saturating_sub(since);
    let cutoff_ns = i128::try_from(now.as_nanos()).unwrap_or(i128::MAX);
    let nanos = |v: &Value| -> Option<i128> {
        let n = match v {
            Value::U8(x) => i128::from(*x),
            Value::U16(x) => i128::from(*x),
            Value::U32(x) => i128::from(*x),
            Value::U64(x) => i128::from(*x),
            Value::I8(x) => i128::from(*x),
            Value::I16(x) => i128::from(*x),
            Value::I32(x) => i128::from(*x),
            Value::I64(x) => i128::from(*x),
            Value::Timestamp(s, ns) | Value::DateTime(s, ns) => {
                return Some(i128::from(*s) * 1_000_000_000 + i128::from(*ns))
            }
            _ => return None,
        };
        Some(n.saturating_mul(1_000_000_000 / per_second))
    };
    if let Some((key, v)) = decoded
        .iter()
        .find_map(|(k, values)| nanos(&values[i]).is_none().then_some((k, &values[i])))
    {
        return Err(format!(
            "--time-field {field}: {} holds {}, not a time (an integer or a timestamp)",
            layout.render(key),
            values::show(v)
        ));
    }
    Ok(decoded
        .into_iter()
        .filter(|(_, values)| nanos(&values[i]).is_some_and(|t| t >= cutoff_ns))
        .collect())
}

/// `1.5 MB`, `812 B`.
pub(super) fn bytes(n: i64) -> String {
    let n = n.max(0) as f64;
    match n {
        n if n >= 1e12 => format!("{:.1} TB", n / 1e12),
        n if n >= 1e9 => format!("{:.1} GB", n / 1e9),
        n if n >= 1e6 => format!("{:.1} MB", n / 1e6),
        n if n >= 1e3 => format!("{:.1} kB", n / 1e3),
        n => format!("{n:.0} B"),
    }
}

/// `1 key`, `2 keys`.
fn plural(n: usize, what: &str) -> String {
    match n {
        1 => format!("1 {what}"),
        n => format!("{n} {what}s"),
    }
}

fn pct(count: usize, n: usize) -> f64 {
    100.0 * count as f64 / n.max(1) as f64
}

fn share(count: usize, n: usize) -> String {
    format!("{count:>7}  {:5.1}%", pct(count, n))
}
