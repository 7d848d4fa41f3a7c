//! The checkpoint file: where a step stands, written after every batch.

use super::progress::{Mark, Step};
use super::BackfillError;
use std::path::Path;

const CHECKPOINT_FORMAT: &str = "keyschema-backfill 1";

pub(crate) fn write_checkpoint<E>(
    path: &Path,
    schema: &str,
    mark: &Mark,
) -> Result<(), BackfillError<E>> {
    let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
    let list = |v: &[u64]| v.iter().map(u64::to_string).collect::<Vec<_>>().join(",");
    let text = format!(
        "{CHECKPOINT_FORMAT}\nschema {schema}\nstep {}\nrange {}\nafter {}\ndone {}\ntotals {}\ncounts {}\n",
        match mark.step {
            Step::Copy => "copy",
            Step::Delete => "delete",
        },
        mark.range,
        mark.after.as_deref().map_or("-".to_string(), hex),
        mark.done,
        list(&mark.totals),
        list(&mark.counts),
    );
    let fail = |e: std::io::Error| BackfillError::Checkpoint {
        path: path.to_path_buf(),
        reason: e.to_string(),
    };
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, text).map_err(fail)?;
    std::fs::rename(&tmp, path).map_err(fail)
}

pub(crate) fn read_checkpoint<E>(
    path: &Path,
    schema: &str,
) -> Result<Option<Mark>, BackfillError<E>> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(BackfillError::Checkpoint {
                path: path.to_path_buf(),
                reason: e.to_string(),
            })
        }
    };
    let bad = |reason: &str| BackfillError::Checkpoint {
        path: path.to_path_buf(),
        reason: reason.to_string(),
    };
    let mut lines = text.lines();
    if lines.next() != Some(CHECKPOINT_FORMAT) {
        return Err(bad("not a keyschema backfill checkpoint (version 1)"));
    }
    let mut field = |name: &str| {
        lines
            .next()
            .and_then(|l| l.strip_prefix(name))
            .and_then(|l| l.strip_prefix(' '))
            .map(str::to_string)
            .ok_or_else(|| bad(&format!("missing `{name}`")))
    };
    let owner = field("schema")?;
    if owner != schema {
        return Err(bad(&format!("it belongs to `{owner}`, not `{schema}`")));
    }
    let step = match field("step")?.as_str() {
        "copy" => Step::Copy,
        "delete" => Step::Delete,
        _ => return Err(bad("`step` is neither copy nor delete")),
    };
    let number = |s: String| s.parse::<u64>().map_err(|_| bad("a number does not read"));
    let range = number(field("range")?)? as usize;
    let after = match field("after")?.as_str() {
        "-" => None,
        h if h.len() % 2 == 0 => Some(
            (0..h.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&h[i..i + 2], 16))
                .collect::<Result<Vec<u8>, _>>()
                .map_err(|_| bad("`after` is not hex"))?,
        ),
        _ => return Err(bad("`after` is not hex")),
    };
    let done = number(field("done")?)?;
    let list = |s: String| -> Result<Vec<u64>, BackfillError<E>> {
        if s.is_empty() {
            return Ok(Vec::new());
        }
        s.split(',').map(|n| number(n.to_string())).collect()
    };
    let totals = list(field("totals")?)?;
    let counts = list(field("counts")?)?;
    if counts.len() != totals.len() {
        return Err(bad("`totals` and `counts` differ in length"));
    }
    Ok(Some(Mark {
        step,
        range,
        after,
        done,
        totals,
        counts,
    }))
}
