//! `cbt read` and `cbt lookup` output, read by its structure and as bytes.
//!
//! cbt prints each row as a line of 40 dashes, the row key's raw bytes and
//! a line break, then per cell an indented `family:qualifier  @ time` line
//! and a further-indented quoted value, then a blank line:
//!
//! ```text
//! ----------------------------------------
//! <key bytes>
//!   f:action                                 @ 2026/11/25-19:41:27.193000
//!     "purchase"
//!
//! ```
//!
//! The key is printed raw, so a key holding a line break (0x0A) spans
//! several lines, and where it ends cannot be told from the layout alone (a
//! line of the key may look like a cell): of the ways of splitting the
//! lines into a key and cells, the one whose key decodes under the schema
//! is read; when none or several do, the row is reported, not guessed. A
//! carriage return (0x0D) is a byte of the key like any other.
//!
//! Run without `-creds`, cbt logs `-creds flag unset, will use gcloud
//! credential` first, on standard error: with `2>&1` it is the first line,
//! and skipped. `cbt lookup` of a row the table does not hold prints a row
//! without a key (the dashes and two empty lines), which no row of Bigtable
//! is: it is reported as no row found.

/// The line cbt prints before each row.
const SEPARATOR: &[u8] = b"----------------------------------------";

/// One row of cbt's output.
#[derive(Debug, PartialEq, Eq)]
pub struct Row {
    /// The line (1-based) its key starts on.
    pub line: usize,
    /// Its key, or why it cannot be read exactly.
    pub key: Result<Vec<u8>, String>,
    /// How many cells cbt printed for it.
    pub cells: usize,
}

/// Whether `line` is a cell's header: two spaces, `family:qualifier`, then
/// ` @ ` and the cell's time.
fn is_cell(line: &[u8]) -> bool {
    line.starts_with(b"  ")
        && line.get(2).is_some_and(|b| *b != b' ')
        && line.windows(3).any(|w| w == b" @ ")
}

/// Whether `line` is the note cbt logs when run without `-creds`
/// (`2026/11/27 00:34:59 -creds flag unset, will use gcloud credential`).
pub fn is_notice(line: &[u8]) -> bool {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let stamp = line.get(..20).unwrap_or_default();
    let digits = |range: std::ops::Range<usize>| stamp[range].iter().all(u8::is_ascii_digit);
    stamp.len() == 20
        && digits(0..4)
        && stamp[4] == b'/'
        && digits(5..7)
        && stamp[7] == b'/'
        && digits(8..10)
        && stamp[10] == b' '
        && digits(11..13)
        && stamp[13] == b':'
        && digits(14..16)
        && stamp[16] == b':'
        && digits(17..19)
        && stamp[19] == b' '
        && line[20..].starts_with(b"-creds flag unset")
}

/// The rows of cbt's output, each key read as the one split of its lines
/// whose key `decodes`; lines outside any row are skipped when blank or
/// cbt's `-creds` notice, and reported as a row error otherwise.
pub fn rows(input: &[u8], decodes: &dyn Fn(&[u8]) -> bool) -> Vec<Row> {
    let mut lines: Vec<&[u8]> = input.split(|b| *b == b'\n').collect();
    if input.ends_with(b"\n") {
        lines.pop();
    }
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i] != SEPARATOR {
            if !lines[i].is_empty() && !is_notice(lines[i]) {
                out.push(Row {
                    line: i + 1,
                    key: Err(
                        "not part of a row of `cbt read` output (no line of dashes before it)"
                            .into(),
                    ),
                    cells: 0,
                });
            }
            i += 1;
            continue;
        }
        let start = i + 1;
        let mut end = start;
        while end < lines.len() && lines[end] != SEPARATOR {
            end += 1;
        }
        out.push(row(&lines[start..end], start + 1, decodes));
        i = end;
    }
    out
}

/// Whether `rest` is what cbt prints after a row's key: cell headers each
/// followed by its indented value, then the blank line that ends the row
/// (which a sample file written by hand, or cut, may lack).
fn cells_follow(rest: &[&[u8]]) -> bool {
    let body = rest
        .iter()
        .rposition(|l| !l.is_empty())
        .map_or(0, |p| p + 1);
    match rest[..body].split_first() {
        None => true,
        Some((header, more)) => {
            is_cell(header) && more.iter().all(|l| is_cell(l) || l.starts_with(b"    "))
        }
    }
}

