//! How far a step of a backfill is: the public progress and the mark kept
//! in the checkpoint.

/// Which step a backfill is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Copying the older rows into the declared layout.
    Copy,
    /// Deleting the older rows.
    Delete,
}

/// How far a step is.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    /// The step.
    pub step: Step,
    /// Older rows copied (or deleted) so far, over every run.
    pub rows_done: u64,
    /// Rows per second over this run.
    pub rows_per_second: f64,
    /// Per salt bucket of the older layout: the rows still to do (counted
    /// when the step started).
    pub remaining: Vec<(u32, u64)>,
    /// Whether the step is complete.
    pub finished: bool,
}

/// Where a step stands: the range being read and the last key done in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Mark {
    pub(crate) step: Step,
    pub(crate) range: usize,
    pub(crate) after: Option<Vec<u8>>,
    pub(crate) done: u64,
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
            counts: vec![0; totals.len()],
            totals,
        }
    }
}
