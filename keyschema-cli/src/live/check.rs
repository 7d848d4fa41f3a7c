//! `check`: the schema document against the live table, for the first
//! minute of an incident: does the table have the document's column
//! family, do its keys decode, do they fall in the document's salt buckets
//! under its prefix, and do its rows' value fields read as their declared
//! types. One line per check (`ok` or `FAIL`, and what to do); the exit
//! status is 0 when every check passed and 1 when one failed.

use super::shared::Doc;
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
    let mut failed = usize::from(!family(table, out)?);
    let sample = table.sample(&[layout], rows, None)?;
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
    failed += checks(layout, table, &keys, &how, values, out)?;
    summary(failed, false, out)?;
    Ok(failed == 0)
}

/// `check` over a table shared by the layouts of `docs` (each read through
/// its own store, `tables`): one sample, each key checked under the layout
/// whose key prefix it begins with, and the keys of no given layout a
/// failed check of their own.
pub fn check_shared(
    docs: &[Doc],
    tables: &[Live],
    rows: usize,
    values: usize,
    out: &mut impl Write,
) -> Outcome {
    if rows == 0 {
        return Err("--rows 0 samples nothing: give at least 1".into());
    }
    let Some(first) = tables.first() else {
        return Err(super::NO_TABLE.into());
    };
    let names: Vec<String> = docs
        .iter()
        .map(|d| format!("`{}`", d.schema.name()))
        .collect();
    writeln!(out, "{} against {}", names.join(", "), first.name).map_err(|e| e.to_string())?;
    let layouts: Vec<&DynSchema> = docs.iter().map(|d| &d.schema).collect();
    let sample = first.sample(&layouts, rows, None)?;
    let (mine, none) = super::shared::split(docs, &sample.keys);
    writeln!(out, "{} keys sampled ({})", sample.keys.len(), sample.how)
        .map_err(|e| e.to_string())?;
    let mut failed = 0;
    for ((doc, table), keys) in docs.iter().zip(tables).zip(&mine) {
        writeln!(
            out,
            "\n{}: {} of the {} sampled keys ===",
            doc.heading(),
            keys.len(),
            sample.keys.len()
        )
        .map_err(|e| e.to_string())?;
        failed += usize::from(!family(table, out)?);
        if keys.is_empty() {
            line(
                out,
                true,
                "keys",
                format!(
                    "no sampled key begins with its key prefix {}",
                    shown_prefix(&doc.prefix)
                ),
            )?;
            continue;
        }
        let how = format!("those under its key prefix {}", shown_prefix(&doc.prefix));
        failed += checks(&doc.schema, table, keys, &how, values, out)?;
    }
    writeln!(out).map_err(|e| e.to_string())?;
    let ok = none.is_empty();
    failed += usize::from(!ok);
    let text = match none.first() {
        None => format!("each of the {} sampled keys begins with a given layout's key prefix", sample.keys.len()),
        Some(key) => format!(
            "{} of {} sampled keys are of no given layout (first: {}): they begin with none of the documents' key prefixes; give the schema document of their rows too",
            none.len(),
            sample.keys.len(),
            forms::write(key, Output::Escaped)
        ),
    };
    line(out, ok, "layouts", text)?;
    summary(failed, true, out)?;
    Ok(failed == 0)
}

/// The column family the values are read from (Bigtable): its line, and
/// whether the table has it.
fn family(table: &Live, out: &mut impl Write) -> Result<bool, String> {
    let family = table.value_family();
    let Some(families) = table.families()? else {
        return Ok(true);
    };
    let ok = families.iter().any(|f| f == family);
    let text = match ok {
        true => format!(
            "`{family}` is one of the table's column families ({})",
            families.join(", ")
        ),
        false => table.family_problem(family, &families),
    };
    line(out, ok, "family", text)?;
    Ok(ok)
}

/// The last line: whether the document (or the `documents`) fits.
fn summary(failed: usize, documents: bool, out: &mut impl Write) -> Result<(), String> {
    let (what, fits, does_not) = match documents {
        false => ("the schema document", "fits", "does not fit"),
        true => ("the schema documents", "fit", "do not fit"),
    };
    match failed {
        0 => writeln!(out, "{what} {fits} this table"),
        n => writeln!(out, "{n} check(s) failed: {what} {does_not} this table"),
    }
    .map_err(|e| e.to_string())
}