/// One row from the lines after its separator (`first`: the 1-based number
/// of the first).
fn row(lines: &[&[u8]], first: usize, decodes: &dyn Fn(&[u8]) -> bool) -> Row {
    let answer = |key, cells| Row {
        line: first,
        key,
        cells,
    };
    if lines.first().is_some_and(|l| l.is_empty()) && lines.iter().all(|l| l.is_empty()) {
        return answer(
            Err("no row was found: cbt printed a row without a key, as `cbt lookup` does for a key the table does not hold".into()),
            0,
        );
    }
    // Each way of splitting the lines into the key and the cells after it.
    let splits: Vec<usize> = (1..=lines.len())
        .filter(|&k| cells_follow(&lines[k..]))
        .collect();
    let key = |k: usize| lines[..k].join(&b'\n');
    let cells = |k: usize| lines[k..].iter().filter(|l| is_cell(l)).count();
    let decoding: Vec<usize> = match splits.as_slice() {
        [_] => splits.clone(),
        _ => splits
            .iter()
            .copied()
            .filter(|&k| decodes(&key(k)))
            .collect(),
    };
    match (decoding.as_slice(), splits.len()) {
        ([k], _) => answer(Ok(key(*k)), cells(*k)),
        (_, 0) => answer(
            Err("not a row as cbt prints one (a key line, then cells each `  family:qualifier  @ time` and an indented value, then a blank line)".into()),
            0,
        ),
        ([], n) => answer(
            Err(format!(
                "the key holds a line break (byte 0x0A), which cbt prints raw, and none of the {n} ways of joining its lines into a key decodes under the schema"
            )),
            0,
        ),
        (many, _) => answer(
            Err(format!(
                "the key holds a line break (byte 0x0A), which cbt prints raw, and {} ways of joining its lines decode as keys, so the row is not read (read it from the table with `keyschema scan` or `get`)",
                many.len()
            )),
            0,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::{is_notice, rows, Row};

    const DASHES: &str = "----------------------------------------";
    const ANY: &dyn Fn(&[u8]) -> bool = &|_| true;

    #[test]
    fn rows_keys_and_cells_are_read_as_bytes() {
        let mut out = Vec::new();
        for key in [&b"\x00u0\x00blog\x00\xff\x9a"[..], b"plain\r"] {
            out.extend_from_slice(DASHES.as_bytes());
            out.push(b'\n');
            out.extend_from_slice(key);
            out.extend_from_slice(b"\n  f:action                                 @ 2026/11/25-19:41:27.193000\n    \"view\"\n  f:page    @ 2026/11/25-19:41:27.193000\n    \"/p/1\"\n\n");
        }
        // A key that swallowed a cell's lines does not decode.
        let read = rows(&out, &|k: &[u8]| !k.contains(&b'\n'));
        assert_eq!(
            read,
            [
                Row {
                    line: 2,
                    key: Ok(b"\x00u0\x00blog\x00\xff\x9a".to_vec()),
                    cells: 2
                },
                Row {
                    line: 9,
                    key: Ok(b"plain\r".to_vec()),
                    cells: 2
                },
            ]
        );
    }

    #[test]
    fn a_key_holding_a_line_break_is_read_by_the_one_split_that_decodes() {
        let text = format!(
            "{DASHES}\nab\ncd\n  f:a  @ t\n    \"v\"\n\n{DASHES}\nok\n  f:a  @ t\n    \"v\"\n\n"
        );
        // `ab\ncd`, or `ab\ncd\n  f:a  @ t\n    "v"` with no cells.
        let one = |k: &[u8]| k == b"ab\ncd" || k == b"ok";
        let read = rows(text.as_bytes(), &one);
        assert_eq!(read[0].key, Ok(b"ab\ncd".to_vec()));
        assert_eq!((read[0].line, read[0].cells), (2, 1));
        assert_eq!(read[1].key, Ok(b"ok".to_vec()));
        // Several decode: reported, not guessed; none: reported.
        let read = rows(text.as_bytes(), ANY);
        assert!(
            read[0].key.as_ref().is_err_and(|e| e.contains("3 ways")),
            "{read:?}"
        );
        let read = rows(text.as_bytes(), &|k| k == b"ok");
        assert!(read[0]
            .key
            .as_ref()
            .is_err_and(|e| e.contains("none of the 3 ways")));
        assert_eq!(read[1].key, Ok(b"ok".to_vec()));
    }

    #[test]
    fn the_creds_notice_is_skipped_and_a_missing_lookup_is_no_row() {
        let notice = "2026/11/27 00:34:59 -creds flag unset, will use gcloud credential";
        assert!(is_notice(notice.as_bytes()));
        assert!(!is_notice(
            b"2026/11/27 00:34:59 rpc error: code = NotFound"
        ));
        let read = rows(format!("{notice}\n{DASHES}\n\n\n").as_bytes(), ANY);
        assert_eq!(read.len(), 1);
        assert!(read[0]
            .key
            .as_ref()
            .is_err_and(|e| e.starts_with("no row was found")));
    }

    #[test]
    fn stray_lines_are_reported() {
        let read = rows(b"hello\n\n", ANY);
        assert_eq!(read.len(), 1);
        assert!(read[0].key.is_err());
    }
}
