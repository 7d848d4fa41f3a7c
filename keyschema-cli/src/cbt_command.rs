//! The `cbt` command that reads exactly one row, for `encode --cbt`.
//!
//! cbt takes a row key as a shell argument, so `cbt lookup` reaches a key
//! only when a shell can pass its bytes: any byte but 0x00 (bash's
//! `$'\xHH'` quoting carries the rest). A key holding 0x00 is read with
//! `cbt read TABLE regex='^...$'`, every byte but ASCII letters, digits and
//! `_` written `\xHH`: Bigtable's row-key filter is RE2 over the key's
//! bytes (Google's own HBase adapter sends binary prefixes as RE2-quoted raw
//! bytes, 0x00 as `\x00`), so `\xHH` is that byte, and `^`/`$` pin the
//! whole key. `tests/cli_cbt.rs` runs both forms with the real `cbt` on the
//! emulator, each reading exactly its row.

/// The command that reads exactly the row under `key`. `cbt` is how the
/// command begins (`cbt -project P -instance I`), `table` the table's name.
pub fn command(key: &[u8], cbt: &str, table: &str) -> String {
    if !key.contains(&0) {
        return format!("{cbt} lookup {table} {}", ansi_c(key));
    }
    let pattern: String = key
        .iter()
        .map(|&b| match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'_' => (b as char).to_string(),
            _ => format!("\\x{b:02x}"),
        })
        .collect();
    format!("{cbt} read {table} regex='^{pattern}$'")
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
    fn a_lookup_or_an_anchored_regex() {
        assert_eq!(
            command(b"\x03\xff'a\\", "cbt", "t"),
            "cbt lookup t $'\\x03\\xff\\x27a\\x5c'"
        );
        assert_eq!(
            command(b"\x03u1\x00s.x\xff", "cbt", "t"),
            "cbt read t regex='^\\x03u1\\x00s\\x2ex\\xff$'"
        );
    }
}