/// The checks of `layout` on its sampled `keys` (taken as `how` says):
/// they decode, their prefix and buckets, keys past the buckets, and the
/// value fields of `values` of the rows. The number that failed.
fn checks(
    layout: &DynSchema,
    table: &Live,
    keys: &[Vec<u8>],
    how: &str,
    values: usize,
    out: &mut impl Write,
) -> Result<usize, String> {
    let mut failed = 0;
    let mut fail = |ok: bool| failed += usize::from(!ok);
    let bad: Vec<(&Vec<u8>, String)> = keys
        .iter()
        .filter_map(|k| layout.decode(k).err().map(|e| (k, e.to_string())))
        .collect();
    let ok = bad.is_empty();
    fail(ok);
    let text = match bad.first() {
        None => format!("all {} sampled keys decode ({how})", keys.len()),
        Some((key, why)) => format!(
            "{} of {} sampled keys ({:.1}%) are not keys of `{}` (first: {}: {why}): the document's prefix, salt or field order is not the table's; use the document of the type that wrote it; {}",
            bad.len(),
            keys.len(),
            100.0 * bad.len() as f64 / keys.len() as f64,
            layout.name(),
            forms::write(key, Output::Escaped),
            super::SHARED_HINT
        ),
    };
    line(out, ok, "keys", text)?;

    // The prefix and the salt bucket of every sampled key, read from its
    // bytes (a key of another salt count still shows its bucket).
    let (ok, text) = spread(layout, table, keys);
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
        let (ok, text) = value_check(layout, table, keys, values);
        fail(ok);
        line(out, ok, "values", text)?;
    }
    Ok(failed)
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
    let fewer = fewer_buckets(&counts, inside);
    if let Some(used) = fewer {
        let empty = match n as usize - used {
            1 => format!("bucket {used} is"),
            _ => format!("buckets {used}-{} are", n - 1),
        };
        text.push_str(&format!(
            "; {empty} empty while each of the {used} below holds keys, which {inside} sampled keys spread over {n} buckets would all but never do: the table was written with {used} salt buckets, fewer than the document's {n}, so a read by this document looks for rows in buckets they are not in; use the document of the type that wrote it"
        ));
    }
    if other_prefix > 0 {
        text.push_str(&format!(
            "; {other_prefix} sampled keys are not under the document's prefix {}",
            shown_prefix(prefix)
        ));
    }
    (past == 0 && other_prefix == 0 && fewer.is_none(), text)
}

/// The number of buckets the table's writer used, when the sampled keys
/// (`counts` per declared bucket, `inside` in all) fill the first of them
/// and leave every later one empty, and keys spread over all the declared
/// buckets would leave those empty with a chance below one in a million.
fn fewer_buckets(counts: &[usize], inside: usize) -> Option<usize> {
    let used = counts.iter().rposition(|&c| c > 0)? + 1;
    let filled = counts[..used].iter().all(|&c| c > 0);
    let chance =
        (used as f64 / counts.len() as f64).powi(i32::try_from(inside).unwrap_or(i32::MAX));
    (used < counts.len() && filled && chance < 1e-6).then_some(used)
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

#[cfg(test)]
mod tests {
    use super::fewer_buckets;

    #[test]
    fn empty_last_buckets_are_evidence_only_when_a_spread_would_fill_them() {
        // 400 keys in the first 8 of 16 buckets: a writer of 8.
        assert_eq!(fewer_buckets(&[[50; 8], [0; 8]].concat(), 400), Some(8));
        // 10 keys: 16 buckets could leave half empty by chance.
        assert_eq!(
            fewer_buckets(&[[1, 2, 1, 1, 2, 1, 1, 1], [0; 8]].concat(), 10),
            None
        );
        // A gap below the empty ones: skew (few hashed values), not a count.
        assert_eq!(
            fewer_buckets(&[[50, 0, 50, 50], [0; 4]].concat(), 150),
            None
        );
        // Every bucket used, or none.
        assert_eq!(fewer_buckets(&[5; 4], 20), None);
        assert_eq!(fewer_buckets(&[0; 4], 0), None);
    }
}
