//! `keyschema size`: the size of one partition (the Cassandra chapter's
//! estimate).

use crate::{values, Outcome};
use keyschema::dynamic::DynSchema;
use keyschema::sizing::Partition;
use std::io::Write;

pub fn size(
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
