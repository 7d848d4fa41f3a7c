//! Layout history: the layout a table's older rows use and the cut-over to
//! the declared one, for a layout change on a live table
//! (`#[rowkey_was(...)]`).
//!
//! The two layouts differ only in their prefix and salt: the components
//! after the salt are the same bytes, so rows of both layouts merge in one
//! order, a cursor means the same in both, and a row moves from one layout
//! to the other by changing its header alone.

use crate::error::DecodeError;
use crate::key::RowKey;
use crate::schema::Schema;

/// The older layout of a key type and what decides a row's layout. Made by
/// `#[rowkey_was(...)]`; see [`RowKey::history`].
#[derive(Debug)]
pub struct History {
    old: &'static Schema,
    cut: Cut,
}

/// What decides a row's layout.
#[derive(Debug, Clone, Copy)]
pub enum Cut {
    /// `until = field >= value`: rows whose component `component` is at or
    /// past the value are in the declared layout. `at` gives the value's
    /// ascending encoding.
    Field {
        /// The cut-over field's index in [`Schema::components`].
        component: usize,
        /// The ascending encoding of the cut-over value.
        at: fn() -> Vec<u8>,
    },
    /// `until = migration`: the [`Phase`] alone decides.
    Migration,
}

/// Where a layout change stands. Reads and writes of a key type with a
/// history take the phase the application is in (from its configuration,
/// so that every reader and writer agrees).
///
/// A cut-over by field goes `Split` → `New`; by migration, `Old` → `Dual` →
/// `New`. The backfill copies the older rows during `Split` or `Dual`, and
/// the older rows are deleted only in `New`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Phase {
    /// Only the older layout is read and written (migration, before it starts).
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
    #[doc(hidden)]
    pub const fn new(old: &'static Schema, cut: Cut) -> Self {
        History { old, cut }
    }

    /// The older layout.
    pub fn older(&self) -> &'static Schema {
        self.old
    }

    /// What decides a row's layout.
    pub fn cut(&self) -> Cut {
        self.cut
    }

    /// Whether a key reads as the same components in both layouts (their
    /// headers have one length): then a key that reads in both is one row,
    /// and a row's two keys may be the same bytes.
    pub fn same_components(&self, declared: &Schema) -> bool {
        self.old.header_len() == declared.header_len()
    }

    /// The phase a key type starts in: `Split` for a cut-over by field
    /// (new rows past the value, old rows where they are), `Old` for a
    /// migration.
    pub fn first_phase(&self) -> Phase {
        match self.cut {
            Cut::Field { .. } => Phase::Split,
            Cut::Migration => Phase::Old,
        }
    }

    /// Whether `phase` belongs to this kind of cut-over.
    pub fn allows(&self, phase: Phase) -> bool {
        match self.cut {
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
                declared,
            },
            Phase::New => Layouts {
                older: false,
                declared: true,
            },
        }
    }
}

/// The key of `row` in one layout: the declared one, or the older.
pub(crate) fn key_in<K: RowKey>(row: &K, older: bool) -> Vec<u8> {
    match (older, row.encode_older()) {
        (true, Some(key)) => key,
        _ => row.encode(),
    }
}

/// Refuses an older-layout key that also reads as a row of the declared
/// layout (another row: the headers differ in length). Such a key is left
/// to the declared layout: every read takes a key that reads in both as
/// the declared layout's (a backfilled copy of a row before the cut-over
/// reads as an older row of another id), so an older row must never have
/// one. Keys of the declared layout are never refused.
pub(crate) fn unambiguous<K: RowKey>(key: &[u8], older: bool) -> Result<(), DecodeError> {
    let Some(history) = K::history() else {
        return Ok(());
    };
    if !older || history.same_components(K::schema()) {
        return Ok(());
    }
    if K::decode(key).is_ok() {
        return Err(DecodeError::AmbiguousLayout {
            schema: K::schema().name(),
        });
    }
    Ok(())
}

/// The keys a write of `row` goes to in `phase`, each with whether it is
/// the older layout's; refused when a key would be ambiguous.
pub(crate) fn write_keys<K: RowKey>(
    phase: Phase,
    row: &K,
) -> Result<Vec<(Vec<u8>, bool)>, DecodeError> {
    let Some(history) = K::history() else {
        return Ok(vec![(row.encode(), false)]);
    };
    let layouts = history.writes(phase, row.past_cut_over());
    let mut keys = Vec::with_capacity(2);
    for (wanted, older) in [(layouts.older, true), (layouts.declared, false)] {
        if wanted {
            let key = key_in(row, older);
            unambiguous::<K>(&key, older)?;
            if !keys.iter().any(|(k, _)| *k == key) {
                keys.push((key, older));
            }
        }
    }
    Ok(keys)
}

/// The key a get of `row` reads in `phase`, and whether it is the older
/// layout's: in `Split`, the layout of the row's side of the cut-over; in
/// `Old` and `Dual`, the older layout (complete); in `New`, the declared.
pub(crate) fn read_key<K: RowKey>(phase: Phase, row: &K) -> (Vec<u8>, bool) {
    let older = reads_older::<K>(phase, row.past_cut_over());
    (key_in(row, older), older)
}

/// Whether a get in `phase` reads the older layout, for a row on the
/// `past` side of the cut-over.
pub(crate) fn reads_older<K: RowKey>(phase: Phase, past: bool) -> bool {
    match (K::history(), phase) {
        (None, _) | (_, Phase::New) => false,
        (Some(_), Phase::Old | Phase::Dual) => true,
        (Some(_), Phase::Split) => !past,
    }
}

/// A key read from one layout of `K`, decoded in it, with its value.
pub(crate) fn decode_in<K: RowKey, E>(
    key: Vec<u8>,
    value: Vec<u8>,
    older: bool,
) -> Result<Option<(K, Vec<u8>)>, crate::store::RowError<E>> {
    let row = if older {
        K::decode_older(&key)
    } else {
        K::decode(&key)
    };
    row.map(|row| Some((row, value)))
        .map_err(|source| crate::store::RowError::Decode { key, source })
}
