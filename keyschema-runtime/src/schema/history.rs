//! The older layout of a key type with a layout history
//! (`#[rowkey_was(...)]`) and its cut-over: what a [`Schema`] carries of it
//! (and writes in its document). The phases a migration goes through are
//! in [`crate::history`].

use super::Schema;

/// The older layout of a key type and what decides a row's layout. Made by
/// `#[rowkey_was(...)]`; see [`RowKey::history`](crate::RowKey::history).
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
        /// The ascending encoding of the cut-over value (computed once).
        at: fn() -> &'static [u8],
    },
    /// `until = migration`: the [`Phase`](crate::history::Phase) alone decides.
    Migration,
}

impl Schema {
    /// The older layout and the cut-over, for a key type declared with
    /// `#[rowkey_was(...)]` (as [`RowKey::history`](crate::RowKey::history));
    /// the schema document carries them.
    pub fn history(&self) -> Option<&'static History> {
        self.history
    }

    /// The layout a whole stored key is in: the older one for a key that
    /// reads in the older layout alone, the declared one otherwise (a key
    /// that reads in both is the declared layout's, as every read takes
    /// it, and the writes refuse older keys that would). A store that
    /// splits keys by layout (DynamoDB's partition and sort key) splits
    /// each by this one, as the older binary split its own.
    #[cfg_attr(not(feature = "dynamodb"), allow(dead_code))]
    pub(crate) fn layout_of(&'static self, key: &[u8]) -> &'static Schema {
        match self.history {
            Some(h) if !self.reads(key) && h.old.reads(key) => h.old,
            _ => self,
        }
    }

    /// Whether `key` is a whole key of this layout.
    #[cfg_attr(not(feature = "dynamodb"), allow(dead_code))]
    fn reads(&self, key: &[u8]) -> bool {
        match self.check {
            Some(check) => check(key).is_ok(),
            None => self
                .start_of(key, self.components.len())
                .is_ok_and(|end| end == key.len()),
        }
    }

    /// The schema with its history (the derive's).
    pub(crate) const fn with_history(mut self, history: &'static History) -> Self {
        self.history = Some(history);
        self
    }
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
}
