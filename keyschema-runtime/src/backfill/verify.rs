//! The verification between the copy and the delete: rows and a checksum
//! per salt bucket of the declared layout, under both layouts.

use super::{next, Backfill, BackfillError};
use crate::history::Cut;
use crate::key::RowKey;
use crate::range::Direction;
use crate::scan::builder::ScanState;
use crate::store::{AsyncStore, Row, Store};

/// Rows and a checksum per salt bucket of the declared layout: the older
/// rows (re-keyed) and the declared layout's rows of the same span.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BucketCheck {
    /// The declared layout's bucket.
    pub bucket: u32,
    /// Older rows whose declared key is in the bucket.
    pub older_rows: u64,
    /// Declared rows of the backfilled span in the bucket.
    pub declared_rows: u64,
    /// Sum of a hash of (declared key, value) over the older rows.
    pub older_checksum: u64,
    /// The same over the declared rows.
    pub declared_checksum: u64,
}

/// The result of [`Backfill::verify`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verification {
    /// One entry per bucket of the declared layout.
    pub buckets: Vec<BucketCheck>,
}

impl Verification {
    /// Whether every bucket has the same rows and checksum in both layouts.
    pub fn matches(&self) -> bool {
        self.mismatched() == 0
    }

    /// How many buckets differ.
    pub fn mismatched(&self) -> usize {
        self.buckets
            .iter()
            .filter(|b| b.older_rows != b.declared_rows || b.older_checksum != b.declared_checksum)
            .count()
    }
}

impl<K: RowKey> Backfill<K> {
    /// Counts and checksums, per bucket of the declared layout, the older
    /// rows (re-keyed) and the declared rows of the same span (for a
    /// cut-over by field, those before it; for a migration, all).
    pub fn verify<S: Store>(&self, store: &S) -> Result<Verification, BackfillError<S::Error>> {
        let mut checks = self.empty_checks();
        for range in &self.ranges {
            for row in store
                .scan(range, Direction::Forward)
                .map_err(BackfillError::Store)?
            {
                let row = row.map_err(BackfillError::Store)?;
                self.tally_older::<S::Error>(&mut checks, &row)?;
            }
        }
        for range in ScanState::new(K::schema()).ranges().iter() {
            for row in store
                .scan(range, Direction::Forward)
                .map_err(BackfillError::Store)?
            {
                let row = row.map_err(BackfillError::Store)?;
                self.tally_declared(&mut checks, &row);
            }
        }
        Ok(Verification { buckets: checks })
    }

    fn empty_checks(&self) -> Vec<BucketCheck> {
        (0..K::schema().buckets())
            .map(|bucket| BucketCheck {
                bucket,
                older_rows: 0,
                declared_rows: 0,
                older_checksum: 0,
                declared_checksum: 0,
            })
            .collect()
    }

    fn tally_older<E>(
        &self,
        checks: &mut [BucketCheck],
        row: &Row,
    ) -> Result<(), BackfillError<E>> {
        let older = self
            .older_row(&row.0)
            .map_err(|source| BackfillError::Row {
                key: row.0.clone(),
                source,
            })?;
        if let Some(r) = older {
            let key = r.encode();
            if let Some(c) = K::schema()
                .bucket_of(&key)
                .ok()
                .and_then(|b| checks.get_mut(b as usize))
            {
                c.older_rows += 1;
                c.older_checksum = c.older_checksum.wrapping_add(checksum(&key, &row.1));
            }
        }
        Ok(())
    }

    fn tally_declared(&self, checks: &mut [BucketCheck], (key, value): &Row) {
        // The declared layout's rows of the backfilled span (a key that
        // reads in both layouts is the declared layout's).
        let Ok(row) = K::decode(key) else { return };
        if matches!(self.history.cut(), Cut::Field { .. }) && row.past_cut_over() {
            return;
        }
        if let Some(c) = K::schema()
            .bucket_of(key)
            .ok()
            .and_then(|b| checks.get_mut(b as usize))
        {
            c.declared_rows += 1;
            c.declared_checksum = c.declared_checksum.wrapping_add(checksum(key, value));
        }
    }

    /// [`verify`](Self::verify) on an async store.
    pub async fn verify_async<S: AsyncStore>(
        &self,
        store: &S,
    ) -> Result<Verification, BackfillError<S::Error>> {
        let mut checks = self.empty_checks();
        for range in &self.ranges {
            let mut rows = store.scan_stream(range, Direction::Forward, None);
            while let Some(row) = next(&mut rows).await {
                let row = row.map_err(BackfillError::Store)?;
                self.tally_older::<S::Error>(&mut checks, &row)?;
            }
        }
        for range in ScanState::new(K::schema()).ranges().iter() {
            let mut rows = store.scan_stream(range, Direction::Forward, None);
            while let Some(row) = next(&mut rows).await {
                let row = row.map_err(BackfillError::Store)?;
                self.tally_declared(&mut checks, &row);
            }
        }
        Ok(Verification { buckets: checks })
    }
}

/// A 64-bit hash of a row (the first 8 bytes of SHA-256 over the key's
/// length, the key and the value): summed per bucket, order-independent.
fn checksum(key: &[u8], value: &[u8]) -> u64 {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    h.update((key.len() as u64).to_be_bytes());
    h.update(key);
    h.update(value);
    let digest = h.finalize();
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    u64::from_be_bytes(first)
}
