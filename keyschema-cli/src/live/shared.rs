//! A table shared by several layouts (the single-table design: rows of
//! several key types, each under its own prefix), one `--schema` per
//! layout. Each key is of the layout whose key prefix it begins with
//! ([`DynSchema::key_prefix`]: the prefix as keys hold it), so documents
//! whose key prefixes overlap (one's begins another's, or one has none)
//! are refused. `hotspot`, `splits` and `check` report per layout and on
//! the table's total, keys of no given layout counted; the commands that
//! read one layout's rows or keys take one document.

use super::hotspot::HotspotArgs;
use super::picture::bar;
use crate::forms::{self, Output};
use crate::Outcome;
use keyschema::dynamic::DynSchema;
use std::io::Write;
use std::path::PathBuf;

/// One schema document: where it was read from, its text, its layout and
/// the bytes its keys begin with.
pub struct Doc {
    pub path: PathBuf,
    pub text: String,
    pub schema: DynSchema,
    pub prefix: Vec<u8>,
}

impl Doc {
    /// The file's name, for reports.
    fn file(&self) -> String {
        self.path.file_name().map_or_else(
            || self.path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        )
    }

    /// `=== `Name` (file.json)`: where a layout's part of a report begins.
    pub fn heading(&self) -> String {
        format!("=== `{}` ({})", self.schema.name(), self.file())
    }

    /// `key prefix ev\x00`, or `no prefix`.
    fn shown_prefix(&self) -> String {
        match self.prefix.as_slice() {
            [] => "no prefix".into(),
            p => format!("key prefix {}", forms::write(p, Output::Escaped)),
        }
    }
}

