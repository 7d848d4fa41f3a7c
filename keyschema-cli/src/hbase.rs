//! The HBase shell's `scan` output, read by its structure.
//!
//! Written to a file or a pipe (`echo "scan 't1'" | hbase shell -n > out`),
//! the shell prints a header, then one line per cell: a space, the row key
//! as `Bytes.toStringBinary` writes it (printable ASCII as it is, space
//! included, every other byte and `\` as `\xNN`), a space, and
//! `column=family:qualifier, timestamp=..., value=...`; then a footer
//! (`3 row(s)`, `Took 0.0162 seconds`, or `3 row(s) in 0.0162 seconds`):
//!
//! ```text
//! ROW                   COLUMN+CELL
//!  \x03u1\x00shop\x00   column=f:action, timestamp=2026-11-25T19:41:27.193, value=view
//! 1 row(s)
//! ```
//!
//! (This is the layout of `hbase-shell/src/main/ruby/shell/formatter.rb`
//! when standard output is not a terminal: no padding, no wrapping.) A
//! row's cells are consecutive lines with the same key text: one row. The
//! key ends at ` column=`; a line where that text appears twice (and that
//! is not a later cell of the row before) cannot be split with certainty
//! and is reported. Printed to a terminal, the shell pads keys and wraps
//! long ones at a quarter of the terminal's width; that layout is refused
//! whole, with how to capture the output instead. `get` output names no row
//! and is refused.

/// One row of the shell's output.
#[derive(Debug, PartialEq, Eq)]
pub struct Row {
    /// The line (1-based) its first cell is on.
    pub line: usize,
    /// Its key, or why it cannot be read exactly.
    pub key: Result<Vec<u8>, String>,
}

/// What ends a row's key on a cell line.
const COLUMN: &str = " column=";

pub fn is_header(trimmed: &str) -> bool {
    trimmed.starts_with("ROW") && trimmed.ends_with("COLUMN+CELL")
}

/// A footer line: `N row(s)`, `N row(s) in S seconds`, `Took S seconds`.
fn is_footer(trimmed: &str) -> bool {
    let rows = trimmed.split_once(" row(s)").is_some_and(|(n, rest)| {
        n.chars().all(|c| c.is_ascii_digit()) && (rest.is_empty() || rest.starts_with(" in "))
    });
    rows || (trimmed.starts_with("Took ") && trimmed.ends_with(" seconds"))
}

/// The `get` command's header: its cells name no row.
fn is_get_header(trimmed: &str) -> bool {
    trimmed.starts_with("COLUMN") && trimmed.ends_with("CELL") && !trimmed.contains("COLUMN+CELL")
}

/// Whether the output is the shell's terminal layout: the key column padded
/// and wrapped at a quarter of the terminal's width, the cell column padded
/// to the rest of it. A row then continues on a line without ` column=`,
/// or every cell line has the terminal's width and ends in padding.
fn terminal_layout(lines: &[&str]) -> bool {
    let cells: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| l.starts_with(' ') && !is_footer(l.trim()))
        .collect();
    let wrapped = cells.iter().any(|l| !l.contains(COLUMN));
    let width = cells.first().map(|l| l.len());
    let one_width = cells.iter().all(|l| Some(l.len()) == width);
    let padded = cells.iter().any(|l| l.ends_with(' '));
    wrapped || (one_width && padded)
}

