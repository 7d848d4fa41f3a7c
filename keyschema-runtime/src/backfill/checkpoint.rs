//! Where each step stands: the marks a backfill keeps, and the checkpoint
//! file they are written to after every batch. The copy and the delete
//! each keep their own mark, so neither overwrites the other's.

use super::progress::{Mark, Step};
use super::{Backfill, BackfillError};
use crate::key::RowKey;
use std::path::Path;

const CHECKPOINT_FORMAT: &str = "keyschema-backfill 3";

/// The marks of both steps, and the store they were made on.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Marks {
    pub(crate) copy: Option<Mark>,
    pub(crate) delete: Option<Mark>,
    /// [`Store::identity`](crate::store::Store::identity) of the store the
    /// steps ran on, once one ran on a store that names itself.
    pub(crate) store: Option<String>,
}

impl Marks {
    pub(crate) fn get(&self, step: Step) -> Option<&Mark> {
        match step {
            // An index build keeps its mark where a copy does, in its own file.
            Step::Copy | Step::Build => self.copy.as_ref(),
            Step::Delete => self.delete.as_ref(),
        }
    }

    pub(crate) fn set(&mut self, mark: Mark) {
        match mark.step {
            Step::Copy | Step::Build => self.copy = Some(mark),
            Step::Delete => self.delete = Some(mark),
        }
    }
}

impl<K: RowKey> Backfill<K> {
    /// Both steps' marks, read from the checkpoint the first time.
    pub(super) fn marks<E>(&mut self) -> Result<&mut Marks, BackfillError<E>> {
        if self.marks.is_none() {
            let marks = match &self.checkpoint {
                Some(path) => read_checkpoint(path, K::schema().name())?,
                None => Marks::default(),
            };
            self.marks = Some(marks);
        }
        Ok(self.marks.get_or_insert_with(Marks::default))
    }

    /// Before a step runs on the store named `this` ([`store_word`]): the
    /// marks loaded, a checkpoint made on another store refused, and a copy
    /// once the delete began (the declared layout then holds the newer
    /// rows).
    pub(super) fn open<E>(
        &mut self,
        this: Option<&str>,
        step: Step,
    ) -> Result<(), BackfillError<E>> {
        let marks = self.marks()?;
        same_store("checkpoint", marks.store.as_deref(), this)?;
        if marks.store.is_none() {
            marks.store = this.map(str::to_string);
        }
        if step == Step::Copy && marks.delete.is_some() {
            return Err(BackfillError::DeleteBegan);
        }
        Ok(())
    }

    /// A step's first mark; a delete's is saved at once, before any row
    /// is touched, so that the checkpoint says the delete began (a copy is
    /// refused from then on).
    pub(super) fn fresh<E>(
        &mut self,
        step: Step,
        totals: Vec<u64>,
    ) -> Result<Mark, BackfillError<E>> {
        let mark = Mark::fresh(step, totals);
        if step == Step::Delete {
            self.save(mark.clone())?;
        }
        Ok(mark)
    }

    /// The mark `step` resumes from; `None` when it starts a new pass.
    pub(super) fn resume<E>(&mut self, step: Step) -> Result<Option<Mark>, BackfillError<E>> {
        let sources = self.sources(step);
        Ok(self
            .marks()?
            .get(step)
            .filter(|m| m.range < sources)
            .cloned())
    }

    pub(super) fn save<E>(&mut self, mark: Mark) -> Result<(), BackfillError<E>> {
        let marks = self.marks()?;
        marks.set(mark);
        let marks = marks.clone();
        if let Some(path) = &self.checkpoint {
            write_checkpoint(path, K::schema().name(), &marks)?;
        }
        Ok(())
    }
}

/// A store's [identity](crate::store::Store::identity) as one word of the
/// checkpoint (its spaces, newlines and other escapes written as `\u{..}`
/// or `\x20`), the form marks and verifications keep.
pub(crate) fn store_word(identity: Option<String>) -> Option<String> {
    identity.map(|id| id.escape_default().to_string().replace(' ', "\\x20"))
}

/// Refuses the `what` (checkpoint or verification) made on store `made`
/// for the store `this`, when both name themselves.
pub(crate) fn same_store<E>(
    what: &'static str,
    made: Option<&str>,
    this: Option<&str>,
) -> Result<(), BackfillError<E>> {
    match (made, this) {
        (Some(made), Some(this)) if made != this => Err(BackfillError::OtherStore {
            what,
            made_on: made.to_string(),
            this: this.to_string(),
        }),
        _ => Ok(()),
    }
}

