//! A store that routes each scan by the bucket its range is tagged with
//! (one map per salt bucket, as a store sharded by salt would be), keeping
//! the default `Store::reads_across_buckets` (`false`): every range it is
//! given lies in its bucket, and a merge over 128 buckets (more than the 64
//! from which the embedded stores' merges walk many buckets per scan)
//! returns every row, in order, both ways, paged, as the memory store does.

mod common;

use common::paging;
use keyschema::store::{Cas, Direction, MemoryStore, Mutation, OwnedRows, Row, RowStore, Store};
use keyschema::{Cursor, KeyRange, RowKey};
use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::Mutex;

#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = hash(user) % 128, then = user, rev(ts))]
struct Wide {
    user: String,
    ts: u64,
}

/// One bucket's rows.
type Shard = BTreeMap<Vec<u8>, Vec<u8>>;

/// One map per salt bucket (the key's first byte).
#[derive(Default)]
struct Sharded(Mutex<BTreeMap<u8, Shard>>);

#[derive(Debug)]
enum ShardError {
    /// A range reaching outside the bucket it is tagged with.
    Spans(KeyRange, u32),
    Poisoned,
}

impl std::fmt::Display for ShardError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ShardError::Spans(range, bucket) => {
                write!(f, "range {range:?} reaches outside bucket {bucket}")
            }
            ShardError::Poisoned => f.write_str("a lock was poisoned"),
        }
    }
}

impl std::error::Error for ShardError {}

impl Store for Sharded {
    type Error = ShardError;
    type Rows<'a> = std::vec::IntoIter<Result<Row, ShardError>>;
    type Lent<'a> = OwnedRows<Self::Rows<'a>>;

    fn scan(&self, range: &KeyRange, direction: Direction) -> Result<Self::Rows<'_>, ShardError> {
        let bucket = range.bucket();
        let spans = ShardError::Spans(range.clone(), bucket);
        let Ok(shard) = u8::try_from(bucket) else {
            return Err(spans);
        };
        let first = range.start().first().copied().unwrap_or(0);
        let next = [shard.wrapping_add(1)];
        let past = range
            .end()
            .is_none_or(|end| shard == u8::MAX || end > &next[..]);
        if first != shard || past {
            return Err(spans);
        }
        let shards = self.0.lock().map_err(|_| ShardError::Poisoned)?;
        let Some(map) = shards.get(&shard) else {
            return Ok(Vec::new().into_iter());
        };
        if range.end().is_some_and(|end| end <= range.start()) {
            return Ok(Vec::new().into_iter());
        }
        let upper = range.end().map_or(Bound::Unbounded, Bound::Excluded);
        let rows = map.range::<[u8], _>((Bound::Included(range.start()), upper));
        let own = |(k, v): (&Vec<u8>, &Vec<u8>)| Ok((k.clone(), v.clone()));
        let rows: Vec<_> = match direction {
            Direction::Forward => rows.map(own).collect(),
            Direction::Reverse => rows.rev().map(own).collect(),
        };
        Ok(rows.into_iter())
    }
    fn scan_into(
        &self,
        range: &KeyRange,
        direction: Direction,
    ) -> Result<Self::Lent<'_>, ShardError> {
        Ok(OwnedRows::new(self.scan(range, direction)?))
    }
    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, ShardError> {
        let shards = self.0.lock().map_err(|_| ShardError::Poisoned)?;
        let shard = key.first().and_then(|b| shards.get(b));
        Ok(shard.and_then(|m| m.get(key)).cloned())
    }
    fn write_batch(&self, batch: &[Mutation]) -> Result<(), ShardError> {
        let mut shards = self.0.lock().map_err(|_| ShardError::Poisoned)?;
        for m in batch {
            let key = m.key();
            let shard = shards.entry(key.first().copied().unwrap_or(0)).or_default();
            match m {
                Mutation::Put { key, value } => shard.insert(key.clone(), value.clone()),
                Mutation::Delete { key } => shard.remove(key),
            };
        }
        Ok(())
    }
    fn compare_and_write(&self, _: &[Cas]) -> Result<Vec<bool>, ShardError> {
        unreachable!("not used by scans")
    }
}

/// Every row of a merged scan paged by `n` (`None`: one page).
fn merged<S: Store>(store: &S, n: Option<usize>, reverse: bool) -> Vec<(String, u64)>
where
    S::Error: std::fmt::Debug,
{
    let (_, rows) = paging::page_through(|after: Option<Cursor>| {
        let mut request = Wide::scan().request();
        if let Some(n) = n {
            request = request.limit(n);
        }
        if reverse {
            request = request.reverse();
        }
        if let Some(cursor) = after {
            request = request.after(cursor);
        }
        request.run(store)
    });
    rows.into_iter().map(|row| (row.user, row.ts)).collect()
}

#[test]
fn a_store_that_routes_by_bucket_reads_every_row_of_a_wide_merge() {
    let rows: Vec<Wide> = (0..600u64)
        .map(|i| Wide {
            user: format!("user{}", i % 150),
            ts: i,
        })
        .collect();
    let sharded = Sharded::default();
    let memory = MemoryStore::new();
    sharded
        .put_rows(rows.iter().map(|r| (r, b"v")))
        .expect("put");
    memory
        .put_rows(rows.iter().map(|r| (r, b"v")))
        .expect("put");
    assert!(!sharded.reads_across_buckets() && memory.reads_across_buckets());
    for reverse in [false, true] {
        for n in [None, Some(1), Some(7), Some(600)] {
            let want = merged(&memory, n, reverse);
            assert_eq!(want.len(), 600);
            assert_eq!(
                merged(&sharded, n, reverse),
                want,
                "by {n:?}, reverse {reverse}"
            );
        }
    }
}
