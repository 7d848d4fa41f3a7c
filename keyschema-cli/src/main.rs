//! `keyschema`: row keys on the command line, from the schema document a
//! key type writes with `K::schema().to_json()`.
//!
//! ```text
//! keyschema --schema events.json decode '\x03u1\x00s\x00\xFF\xFF\xFF\xFF\x9A\xAC\x0E\xFF'
//! user_id=u1 site=s timestamp=1700000000
//! ```
#![forbid(unsafe_code)]

mod cbt;
mod forms;
mod values;

use clap::{Parser, Subcommand};
use forms::{Form, Output};
use keyschema::dynamic::{DynSchema, Layout, Value, ValueRange};
use keyschema::sizing::Partition;
use std::io::{BufRead, Write};
use std::ops::Bound;
use std::path::PathBuf;
use std::process::ExitCode;

/// Row keys from a keyschema schema document: decode and render keys from
/// logs and shells, encode keys, find buckets, scan ranges, split points and
/// partition sizes.
#[derive(Parser)]
#[command(name = "keyschema", version)]
struct Cli {
    /// The schema document (`K::schema().to_json()`).
    #[arg(long, short, env = "KEYSCHEMA_SCHEMA")]
    schema: PathBuf,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Decode keys into their fields (all checks of the derived `decode`).
    Decode {
        /// Keys; one per line on standard input when none are given.
        keys: Vec<String>,
        /// The form the keys are written in.
        #[arg(long, value_enum, default_value = "auto")]
        input: Form,
        /// One JSON object per key instead of `field=value` pairs.
        #[arg(long)]
        json: bool,
    },
    /// Render keys as `K::render` does (`3|u1|s|~1700000000`), damaged ones too.
    Render {
        /// Keys; one per line on standard input when none are given.
        keys: Vec<String>,
        /// The form the keys are written in.
        #[arg(long, value_enum, default_value = "auto")]
        input: Form,
    },
    /// Encode a key from `field=value` pairs (every key field).
    Encode {
        /// `field=value`, as `decode` prints them.
        fields: Vec<String>,
        /// For a `random % N` salt: the bucket; without it every bucket's key is printed.
        #[arg(long)]
        bucket: Option<u32>,
        /// The form to print the key in.
        #[arg(long, value_enum, default_value = "escaped")]
        output: Output,
    },
    /// The salt bucket of a row, from its hashed fields.
    Bucket {
        /// `field=value` for each hashed field.
        fields: Vec<String>,
    },
    /// The key ranges a typed scan reads: `field=value` for leading fields,
    /// then optionally `field=LO..HI` (`..=`, open ends allowed) on the next.
    Ranges {
        /// The binding, in key order.
        fields: Vec<String>,
        /// The form to print the bounds in.
        #[arg(long, value_enum, default_value = "escaped")]
        output: Output,
    },
    /// Split points from a sample of keys (one per line, or `cbt read` or
    /// HBase shell `scan` output): every bucket boundary and quantiles inside.
    Splits {
        /// The sample file; standard input when absent.
        #[arg(long)]
        sample: Option<PathBuf>,
        /// Regions per bucket.
        #[arg(long, default_value_t = 4)]
        per_bucket: usize,
        /// The form the sampled keys are written in.
        #[arg(long, value_enum, default_value = "auto")]
        input: Form,
        /// The form to print the split points in.
        #[arg(long, value_enum, default_value = "escaped")]
        output: Output,
    },
    /// The size of one partition (the Cassandra chapter's estimate): the
    /// partition is the declared group, `then = (a, b), c`.
    Size {
        /// Rows in one partition.
        #[arg(long)]
        rows: u64,
        /// `field=BYTES` for each variable-width key field (its average size).
        #[arg(long = "bytes")]
        bytes: Vec<String>,
        /// `column=BYTES` for each regular (non-key) column.
        #[arg(long = "value")]
        values: Vec<String>,
        /// Metadata bytes per cell.
        #[arg(long, default_value_t = 8)]
        cell_metadata: u64,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let schema = match std::fs::read_to_string(&cli.schema)
        .map_err(|e| e.to_string())
        .and_then(|text| DynSchema::from_json(&text).map_err(|e| e.to_string()))
    {
        Ok(schema) => schema,
        Err(e) => {
            eprintln!("keyschema: {}: {e}", cli.schema.display());
            return ExitCode::from(2);
        }
    };
    let mut out = Quiet(std::io::stdout().lock());
    let result = match cli.command {
        Command::Decode { keys, input, json } => each_key(&schema, keys, input, &mut out, |key| {
            // A schema with a layout history reads keys of either layout and
            // says which (`layout=older`).
            let (values, layout) = schema.decode_stored(key).map_err(|e| e.to_string())?;
            let layout = schema.history().map(|_| layout);
            Ok(if json {
                json_fields(&schema, &values, layout)
            } else {
                text_fields(&schema, &values, layout)
            })
        }),
        Command::Render { keys, input } => each_key(&schema, keys, input, &mut out, |key| {
            Ok(render(&schema, key))
        }),
        Command::Encode {
            fields,
            bucket,
            output,
        } => encode(&schema, &fields, bucket, output, &mut out),
        Command::Bucket { fields } => bucket(&schema, &fields, &mut out),
        Command::Ranges { fields, output } => ranges(&schema, &fields, output, &mut out),
        Command::Splits {
            sample,
            per_bucket,
            input,
            output,
        } => splits(&schema, sample, per_bucket, input, output, &mut out),
        Command::Size {
            rows,
            bytes,
            values,
            cell_metadata,
        } => size(&schema, rows, &bytes, &values, cell_metadata, &mut out),
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("keyschema: {e}");
            ExitCode::from(2)
        }
    }
}

