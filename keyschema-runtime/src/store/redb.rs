//! The persistent embedded store, on redb.

use super::source::RowSource;
use super::{Cas, Direction, Mutation, Plan, Row, Store};
use crate::range::KeyRange;
use redb::{ReadableDatabase, ReadableTable, TableDefinition};
use std::path::{Path, PathBuf};

const ROWS: TableDefinition<&[u8], &[u8]> = TableDefinition::new("keyschema_rows");

/// The file inside the data directory.
const FILE: &str = "keyschema.redb";

/// A persistent [`Store`] in a directory, on [redb](https://docs.rs/redb).
///
/// Every `put`, `delete` and `write_batch` is one ACID transaction, made
/// durable (fsync) before it returns: batch writes to ingest quickly. Scans
/// read a snapshot taken when they start.
///
/// Damage is an error, never a wrong answer: each row is stored with a
/// CRC-32 of its key and value, checked on every read
/// ([`redb::Error::Corrupted`] names the row), and a write after the
/// database file was removed or replaced under the open store fails with
/// [`redb::Error::Io`] instead of landing in a file nobody will read.
///
/// ```
/// use keyschema::store::{RedbStore, RowStore};
/// use keyschema::RowKey;
///
/// #[derive(RowKey, Debug, PartialEq)]
/// #[rowkey(then = id)]
/// struct Item { id: u32 }
///
/// let dir = std::env::temp_dir().join(format!("keyschema-doc-{}", std::process::id()));
/// {
///     let store = RedbStore::open(&dir)?;
///     store.put_row(&Item { id: 1 }, b"one")?;
/// }
/// let reopened = RedbStore::open(&dir)?;
/// assert_eq!(reopened.get_row::<Item>(&Item::get_key(1))?.map(|(_, v)| v), Some(b"one".to_vec()));
/// # drop(reopened);
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct RedbStore {
    db: redb::Database,
    path: PathBuf,
    /// The file's identity when opened, to notice it removed or replaced.
    identity: Option<FileId>,
}

type FileId = (u64, u64);

#[cfg(unix)]
fn file_id(path: &Path) -> Option<FileId> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn file_id(path: &Path) -> Option<FileId> {
    std::fs::metadata(path).ok().map(|_| (0, 0))
}

/// The bytes stored for a row: the value, then CRC-32 (IEEE) of key || value, big-endian.
fn seal(key: &[u8], value: &[u8]) -> Vec<u8> {
    let mut stored = Vec::with_capacity(value.len() + 4);
    stored.extend_from_slice(value);
    stored.extend_from_slice(&checksum(key, value).to_be_bytes());
    stored
}

fn checksum(key: &[u8], value: &[u8]) -> u32 {
    let mut hasher = crc32fast::Hasher::new();
    hasher.update(key);
    hasher.update(value);
    hasher.finalize()
}

/// The value of a stored row, after checking its checksum.
/// Refuses a key longer than [`MAX_KEY_LEN`](crate::MAX_KEY_LEN) as
/// [`redb::Error::Io`] of kind `InvalidInput`, its source the
/// [`KeyTooLong`](crate::KeyTooLong): no key type would decode it back.
fn check_key(key: &[u8]) -> Result<(), redb::Error> {
    crate::limits::check_key_len(key)
        .map_err(|e| redb::Error::Io(std::io::Error::new(std::io::ErrorKind::InvalidInput, e)))
}

fn unseal(key: &[u8], stored: &[u8]) -> Result<Vec<u8>, redb::Error> {
    unsealed(key, stored).map(<[u8]>::to_vec)
}

/// The value part of a stored row, borrowed, after checking its checksum.
fn unsealed<'a>(key: &[u8], stored: &'a [u8]) -> Result<&'a [u8], redb::Error> {
    let corrupted =
        |why: String| redb::Error::Corrupted(format!("row {}: {why}", key.escape_ascii()));
    let Some(split) = stored.len().checked_sub(4) else {
        return Err(corrupted(format!(
            "{} stored bytes, shorter than the checksum",
            stored.len()
        )));
    };
    let (value, sum) = stored.split_at(split);
    let mut expected = [0u8; 4];
    expected.copy_from_slice(sum);
    let expected = u32::from_be_bytes(expected);
    let actual = checksum(key, value);
    if actual != expected {
        return Err(corrupted(format!(
            "checksum {actual:08x} does not match the stored {expected:08x}"
        )));
    }
    Ok(value)
}

