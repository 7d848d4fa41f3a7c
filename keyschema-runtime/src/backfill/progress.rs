//! How far a step of a backfill is: the public progress and the mark kept
//! in the checkpoint.

/// Which step a backfill is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Copying the older rows into the declared layout.
    Copy,
    /// Deleting the older rows.
    Delete,
    /// Writing the entries of an index's rows ([`IndexBackfill`](crate::index::IndexBackfill)).
    Build,
}

/// How far a step is.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    /// The step.
    pub step: Step,
    /// Older rows handled so far in this pass, over every run: brought
    /// into the declared layout by the copy, or moved out of the older
    /// layout by the delete.
    pub rows_done: u64,
    /// Keys written or deleted so far in this pass (rows already in place
    /// need none).
    pub rows_written: u64,
    /// Rows per second over this run.
    pub rows_per_second: f64,
    /// Per salt bucket of the older layout: the rows still to do (counted
    /// when the step started).
    pub remaining: Vec<(u32, u64)>,
    /// Whether the pass is complete (the next run of the step starts a
    /// new pass over every row).
    pub finished: bool,
}

/// Where a step stands: the range being read and the last key done in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Mark {
    pub(crate) step: Step,
    pub(crate) range: usize,
    pub(crate) after: Option<Vec<u8>>,
    pub(crate) done: u64,
    pub(crate) written: u64,
    /// Rows per older range when the step started.
    pub(crate) totals: Vec<u64>,
    /// Rows done per older range.
    pub(crate) counts: Vec<u64>,
}

impl Mark {
    /// The start of `step`, with the rows counted per range.
    pub(crate) fn fresh(step: Step, totals: Vec<u64>) -> Self {
        Mark {
            step,
            range: 0,
            after: None,
            done: 0,
            written: 0,
            counts: vec![0; totals.len()],
            totals,
        }
    }
}