/// The rows of the shell's output, in order.
pub fn rows(input: &[u8]) -> Vec<Row> {
    let text: Vec<&str> = input
        .split(|b| *b == b'\n')
        .filter_map(|l| std::str::from_utf8(l.strip_suffix(b"\r").unwrap_or(l)).ok())
        .collect();
    if let Some(at) = text.iter().position(|l| !l.trim().is_empty()) {
        if is_get_header(text[at].trim()) {
            return vec![Row {
                line: at + 1,
                key: Err("this is `get` output, whose cells name no row (the row is the command's argument): `scan` prints each cell's row key".into()),
            }];
        }
    }
    if terminal_layout(&text) {
        return vec![Row {
            line: 1,
            key: Err("this is the shell's terminal layout (keys padded and wrapped at the terminal's width), where a key's own spaces and its padding cannot be told apart: capture the output to a file or pipe (`echo \"scan 'TABLE'\" | hbase shell -n > out`), where each cell is one line".into()),
        }];
    }
    let mut out: Vec<Row> = Vec::new();
    // The key text of the row being read, to tell its next cell from a new row.
    let mut current: Option<String> = None;
    // A line where ` column=` appears twice, held back: if the next row's
    // key begins it, it was that row's first cell (its value holds the
    // text); else it is reported. With it, the line up to its last
    // ` column=`, so the row's other cells are not reported again.
    let mut pending: Option<(usize, String, String)> = None;
    const AMBIGUOUS: &str = "` column=` appears twice on the line: the key may hold that text (the shell prints spaces and `=` as they are), so where it ends cannot be told";
    let flush = |out: &mut Vec<Row>, pending: &mut Option<(usize, String, String)>| {
        if let Some((line, _, _)) = pending.take() {
            out.push(Row {
                line,
                key: Err(AMBIGUOUS.into()),
            });
        }
    };
    for (n, raw) in input.split(|b| *b == b'\n').enumerate() {
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        let report = |out: &mut Vec<Row>, why: &str| {
            out.push(Row {
                line: n + 1,
                key: Err(why.into()),
            })
        };
        let Ok(line) = std::str::from_utf8(raw) else {
            flush(&mut out, &mut pending);
            report(
                &mut out,
                "not text: the HBase shell prints keys and values as ASCII with \\xNN escapes",
            );
            current = None;
            continue;
        };
        let trimmed = line.trim();
        if trimmed.is_empty() || is_header(trimmed) || is_footer(trimmed) {
            flush(&mut out, &mut pending);
            current = None;
            continue;
        }
        let Some(body) = line.strip_prefix(' ') else {
            flush(&mut out, &mut pending);
            report(
                &mut out,
                "not a line of HBase shell `scan` output (a cell line begins with a space)",
            );
            current = None;
            continue;
        };
        let Some(at) = body.find(COLUMN) else {
            flush(&mut out, &mut pending);
            report(&mut out, "no ` column=` on the line: the shell wrapped this row at the terminal's width; capture its output to a file or pipe (`echo \"scan 'TABLE'\" | hbase shell -n > out`), where each cell is one line");
            current = None;
            continue;
        };
        // Another cell of the row being read (its value may hold anything).
        if let Some(key) = current.as_deref() {
            if body.starts_with(key) && body[key.len()..].starts_with(COLUMN) {
                continue;
            }
        }
        if body[at + COLUMN.len()..].contains(COLUMN) {
            let upto = body[..body.rfind(COLUMN).unwrap_or(at)].to_string();
            if pending.as_ref().is_some_and(|(_, _, u)| *u == upto) {
                continue; // another cell of the same ambiguous row
            }
            flush(&mut out, &mut pending);
            pending = Some((n + 1, body.to_string(), upto));
            current = None;
            continue;
        }
        let text = &body[..at];
        let mut first_line = n + 1;
        if let Some((line, held, _)) = pending.take() {
            if held.starts_with(text) && held[text.len()..].starts_with(COLUMN) {
                first_line = line; // the held line was this row's first cell
            } else {
                pending = Some((line, held, String::new()));
                flush(&mut out, &mut pending);
            }
        }
        current = Some(text.to_string());
        out.push(Row {
            line: first_line,
            key: unescape(text),
        });
    }
    flush(&mut out, &mut pending);
    out
}

