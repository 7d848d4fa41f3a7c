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
//! several lines; where it ends cannot be told from the output (a line of
//! the key may look like a cell). Such a row is reported, not guessed.

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

/// The rows of cbt's output; lines outside any row (cbt writes its own
/// messages to standard error) are skipped when blank and reported as a
/// row error otherwise.
pub fn rows(input: &[u8]) -> Vec<Row> {
    let mut lines: Vec<&[u8]> = input.split(|b| *b == b'\n').collect();
    if input.ends_with(b"\n") {
        lines.pop();
    }
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i] != SEPARATOR {
            if !lines[i].is_empty() {
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
        out.push(row(&lines[start..end], start + 1));
        i = end;
    }
    out
}

/// One row from the lines after its separator (`first`: the 1-based number
/// of the first).
fn row(lines: &[&[u8]], first: usize) -> Row {
    let header = lines.iter().position(|l| is_cell(l));
    let key_lines = match header {
        Some(h) => &lines[..h],
        // No cell: the key, then the blank line that ends the row.
        None => match lines.split_last() {
            Some((&[], rest)) => rest,
            _ => lines,
        },
    };
    let cells = lines.iter().filter(|l| is_cell(l)).count();
    let key = match key_lines {
        [] => Err("a row without a key line".to_string()),
        [key] => Ok(key.to_vec()),
        more => Err(format!(
            "the key holds a line break (byte 0x0A), which cbt prints raw: its {} lines cannot be told apart from the row's cells with certainty, so the row is not read (read it from the table with `keyschema scan` or `get`)",
            more.len()
        )),
    };
    Row {
        line: first,
        key,
        cells,
    }
}

#[cfg(test)]
mod tests {
    use super::{rows, Row};

    const DASHES: &str = "----------------------------------------";

    #[test]
    fn rows_keys_and_cells_are_read_as_bytes() {
        let mut out = Vec::new();
        for key in [&b"\x00u0\x00blog\x00\xff\x9a"[..], b"plain"] {
            out.extend_from_slice(DASHES.as_bytes());
            out.push(b'\n');
            out.extend_from_slice(key);
            out.extend_from_slice(b"\n  f:action                                 @ 2026/11/25-19:41:27.193000\n    \"view\"\n  f:page    @ 2026/11/25-19:41:27.193000\n    \"/p/1\"\n\n");
        }
        let read = rows(&out);
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
                    key: Ok(b"plain".to_vec()),
                    cells: 2
                },
            ]
        );
    }

    #[test]
    fn a_key_holding_a_line_break_is_reported_not_guessed() {
        let text = format!(
            "{DASHES}\nab\ncd\n  f:a  @ t\n    \"v\"\n\n{DASHES}\nok\n  f:a  @ t\n    \"v\"\n\n"
        );
        let read = rows(text.as_bytes());
        assert!(read[0]
            .key
            .as_ref()
            .is_err_and(|e| e.contains("line break")));
        assert_eq!(read[0].line, 2);
        assert_eq!(read[1].key, Ok(b"ok".to_vec()));
    }

    #[test]
    fn stray_lines_are_reported() {
        let read = rows(b"hello\n\n");
        assert_eq!(read.len(), 1);
        assert!(read[0].key.is_err());
    }
}
