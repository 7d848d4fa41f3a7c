//! `scan` and `get`: a live table's rows printed as they arrive, each
//! checked against the schema document (its key decodes, its value fields
//! read as their declared types); a row that does not is an error line on
//! standard error and the others still print. The exit status is 1 when a
//! row was bad (as ripgrep's for a partial failure), 2 when the read
//! itself failed.

use super::merge::{Group, Sink};
use super::progress::Ticker;
use super::Live;
use crate::forms::{self, Output};
use crate::Outcome;
use keyschema::dynamic::DynSchema;
use keyschema::store::Direction;
use std::io::Write;

/// How `scan` and `get` print rows.
#[derive(clap::Args, Debug, Clone, Copy, Default)]
pub struct Print {
    /// One JSON object per row (key fields and value fields), as
    /// `decode --json` prints keys.
    #[arg(long)]
    pub json: bool,
    /// Each row's salt bucket and stored key too (`bucket=B key=...`).
    #[arg(long)]
    pub keys: bool,
}

/// How `scan` reads.
#[derive(clap::Args, Debug, Clone)]
pub struct ScanArgs {
    /// The binding, in key order (none: every row; DynamoDB needs the
    /// partition fields bound).
    pub fields: Vec<String>,
    /// The most rows to print (a scan without it prints the first 10, and
    /// says when there are more).
    #[arg(long, default_value_t = 10)]
    pub limit: usize,
    /// Newest first: the rows in descending key order.
    #[arg(long)]
    pub reverse: bool,
    /// Buckets (ranges) read at once.
    #[arg(long, default_value_t = keyschema::DEFAULT_CONCURRENCY)]
    pub concurrency: usize,
    /// Resume after the cursor a scan printed at its end (the last row's
    /// key after the salt, in hex).
    #[arg(long, value_name = "CURSOR")]
    pub after: Option<String>,
    #[command(flatten)]
    pub print: Print,
}

/// The rows printed and the bad ones met.
struct Printer<'a, W> {
    layout: &'a DynSchema,
    table: &'a Live,
    print: Print,
    out: &'a mut W,
    /// Key groups printed (rows, or a random salt's copies as one).
    printed: usize,
    /// The most groups to print.
    limit: usize,
    /// Rows whose value fields do not read, copies that disagree, rows
    /// the store could not read.
    bad_rows: usize,
    /// Rows whose keys are not keys of the document.
    bad_keys: usize,
    first_bad_key: Option<String>,
    /// The last key printed, after its header (the cursor).
    last_body: Option<Vec<u8>>,
    /// Rows met, good or bad.
    met: usize,
    /// Progress on standard error when it is a terminal.
    ticker: Ticker,
}

/// Error lines for keys of another layout, at most: the rest are counted.
const SHOWN_BAD_KEYS: usize = 5;

impl<W: Write> Sink for Printer<'_, W> {
    fn group(&mut self, group: Group) -> Result<bool, String> {
        // The progress line off the screen before a row or an error line
        // reaches it, drawn again after when due.
        self.ticker.done();
        let going = self.print_group(group);
        let (met, printed) = (self.met, self.printed);
        self.ticker
            .show(|| format!("scan: {met} rows read, {printed} printed"));
        going
    }

    fn item_error(&mut self, error: String) {
        self.ticker.done();
        self.bad_rows += 1;
        eprintln!("{error}");
    }
}

impl<W: Write> Printer<'_, W> {
    /// Prints one key's rows (or says on standard error why not); whether
    /// to read on.
    fn print_group(&mut self, group: Group) -> Result<bool, String> {
        self.met += group.len();
        let Some((_, (key, value))) = group.first() else {
            return Ok(true);
        };
        let layout = self.layout;
        let header = self.table.schema.header_len();
        self.last_body = Some(key.get(header..).unwrap_or_default().to_vec());
        let values = match layout.decode(key) {
            Ok(values) => values,
            Err(e) => {
                self.bad_keys += group.len();
                let line = format!(
                    "{}: not a key of `{}`: {e}",
                    layout.render(key),
                    layout.name()
                );
                if self.bad_keys <= SHOWN_BAD_KEYS {
                    eprintln!("{line}");
                }
                self.first_bad_key.get_or_insert(line);
                return Ok(true);
            }
        };
        let buckets: Vec<u32> = group.iter().map(|(b, _)| *b).collect();
        if group.iter().any(|(_, (_, v))| v != value) {
            self.bad_rows += 1;
            eprintln!(
                "{}: its copies in buckets {buckets:?} hold different values (a `random % N` put_row inserts a copy; write the row with replace_row to keep one)",
                crate::text_fields(layout, &values, None)
            );
            return Ok(self.next());
        }
        let fields = match value_fields(self.table, value) {
            Ok(fields) => fields,
            Err(e) => {
                self.bad_rows += 1;
                eprintln!("row {}: {e}", crate::text_fields(layout, &values, None));
                return Ok(self.next());
            }
        };
        let bucket = buckets.first().copied().unwrap_or(0);
        let line = match self.print.json {
            true => json_line(
                layout,
                &values,
                &fields,
                self.print.keys.then_some((bucket, key.as_slice())),
                &buckets,
            ),
            false => text_line(
                layout,
                &values,
                &fields,
                self.print.keys.then_some((bucket, key.as_slice())),
                &buckets,
            ),
        };
        writeln!(self.out, "{line}").map_err(|e| e.to_string())?;
        // A row on the terminal the progress line is drawn on: there now.
        self.out.flush().map_err(|e| e.to_string())?;
        Ok(self.next())
    }

    /// Counts a key printed (or refused); whether to read on.
    fn next(&mut self) -> bool {
        self.printed += 1;
        self.printed < self.limit
    }
}

