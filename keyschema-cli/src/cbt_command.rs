//! The `cbt` command that reads exactly one row, for `encode --cbt`.
//!
//! cbt takes a row key as a shell argument, so a key reaches it only when a
//! shell can pass its bytes: any byte but 0x00 (bash's `$'\xHH'` quoting
//! carries the rest). A key holding 0x00 is read with `cbt read
//! regex=...` instead: Bigtable's row-key filter is RE2 over UTF-8 (the
//! emulator's, Go's regexp), where `\x00` is the byte 0x00 but `\xFF` is
//! the character U+00FF (two bytes), so the regex is exact only when every
//! byte of the key is below 0x80. Otherwise no cbt command reads exactly
//! that row; the nearest reads the rows under the key's part before its
//! first 0x00.

/// The command that reads exactly the row under `key`, or why none does
/// (with the nearest command, when there is one). `cbt` is how the command
/// begins (`cbt -project P -instance I`), `table` the table's name.
pub fn command(key: &[u8], cbt: &str, table: &str) -> Result<String, String> {
    let Some(nul) = key.iter().position(|&b| b == 0) else {
        return Ok(format!("{cbt} lookup {table} {}", ansi_c(key)));
    };
    if key.is_ascii() {
        let pattern: String = key
            .iter()
            .map(|&b| match b {
                b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'_' => (b as char).to_string(),
                _ => format!("\\x{b:02x}"),
            })
            .collect();
        return Ok(format!("{cbt} read {table} regex='^{pattern}$'"));
    }
    let nearest = match nul {
        0 => "none narrower than the whole table (the key begins with 0x00)".to_string(),
        _ => format!(
            "`{cbt} read {table} prefix={}` reads every row under the key's first {nul} bytes, this one among them",
            ansi_c(&key[..nul])
        ),
    };
    Err(format!(
        "no cbt command reads exactly this key: it holds 0x00, which no shell argument carries, and bytes above 0x7F, which Bigtable's RE2 row-key filter matches as UTF-8 characters, not bytes; the nearest: {nearest}"
    ))
}

/// `key` in bash's `$'...'` quoting: printable ASCII as it is (but `'` and
/// `\`), every other byte `\xHH`.
fn ansi_c(key: &[u8]) -> String {
    let mut out = String::from("$'");
    for &b in key {
        match b {
            b'\'' | b'\\' => out.push_str(&format!("\\x{b:02x}")),
            b' '..=b'~' => out.push(b as char),
            _ => out.push_str(&format!("\\x{b:02x}")),
        }
    }
    out.push('\'');
    out
}

#[cfg(test)]
mod tests {
    use super::command;

    #[test]
    fn lookup_regex_or_why_not() {
        assert_eq!(
            command(b"\x03\xff'a\\", "cbt", "t"),
            Ok("cbt lookup t $'\\x03\\xff\\x27a\\x5c'".to_string())
        );
        assert_eq!(
            command(b"\x03u1\x00s.x\x00", "cbt", "t"),
            Ok("cbt read t regex='^\\x03u1\\x00s\\x2ex\\x00$'".to_string())
        );
        let why = command(b"\x03u1\x00\xff", "cbt", "t").unwrap_err();
        assert!(why.contains("`cbt read t prefix=$'\\x03u1'`"), "{why}");
        let why = command(b"\x00u1\x00\xff", "cbt", "t").unwrap_err();
        assert!(why.contains("begins with 0x00"), "{why}");
    }
}
