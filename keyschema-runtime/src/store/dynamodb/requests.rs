//! What a store's requests cost: how many of each kind it (and its
//! clones) sent, in DynamoDB's own units of work.

use super::DynamoStore;

/// How many requests a store (and its clones) sent: what a scan or an
/// ingest cost, in DynamoDB's own units of work.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Requests {
    /// BatchWriteItem calls, retries of unprocessed items included.
    pub batch_write_item: u64,
    /// BatchGetItem calls.
    pub batch_get_item: u64,
    /// Query calls, one per page.
    pub query: u64,
    /// Scan calls, one per page (an index added to a live table only).
    pub scan: u64,
    /// UpdateItem calls (an index added to a live table only).
    pub update_item: u64,
}

/// The counts behind [`Requests`], shared by a store and its clones.
#[derive(Debug, Default)]
pub(super) struct Counters {
    pub(super) batch_write_item: std::sync::atomic::AtomicU64,
    pub(super) batch_get_item: std::sync::atomic::AtomicU64,
    pub(super) query: std::sync::atomic::AtomicU64,
    pub(super) scan: std::sync::atomic::AtomicU64,
    pub(super) update_item: std::sync::atomic::AtomicU64,
}

impl Counters {
    /// One more request of a kind.
    pub(super) fn count(counter: &std::sync::atomic::AtomicU64) {
        counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
}

impl DynamoStore {
    /// The requests sent so far by this store and its clones.
    pub fn requests(&self) -> Requests {
        use std::sync::atomic::Ordering::Relaxed;
        Requests {
            batch_write_item: self.counters.batch_write_item.load(Relaxed),
            batch_get_item: self.counters.batch_get_item.load(Relaxed),
            query: self.counters.query.load(Relaxed),
            scan: self.counters.scan.load(Relaxed),
            update_item: self.counters.update_item.load(Relaxed),
        }
    }
}
