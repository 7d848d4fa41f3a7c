//! The schemas the tests and benches share. `Event` is the README's key:
//! per-user events salted by user and site, newest first (the KARTE and
//! Bigtable salting articles).

use keyschema::RowKey;

#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = hash(user_id, site) % 8, then = user_id, site, rev(timestamp))]
pub struct Event {
    pub user_id: String,
    pub site: String,
    pub timestamp: u64,
}