/// The documents `paths` name, read; several are refused when their key
/// prefixes overlap, naming both.
pub fn load(paths: &[PathBuf]) -> Result<Vec<Doc>, String> {
    let mut docs: Vec<Doc> = Vec::with_capacity(paths.len());
    for path in paths {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let schema = DynSchema::from_json(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        let prefix = schema.key_prefix();
        let doc = Doc {
            path: path.clone(),
            text,
            schema,
            prefix,
        };
        for other in &docs {
            let (short, long) = match other.prefix.len() <= doc.prefix.len() {
                true => (other, &doc),
                false => (&doc, other),
            };
            if long.prefix.starts_with(&short.prefix) {
                return Err(format!(
                    "--schema {} (`{}`, {}) and --schema {} (`{}`, {}) overlap: every key of `{}` begins like a key of `{}`, so a key of the table cannot say which layout it is of. Layouts sharing a table need key prefixes none of which begins another's (`#[rowkey(prefix = \"...\")]`, a different one each)",
                    other.path.display(),
                    other.schema.name(),
                    other.shown_prefix(),
                    doc.path.display(),
                    doc.schema.name(),
                    doc.shown_prefix(),
                    long.schema.name(),
                    short.schema.name(),
                ));
            }
        }
        docs.push(doc);
    }
    Ok(docs)
}

/// Why a command that reads one layout refuses the several documents
/// `paths` name.
pub fn several(paths: &[PathBuf], command: &str) -> String {
    format!(
        "`{command}` reads the rows or keys of one layout, and --schema was given {} times ({}): give the one document of the rows to read. `hotspot`, `splits` and `check` take several, one per layout of a shared table",
        paths.len(),
        paths
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// `keys` given to the layout of `docs` whose key prefix each begins with
/// (one document: all of them), and those of no given layout.
pub fn split(docs: &[Doc], keys: &[Vec<u8>]) -> (Vec<Vec<Vec<u8>>>, Vec<Vec<u8>>) {
    let mut mine = vec![Vec::new(); docs.len()];
    let mut none = Vec::new();
    for key in keys {
        match owner(docs, key) {
            Some(i) => mine[i].push(key.clone()),
            None => none.push(key.clone()),
        }
    }
    (mine, none)
}

/// The document whose layout `key` is of (one document: always it).
fn owner(docs: &[Doc], key: &[u8]) -> Option<usize> {
    match docs.len() {
        1 => Some(0),
        _ => docs.iter().position(|d| key.starts_with(&d.prefix)),
    }
}

/// `hotspot` over the sample `keys` (taken as `source` says): one
/// document's report, or, with several, the table's total by layout, each
/// layout's report, and the stored bytes by layout. `false` when a key is
/// of no given layout, or not a key of the layout its prefix names.
pub fn hotspot(
    docs: &[Doc],
    keys: &[Vec<u8>],
    source: &str,
    sections: Option<&[(Vec<u8>, i64)]>,
    top: usize,
    args: &HotspotArgs,
    out: &mut impl Write,
) -> Outcome {
    if let [doc] = docs {
        return super::hotspot(&doc.schema, keys, source, sections, top, args, out);
    }
    if args.what_if.is_some() {
        return Err("--what-if replays the sample of one layout under another: give the one --schema it replaces".into());
    }
    let w = |out: &mut dyn Write, line: String| writeln!(out, "{line}").map_err(|e| e.to_string());
    let (mine, none) = split(docs, keys);
    let n = keys.len();
    w(out, format!("{n} keys sampled ({source})"))?;
    w(
        out,
        format!(
            "\nby layout ({} schema documents; a key is of the one whose key prefix it begins with):",
            docs.len()
        ),
    )?;
    let mut rows: Vec<(String, usize)> = docs
        .iter()
        .zip(&mine)
        .map(|(d, k)| (format!("`{}` ({})", d.schema.name(), d.file()), k.len()))
        .collect();
    rows.push(("(no given layout)".into(), none.len()));
    let most = rows.iter().map(|r| r.1).max().unwrap_or(0);
    for (name, count) in &rows {
        w(
            out,
            format!(
                "  {name:<32} {count:>7}  {:5.1}%  {}",
                100.0 * *count as f64 / n.max(1) as f64,
                bar(*count, most)
            ),
        )?;
    }
    if let Some(first) = none.first() {
        w(
            out,
            format!(
                "\n{} keys of no given layout (first: {}): they begin with none of the documents' key prefixes; give the schema document of their rows too",
                none.len(),
                forms::write(first, Output::Escaped)
            ),
        )?;
    }
    if let Some(sections) = sections {
        stored(docs, sections, out)?;
    }
    let mut clean = none.is_empty();
    for (doc, keys) in docs.iter().zip(&mine) {
        w(
            out,
            format!(
                "\n{}: {} of the {n} sampled keys, those beginning with its {} ===",
                doc.heading(),
                keys.len(),
                doc.shown_prefix()
            ),
        )?;
        let mut own = args.clone();
        // One picture per layout: `hot.svg` is `hot-Name.svg`.
        own.svg = args.svg.as_ref().map(|p| {
            let stem = p
                .file_stem()
                .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
            let ext = p
                .extension()
                .map_or_else(String::new, |e| format!(".{}", e.to_string_lossy()));
            p.with_file_name(format!("{stem}-{}{ext}", doc.schema.name()))
        });
        let source = format!("of `{}`, among the {n} above", doc.schema.name());
        clean &= super::hotspot(&doc.schema, keys, &source, None, top, &own, out)?;
    }
    Ok(clean)
}

/// The stored bytes of each layout (SampleRowKeys' sections, each counted
/// under the layout its first key is of).
fn stored(docs: &[Doc], sections: &[(Vec<u8>, i64)], out: &mut impl Write) -> Result<(), String> {
    let total = sections.last().map_or(0, |s| s.1).max(0);
    let mut per = vec![0i64; docs.len() + 1];
    let mut before: (&[u8], i64) = (&[], 0);
    for (key, offset) in sections {
        let i = owner(docs, before.0).unwrap_or(docs.len());
        per[i] += offset - before.1;
        before = (key, *offset);
    }
    writeln!(
        out,
        "\nstored bytes by layout (SampleRowKeys' sections, each under the layout of its first key; about {} in all):",
        super::hotspot::bytes(total)
    )
    .map_err(|e| e.to_string())?;
    let names = docs
        .iter()
        .map(|d| format!("`{}`", d.schema.name()))
        .chain(["(no given layout)".to_string()]);
    for (name, size) in names.zip(per) {
        writeln!(
            out,
            "  {name:<32} {:5.1}%",
            100.0 * size as f64 / total.max(1) as f64
        )
        .map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// `splits` from the sample `keys`: one document's points, or with several
/// each layout's, planned from its own keys, then the keys of no given
/// layout counted.
pub fn splits(
    docs: &[Doc],
    keys: &[Vec<u8>],
    per_bucket: usize,
    output: Output,
    out: &mut impl Write,
) -> Outcome {
    if let [doc] = docs {
        return crate::sample::splits(&doc.schema, keys, per_bucket, output, out);
    }
    let (mine, none) = split(docs, keys);
    let mut clean = none.is_empty();
    for (doc, own) in docs.iter().zip(&mine) {
        writeln!(
            out,
            "{}: {} of the {} sampled keys ===",
            doc.heading(),
            own.len(),
            keys.len()
        )
        .map_err(|e| e.to_string())?;
        clean &= crate::sample::splits(&doc.schema, own, per_bucket, output, out)?;
        writeln!(out).map_err(|e| e.to_string())?;
    }
    if let Some(first) = none.first() {
        writeln!(
            out,
            "{} keys of no given layout, left out (first: {}): give the schema document of their rows too",
            none.len(),
            forms::write(first, Output::Escaped)
        )
        .map_err(|e| e.to_string())?;
    }
    Ok(clean)
}

/// Split points, one per line, each rendered by the layout it is of.
pub fn points_list(
    docs: &[Doc],
    points: &[Vec<u8>],
    output: Output,
    out: &mut impl Write,
) -> Result<(), String> {
    for p in points {
        let rendered = match owner(docs, p) {
            Some(i) => docs[i].schema.render_prefix(p),
            None => "(of no given layout)".into(),
        };
        writeln!(out, "{}  {rendered}", forms::write(p, output)).map_err(|e| e.to_string())?;
    }
    Ok(())
}