impl RedbStore {
    /// Opens the store in `dir`, creating the directory and the database
    /// when they do not exist. An I/O error names the path it was about.
    pub fn open(dir: impl AsRef<Path>) -> Result<Self, redb::Error> {
        let dir = dir.as_ref();
        let at = |path: &Path, e: std::io::Error| {
            redb::Error::Io(std::io::Error::new(
                e.kind(),
                format!("opening the redb store at {}: {e}", path.display()),
            ))
        };
        std::fs::create_dir_all(dir).map_err(|e| at(dir, e))?;
        let path = dir.join(FILE);
        let db = redb::Database::create(&path).map_err(|e| match e {
            redb::DatabaseError::Storage(redb::StorageError::Io(e)) => at(&path, e),
            other => other.into(),
        })?;
        let identity = file_id(&path);
        Ok(RedbStore { db, path, identity })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl RedbStore {
    /// Fails when the database file is no longer the one opened: a commit
    /// would go to an unlinked file and be lost when the store closes.
    fn check_file(&self) -> Result<(), redb::Error> {
        let now = file_id(&self.path);
        if now.is_some() && now == self.identity {
            return Ok(());
        }
        let what = if now.is_none() { "removed" } else { "replaced" };
        Err(redb::Error::Io(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            format!(
                "the database file {} was {what} while the store was open; the write would be lost (reopen the store)",
                self.path.display()
            ),
        )))
    }
}

impl Store for RedbStore {
    type Error = redb::Error;
    type Rows<'a> = RedbRows;
    type Lent<'a> = RedbRows;

    /// `redb:` and the database file's absolute path.
    fn identity(&self) -> Option<String> {
        let path = std::fs::canonicalize(&self.path).unwrap_or_else(|_| self.path.clone());
        Some(format!("redb:{}", path.display()))
    }

    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, redb::Error> {
        let txn = self.db.begin_read()?;
        let table = match txn.open_table(ROWS) {
            Ok(table) => table,
            Err(redb::TableError::TableDoesNotExist(_)) => return Ok(None),
            Err(e) => return Err(e.into()),
        };
        table.get(key)?.map(|v| unseal(key, v.value())).transpose()
    }

    /// In one read transaction.
    fn get_many(&self, keys: &[Vec<u8>]) -> Result<Vec<Option<Vec<u8>>>, redb::Error> {
        let txn = self.db.begin_read()?;
        let table = match txn.open_table(ROWS) {
            Ok(table) => table,
            Err(redb::TableError::TableDoesNotExist(_)) => return Ok(vec![None; keys.len()]),
            Err(e) => return Err(e.into()),
        };
        keys.iter()
            .map(|key| {
                table
                    .get(key.as_slice())?
                    .map(|v| unseal(key, v.value()))
                    .transpose()
            })
            .collect()
    }

    fn write_batch(&self, batch: &[Mutation]) -> Result<(), redb::Error> {
        for m in batch {
            if let Mutation::Put { key, .. } = m {
                check_key(key)?;
            }
        }
        self.check_file()?;
        let txn = self.db.begin_write()?;
        {
            let mut table = txn.open_table(ROWS)?;
            for m in batch {
                match m {
                    Mutation::Put { key, value } => {
                        table.insert(key.as_slice(), seal(key, value).as_slice())?;
                    }
                    Mutation::Delete { key } => {
                        table.remove(key.as_slice())?;
                    }
                }
            }
        }
        txn.commit()?;
        Ok(())
    }

    /// One write transaction: each mutation's old value read, its planned
    /// mutations and itself applied, in order; nothing of it on an error.
    /// An old value that fails its checksum counts as absent (the write
    /// replaces it; index entries it had are left to the index reads, which
    /// skip them).
    /// One transaction (one lock on memory).
    fn planned_writes_are_atomic(&self) -> bool {
        true
    }

    /// One ordered key space: a range is read by its bounds alone.
    fn reads_across_buckets(&self) -> bool {
        true
    }

    fn write_batch_planned(&self, batch: &[Mutation], plan: &mut Plan) -> Result<(), redb::Error> {
        self.check_file()?;
        let txn = self.db.begin_write()?;
        {
            let mut table = txn.open_table(ROWS)?;
            for (i, m) in batch.iter().enumerate() {
                let old = match table.get(m.key())? {
                    Some(v) => unseal(m.key(), v.value()).ok(),
                    None => None,
                };
                for m in plan(i, old.as_deref()).iter().chain([m]) {
                    match m {
                        Mutation::Put { key, value } => {
                            check_key(key)?;
                            table.insert(key.as_slice(), seal(key, value).as_slice())?;
                        }
                        Mutation::Delete { key } => {
                            table.remove(key.as_slice())?;
                        }
                    }
                }
            }
        }
        txn.commit()?;
        Ok(())
    }