/// Standard output that ends the process quietly with success when the
/// reader has gone (`keyschema render ... | head -1`), as Unix tools do,
/// instead of reporting a broken pipe.
struct Quiet<W>(W);

impl<W: Write> Quiet<W> {
    fn closed<T>(result: std::io::Result<T>) -> std::io::Result<T> {
        match result {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
            other => other,
        }
    }
}

impl<W: Write> Write for Quiet<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        Self::closed(self.0.write(buf))
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Self::closed(self.0.flush())
    }
}

/// The outcome of a command: `Ok(false)` when some inputs failed (each
/// reported on standard error), `Err` when the command could not run.
type Outcome = Result<bool, String>;

/// Runs `f` on each key (the arguments, or standard input's lines, read
/// as bytes), printing its answer or, on standard error, the line's number
/// and what was wrong with it; the lines after a bad one are still read.
/// A line that is not UTF-8 is the key's raw bytes (as `cbt` prints keys)
/// where the form allows it. An empty key is given to `f` as it is, so it
/// gets the library's own error.
fn each_key(
    schema: &DynSchema,
    keys: Vec<String>,
    form: Form,
    out: &mut impl Write,
    f: impl Fn(&[u8]) -> Result<String, String>,
) -> Outcome {
    if form == Form::Cbt {
        return each_cbt_row(keys, out, f);
    }
    let text_keys = matches!(schema.format(), keyschema::Format::Text { .. });
    let lines: Box<dyn Iterator<Item = std::io::Result<Vec<u8>>>> = if keys.is_empty() {
        Box::new(std::io::stdin().lock().split(b'\n'))
    } else {
        Box::new(keys.into_iter().map(|k| Ok(k.into_bytes())))
    };
    let mut ok = true;
    for (n, line) in lines.enumerate() {
        let mut line = line.map_err(|e| format!("reading standard input: {e}"))?;
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        let blank = std::str::from_utf8(&line).is_ok_and(|t| t.trim().is_empty());
        let key = match blank {
            true => Ok(Vec::new()),
            false => forms::read_line(&line, form, text_keys),
        };
        match key.and_then(|key| f(&key)) {
            Ok(answer) => writeln!(out, "{answer}").map_err(|e| e.to_string())?,
            Err(e) => {
                ok = false;
                eprintln!("line {} ({}): {e}", n + 1, forms::shown(&line));
            }
        }
    }
    Ok(ok)
}