/// The bytes `Bytes.toStringBinary` printed as `text`.
fn unescape(text: &str) -> Result<Vec<u8>, String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if !(b' '..=b'~').contains(&b) {
            return Err(format!(
                "byte {b:#04x} at character {i} of the key: the shell escapes it as \\x{b:02X}, so this is not its output"
            ));
        }
        if b != b'\\' {
            out.push(b);
            i += 1;
            continue;
        }
        let digit = |c: Option<&u8>| c.and_then(|c| (*c as char).to_digit(16));
        match (bytes.get(i + 1), digit(bytes.get(i + 2)), digit(bytes.get(i + 3))) {
            (Some(b'x'), Some(hi), Some(lo)) => {
                out.push((hi << 4 | lo) as u8);
                i += 4;
            }
            _ => {
                return Err(format!(
                    "`\\` at character {i} of the key is not `\\xNN` (the shell writes a backslash as \\x5C)"
                ))
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `Bytes.toStringBinary` writes (HBase 2.x).
    fn to_string_binary(key: &[u8]) -> String {
        key.iter()
            .map(|&b| match b {
                b' '..=b'~' if b != b'\\' => (b as char).to_string(),
                _ => format!("\\x{b:02X}"),
            })
            .collect()
    }

    #[test]
    fn rows_of_scan_output_with_spaces_backslashes_and_several_cells() {
        let keys: [&[u8]; 4] = [
            b"\x03u1\x00shop\x00\xff",
            b"\x01a site=b\x00x\x00",
            b"\x02back\\slash column\x00",
            b"\x00",
        ];
        let mut text = String::from("ROW                          COLUMN+CELL\n");
        for key in keys {
            for q in ["action", "page"] {
                text.push_str(&format!(
                    " {} column=f:{q}, timestamp=2026-11-25T19:41:27.193, value=a b\\x00\n",
                    to_string_binary(key)
                ));
            }
        }
        text.push_str("4 row(s)\nTook 0.0162 seconds\n");
        let rows = rows(text.as_bytes());
        let got: Vec<(usize, Vec<u8>)> = rows
            .into_iter()
            .map(|r| (r.line, r.key.expect("reads")))
            .collect();
        let want: Vec<(usize, Vec<u8>)> = keys
            .iter()
            .enumerate()
            .map(|(i, k)| (2 + 2 * i, k.to_vec()))
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn lines_that_cannot_be_read_exactly_are_reported() {
        let text = "ROW  COLUMN+CELL\n \\x03u1 column=x column=f:a, timestamp=1, value=v\n \\x03u1 column=x column=f:b, timestamp=1, value=v\n \\x03u2 column=f:a, timestamp=1, value=v\n \\x03u2 column=f:b, timestamp=1, value=a column=b\n \\q column=f:a, timestamp=1, value=v\nnot shell output\n1 row(s) in 0.0100 seconds\n";
        let rows = rows(text.as_bytes());
        let errors: Vec<(usize, bool)> = rows.iter().map(|r| (r.line, r.key.is_err())).collect();
        assert_eq!(errors, [(2, true), (4, false), (6, true), (7, true)]);
        assert!(rows[0].key.as_ref().unwrap_err().contains("appears twice"));
        assert_eq!(rows[1].key, Ok(b"\x03u2".to_vec()));
    }

    #[test]
    fn the_terminal_layout_and_get_output_are_refused_whole() {
        // At 80 columns: the key column 20 wide, the cell column 58, both padded.
        let tty = |cells: &[(&str, &str)]| {
            let mut text = String::from("ROW                  COLUMN+CELL\n");
            for (key, cell) in cells {
                text.push_str(&format!(" {key:<20} {cell:<58}\n"));
            }
            text
        };
        let cell = "column=f:a, timestamp=1, value=v";
        let wrapped = "ROW  COLUMN+CELL\n \\x03very-long-key-wrapped column=f:a, timestamp=1, value=v\n -at-the-width\n1 row(s)\n";
        for text in [
            wrapped.to_string(),
            tty(&[("\\x03u1", cell), ("\\x03u22222", cell)]),
            tty(&[("\\x03u1", cell)]),
        ] {
            let rows = rows(text.as_bytes());
            assert_eq!(rows.len(), 1, "{text}");
            assert!(rows[0]
                .key
                .as_ref()
                .unwrap_err()
                .contains("terminal layout"));
        }
        let get =
            "COLUMN                CELL\n f:a                  timestamp=1, value=v\n1 row(s)\n";
        let rows = rows(get.as_bytes());
        assert!(rows[0].key.as_ref().unwrap_err().contains("`get` output"));
    }

    #[test]
    fn the_file_layout_is_read_even_where_it_looks_aligned_or_ambiguous() {
        // Keys of one length, one ending in a space: ` column=` aligned.
        let text = "ROW  COLUMN+CELL\n \\x03a  column=f:a, timestamp=1, value=v\n \\x03a! column=f:a, timestamp=1, value=v\n";
        let keys: Vec<Vec<u8>> = rows(text.as_bytes())
            .into_iter()
            .map(|r| r.key.expect("reads"))
            .collect();
        assert_eq!(keys, [b"\x03a ".to_vec(), b"\x03a!".to_vec()]);
        // A row whose first cell's value holds ` column=`: one answer.
        let text = "ROW  COLUMN+CELL\n \\x03u1 column=f:a, timestamp=1, value=x column=y\n \\x03u1 column=f:b, timestamp=1, value=v\n";
        let read = rows(text.as_bytes());
        assert_eq!(
            read,
            [Row {
                line: 2,
                key: Ok(b"\x03u1".to_vec())
            }]
        );
    }
}
