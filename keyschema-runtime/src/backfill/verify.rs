//! The verification between the copy and the delete: rows and a checksum
//! per salt bucket of the declared layout, under both layouts.

use super::checkpoint::store_word;
use super::rows::Older;
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

/// The result of [`Backfill::verify`]: made only by it (its fields are
/// private, so a verification cannot be written by hand), and taken by
/// [`Backfill::delete_older`] only for the key type it was made for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verification {
    schema: &'static str,
    /// The identity of the store it was made on (as the checkpoint writes
    /// it), when the store names itself.
    store: Option<String>,
    buckets: Vec<BucketCheck>,
    uncovered: u64,
    stranded: u64,
}

impl Verification {
    /// One entry per bucket of the declared layout.
    pub fn buckets(&self) -> &[BucketCheck] {
        &self.buckets
    }

    /// Whether both layouts hold the same rows: every bucket has the same
    /// rows and checksum (of keys and values) in both, every older row has
    /// its declared row, and no row waits in the older layout past the
    /// cut-over. Readers move to `Phase::New` only after a verification
    /// that matches.
    pub fn matches(&self) -> bool {
        self.mismatched() == 0 && self.covers()
    }

    /// Whether every older row has its declared row, and no row waits past
    /// the cut-over: what resuming a delete that began needs (the declared
    /// layout then holds more rows, and writers in `Phase::New` change
    /// declared rows alone).
    pub fn covers(&self) -> bool {
        self.uncovered == 0 && self.stranded == 0
    }

    /// How many buckets differ.
    pub fn mismatched(&self) -> usize {
        self.buckets
            .iter()
            .filter(|b| b.older_rows != b.declared_rows || b.older_checksum != b.declared_checksum)
            .count()
    }

    /// Older rows (of the backfilled span) whose declared row is missing.
    pub fn uncovered(&self) -> u64 {
        self.uncovered
    }

    /// Rows the older binary wrote past the cut-over, still in the older
    /// layout (the copy moves them).
    pub fn stranded(&self) -> u64 {
        self.stranded
    }

    /// The store it was made on ([`Store::identity`]), when the store
    /// names itself: `delete_older` refuses it on another store.
    pub fn store(&self) -> Option<&str> {
        self.store.as_deref()
    }

    /// The name of the key type verified.
    pub fn schema(&self) -> &'static str {
        self.schema
    }
}

/// The tallies of a verification being made.
struct Tally {
    checks: Vec<BucketCheck>,
    uncovered: u64,
    stranded: u64,
}

impl<K: RowKey> Backfill<K> {
    /// Counts and checksums, per bucket of the declared layout, the older
    /// rows (re-keyed) and the declared rows of the same span (for a
    /// cut-over by field, those before it; for a migration, all); looks up
    /// each older row's declared row; counts the rows the older binary
    /// wrote past the cut-over.
    pub fn verify<S: Store>(&self, store: &S) -> Result<Verification, BackfillError<S::Error>> {
        let mut tally = self.tally();
        for range in &self.ranges {
            for row in store
                .scan(range, Direction::Forward)
                .map_err(BackfillError::Store)?
            {
                let row = row.map_err(BackfillError::Store)?;
                if let Some(key) = self.tally_older::<S::Error>(&mut tally, &row)? {
                    if store.get(&key).map_err(BackfillError::Store)?.is_none() {
                        tally.uncovered += 1;
                    }
                }
            }
        }
        for range in ScanState::new(K::schema()).ranges().iter() {
            for row in store
                .scan(range, Direction::Forward)
                .map_err(BackfillError::Store)?
            {
                let row = row.map_err(BackfillError::Store)?;
                self.tally_declared(&mut tally.checks, &row);
            }
        }
        Ok(self.verification(tally, store.identity()))
    }

    fn tally(&self) -> Tally {
        Tally {
            checks: (0..K::schema().buckets())
                .map(|bucket| BucketCheck {
                    bucket,
                    older_rows: 0,
                    declared_rows: 0,
                    older_checksum: 0,
                    declared_checksum: 0,
                })
                .collect(),
            uncovered: 0,
            stranded: 0,
        }
    }

    fn verification(&self, tally: Tally, store: Option<String>) -> Verification {
        Verification {
            schema: K::schema().name(),
            store: store_word(store),
            buckets: tally.checks,
            uncovered: tally.uncovered,
            stranded: tally.stranded,
        }
    }

    /// Tallies an older row; returns its declared key, to be looked up, when it is in the backfilled span.
    fn tally_older<E>(
        &self,
        tally: &mut Tally,
        row: &Row,
    ) -> Result<Option<Vec<u8>>, BackfillError<E>> {
        let older = self.older(&row.0).map_err(|source| BackfillError::Row {
            key: row.0.clone(),
            source,
        })?;
        let r = match older {
            Older::Not => return Ok(None),
            Older::Stranded(_) => {
                tally.stranded += 1;
                return Ok(None);
            }
            Older::InSpan(r) => r,
        };
        let key = r.encode();
        if let Some(c) = K::schema()
            .bucket_of(&key)
            .ok()
            .and_then(|b| tally.checks.get_mut(b as usize))
        {
            c.older_rows += 1;
            c.older_checksum = c.older_checksum.wrapping_add(checksum(&key, &row.1));
        }
        Ok(Some(key))
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
        self.check_async(store)?;
        let mut tally = self.tally();
        let mut lookups: Vec<Vec<u8>> = Vec::new();
        for range in &self.ranges {
            let mut rows = store.scan_for(K::schema(), range, Direction::Forward, None);
            while let Some(row) = next(&mut rows).await {
                let row = row.map_err(BackfillError::Store)?;
                if let Some(lookup) = self.tally_older::<S::Error>(&mut tally, &row)? {
                    lookups.push(lookup);
                }
                if lookups.len() >= LOOKUPS {
                    tally.uncovered +=
                        uncovered(store, K::schema(), std::mem::take(&mut lookups)).await?;
                }
            }
        }
        tally.uncovered += uncovered(store, K::schema(), lookups).await?;
        for range in ScanState::new(K::schema()).ranges().iter() {
            let mut rows = store.scan_for(K::schema(), range, Direction::Forward, None);
            while let Some(row) = next(&mut rows).await {
                let row = row.map_err(BackfillError::Store)?;
                self.tally_declared(&mut tally.checks, &row);
            }
        }
        Ok(self.verification(tally, store.identity()))
    }
}

/// Declared keys looked up per request by the async verification.
const LOOKUPS: usize = 1_000;

/// How many of the declared `keys` the store lacks.
async fn uncovered<S: AsyncStore>(
    store: &S,
    schema: &'static crate::schema::Schema,
    keys: Vec<Vec<u8>>,
) -> Result<u64, BackfillError<S::Error>> {
    if keys.is_empty() {
        return Ok(0);
    }
    let found: std::collections::HashSet<Vec<u8>> = store
        .get_many_for(schema, keys.clone())
        .await
        .map_err(BackfillError::Store)?
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    Ok(keys.iter().filter(|k| !found.contains(*k)).count() as u64)
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
