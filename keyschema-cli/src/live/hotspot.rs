//! `keyschema hotspot`: where a sample of a table's keys falls, by what the
//! keys mean: which salt bucket, which value of each key field, and which
//! of the table's regions. Key Visualizer shows a hot range of bytes; this
//! says which user, which site and which bucket it is.

use crate::values;
use keyschema::dynamic::DynSchema;
use keyschema::hotspot::HotspotReport;
use std::collections::HashMap;
use std::io::Write;

/// Reports on `keys` (taken as `source` says); `splits` are the table's own
/// split points when it has any. `false` when some keys are not of the
/// layout (counted, the first shown).
pub fn hotspot(
    layout: &DynSchema,
    keys: &[Vec<u8>],
    source: &str,
    splits: Option<&[Vec<u8>]>,
    top: usize,
    out: &mut impl Write,
) -> Result<bool, String> {
    let w = |out: &mut dyn Write, line: String| writeln!(out, "{line}").map_err(|e| e.to_string());
    let mut decoded = Vec::with_capacity(keys.len());
    let mut foreign = Vec::new();
    for key in keys {
        match layout.decode(key) {
            Ok(values) => decoded.push((key, values)),
            // The rendering names what is wrong (` !(...)`).
            Err(_) => foreign.push(layout.render(key)),
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
                "{} keys are not keys of `{}` and are left out; the first: {first}",
                foreign.len(),
                layout.name()
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
    if let Some(salt) = layout.salt() {
        let buckets = salt.buckets();
        let mut hits: HashMap<u32, usize> = HashMap::new();
        for (key, _) in &decoded {
            if let Ok(b) = layout.bucket_of(key) {
                *hits.entry(b).or_default() += 1;
            }
        }
        let even = 100.0 / f64::from(buckets);
        w(
            out,
            format!(
                "\nby bucket ({buckets} buckets, {} holding sampled keys; an even share is {even:.1}%):",
                hits.len()
            ),
        )?;
        let mut ranked: Vec<(u32, usize)> = hits.into_iter().collect();
        ranked.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        for &(bucket, count) in ranked.iter().take(top) {
            w(out, format!("  bucket {bucket:<6} {}", share(count, n)))?;
        }
        if let Some(&(bucket, count)) = ranked.first() {
            let times = pct(count, n) / even;
            w(
                out,
                format!("  hottest: bucket {bucket}, {times:.2}x an even share"),
            )?;
        }
    }
    for (i, field) in layout.fields().iter().enumerate() {
        let mut counts: HashMap<String, usize> = HashMap::new();
        for (_, values) in &decoded {
            if let Some(v) = values.get(i) {
                *counts.entry(values::show(v)).or_default() += 1;
            }
        }
        let mut ranked: Vec<(String, usize)> = counts.into_iter().collect();
        ranked.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        let distinct = ranked.len();
        w(
            out,
            format!("\nby {} ({distinct} distinct values):", field.name()),
        )?;
        match ranked.first() {
            Some((_, 1)) => w(out, "  no value is in more than one sampled key".into())?,
            _ => {
                for (value, count) in ranked.iter().take(top) {
                    w(out, format!("  {value:<24} {}", share(*count, n)))?;
                }
            }
        }
    }
    if let Some(splits) = splits {
        regions(layout, &decoded, splits, top, out)?;
    }
    Ok(foreign.is_empty())
}

/// The sampled keys per region of the table.
fn regions(
    layout: &DynSchema,
    decoded: &[(&Vec<u8>, Vec<keyschema::dynamic::Value>)],
    splits: &[Vec<u8>],
    top: usize,
    out: &mut impl Write,
) -> Result<(), String> {
    let w = |out: &mut dyn Write, line: String| writeln!(out, "{line}").map_err(|e| e.to_string());
    if splits.is_empty() {
        return w(
            out,
            "\nby region: the table is one region (no split points); every key is in it".into(),
        );
    }
    let report = HotspotReport::new(splits, decoded.iter().map(|(k, _)| k.as_slice()));
    let n = decoded.len();
    let even = 100.0 / report.regions() as f64;
    w(
        out,
        format!(
            "\nby region ({} regions cut at the table's split points; an even share is {even:.1}%):",
            report.regions()
        ),
    )?;
    let mut ranked: Vec<(usize, u64)> = report.hits().iter().copied().enumerate().collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    for &(i, hits) in ranked.iter().take(top) {
        let start = match i {
            0 => "(start)".to_string(),
            _ => layout.render_prefix(&splits[i - 1]),
        };
        w(
            out,
            format!(
                "  region {i:<5} from {start:<32} {}",
                share(hits as usize, n)
            ),
        )?;
    }
    if let Some(&(i, hits)) = ranked.first() {
        let times = pct(hits as usize, n) / even;
        w(
            out,
            format!("  hottest: region {i}, {times:.2}x an even share"),
        )?;
    }
    Ok(())
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