/// A key's rendering; a key of a history's older layout in that layout,
/// marked `(older layout)`.
fn render(schema: &DynSchema, key: &[u8]) -> String {
    match (schema.history(), schema.decode_stored(key)) {
        (Some(history), Ok((_, Layout::Older))) => {
            format!("{} (older layout)", history.older().render(key))
        }
        _ => schema.render(key),
    }
}

fn text_fields(schema: &DynSchema, values: &[Value], layout: Option<Layout>) -> String {
    let mut pairs: Vec<String> = schema
        .fields()
        .iter()
        .zip(values)
        .map(|(f, v)| format!("{}={}", f.name(), values::show(v)))
        .collect();
    pairs.extend(layout.map(|l| format!("layout={l}")));
    pairs.join(" ")
}

fn json_fields(schema: &DynSchema, values: &[Value], layout: Option<Layout>) -> String {
    let mut pairs: Vec<String> = schema
        .fields()
        .iter()
        .zip(values)
        .map(|(f, v)| format!("{}:{}", Value::from(f.name()).to_json(), v.to_json()))
        .collect();
    pairs.extend(layout.map(|l| format!("\"layout\":\"{l}\"")));
    format!("{{{}}}", pairs.join(","))
}

fn encode(
    schema: &DynSchema,
    args: &[String],
    bucket: Option<u32>,
    output: Output,
    out: &mut impl Write,
) -> Outcome {
    let values = values::fields(schema, args)?;
    let random = schema.salt().is_some_and(|s| s.is_random());
    let keys = match (random, bucket) {
        (true, Some(b)) => vec![schema.encode_in(&values, b).map_err(|e| e.to_string())?],
        (true, None) => {
            let key = schema.encode_in(&values, 0).map_err(|e| e.to_string())?;
            schema.candidates(&key)
        }
        (false, Some(_)) => return Err("--bucket is only for `random % N` salts".into()),
        (false, None) => vec![schema.encode(&values).map_err(|e| e.to_string())?],
    };
    for key in keys {
        writeln!(out, "{}", forms::write(&key, output)).map_err(|e| e.to_string())?;
    }
    Ok(true)
}

fn bucket(schema: &DynSchema, args: &[String], out: &mut impl Write) -> Outcome {
    if let Some(salt) = schema.salt().filter(|s| s.is_random()) {
        return Err(format!(
            "`{}` is salted `random % {n}`: a row's bucket is drawn when it is written, not computed from its fields, so a row may be in any of buckets 0..={}; `keyschema encode` prints its key in every bucket (`--bucket B` for one), and `keyschema ranges` the ranges a scan reads",
            schema.name(),
            salt.buckets() - 1,
            n = salt.buckets(),
        ));
    }
    let mut values = Vec::new();
    for (name, text) in values::pairs(args)? {
        let (_, field) = schema.field(name).map_err(|e| e.to_string())?;
        values.push((name, values::read_field(field, text)?));
    }
    let bucket = schema.bucket(&values).map_err(|e| e.to_string())?;
    writeln!(out, "{bucket}").map_err(|e| e.to_string())?;
    Ok(true)
}

/// `LO..HI`, `LO..=HI`, `LO..`, `..HI`, `..=HI`.
fn range(field: &keyschema::dynamic::DynField, text: &str) -> Result<ValueRange, String> {
    let (lo, hi, inclusive) = match text.split_once("..=") {
        Some((lo, hi)) => (lo, hi, true),
        None => match text.split_once("..") {
            Some((lo, hi)) => (lo, hi, false),
            None => return Err(format!("`{text}` is not a range")),
        },
    };
    let parse = |t: &str| values::read_field(field, t);
    let lo = if lo.is_empty() {
        Bound::Unbounded
    } else {
        Bound::Included(parse(lo)?)
    };
    let hi = match (hi.is_empty(), inclusive) {
        (true, false) => Bound::Unbounded,
        (true, true) => return Err(format!("`{text}`: `..=` needs an upper end")),
        (false, true) => Bound::Included(parse(hi)?),
        (false, false) => Bound::Excluded(parse(hi)?),
    };
    Ok((lo, hi))
}

