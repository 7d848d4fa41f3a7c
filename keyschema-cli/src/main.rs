//! `keyschema`: row keys on the command line, from the schema document a
//! key type writes with `K::schema().to_json()`.
//!
//! ```text
//! keyschema --schema events.json decode '\x03u1\x00s\x00\xFF\xFF\xFF\xFF\x9A\xAC\x0E\xFF'
//! user_id=u1 site=s timestamp=1700000000
//! ```
#![forbid(unsafe_code)]

mod b64;
mod binding;
mod cbt;
mod cbt_command;
mod dynamodb_key;
mod forms;
mod hbase;
mod live;
mod reading;
mod sample;
mod size;
mod values;

use clap::{Parser, Subcommand};
use forms::{Form, Output};
use keyschema::dynamic::{DynSchema, Layout, Value};
use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::process::ExitCode;

/// Row keys from a keyschema schema document: decode and render keys from
/// logs and shells, encode keys, find buckets, scan ranges, split points and
/// partition sizes.
#[derive(Parser)]
#[command(name = "keyschema", version)]
struct Cli {
    /// The schema document (`K::schema().to_json()`). `hotspot`, `splits`
    /// and `check` take several (`--schema a.json --schema b.json`), one per
    /// layout of a table they share, each under its own prefix: each key is
    /// counted under the layout whose prefix it begins with. The other
    /// commands read one layout and take one.
    #[arg(long, short, env = "KEYSCHEMA_SCHEMA", required = true)]
    schema: Vec<PathBuf>,
    #[command(flatten)]
    table: live::TableArgs,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Decode keys into their fields (all checks of the derived `decode`).
    /// A DynamoDB item's key as the console and `aws dynamodb scan` show
    /// it: `decode --input dynamodb 'PK_BASE64 SK_BASE64'`, or its JSON.
    Decode {
        /// Keys; one per line on standard input when none are given (after
        /// `--` when one begins with `-`).
        keys: Vec<String>,
        /// The form the keys are written in.
        #[arg(long, value_enum, default_value = "auto")]
        input: Form,
        /// One JSON object per key instead of `field=value` pairs.
        #[arg(long)]
        json: bool,
    },
    /// Render keys as `K::render` does (`3|u1|s|~1700000000`), damaged ones
    /// too; one line each: a rendering that holds a control character (a
    /// line break in a text key) in the escaped form (`\xNN` for it and for
    /// `\`), which `--input escaped` reads back.
    Render {
        /// Keys; one per line on standard input when none are given (after
        /// `--` when one begins with `-`).
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
        /// Print the `cbt` command that reads exactly this row (of the
        /// `--bigtable` table, else `TABLE`): a lookup, or an anchored
        /// regex for a key holding 0x00.
        #[arg(long)]
        cbt: bool,
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
    /// Rows of the live table (`--bigtable` or `--dynamodb`) by field
    /// values, in key order, printed as they arrive: the first 10 unless
    /// `--limit N` says otherwise (the end says when there are more);
    /// `field=value` for leading key fields, then optionally
    /// `field=LO..HI` on the next; each row's key fields, `|`, and its
    /// value fields (nested ones read by their declared types too), then
    /// `| undeclared:` and the attributes or cells the document does not
    /// declare (a DynamoDB index's, another program's). A row that does not
    /// read (its key, or a value field as its declared type) is an error
    /// line on standard error and the others print: exit status 1, as
    /// when the scan warns that the document does not match the table
    /// (keys it cannot decode, keys past its salt buckets), as a failed
    /// `check` exits.
    Scan(live::scan::ScanArgs),
    /// The row of the live table under a key: `field=value` for every key
    /// field. Exit status 1 when there is none, or it does not read.
    Get {
        /// `field=value`, as `decode` prints them.
        fields: Vec<String>,
        #[command(flatten)]
        print: live::scan::Print,
    },
    /// Whether the schema document fits the live table: its column family,
    /// the share of sampled keys that decode, their salt buckets and
    /// prefix, and the value fields of sampled rows; with several
    /// `--schema`, each layout's on its own keys. Exit status 1 when a
    /// check fails.
    Check {
        /// How many keys to sample.
        #[arg(long, default_value_t = 1000)]
        rows: usize,
        /// How many of the sampled rows to read whole, for their value fields.
        #[arg(long, default_value_t = 100)]
        values: usize,
    },
    /// Where a sample of keys falls: by salt bucket, by the hashed fields
    /// together (the DynamoDB partition key), by each key field's values
    /// (which user, which site), with bars, and on Bigtable the stored
    /// bytes per bucket. The sample is the live table's (spread over its
    /// whole key space), or a sample file's. With several `--schema` (a
    /// shared table): the total by layout, then each layout's report.
    Hotspot {
        /// A sample file (keys one per line, `cbt read` or HBase shell
        /// `scan` output); without
        /// it, a sample of the live table, or standard input.
        #[arg(long)]
        sample: Option<PathBuf>,
        /// How many keys to sample from the live table.
        #[arg(long, default_value_t = 10_000)]
        rows: usize,
        /// How many of the hottest buckets and values to list.
        #[arg(long, default_value_t = 5)]
        top: usize,
        /// The form the sampled keys are written in.
        #[arg(long, value_enum, default_value = "auto")]
        input: Form,
        #[command(flatten)]
        more: live::HotspotArgs,
    },
    /// Split points from a sample of keys (one per line, or `cbt read` or
    /// HBase shell `scan` output, or the live table's): every bucket
    /// boundary and quantiles inside (with several `--schema`, per layout).
    Splits {
        /// The sample file; without it, a sample of the live table, or
        /// standard input.
        #[arg(long)]
        sample: Option<PathBuf>,
        /// How many keys to sample from the live table.
        #[arg(long, default_value_t = 10_000)]
        rows: usize,
        /// Print the live table's own split points (Bigtable's
        /// SampleRowKeys: keys cutting it into sections of about equal
        /// stored size) instead of planning new ones.
        #[arg(long)]
        current: bool,
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
    let matches = <Cli as clap::CommandFactory>::command().get_matches();
    let mut cli = match <Cli as clap::FromArgMatches>::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    // A table named on the command line wins over the other store's
    // variable (KEYSCHEMA_BIGTABLE, KEYSCHEMA_DYNAMODB).
    let given = |id: &str| matches.value_source(id) == Some(clap::parser::ValueSource::CommandLine);
    cli.table.prefer(given("bigtable"), given("dynamodb"));
    if let Some((pk, sk)) = cli.table.key_attribute_names() {
        dynamodb_key::set_names(&pk, &sk);
    }
    // Several documents: only for the commands that report per layout.
    let shared = matches!(
        cli.command,
        Command::Hotspot { .. } | Command::Splits { .. } | Command::Check { .. }
    );
    let command = matches.subcommand_name().unwrap_or_default();
    let loaded = match shared || cli.schema.len() == 1 {
        true => live::shared::load(&cli.schema),
        false => Err(live::shared::several(&cli.schema, command)),
    };
    let docs = match loaded {
        Ok(docs) if !docs.is_empty() => docs,
        Ok(_) => {
            eprintln!("keyschema: no schema document: give --schema FILE");
            return ExitCode::from(2);
        }
        Err(e) => {
            eprintln!("keyschema: {e}");
            return ExitCode::from(2);
        }
    };
    let (schema, document) = (&docs[0].schema, Ok::<String, String>(docs[0].text.clone()));
    let layouts: Vec<&DynSchema> = docs.iter().map(|d| &d.schema).collect();
    let mut out = Quiet(std::io::stdout().lock());
    let result = match cli.command {
        Command::Decode { keys, input, json } => each_key(schema, keys, input, &mut out, |key| {
            // A schema with a layout history reads keys of either layout and
            // says which (`layout=older`).
            let (values, layout) = schema.decode_stored(key).map_err(|e| e.to_string())?;
            let layout = schema.history().map(|_| layout);
            Ok(if json {
                json_fields(schema, &values, layout)
            } else {
                text_fields(schema, &values, layout)
            })
        }),
        Command::Render { keys, input } => each_key(schema, keys, input, &mut out, |key| {
            Ok(render(schema, key))
        }),
        Command::Encode {
            fields,
            bucket,
            output,
            cbt,
        } => {
            let print = |key: &[u8]| match cbt {
                true => {
                    let (cbt, table) = cli.table.cbt_prefix();
                    Ok(cbt_command::command(key, &cbt, &table))
                }
                false => Ok(forms::write(key, output)),
            };
            encode(schema, &fields, bucket, print, &mut out)
        }
        Command::Bucket { fields } => bucket(schema, &fields, &mut out),
        Command::Ranges { fields, output } => ranges(schema, &fields, output, &mut out),
        Command::Scan(args) => sample::live(&cli.table, &document)
            .and_then(|table| live::scan::scan(schema, &table, &args, &mut out)),
        Command::Get { fields, print } => sample::live(&cli.table, &document)
            .and_then(|table| live::scan::get(schema, &table, &fields, print, &mut out)),
        Command::Check { rows, values } if docs.len() == 1 => sample::live(&cli.table, &document)
            .and_then(|table| live::check(schema, &table, rows, values, &mut out)),
        Command::Check { rows, values } => docs
            .iter()
            .map(|d| sample::live(&cli.table, &Ok(d.text.clone())))
            .collect::<Result<Vec<_>, _>>()
            .and_then(|tables| live::check_shared(&docs, &tables, rows, values, &mut out)),
        Command::Hotspot {
            sample,
            rows,
            top,
            input,
            more,
        } => more.store_since().and_then(|since| sample::sampled(&cli.table, &document, &layouts, sample, rows, input, since)).and_then(
            |(keys, source, sections, ok)| {
                if keys.is_empty() {
                    return Err(format!("no keys to report on in {source}"));
                }
                if top == 0 {
                    return Err("--top 0 lists nothing: give at least 1".into());
                }
                let clean = live::shared::hotspot(&docs, &keys, &source, sections.as_deref(), top, &more, &mut out)?;
                Ok(ok && clean)
            },
        ),
        Command::Splits {
            current: true, ..
        } => sample::live(&cli.table, &document).and_then(|table| {
            let Some(points) = table.split_points()? else {
                return Err(format!(
                    "{} has no split points to read: DynamoDB does not publish its partitions' boundaries (plan them from a sample: drop --current)",
                    table.name
                ));
            };
            writeln!(out, "{} split points of {}", points.len(), table.name)
                .map_err(|e| e.to_string())?;
            live::shared::points_list(&docs, &points, output_of(&cli.command), &mut out)?;
            Ok(true)
        }),
        Command::Splits {
            sample,
            rows,
            per_bucket,
            input,
            output,
            ..
        } => sample::sampled(&cli.table, &document, &layouts, sample, rows, input, None).and_then(
            |(keys, source, _, ok)| {
                if keys.is_empty() {
                    return Err(format!("no keys to plan from in {source}"));
                }
                if per_bucket == 0 {
                    return Err("--per-bucket 0: a bucket is at least one region".into());
                }
                let clean = live::shared::splits(&docs, &keys, per_bucket, output, &mut out)?;
                Ok(ok && clean)
            },
        ),
        Command::Size {
            rows,
            bytes,
            values,
            cell_metadata,
        } => size::size(schema, rows, &bytes, &values, cell_metadata, &mut out),
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
pub(crate) type Outcome = Result<bool, String>;

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
    if matches!(form, Form::Cbt | Form::Hbase) {
        if !keys.is_empty() {
            return Err("--input cbt and --input hbase read a tool's output on standard input; give no keys".into());
        }
        return each_row(schema, stdin_bytes()?, form, out, f);
    }
    let lines: Box<dyn Iterator<Item = std::io::Result<Vec<u8>>>> = if keys.is_empty() {
        let mut stdin = std::io::stdin().lock();
        // `auto` reads a tool's output whole when its first line says which.
        let mut first = Vec::new();
        if let Some(tool) = sample::head(&mut stdin, form, &mut first)? {
            std::io::Read::read_to_end(&mut stdin, &mut first)
                .map_err(|e| format!("reading standard input: {e}"))?;
            return each_row(schema, first, tool, out, f);
        }
        let first = (!first.is_empty()).then(|| {
            if first.last() == Some(&b'\n') {
                first.pop();
            }
            Ok(first)
        });
        Box::new(first.into_iter().chain(stdin.split(b'\n')))
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
            false => reading::read_line(&line, form, schema),
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
/// `render`'s line: the key's rendering on one line ([`forms::one_line`]).
fn render(schema: &DynSchema, key: &[u8]) -> String {
    match (schema.history(), schema.decode_stored(key)) {
        (Some(history), Ok((_, Layout::Older))) => {
            format!(
                "{} (older layout)",
                forms::one_line(&history.older().render(key))
            )
        }
        _ => forms::one_line(&schema.render(key)),
    }
}

pub(crate) fn text_fields(schema: &DynSchema, values: &[Value], layout: Option<Layout>) -> String {
    let mut pairs: Vec<String> = schema
        .fields()
        .iter()
        .zip(values)
        .map(|(f, v)| format!("{}={}", f.name(), values::show(v)))
        .collect();
    pairs.extend(layout.map(|l| format!("layout={l}")));
    pairs.join(" ")
}

pub(crate) fn json_fields(schema: &DynSchema, values: &[Value], layout: Option<Layout>) -> String {
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
    print: impl Fn(&[u8]) -> Result<String, String>,
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
    let mut ok = true;
    for key in keys {
        match print(&key) {
            Ok(line) => writeln!(out, "{line}").map_err(|e| e.to_string())?,
            Err(e) => {
                ok = false;
                eprintln!("{}: {e}", schema.render(&key));
            }
        }
    }
    Ok(ok)
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

fn ranges(schema: &DynSchema, args: &[String], output: Output, out: &mut impl Write) -> Outcome {
    let (equal, last) = binding::binding(schema, args)?;
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

/// [`each_key`] over the rows of `cbt read` or HBase shell output: one
/// answer per row, and on standard error each row that cannot be read
/// exactly (a key holding a line break in cbt's output, the shell's
/// terminal layout) with the line it starts on.
fn each_row(
    schema: &DynSchema,
    bytes: Vec<u8>,
    form: Form,
    out: &mut impl Write,
    f: impl Fn(&[u8]) -> Result<String, String>,
) -> Outcome {
    let mut ok = true;
    for (line, key) in sample::structured(&bytes, form, schema).unwrap_or_default() {
        match key.and_then(|key| f(&key)) {
            Ok(answer) => writeln!(out, "{answer}").map_err(|e| e.to_string())?,
            Err(e) => {
                ok = false;
                eprintln!("row at line {line}: {e}");
            }
        }
    }
    Ok(ok)
}

/// Standard input, whole, as bytes.
pub(crate) fn stdin_bytes() -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes)
        .map_err(|e| format!("reading standard input: {e}"))?;
    Ok(bytes)
}

/// The `--output` of `splits`.
fn output_of(command: &Command) -> Output {
    match command {
        Command::Splits { output, .. } => *output,
        _ => Output::Escaped,
    }
}
