//! Pre-split points: where to cut a table into regions (tablets) before the
//! first write, so a salted table starts spread over the cluster.
//!
//! Splits are aligned to salt buckets (no region straddles two buckets) and,
//! inside each bucket, placed at quantiles of a sample of real keys, so they
//! follow the key space that really occurs. Cutting the whole byte range
//! evenly (`00`, `10`, ... `f0`) is the HBase article's trap: hex or
//! readable ids use a few dozen byte values, and most regions stay empty.

use crate::schema::{Header, Schema};

/// Split points for `schema`: one at every bucket boundary, and
/// `per_bucket` minus one more inside each bucket at quantiles of the
/// sampled keys in it (`N x per_bucket` regions in all). Each split is the shortest key that
/// separates its quantile from the key before it. Keys of other schemas in
/// the sample are ignored.
///
/// ```
/// use keyschema::{splits, RowKey};
///
/// #[derive(RowKey)]
/// #[rowkey(salt = hash(id) % 4, then = id)]
/// struct Ev { id: String }
///
/// let sample: Vec<Vec<u8>> = (0..1000).map(|i| Ev::get_key(&format!("{i:04}"))).collect();
/// let points = splits::plan(Ev::schema(), sample.iter().map(Vec::as_slice), 2);
/// assert_eq!(points.len(), 4 * 2 - 1);
/// assert!(points.windows(2).all(|w| w[0] < w[1]));
/// ```
pub fn plan<'a>(
    schema: &Schema,
    sample: impl IntoIterator<Item = &'a [u8]>,
    per_bucket: usize,
) -> Vec<Vec<u8>> {
    plan_in(schema.head(), sample, per_bucket)
}

/// [`plan`] for a layout given by its header (derived or dynamic schemas).
pub(crate) fn plan_in<'a>(
    schema: Header<'_>,
    sample: impl IntoIterator<Item = &'a [u8]>,
    per_bucket: usize,
) -> Vec<Vec<u8>> {
    let buckets = schema.salt.map_or(1, |(n, _)| n) as usize;
    let header = schema.len();
    let mut bodies: Vec<Vec<&'a [u8]>> = vec![Vec::new(); buckets];
    for key in sample {
        if let Ok(b) = schema.bucket_of(key) {
            if let Some(body) = key.get(header..) {
                bodies[b as usize].push(body);
            }
        }
    }
    let mut out = Vec::new();
    for (bucket, mut keys) in bodies.into_iter().enumerate() {
        let head = bucket_head(schema, bucket as u32);
        if bucket > 0 {
            out.push(head.clone());
        }
        keys.sort_unstable();
        keys.dedup();
        if keys.is_empty() || per_bucket < 2 {
            continue;
        }
        let mut previous: Option<Vec<u8>> = None;
        for i in 1..per_bucket {
            let at = i * keys.len() / per_bucket;
            let Some(&quantile) = keys.get(at) else {
                continue;
            };
            let before = if at > 0 { keys[at - 1] } else { &[][..] };
            let mut split = head.clone();
            split.extend_from_slice(shortest_separator(before, quantile));
            if previous.as_ref().is_none_or(|p| *p < split) && split > head {
                previous = Some(split.clone());
                out.push(split);
            }
        }
    }
    out
}

/// The prefix and salt bytes of `bucket`.
fn bucket_head(schema: Header<'_>, bucket: u32) -> Vec<u8> {
    let mut head = Vec::with_capacity(schema.len());
    schema.push(Some(bucket), &mut head);
    head
}

/// The shortest prefix of `to` that is greater than `from` (`from < to`).
fn shortest_separator<'a>(from: &[u8], to: &'a [u8]) -> &'a [u8] {
    let common = from.iter().zip(to).take_while(|(a, b)| a == b).count();
    &to[..(common + 1).min(to.len())]
}

/// The split points as a `cbt createtable` command. `cbt` takes keys as
/// plain text, so this fails when a split has a byte that is not printable
/// ASCII or is a comma; create such tables through the admin API
/// (`BigtableStore::create_table`) instead.
///
/// ```
/// let cmd = keyschema::splits::cbt_createtable("events", "v", &[b"01".to_vec(), b"02".to_vec()]);
/// assert_eq!(cmd.unwrap(), "cbt createtable events families=v splits=01,02");
/// assert!(keyschema::splits::cbt_createtable("events", "v", &[vec![0x01]]).is_err());
/// ```
pub fn cbt_createtable(table: &str, family: &str, splits: &[Vec<u8>]) -> Result<String, String> {
    let mut keys = Vec::with_capacity(splits.len());
    for (i, s) in splits.iter().enumerate() {
        let printable = s.iter().all(|b| b.is_ascii_graphic() && *b != b',');
        if !printable {
            return Err(format!(
                "split {i} ({}) is binary: cbt cannot express it; use the admin API",
                s.escape_ascii()
            ));
        }
        keys.push(String::from_utf8_lossy(s).into_owned());
    }
    Ok(format!(
        "cbt createtable {table} families={family} splits={}",
        keys.join(",")
    ))
}

/// The split points as an HBase shell `create` command, bytes escaped as
/// `\xNN` inside double quotes (which the shell decodes).
///
/// ```
/// let cmd = keyschema::splits::hbase_create("metrics", "v", &[vec![0x01], b"a\"b".to_vec()]);
/// assert_eq!(cmd, r#"create 'metrics', 'v', SPLITS => ["\x01", "a\x22b"]"#);
/// ```
pub fn hbase_create(table: &str, family: &str, splits: &[Vec<u8>]) -> String {
    let keys: Vec<String> = splits
        .iter()
        .map(|s| {
            let mut text = String::from("\"");
            for &b in s {
                if b.is_ascii_alphanumeric() || b"-_.:/ #|~".contains(&b) {
                    text.push(b as char);
                } else {
                    text.push_str(&format!("\\x{b:02X}"));
                }
            }
            text.push('"');
            text
        })
        .collect();
    format!(
        "create '{table}', '{family}', SPLITS => [{}]",
        keys.join(", ")
    )
}

impl Schema {
    /// Split points at every salt bucket boundary: the prefix (as written,
    /// `ev\0`) and `salt(b)` for
    /// buckets 1 to N-1, so each bucket starts its own tablet or region.
    /// Empty when the key is unsalted.
    ///
    /// ```
    /// use keyschema::RowKey;
    ///
    /// #[derive(RowKey)]
    /// #[rowkey(prefix = "ev", salt = hash(id) % 4, then = id)]
    /// struct Ev { id: u64 }
    ///
    /// assert_eq!(Ev::schema().salt_splits(), [b"ev\0\x01".to_vec(), b"ev\0\x02".to_vec(), b"ev\0\x03".to_vec()]);
    /// ```
    pub fn salt_splits(&self) -> Vec<Vec<u8>> {
        let Some(s) = self.salt() else {
            return Vec::new();
        };
        (1..s.buckets())
            .map(|b| {
                let mut key = Vec::with_capacity(self.header_len());
                self.push_header(Some(b), &mut key);
                if self.sep().is_some() {
                    key.pop(); // a split at the salt itself
                }
                key
            })
            .collect()
    }
}