/// A row's value fields as `(name, text)`, read by their declared types;
/// its raw value in hex for a key type without value fields.
fn value_fields(table: &Live, value: &[u8]) -> Result<Fields, String> {
    let declared = table.schema.values();
    if declared.is_empty() {
        return Ok(Fields {
            all: vec![("value".into(), forms::write(value, Output::Hex))],
            declared: 1,
        });
    }
    let all = keyschema::record::render_values(value, declared).map_err(|e| e.to_string())?;
    Ok(Fields {
        all,
        declared: declared.len(),
    })
}

/// A row's value fields as text: the declared ones first (every one, in
/// declaration order), then the attributes or cells the document does not
/// declare (a DynamoDB index's `Name_pk`, another program's), printed apart.
struct Fields {
    all: Vec<(String, String)>,
    declared: usize,
}

impl Fields {
    fn declared(&self) -> &[(String, String)] {
        &self.all[..self.declared.min(self.all.len())]
    }

    fn undeclared(&self) -> &[(String, String)] {
        &self.all[self.declared.min(self.all.len())..]
    }
}

/// `key fields | value fields`, then the bucket and stored key when asked
/// for, and the buckets of a random salt's copies when there are several.
fn text_line(
    layout: &DynSchema,
    values: &[keyschema::dynamic::Value],
    fields: &Fields,
    key: Option<(u32, &[u8])>,
    buckets: &[u32],
) -> String {
    let mut line = crate::text_fields(layout, values, None);
    line.push_str(" |");
    for (name, text) in fields.declared() {
        line.push_str(&format!(" {name}={text}"));
    }
    if !fields.undeclared().is_empty() {
        line.push_str(" | undeclared:");
        for (name, text) in fields.undeclared() {
            line.push_str(&format!(" {name}={text}"));
        }
    }
    if let Some((bucket, key)) = key {
        line.push_str(&format!(
            " | bucket={bucket} key={}",
            forms::write(key, Output::Escaped)
        ));
    }
    if buckets.len() > 1 {
        line.push_str(&format!(" | copies in buckets {buckets:?}"));
    }
    line
}

/// A row as one JSON object: key fields, value fields (text that is not
/// JSON, such as bytes' `0x...`, as a string), and `bucket`/`key`/`copies`.
fn json_line(
    layout: &DynSchema,
    values: &[keyschema::dynamic::Value],
    fields: &Fields,
    key: Option<(u32, &[u8])>,
    buckets: &[u32],
) -> String {
    let keys = crate::json_fields(layout, values, None);
    let mut parts: Vec<String> = vec![keys
        .trim_start_matches('{')
        .trim_end_matches('}')
        .to_string()];
    let quoted = |s: &str| serde_json::Value::String(s.to_string()).to_string();
    let json = |text: &String| match serde_json::from_str::<serde_json::Value>(text) {
        Ok(_) => text.clone(),
        Err(_) => quoted(text),
    };
    for (name, text) in fields.declared() {
        parts.push(format!("{}:{}", quoted(name), json(text)));
    }
    if !fields.undeclared().is_empty() {
        let inner: Vec<String> = fields
            .undeclared()
            .iter()
            .map(|(name, text)| format!("{}:{}", quoted(name), json(text)))
            .collect();
        parts.push(format!("\"undeclared\":{{{}}}", inner.join(",")));
    }
    if let Some((bucket, key)) = key {
        parts.push(format!(
            "\"bucket\":{bucket},\"key\":{}",
            quoted(&forms::write(key, Output::Escaped))
        ));
    }
    if buckets.len() > 1 {
        parts.push(format!("\"copies\":{buckets:?}"));
    }
    parts.retain(|p| !p.is_empty());
    format!("{{{}}}", parts.join(","))
}

