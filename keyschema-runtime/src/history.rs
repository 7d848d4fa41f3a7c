//! Layout history: the layout a table's older rows use and the cut-over to
//! the declared one, for a layout change on a live table
//! (`#[rowkey_was(...)]`).
//!
//! The two layouts differ only in their prefix and salt: the components
//! after the salt are the same bytes, so rows of both layouts merge in one
//! order, a cursor means the same in both, and a row moves from one layout
//! to the other by changing its header alone.

pub use crate::schema::{Cut, History};

/// Where a layout change stands. Reads and writes of a key type with a
/// history take the phase the application is in (from its configuration,
/// so that every reader and writer agrees): for such a type the
/// phase-blind forms (`put_row`, `delete_row`, the generated `get`, a scan
/// without `.phase(p)`) do not compile.
///
/// A cut-over by field goes `Split` → `New`; by migration, `Old` → `Dual` →
/// `New`. The backfill copies the older rows during `Split` or `Dual`, and
/// the older rows are deleted only in `New`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Phase {
    /// Only the older layout is read and written (migration, before it
    /// starts); also what the older binary does, in either kind of cut-over.
    Old,
    /// Writes go to both layouts; reads to the older one, which is complete
    /// (migration, while the backfill runs).
    Dual,
    /// Rows before the cut-over are in the older layout, the others in the
    /// declared one; reads split at the cut-over (a cut-over by field,
    /// before and while the backfill runs).
    Split,
    /// Every row is in the declared layout (the backfill copied and
    /// verified them): reads and writes use it alone.
    New,
}

/// A read or write that a key type's layout history refuses
/// ([`RowError::Layout`](crate::store::RowError::Layout)).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LayoutError {
    /// A phase the key type's kind of cut-over does not have.
    #[error("`{schema}` has no `Phase::{phase:?}`: {why}")]
    Phase {
        /// The key type.
        schema: &'static str,
        /// The phase asked for.
        phase: Phase,
        /// Which phases the cut-over has, and what this one would lose.
        why: &'static str,
    },
    /// A write whose older-layout key would also read as another row of the
    /// declared layout: every reader would take it for that row.
    #[error(
        "a row of `{schema}` is not written in `Phase::{phase:?}`: its older-layout key {} also reads as another row of the declared layout, {other}, and every reader would take it for that row, so the older layout cannot hold it; write it once every process is in `Phase::New` (the declared layout alone), where its key is {}",
        older.escape_ascii(), declared.escape_ascii()
    )]
    Ambiguous {
        /// The key type.
        schema: &'static str,
        /// The phase of the write.
        phase: Phase,
        /// The row's key in the older layout.
        older: Vec<u8>,
        /// The declared row that key reads as, rendered.
        other: String,
        /// The row's key in the declared layout.
        declared: Vec<u8>,
    },
}

/// Which layouts an operation touches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layouts {
    /// The older layout.
    pub older: bool,
    /// The declared layout.
    pub declared: bool,
}

impl History {
    /// The phase a key type starts in: `Split` for a cut-over by field
    /// (new rows past the value, old rows where they are), `Old` for a
    /// migration.
    pub fn first_phase(&self) -> Phase {
        match self.cut() {
            Cut::Field { .. } => Phase::Split,
            Cut::Migration => Phase::Old,
        }
    }

    /// Whether `phase` belongs to this kind of cut-over: `Split` and `New`
    /// for a cut-over by field (and `Old`, what the older binary does), `Old`,
    /// `Dual` and `New` for a migration.
    pub fn allows(&self, phase: Phase) -> bool {
        match self.cut() {
            Cut::Field { .. } => matches!(phase, Phase::Old | Phase::Split | Phase::New),
            Cut::Migration => matches!(phase, Phase::Old | Phase::Dual | Phase::New),
        }
    }

    /// Refuses a phase this kind of cut-over does not have (every
    /// phase-aware read and write asks): in it, some row would be written
    /// where no reader looks, or read where no writer writes.
    pub fn check_phase(&self, schema: &'static str, phase: Phase) -> Result<(), LayoutError> {
        if self.allows(phase) {
            return Ok(());
        }
        let why = match self.cut() {
            // Dual reads the older layout alone: rows past the cut-over
            // are in the declared one.
            Cut::Field { .. } => "it cuts over on a field (`until = field >= value`), whose phases are `Split` then `New` (and `Old` for what the older binary does); `Dual` reads the older layout alone, where no row past the cut-over is",
            // Split writes a row to the declared layout alone.
            Cut::Migration => "it cuts over by migration (`until = migration`), whose phases are `Old`, `Dual`, then `New`; `Split` would write rows to the declared layout alone, where readers in `Old` and `Dual` do not look",
        };
        Err(LayoutError::Phase { schema, phase, why })
    }

    /// The layouts a read looks in during `phase`.
    pub fn reads(&self, phase: Phase) -> Layouts {
        match phase {
            Phase::Old | Phase::Dual => Layouts {
                older: true,
                declared: false,
            },
            Phase::Split => Layouts {
                older: true,
                declared: true,
            },
            Phase::New => Layouts {
                older: false,
                declared: true,
            },
        }
    }

    /// The layouts a write of a row goes to during `phase`; `declared` says
    /// whether the row is at or past the cut-over (by field).
    ///
    /// While the older layout is read (`Old` aside), a row it holds is
    /// written to both layouts: in `Dual` every row, in `Split` the rows
    /// before the cut-over. The declared layout then never keeps a copy the
    /// backfill made of a row that was since replaced or deleted.
    pub fn writes(&self, phase: Phase, declared: bool) -> Layouts {
        match phase {
            Phase::Old => Layouts {
                older: true,
                declared: false,
            },
            Phase::Dual => Layouts {
                older: true,
                declared: true,
            },
            Phase::Split => Layouts {
                older: !declared,
                declared: true,
            },
            Phase::New => Layouts {
                older: false,
                declared: true,
            },
        }
    }
}
