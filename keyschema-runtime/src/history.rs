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

    /// Whether `phase` belongs to this kind of cut-over.
    pub fn allows(&self, phase: Phase) -> bool {
        match self.cut() {
            Cut::Field { .. } => matches!(phase, Phase::Split | Phase::New),
            Cut::Migration => matches!(phase, Phase::Old | Phase::Dual | Phase::New),
        }
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
