//! `check`: the schema document against the live table, for the first
//! minute of an incident: does the table have the document's column
//! family, do its keys decode, do they fall in the document's salt buckets
//! under its prefix, and do its rows' value fields read as their declared
//! types. One line per check (`ok` or `FAIL`, and what to do); the exit
//! status is 0 when every check passed and 1 when one failed.

use super::Live;
use crate::forms::{self, Output};
use crate::Outcome;
use keyschema::dynamic::DynSchema;
use std::io::Write;

/// One check's outcome line.
fn line(out: &mut impl Write, ok: bool, what: &str, text: String) -> Result<(), String> {
    let mark = if ok { "ok  " } else { "FAIL" };
    writeln!(out, "{mark}  {what}: {text}").map_err(|e| e.to_string())
}

/// Runs every check of `layout` against `table` on a sample of `rows`
/// keys, reading the value fields of `values` of them.
pub fn check(
    layout: &DynSchema,
    table: &Live,
    rows: usize,
    values: usize,
    out: &mut impl Write,
) -> Outcome {
    if rows == 0 {
        return Err("--rows 0 samples nothing: give at least 1".into());
    }
    writeln!(out, "`{}` against {}", layout.name(), table.name).map_err(|e| e.to_string())?;
    let mut failed = 0;
    let mut fail = |ok: bool| failed += usize::from(!ok);

    // The column family the values are read from.
    let family = table.value_family();
    if let Some(families) = table.families()? {
        let ok = families.iter().any(|f| f == family);
        fail(ok);
        let text = match ok {
            true => format!(
                "`{family}` is one of the table's column families ({})",
                families.join(", ")
            ),
            false => table.family_problem(family, &families),
        };
        line(out, ok, "family", text)?;
    }

    // The keys: a sample, decoded.
    let sample = table.sample(layout, rows, None)?;
    let (keys, how) = (sample.keys, sample.how);
    if keys.is_empty() {
        line(
            out,
            true,
            "keys",
            format!("the table holds no rows ({how})"),
        )?;
        return Ok(failed == 0);
    }
    let bad: Vec<(&Vec<u8>, String)> = keys
        .iter()
        .filter_map(|k| layout.decode(k).err().map(|e| (k, e.to_string())))
        .collect();
    let ok = bad.is_empty();
    fail(ok);
    let text = match bad.first() {
        None => format!("all {} sampled keys decode ({how})", keys.len()),
        Some((key, why)) => format!(
            "{} of {} sampled keys ({:.1}%) are not keys of `{}` (first: {}: {why}): the document's prefix, salt or field order is not the table's; use the document of the type that wrote it",
            bad.len(),
            keys.len(),
            100.0 * bad.len() as f64 / keys.len() as f64,
            layout.name(),
            forms::write(key, Output::Escaped)
        ),
    };
    line(out, ok, "keys", text)?;

    // The prefix and the salt bucket of every sampled key, read from its
    // bytes (a key of another salt count still shows its bucket).
    let (ok, text) = spread(layout, table, &keys);
    fail(ok);
    line(out, ok, "buckets", text)?;
    if let Some((n, first)) = table.past_buckets(layout, 100) {
        fail(false);
        line(
            out,
            false,
            "past the buckets",
            format!(
                "{}{n} keys past bucket {} (first: {}): the table was written with more salt buckets than the document declares; a read by it misses their rows",
                if n == 100 { "at least " } else { "" },
                layout.buckets().saturating_sub(1),
                forms::write(&first, Output::Escaped)
            ),
        )?;
    }

    // The value fields of some of the sampled rows, read back whole.
    if values > 0 {
        let (ok, text) = value_check(layout, table, &keys, values);
        fail(ok);
        line(out, ok, "values", text)?;
    }
    match failed {
        0 => writeln!(out, "the schema document fits this table"),
        n => writeln!(
            out,
            "{n} check(s) failed: the schema document does not fit this table"
        ),
    }
    .map_err(|e| e.to_string())?;
    Ok(failed == 0)
}

