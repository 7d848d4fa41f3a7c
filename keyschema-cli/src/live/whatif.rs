//! `hotspot --what-if OTHER.json`: the same sample under another layout.
//! Each sampled row is decoded under the table's layout and encoded under
//! the other (its key fields by name), so the report shows where the rows
//! would go: the hottest bucket's share and what a scan by the leading
//! field reads, side by side, before a migration.

use crate::values;
use keyschema::dynamic::{DynSchema, Value};
use std::collections::HashMap;
use std::io::Write;

/// The buckets, the hottest bucket's sampled keys and the ranges a scan by
/// `field = value` reads (`None`: the field does not lead the key).
struct Spread {
    buckets: u32,
    hottest: usize,
    fan_out: Option<usize>,
}

fn spread(layout: &DynSchema, keys: &[Vec<u8>], field: &str, value: &Value) -> Spread {
    let mut hits: HashMap<u32, usize> = HashMap::new();
    for key in keys {
        if let Ok(b) = layout.bucket_of(key) {
            *hits.entry(b).or_default() += 1;
        }
    }
    let leads = layout.fields().first().is_some_and(|f| f.name() == field);
    Spread {
        buckets: layout.buckets(),
        hottest: hits.values().copied().max().unwrap_or(0),
        fan_out: leads
            .then(|| layout.ranges(std::slice::from_ref(value), None).ok())
            .flatten()
            .map(|r| r.len()),
    }
}

/// The comparison of `layout` (the table's) with `other` over `decoded`
/// (each sampled key and its field values under `layout`).
pub fn what_if(
    layout: &DynSchema,
    other: &DynSchema,
    file: &str,
    decoded: &[(&Vec<u8>, Vec<Value>)],
    out: &mut impl Write,
) -> Result<(), String> {
    // The other layout's fields, taken by name from this one's.
    let mut order = Vec::new();
    for f in other.fields() {
        match layout.fields().iter().position(|g| g.name() == f.name()) {
            Some(i) => order.push(i),
            None => {
                return Err(format!(
                    "--what-if {file}: `{}` has the key field `{}`, which `{}` does not have: a sampled row cannot say its value (the fields of `{}` are {})",
                    other.name(),
                    f.name(),
                    layout.name(),
                    layout.name(),
                    layout.fields().iter().map(|g| g.name()).collect::<Vec<_>>().join(", ")
                ))
            }
        }
    }
    let mut moved = Vec::with_capacity(decoded.len());
    for (key, values) in decoded {
        let values: Vec<Value> = order.iter().map(|&i| values[i].clone()).collect();
        let key = other.encode(&values).map_err(|e| {
            format!(
                "--what-if {file}: the sampled row {} does not fit `{}`: {e}",
                layout.render(key),
                other.name()
            )
        })?;
        moved.push(key);
    }
    let keys: Vec<Vec<u8>> = decoded.iter().map(|(k, _)| (*k).clone()).collect();
    // The scan: the table's leading field, at its most frequent sampled value.
    let Some(lead) = layout.fields().first() else {
        return Ok(());
    };
    let mut counts: HashMap<String, (usize, &Value)> = HashMap::new();
    for (_, values) in decoded {
        if let Some(v) = values.first() {
            counts.entry(values::show(v)).or_insert((0, v)).0 += 1;
        }
    }
    let Some(value) = counts
        .into_iter()
        .max_by(|a, b| a.1 .0.cmp(&b.1 .0).then_with(|| b.0.cmp(&a.0)))
        .map(|(_, (_, v))| v.clone())
    else {
        return Ok(());
    };
    let now = spread(layout, &keys, lead.name(), &value);
    let then = spread(other, &moved, lead.name(), &value);
    let n = decoded.len();
    let w = |out: &mut dyn Write, line: String| writeln!(out, "{line}").map_err(|e| e.to_string());
    w(
        out,
        format!(
            "\nwhat if the key were `{}` ({file}), for the same {n} sampled rows:",
            other.name()
        ),
    )?;
    let (a, b) = (
        format!("now (`{}`)", layout.name()),
        format!("what-if (`{}`)", other.name()),
    );
    w(out, format!("  {:<30} {a:>24} {b:>24}", ""))?;
    w(
        out,
        format!(
            "  {:<30} {:>24} {:>24}",
            "salt buckets", now.buckets, then.buckets
        ),
    )?;
    let share = |s: &Spread| 100.0 * s.hottest as f64 / n.max(1) as f64;
    w(
        out,
        format!(
            "  {:<30} {:>23.1}% {:>23.1}%",
            "hottest bucket's share",
            share(&now),
            share(&then)
        ),
    )?;
    let times = |s: &Spread| share(s) * f64::from(s.buckets) / 100.0;
    w(
        out,
        format!(
            "  {:<30} {:>23.2}x {:>23.2}x",
            "against an even share",
            times(&now),
            times(&then)
        ),
    )?;
    let fan = |s: &Spread| match s.fan_out {
        Some(1) => "1 range".to_string(),
        Some(r) => format!("{r} ranges"),
        None => "every row (not a prefix)".to_string(),
    };
    w(
        out,
        format!(
            "  {:<30} {:>24} {:>24}",
            format!(
                "scan {}={} reads",
                lead.name(),
                shorten(&values::show(&value), 12)
            ),
            fan(&now),
            fan(&then)
        ),
    )?;
    Ok(())
}

fn shorten(text: &str, most: usize) -> String {
    match text.chars().count() > most {
        true => format!("{}…", text.chars().take(most - 1).collect::<String>()),
        false => text.to_string(),
    }
}