    fn compare_and_write(&self, batch: &[Cas]) -> Result<Vec<bool>, redb::Error> {
        for cas in batch.iter().filter(|cas| cas.set.is_some()) {
            check_key(&cas.key)?;
        }
        self.check_file()?;
        let txn = self.db.begin_write()?;
        let mut applied = Vec::with_capacity(batch.len());
        {
            let mut table = txn.open_table(ROWS)?;
            for cas in batch {
                let current = match table.get(cas.key.as_slice())? {
                    Some(v) => Some(unseal(&cas.key, v.value())?),
                    None => None,
                };
                let applies = cas.holds(current.as_deref());
                if applies {
                    match &cas.set {
                        Some(value) => {
                            table.insert(cas.key.as_slice(), seal(&cas.key, value).as_slice())?;
                        }
                        None => {
                            table.remove(cas.key.as_slice())?;
                        }
                    }
                }
                applied.push(applies);
            }
        }
        txn.commit()?;
        Ok(applied)
    }

    /// Lends each row from two buffers it is copied into (its checksum
    /// checked): no allocation per row.
    fn scan_into(&self, range: &KeyRange, direction: Direction) -> Result<RedbRows, redb::Error> {
        self.scan(range, direction)
    }

    fn scan(&self, range: &KeyRange, direction: Direction) -> Result<RedbRows, redb::Error> {
        let empty = range.end().is_some_and(|end| end <= range.start());
        let txn = self.db.begin_read()?;
        let table = match txn.open_table(ROWS) {
            Ok(table) => table,
            Err(redb::TableError::TableDoesNotExist(_)) => {
                return Ok(RedbRows {
                    range: None,
                    direction,
                    key: Vec::new(),
                    value: Vec::new(),
                })
            }
            Err(e) => return Err(e.into()),
        };
        if empty {
            return Ok(RedbRows {
                range: None,
                direction,
                key: Vec::new(),
                value: Vec::new(),
            });
        }
        let start = range.start();
        let rows = match range.end() {
            Some(end) => table.range::<&[u8]>(start..end)?,
            None => table.range::<&[u8]>(start..)?,
        };
        Ok(RedbRows {
            range: Some(rows),
            direction,
            key: Vec::new(),
            value: Vec::new(),
        })
    }
}

/// The rows of a [`RedbStore`] scan. Keeps its read snapshot alive until dropped.
pub struct RedbRows {
    range: Option<redb::Range<'static, &'static [u8], &'static [u8]>>,
    direction: Direction,
    /// The row lent by [`RowSource`].
    key: Vec<u8>,
    value: Vec<u8>,
}

impl std::fmt::Debug for RedbRows {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedbRows")
            .field("direction", &self.direction)
            .finish_non_exhaustive()
    }
}

type Guards = (
    redb::AccessGuard<'static, &'static [u8]>,
    redb::AccessGuard<'static, &'static [u8]>,
);

impl RedbRows {
    fn next_guards(&mut self) -> Option<Result<Guards, redb::StorageError>> {
        let range = self.range.as_mut()?;
        match self.direction {
            Direction::Forward => range.next(),
            Direction::Reverse => range.next_back(),
        }
    }
}

impl Iterator for RedbRows {
    type Item = Result<Row, redb::Error>;

    fn next(&mut self) -> Option<Self::Item> {
        Some(
            self.next_guards()?
                .map_err(redb::Error::from)
                .and_then(|(k, v)| {
                    let key = k.value();
                    unseal(key, v.value()).map(|value| (key.to_vec(), value))
                }),
        )
    }
}

impl RowSource for RedbRows {
    type Error = redb::Error;

    /// Copies the row out of redb's page into two buffers the scan reuses
    /// (faster than holding redb's guards between rows).
    fn advance(&mut self) -> Result<bool, redb::Error> {
        self.key.clear();
        self.value.clear();
        let Some(guards) = self.next_guards() else {
            return Ok(false);
        };
        let (k, v) = guards?;
        let key = k.value();
        self.value.extend_from_slice(unsealed(key, v.value())?);
        self.key.extend_from_slice(key);
        Ok(true)
    }

    fn key(&self) -> &[u8] {
        &self.key
    }

    fn value(&self) -> &[u8] {
        &self.value
    }
}