/// `scan`: the rows of the binding's ranges, merged in key order, printed
/// as they arrive.
pub fn scan(layout: &DynSchema, table: &Live, args: &ScanArgs, out: &mut impl Write) -> Outcome {
    if args.limit == 0 {
        return Err("--limit 0 reads nothing: give at least 1".into());
    }
    if args.concurrency == 0 {
        return Err("--concurrency 0 reads nothing: give at least 1".into());
    }
    let (equal, last) = crate::binding::binding(layout, &args.fields)?;
    let set = layout.ranges(&equal, last).map_err(|e| e.to_string())?;
    if set
        .iter()
        .all(|r| r.end().is_some_and(|end| end <= r.start()))
    {
        return Err("the range selects no key: its lower end is not below its upper end".into());
    }
    let direction = match args.reverse {
        true => Direction::Reverse,
        false => Direction::Forward,
    };
    let mut ranges: Vec<keyschema::KeyRange> = set.iter().cloned().collect();
    if let Some(cursor) = &args.after {
        let body = unhex(cursor).ok_or_else(|| {
            format!("--after {cursor}: expected the cursor a scan printed (hex digits)")
        })?;
        let header = table.schema.header_len();
        ranges = ranges
            .iter()
            .filter_map(|r| {
                let mut at = r.start().get(..header).unwrap_or(r.start()).to_vec();
                at.extend_from_slice(&body);
                r.after(&at, direction)
            })
            .collect();
    }
    table.check_family()?;
    let mut printer = Printer {
        layout,
        table,
        print: args.print,
        out,
        printed: 0,
        limit: args.limit,
        bad_rows: 0,
        bad_keys: 0,
        first_bad_key: None,
        last_body: None,
        met: 0,
        ticker: Ticker::new(),
    };
    // No cap on each range's rows: a key that does not decode (another
    // program's row) is not printed, so a range cut at `limit + 1` rows
    // would end before the page is full and lose the rows (and the cursor)
    // past it. The printer ends the read itself; a range's stream is lazy.
    let more = table.merged(&ranges, direction, None, args.concurrency, &mut printer)?;
    printer.ticker.done();
    let (bad_rows, bad_keys, met) = (printer.bad_rows, printer.bad_keys, printer.met);
    if more {
        let cursor = printer.last_body.as_deref().map(hex).unwrap_or_default();
        eprintln!(
            "(the first {} rows; there are more: --limit N reads further, --after {cursor} reads on)",
            args.limit
        );
    }
    if bad_keys > 0 {
        eprintln!(
            "{bad_keys} of {met} rows read are not keys of `{}`: the schema document may not be this table's (its prefix, salt or field order); `keyschema check` compares them",
            layout.name()
        );
    }
    let missed = if met == 0 {
        eprintln!("(0 rows)");
        // A document that does not match the table: exit 1, as a failed
        // `check` does, not an empty result's 0.
        table.explain_empty(layout)
    } else {
        table.warn_past_buckets(layout)
    };
    Ok(bad_rows == 0 && bad_keys == 0 && !missed)
}

/// `get`: the row under a key (every bucket's copy of a `random % N`
/// row), as `scan` prints it. Exit status 1 when there is none.
pub fn get(
    layout: &DynSchema,
    table: &Live,
    fields: &[String],
    print: Print,
    out: &mut impl Write,
) -> Outcome {
    let values = crate::values::fields(layout, fields)?;
    let key = match layout.salt().is_some_and(|s| s.is_random()) {
        true => layout.encode_in(&values, 0),
        false => layout.encode(&values),
    }
    .map_err(|e| e.to_string())?;
    let candidates = layout.candidates(&key);
    let tried = candidates.len();
    table.check_family()?;
    let found = table.get(candidates)?;
    if found.is_empty() {
        let rendered = layout.render(&key);
        match tried {
            1 => eprintln!("no row under {rendered} in {}", table.name),
            n => eprintln!(
                "no row under {} in any of its {n} buckets in {}",
                rendered
                    .split_once('|')
                    .map_or(rendered.as_str(), |(_, rest)| rest),
                table.name
            ),
        }
        table.explain_empty(layout);
        return Ok(false);
    }
    let group: Group = found
        .into_iter()
        .map(|row| (layout.bucket_of(&row.0).unwrap_or(0), row))
        .collect();
    let mut printer = Printer {
        layout,
        table,
        print,
        out,
        printed: 0,
        limit: 1,
        bad_rows: 0,
        bad_keys: 0,
        first_bad_key: None,
        last_body: None,
        met: 0,
        ticker: Ticker::new(),
    };
    printer.group(group)?;
    Ok(printer.bad_rows == 0 && printer.bad_keys == 0)
}

/// Bytes as lowercase hex digits.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Hex digits as bytes.
fn unhex(text: &str) -> Option<Vec<u8>> {
    let text = text.trim();
    if !text.len().is_multiple_of(2) || !text.is_ascii() {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}
