//! The row `bigtable_events` writes, shared with the test that reads its
//! table back through `cbt` and the command line tool
//! (`tests/cli_cbt.rs`).

use keyschema::RowKey;

/// One user action, a whole row. The key is
/// `hash(user_id, site) % 8 | user_id | site | rev(timestamp)`; each value
/// field is a column of the family `f` (the default; `#[rowkey(family =
/// "...")]` names another), its qualifier the field's name.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = hash(user_id, site) % 8, then = user_id, site, rev(timestamp))]
pub struct Event {
    pub user_id: String,
    pub site: String,
    pub timestamp: u64,
    /// `f:action`, text.
    #[rowkey(value)]
    pub action: String,
    /// `f:page`, text.
    #[rowkey(value)]
    pub page: String,
    /// `f:duration_ms`, a 64-bit big-endian integer (what
    /// `ReadModifyWriteRow` increments).
    #[rowkey(value)]
    pub duration_ms: u32,
    /// `f:referrer`, text; no cell when `None`.
    #[rowkey(value)]
    pub referrer: Option<String>,
}
