//! Samples of keys (a file, `cbt read` output, a live table's) and the
//! split points planned from them.

use crate::forms::{self, Form, Output};
use crate::{cbt, hbase, reading};
use keyschema::dynamic::DynSchema;
use std::io::Write;
use std::path::Path;

/// The keys of a sample, each bad row or line reported on standard error
/// (`false` when there was one): `cbt read` or HBase shell output by its
/// rows, or one key per line (raw `cbt` key lines read, their indented cell
/// lines skipped).
pub fn sample_keys(bytes: &[u8], form: Form, schema: &DynSchema) -> (Vec<Vec<u8>>, bool) {
    let mut keys = Vec::new();
    let mut ok = true;
    if let Some(rows) = structured(bytes, form, schema) {
        for (line, key) in rows {
            match key {
                Ok(key) => keys.push(key),
                Err(e) => {
                    ok = false;
                    eprintln!("row at line {line}: {e}");
                }
            }
        }
        return (keys, ok);
    }
    for (n, line) in bytes.split(|&b| b == b'\n').enumerate() {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let key = match std::str::from_utf8(line) {
            Ok(text) => match forms::sample_line(text) {
                Some(key) => reading::read_line(key.as_bytes(), form, schema),
                None => continue,
            },
            // Raw key bytes (as `cbt` prints a row key); an indented line
            // is one of its cells.
            Err(_) if line.starts_with(b" ") || line.starts_with(b"\t") => continue,
            Err(_) => reading::read_line(line, form, schema),
        };
        match key {
            Ok(key) => keys.push(key),
            Err(e) => {
                ok = false;
                eprintln!("line {} ({}): {e}", n + 1, forms::shown(line));
            }
        }
    }
    (keys, ok)
}

/// Rows read by their structure: the line each starts on, and its key or
/// why it cannot be read exactly.
pub type Rows = Vec<(usize, Result<Vec<u8>, String>)>;

/// The rows of a tool's output read by its structure, each with the line
/// it starts on: `cbt read` output or the HBase shell's (`--input cbt`,
/// `--input hbase`, or `auto` when the output's first line says which); a
/// cbt key split across lines is read as the split that decodes under
/// `schema`. `None` for input read one key per line.
pub fn structured(bytes: &[u8], form: Form, schema: &DynSchema) -> Option<Rows> {
    let first = bytes
        .split(|b| *b == b'\n')
        .find(|l| !l.iter().all(u8::is_ascii_whitespace))
        .unwrap_or_default();
    let form = match form {
        Form::Auto => tool_output(first)?,
        other => other,
    };
    let rows: Rows = match form {
        Form::Cbt => cbt::rows(bytes, &|key| schema.decode_stored(key).is_ok())
            .into_iter()
            .map(|r| (r.line, r.key))
            .collect(),
        Form::Hbase => hbase::rows(bytes)
            .into_iter()
            .map(|r| (r.line, r.key))
            .collect(),
        _ => return None,
    };
    Some(rows)
}

/// The tool whose output begins with the line `first`: cbt's line of
/// dashes or its `-creds` notice (logged before its output, even when no
/// row follows), or the HBase shell's `ROW ... COLUMN+CELL` header.
pub fn tool_output(first: &[u8]) -> Option<Form> {
    if cbt::is_notice(first) {
        return Some(Form::Cbt);
    }
    let line = String::from_utf8_lossy(first);
    let line = line.trim();
    if line.len() == 40 && line.bytes().all(|b| b == b'-') {
        Some(Form::Cbt)
    } else if hbase::is_header(line) {
        Some(Form::Hbase)
    } else {
        None
    }
}

/// Reads the first line of standard input into `head`: the tool whose
/// output it begins (`auto` only), if any.
pub fn head(
    input: &mut impl std::io::BufRead,
    form: Form,
    head: &mut Vec<u8>,
) -> Result<Option<Form>, String> {
    input
        .read_until(b'\n', head)
        .map_err(|e| format!("reading standard input: {e}"))?;
    let first = head.strip_suffix(b"\n").unwrap_or(head);
    Ok((form == Form::Auto).then(|| tool_output(first)).flatten())
}