/// The prefix and salt buckets of `keys`: whether each is under the
/// document's prefix and in one of its buckets, and how they spread.
fn spread(layout: &DynSchema, table: &Live, keys: &[Vec<u8>]) -> (bool, String) {
    let prefix = layout.prefix();
    let header = table.schema.header_len();
    let other_prefix = keys.iter().filter(|k| !k.starts_with(prefix)).count();
    let Some(salt) = layout.salt() else {
        return match other_prefix {
            0 => (
                true,
                format!(
                    "no salt; every sampled key is under the prefix {}",
                    shown_prefix(prefix)
                ),
            ),
            n => (
                false,
                format!(
                    "{n} of {} sampled keys are not under the document's prefix {}",
                    keys.len(),
                    shown_prefix(prefix)
                ),
            ),
        };
    };
    let n = salt.buckets();
    let mut counts = vec![0usize; n as usize];
    let mut past = 0usize;
    for key in keys.iter().filter(|k| k.starts_with(prefix)) {
        let bucket = key
            .get(prefix.len()..header)
            .map(|b| b.iter().fold(0u64, |acc, &x| (acc << 8) | u64::from(x)));
        match bucket {
            Some(b) if b < u64::from(n) => counts[b as usize] += 1,
            _ => past += 1,
        }
    }
    let inside: usize = counts.iter().sum();
    let seen = counts.iter().filter(|&&c| c > 0).count();
    let share = |c: usize| 100.0 * c as f64 / inside.max(1) as f64;
    let (least, most) = (
        counts.iter().copied().min().unwrap_or(0),
        counts.iter().copied().max().unwrap_or(0),
    );
    let mut text = format!(
        "{n} declared; the sample's keys fall in {seen} of them (fewest {:.1}%, most {:.1}% of the keys)",
        share(least),
        share(most)
    );
    if past > 0 {
        text.push_str(&format!(
            "; {past} sampled keys have a salt past bucket {}: the table was written with more buckets than the document declares",
            n - 1
        ));
    }
    if other_prefix > 0 {
        text.push_str(&format!(
            "; {other_prefix} sampled keys are not under the document's prefix {}",
            shown_prefix(prefix)
        ));
    }
    (past == 0 && other_prefix == 0, text)
}

fn shown_prefix(prefix: &[u8]) -> String {
    match prefix {
        [] => "(none)".into(),
        p => forms::write(p, Output::Escaped),
    }
}

/// Reads back the rows of the first `n` decoding keys and their value
/// fields by the document's types.
fn value_check(layout: &DynSchema, table: &Live, keys: &[Vec<u8>], n: usize) -> (bool, String) {
    if table.schema.values().is_empty() {
        return (
            true,
            "the document declares no value fields (raw values)".into(),
        );
    }
    let wanted: Vec<Vec<u8>> = keys
        .iter()
        .filter(|k| layout.decode(k).is_ok())
        .take(n)
        .cloned()
        .collect();
    if wanted.is_empty() {
        return (false, "no sampled key decodes, so no row was read".into());
    }
    let asked = wanted.len();
    let rows = match table.get(wanted) {
        Ok(rows) => rows,
        Err(e) => return (false, format!("reading {asked} sampled rows failed: {e}")),
    };
    let bad: Vec<String> = rows
        .iter()
        .filter_map(|(key, value)| {
            let e = keyschema::record::render_values(value, table.schema.values()).err()?;
            Some(format!("{}: {e}", layout.render(key)))
        })
        .collect();
    let missing = asked - rows.len();
    let mut text = match bad.first() {
        None => format!("the value fields of {} sampled rows read as their declared types", rows.len()),
        Some(first) => format!(
            "{} of {} sampled rows have value fields that do not read as their declared types (first: {first}): the document's value fields are not the ones the table's writer declared, or another program wrote these rows",
            bad.len(),
            rows.len()
        ),
    };
    if missing > 0 {
        text.push_str(&format!("; {missing} of the {asked} sampled rows read back with no value cells in the document's family"));
    }
    (bad.is_empty() && missing == 0, text)
}