fn line(name: &str, mark: Option<&Mark>) -> String {
    let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
    let list = |v: &[u64]| v.iter().map(u64::to_string).collect::<Vec<_>>().join(",");
    match mark {
        None => format!("{name} -\n"),
        Some(m) => format!(
            "{name} {} {} {} {} {} {}\n",
            m.range,
            m.after.as_deref().map_or("-".to_string(), hex),
            m.done,
            m.written,
            // An empty list is written as `-`, so that every field is a word.
            if m.totals.is_empty() {
                "-".to_string()
            } else {
                list(&m.totals)
            },
            if m.counts.is_empty() {
                "-".to_string()
            } else {
                list(&m.counts)
            },
        ),
    }
}

pub(crate) fn write_checkpoint<E>(
    path: &Path,
    schema: &str,
    marks: &Marks,
) -> Result<(), BackfillError<E>> {
    let store = marks.store.as_deref().unwrap_or("-");
    let text = format!(
        "{CHECKPOINT_FORMAT}\nschema {schema}\nstore {store}\n{}{}",
        line("copy", marks.copy.as_ref()),
        line("delete", marks.delete.as_ref()),
    );
    let fail = |e: std::io::Error| BackfillError::Checkpoint {
        path: path.to_path_buf(),
        reason: e.to_string(),
    };
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, text).map_err(fail)?;
    std::fs::rename(&tmp, path).map_err(fail)
}

pub(crate) fn read_checkpoint<E>(path: &Path, schema: &str) -> Result<Marks, BackfillError<E>> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Marks::default()),
        Err(e) => {
            return Err(BackfillError::Checkpoint {
                path: path.to_path_buf(),
                reason: e.to_string(),
            })
        }
    };
    let bad = |reason: &str| BackfillError::Checkpoint {
        path: path.to_path_buf(),
        reason: format!("{reason}; delete the file to start the backfill over"),
    };
    let mut lines = text.lines();
    // Format 2 is format 3 without the store's identity.
    let with_store = match lines.next() {
        Some(CHECKPOINT_FORMAT) => true,
        Some("keyschema-backfill 2") => false,
        Some("keyschema-backfill 1") => {
            return Err(bad("a checkpoint of an older keyschema (format 1)"))
        }
        _ => return Err(bad("not a keyschema backfill checkpoint (format 3)")),
    };
    let owner = lines
        .next()
        .and_then(|l| l.strip_prefix("schema "))
        .ok_or_else(|| bad("missing `schema`"))?;
    if owner != schema {
        return Err(bad(&format!("it belongs to `{owner}`, not `{schema}`")));
    }
    let mut marks = Marks::default();
    if with_store {
        let store = lines
            .next()
            .and_then(|l| l.strip_prefix("store "))
            .ok_or_else(|| bad("missing `store`"))?;
        marks.store = (store != "-").then(|| store.to_string());
    }
    for (name, step) in [("copy", Step::Copy), ("delete", Step::Delete)] {
        let text = lines
            .next()
            .and_then(|l| l.strip_prefix(name))
            .and_then(|l| l.strip_prefix(' '))
            .ok_or_else(|| bad(&format!("missing `{name}`")))?;
        if text != "-" {
            marks.set(mark(step, text).ok_or_else(|| bad(&format!("`{name}` does not read")))?);
        }
    }
    Ok(marks)
}

/// One step's mark from its line.
fn mark(step: Step, text: &str) -> Option<Mark> {
    let words: Vec<&str> = text.split(' ').collect();
    let [range, after, done, written, totals, counts] = words[..] else {
        return None;
    };
    let after = match after {
        "-" => None,
        h if h.len() % 2 == 0 && h.is_ascii() => Some(
            (0..h.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&h[i..i + 2], 16).ok())
                .collect::<Option<Vec<u8>>>()?,
        ),
        _ => return None,
    };
    let list = |s: &str| -> Option<Vec<u64>> {
        if s == "-" {
            return Some(Vec::new());
        }
        s.split(',').map(|n| n.parse().ok()).collect()
    };
    let (totals, counts) = (list(totals)?, list(counts)?);
    if totals.len() != counts.len() {
        return None;
    }
    Some(Mark {
        step,
        range: range.parse().ok()?,
        after,
        done: done.parse().ok()?,
        written: written.parse().ok()?,
        totals,
        counts,
    })
}