/// The keys of the sample file `path`, or of standard input, read as
/// text keys first when one of `layouts` is of the text format.
pub fn read_sample(
    layouts: &[&DynSchema],
    path: Option<&Path>,
    form: Form,
) -> Result<(Vec<Vec<u8>>, bool), String> {
    let bytes = match path {
        Some(path) => std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?,
        None => crate::stdin_bytes()?,
    };
    // Keys are read by the layout whose format they are likeliest in: a
    // text layout's when there is one (its keys are text), else the first.
    let reader = layouts
        .iter()
        .find(|l| matches!(l.format(), keyschema::Format::Text { .. }))
        .or(layouts.first())
        .ok_or("no schema document given")?;
    Ok(sample_keys(&bytes, form, reader))
}

/// The split points planned from `keys`: every bucket boundary and
/// `per_bucket - 1` quantiles inside each bucket. Keys that do not decode
/// are left out, counted, and the first reported; `false` when there was
/// one.
pub fn splits(
    schema: &DynSchema,
    keys: &[Vec<u8>],
    per_bucket: usize,
    output: Output,
    out: &mut impl Write,
) -> Result<bool, String> {
    let (good, bad): (Vec<&Vec<u8>>, Vec<&Vec<u8>>) =
        keys.iter().partition(|k| schema.decode(k).is_ok());
    let foreign = bad.len();
    if let Some(first) = bad.first() {
        eprintln!(
            "{foreign} sampled keys are not keys of `{}` and are left out; the first: {}; {}",
            schema.name(),
            forms::write(first, Output::Escaped),
            crate::live::SHARED_HINT
        );
    }
    let points = schema.split_points(good.iter().map(|k| k.as_slice()), per_bucket);
    writeln!(
        out,
        "{} split points from {} sampled keys ({} not of this schema, ignored)",
        points.len(),
        keys.len(),
        foreign
    )
    .map_err(|e| e.to_string())?;
    points_list(schema, &points, output, out)?;
    Ok(foreign == 0)
}

/// Split points, one per line: the key in `output`'s form, then rendered.
pub fn points_list(
    schema: &DynSchema,
    points: &[Vec<u8>],
    output: Output,
    out: &mut impl Write,
) -> Result<(), String> {
    for p in points {
        writeln!(
            out,
            "{}  {}",
            forms::write(p, output),
            schema.render_prefix(p)
        )
        .map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// The live table the options name.
pub(crate) fn live(
    args: &crate::live::TableArgs,
    document: &Result<String, String>,
) -> Result<crate::live::Live, String> {
    if !args.named() {
        return Err(crate::live::NO_TABLE.into());
    }
    crate::live::Live::open(args, document.as_deref().map_err(Clone::clone)?)
}

/// A sample of keys: the file's, else the live table's (with SampleRowKeys'
/// sections on Bigtable), else standard input's; and whether every line read.
pub(crate) type Sampled = (Vec<Vec<u8>>, String, Option<Vec<(Vec<u8>, i64)>>, bool);

/// The sample `hotspot` and `splits` report on, for `layouts` (one, or
/// each of a shared table's; the table is opened with the first
/// `document`).
pub(crate) fn sampled(
    args: &crate::live::TableArgs,
    document: &Result<String, String>,
    layouts: &[&DynSchema],
    file: Option<std::path::PathBuf>,
    rows: usize,
    form: crate::forms::Form,
    since: Option<std::time::Duration>,
) -> Result<Sampled, String> {
    if file.is_none() && args.named() {
        if rows == 0 {
            return Err("--rows 0 samples nothing: give at least 1".into());
        }
        let table = live(args, document)?;
        let s = table.sample(layouts, rows, since)?;
        return Ok((
            s.keys,
            format!("{}, of {}", s.how, table.name),
            s.sections,
            true,
        ));
    }
    if since.is_some() {
        return Err(
            "--since without a table counts by a key field: give --time-field FIELD".into(),
        );
    }
    if file.is_none() && std::io::IsTerminal::is_terminal(&std::io::stdin()) {
        return Err(format!(
            "no sample: give --sample FILE, a table (--bigtable or --dynamodb), or keys on standard input; {}",
            crate::live::NO_TABLE
        ));
    }
    let source = file
        .as_ref()
        .map_or("standard input".to_string(), |p| p.display().to_string());
    let (keys, ok) = read_sample(layouts, file.as_deref(), form)?;
    Ok((keys, source, None, ok))
}
