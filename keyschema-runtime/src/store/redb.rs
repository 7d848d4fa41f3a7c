//! The persistent embedded store, on redb.

use super::{Direction, Mutation, Row, Store};
use crate::scan::KeyRange;
use redb::{ReadableDatabase, TableDefinition};
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
}

impl RedbStore {
    /// Opens the store in `dir`, creating the directory and the database
    /// when they do not exist.
    pub fn open(dir: impl AsRef<Path>) -> Result<Self, redb::Error> {
        let dir = dir.as_ref();
        std::fs::create_dir_all(dir).map_err(redb::Error::Io)?;
        let path = dir.join(FILE);
        let db = redb::Database::create(&path)?;
        Ok(RedbStore { db, path })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Store for RedbStore {
    type Error = redb::Error;
    type Rows<'a> = RedbRows;

    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, redb::Error> {
        let txn = self.db.begin_read()?;
        let table = match txn.open_table(ROWS) {
            Ok(table) => table,
            Err(redb::TableError::TableDoesNotExist(_)) => return Ok(None),
            Err(e) => return Err(e.into()),
        };
        Ok(table.get(key)?.map(|v| v.value().to_vec()))
    }

    fn write_batch(&self, batch: &[Mutation]) -> Result<(), redb::Error> {
        let txn = self.db.begin_write()?;
        {
            let mut table = txn.open_table(ROWS)?;
            for m in batch {
                match m {
                    Mutation::Put { key, value } => {
                        table.insert(key.as_slice(), value.as_slice())?;
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

    fn scan(&self, range: &KeyRange, direction: Direction) -> Result<RedbRows, redb::Error> {
        let empty = range.end().is_some_and(|end| end <= range.start());
        let txn = self.db.begin_read()?;
        let table = match txn.open_table(ROWS) {
            Ok(table) => table,
            Err(redb::TableError::TableDoesNotExist(_)) => {
                return Ok(RedbRows {
                    range: None,
                    direction,
                })
            }
            Err(e) => return Err(e.into()),
        };
        if empty {
            return Ok(RedbRows {
                range: None,
                direction,
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
        })
    }
}

/// The rows of a [`RedbStore`] scan. Keeps its read snapshot alive until dropped.
pub struct RedbRows {
    range: Option<redb::Range<'static, &'static [u8], &'static [u8]>>,
    direction: Direction,
}

impl std::fmt::Debug for RedbRows {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedbRows")
            .field("direction", &self.direction)
            .finish_non_exhaustive()
    }
}

impl Iterator for RedbRows {
    type Item = Result<Row, redb::Error>;

    fn next(&mut self) -> Option<Self::Item> {
        let range = self.range.as_mut()?;
        let item = match self.direction {
            Direction::Forward => range.next(),
            Direction::Reverse => range.next_back(),
        }?;
        Some(
            item.map(|(k, v)| (k.value().to_vec(), v.value().to_vec()))
                .map_err(redb::Error::from),
        )
    }
}