fn ranges(schema: &DynSchema, args: &[String], output: Output, out: &mut impl Write) -> Outcome {
    let mut equal = Vec::new();
    let mut last = None;
    for (i, (name, text)) in values::pairs(args)?.into_iter().enumerate() {
        let (index, field) = schema.field(name).map_err(|e| e.to_string())?;
        if index != i {
            let expected = schema.fields().get(i).map_or("nothing more", |f| f.name());
            return Err(format!(
                "`{name}` is field {} of the key; bind the fields in key order (expected `{expected}`)",
                index + 1
            ));
        }
        if last.is_some() {
            return Err(format!(
                "`{name}` comes after the range; a range ends the binding"
            ));
        }
        // A value with `..` is a range; a string holding `..` is bound
        // quoted (`"a..b"`).
        let quoted = text.len() >= 2 && text.starts_with('"') && text.ends_with('"');
        if text.contains("..") && !quoted {
            last = Some(range(field, text)?);
        } else {
            equal.push(values::read_field(field, text)?);
        }
    }
    let set = schema.ranges(&equal, last).map_err(|e| e.to_string())?;
    writeln!(out, "{} range(s)", set.len()).map_err(|e| e.to_string())?;
    for r in set.iter() {
        let end = r
            .end()
            .map_or_else(|| "(end of table)".to_string(), |e| forms::write(e, output));
        writeln!(
            out,
            "bucket {}: [{}, {})  from {}",
            r.bucket(),
            forms::write(r.start(), output),
            end,
            schema.render_prefix(r.start())
        )
        .map_err(|e| e.to_string())?;
    }
    Ok(true)
}

/// [`each_key`] over the rows of `cbt read` output on standard input: one
/// answer per row, and on standard error each row that cannot be read
/// exactly (a key holding a line break) with the line it starts on.
fn each_cbt_row(
    keys: Vec<String>,
    out: &mut impl Write,
    f: impl Fn(&[u8]) -> Result<String, String>,
) -> Outcome {
    if !keys.is_empty() {
        return Err("--input cbt reads `cbt read` output on standard input; give no keys".into());
    }
    let bytes = stdin_bytes()?;
    let mut ok = true;
    for row in cbt::rows(&bytes) {
        match row.key.and_then(|key| f(&key)) {
            Ok(answer) => writeln!(out, "{answer}").map_err(|e| e.to_string())?,
            Err(e) => {
                ok = false;
                eprintln!("row at line {}: {e}", row.line);
            }
        }
    }
    Ok(ok)
}

/// Standard input, whole, as bytes.
fn stdin_bytes() -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes)
        .map_err(|e| format!("reading standard input: {e}"))?;
    Ok(bytes)
}

