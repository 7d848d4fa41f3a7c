//! A schema document's layout history (version 3, `"history"`): the layout
//! the table's older rows use (the same components under another prefix
//! and salt) and the cut-over, so that tools read a key of either layout
//! and say which, by the rules of the derived `decode_stored`.

use super::component::encode_plain;
use super::{DynSchema, Value};
use crate::error::DecodeError;

/// The older layout and the cut-over of a [`DynSchema`].
#[derive(Debug, Clone)]
pub struct DynHistory {
    pub(super) older: DynSchema,
    pub(super) cut: DynCut,
}

/// What decides a row's layout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DynCut {
    /// `until = migration`: the migration's phase alone decides.
    Migration,
    /// `until = field >= value`: rows whose component `component` encodes
    /// at or past `at` (its ascending encoding) are in the declared layout.
    Field {
        /// The cut-over component's index in [`DynSchema::components`].
        component: usize,
        /// The ascending encoding of the cut-over value.
        at: Vec<u8>,
    },
}

/// Which layout a stored key is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// The layout the key type declares (`#[rowkey(...)]`).
    Declared,
    /// The older layout (`#[rowkey_was(...)]`).
    Older,
}

impl std::fmt::Display for Layout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Layout::Declared => "declared",
            Layout::Older => "older",
        })
    }
}

impl DynHistory {
    /// The older layout, a schema of its own (the same components).
    pub fn older(&self) -> &DynSchema {
        &self.older
    }

    /// What decides a row's layout.
    pub fn cut(&self) -> &DynCut {
        &self.cut
    }
}

impl DynSchema {
    /// The older layout and the cut-over, when the document has them.
    pub fn history(&self) -> Option<&DynHistory> {
        self.history.as_deref()
    }

    /// Reads a stored key of either layout, by the rules of the derived
    /// `decode_stored`: a key that reads under one layout only is that
    /// layout's; one that reads under both as the same components is the
    /// declared row; one that reads as two different rows is decided by the
    /// cut-over field (rows at or past it are declared), and is
    /// [`DecodeError::AmbiguousLayout`] when it cannot be. Without a
    /// history, [`decode`](Self::decode) and [`Layout::Declared`].
    ///
    /// ```
    /// use keyschema::dynamic::{DynSchema, Layout, Value};
    /// use keyschema::RowKey;
    ///
    /// #[derive(RowKey)]
    /// #[rowkey(salt = hash(user) % 8, then = user, rev(ts))]
    /// #[rowkey_was(salt = none, until = ts >= 100)]
    /// struct Visit { user: String, ts: u64 }
    ///
    /// let schema = DynSchema::from_json(&Visit::schema().to_json())?;
    /// let old = Visit { user: "u1".into(), ts: 7 }.encode_older().expect("a history");
    /// let (values, layout) = schema.decode_stored(&old)?;
    /// assert_eq!((values, layout), (vec![Value::from("u1"), Value::U64(7)], Layout::Older));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn decode_stored(&self, key: &[u8]) -> Result<(Vec<Value>, Layout), DecodeError> {
        let Some(history) = &self.history else {
            return self.decode(key).map(|v| (v, Layout::Declared));
        };
        match (self.decode(key), history.older.decode(key)) {
            (Ok(row), Err(_)) => Ok((row, Layout::Declared)),
            (Err(_), Ok(row)) => Ok((row, Layout::Older)),
            (Err(e), Err(_)) => Err(e),
            (Ok(new), Ok(_)) if self.head().len() == history.older.head().len() => {
                Ok((new, Layout::Declared))
            }
            (Ok(new), Ok(old)) => {
                if self.past_cut_over(&new) || self.past_cut_over(&old) {
                    Ok((new, Layout::Declared))
                } else {
                    Err(DecodeError::AmbiguousLayout { schema: self.name })
                }
            }
        }
    }

    /// Whether a row (its fields' values) is at or past a cut-over by
    /// field; `true` for a migration, as the derive has it.
    fn past_cut_over(&self, values: &[Value]) -> bool {
        let Some(DynCut::Field { component, at }) = self.history().map(DynHistory::cut) else {
            return true;
        };
        let Some(i) = self.fields.iter().position(|f| f.component == *component) else {
            return true;
        };
        let mut encoded = Vec::new();
        encode_plain(self.fields[i].encoding, &values[i], &mut encoded);
        encoded.as_slice() >= at.as_slice()
    }
}
