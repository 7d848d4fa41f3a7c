//! The schemas the tests and benches share. `Event` is the README's key:
//! per-user events salted by user and site, newest first (the KARTE and
//! Bigtable salting articles); `Line` an invoice line under a partition key.

use keyschema::RowKey;

#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = hash(user_id, site) % 8, then = user_id, site, rev(timestamp))]
pub struct Event {
    pub user_id: String,
    pub site: String,
    pub timestamp: u64,
}

/// The DynamoDB write-sharding article's invoice lines: a partition key
/// (with 10 random suffixes), then newest first.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = random % 10, then = (invoice_id), rev(created_at), line_no)]
pub struct Line {
    pub invoice_id: String,
    pub created_at: u64,
    pub line_no: u16,
}

/// The invoice line of `Line` as readable text keys (`INVOICE#7#1`): string
/// key attributes on DynamoDB.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(format = text(sep = "#"), prefix = "INVOICE", then = (invoice_id), line_no)]
pub struct TextLine {
    pub invoice_id: u32,
    pub line_no: u16,
}

/// A `Line`.
pub fn line(invoice: &str, created_at: u64, line_no: u16) -> Line {
    Line {
        invoice_id: invoice.into(),
        created_at,
        line_no,
    }
}