/// The keys of a sample, each bad row or line reported on standard error
/// (`false` when there was one): `cbt read` output by its rows, or one key
/// per line (raw `cbt` key lines read, their indented cell lines skipped).
fn sample_keys(bytes: &[u8], form: Form, text_keys: bool) -> (Vec<Vec<u8>>, bool) {
    let mut keys = Vec::new();
    let mut ok = true;
    if form == Form::Cbt {
        for row in cbt::rows(bytes) {
            match row.key {
                Ok(key) => keys.push(key),
                Err(e) => {
                    ok = false;
                    eprintln!("row at line {}: {e}", row.line);
                }
            }
        }
        return (keys, ok);
    }
    for (n, line) in bytes.split(|&b| b == b'\n').enumerate() {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let key = match std::str::from_utf8(line) {
            Ok(text) => match forms::sample_line(text) {
                Some(key) => forms::read(key, form, text_keys),
                None => continue,
            },
            // Raw key bytes (as `cbt` prints a row key); an indented line
            // is one of its cells.
            Err(_) if line.starts_with(b" ") || line.starts_with(b"\t") => continue,
            Err(_) => forms::read_line(line, form, text_keys),
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

fn splits(
    schema: &DynSchema,
    sample: Option<PathBuf>,
    per_bucket: usize,
    form: Form,
    output: Output,
    out: &mut impl Write,
) -> Outcome {
    let bytes = match &sample {
        Some(path) => std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?,
        None => stdin_bytes()?,
    };
    let text_keys = matches!(schema.format(), keyschema::Format::Text { .. });
    let (keys, ok) = sample_keys(&bytes, form, text_keys);
    let foreign = keys.iter().filter(|k| schema.bucket_of(k).is_err()).count();
    let points = schema.split_points(keys.iter().map(Vec::as_slice), per_bucket);
    writeln!(
        out,
        "{} split points from {} sampled keys ({} not of this schema, ignored)",
        points.len(),
        keys.len(),
        foreign
    )
    .map_err(|e| e.to_string())?;
    for p in points {
        writeln!(
            out,
            "{}  {}",
            forms::write(&p, output),
            schema.render_prefix(&p)
        )
        .map_err(|e| e.to_string())?;
    }
    Ok(ok)
}

fn size(
    schema: &DynSchema,
    rows: u64,
    bytes: &[String],
    values: &[String],
    cell_metadata: u64,
    out: &mut impl Write,
) -> Outcome {
    let Some(partition) = schema.partition_components() else {
        return Err(format!(
            "`{}` declares no partition key: write the partition columns first in `then`, in parentheses (`then = (hotel_id), day, room`)",
            schema.name()
        ));
    };
    let given = values::pairs(bytes)?;
    for (name, _) in &given {
        let Some(c) = schema.components().iter().find(|c| c.name() == *name) else {
            return Err(format!(
                "--bytes {name}: `{}` has no key field `{name}`",
                schema.name()
            ));
        };
        if let Some(width) = c.encoding().fixed_width() {
            return Err(format!(
                "--bytes {name}: `{name}` ({}) is always {width} bytes in the key; give --bytes only for variable-width fields",
                c.encoding()
            ));
        }
    }
    let size_of = |i: usize| -> Result<u64, String> {
        let c = &schema.components()[i];
        if let Some((_, n)) = given.iter().find(|(name, _)| *name == c.name()) {
            return n
                .parse()
                .map_err(|_| format!("--bytes {}={n}: not a number", c.name()));
        }
        c.encoding().fixed_width().map(|w| w as u64).ok_or_else(|| {
            format!(
                "`{}` ({}) has no fixed size: give its average with --bytes {}=N",
                c.name(),
                c.encoding(),
                c.name()
            )
        })
    };
    let salt = schema
        .salt()
        .map_or(0, |s| if s.buckets() > 256 { 2 } else { 1 });
    let mut partition_key_bytes = salt;
    let mut clustering_bytes = 0;
    for i in 0..schema.components().len() {
        if i < partition {
            partition_key_bytes += size_of(i)?;
        } else {
            clustering_bytes += size_of(i)?;
        }
    }
    let mut regular_bytes = 0;
    for (name, n) in values::pairs(values)? {
        regular_bytes += n
            .parse::<u64>()
            .map_err(|_| format!("--value {name}={n}: not a number"))?;
    }
    let key_columns = schema.components().len() as u64 + u64::from(schema.salt().is_some());
    let p = Partition {
        rows,
        columns: key_columns + values.len() as u64,
        primary_key_columns: key_columns,
        static_columns: 0,
        partition_key_bytes,
        static_bytes: 0,
        clustering_bytes,
        regular_bytes,
        cell_metadata_bytes: cell_metadata,
    };
    let w = |r: std::io::Result<()>| r.map_err(|e| e.to_string());
    w(writeln!(
        out,
        "rows {rows}, values {}, bytes {}",
        p.values(),
        p.total_bytes()
    ))?;
    match p.over_guidance() {
        Some(why) => w(writeln!(out, "over the guidance: {why}"))?,
        None => w(writeln!(
            out,
            "within the guidance (100,000 values, 100 MB)"
        ))?,
    }
    Ok(true)
}
