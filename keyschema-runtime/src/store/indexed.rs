//! Typed writes of a row type with indexes: each row's entries put and its
//! old ones removed with it (see [`crate::index`]), in one transaction on
//! a store that has them, in three ordered steps on one that has not, then
//! a check that puts back each entry it put or deleted which its row has now.
//!
//! The check is what keeps concurrent writers of one row from losing an
//! entry on a store without transactions. Writer B deletes the entries of
//! the version it read; writer A, meanwhile, may have put one of them
//! again for its own version, and A's row may land after B's. So after its
//! deletes each writer reads its rows again and puts back every entry it
//! deleted or put that the row has now. Take the row's last version and
//! the last delete of one of its entries: the deleter's read comes after
//! that delete, and either sees the last version (and puts the entry
//! back), or comes before it lands, and then the last writer's own read
//! comes after both (and puts it back). An entry put back is at worst
//! stale later, which reads skip.

use super::planned::steps;
use super::{AsyncStore, Mutation, Store};
use crate::key::RowKey;
use crate::schema::Schema;
use std::collections::{BTreeSet, HashMap, HashSet};

/// The entries a write put or deleted, and the rows whose entries they
/// were: what the check after the write reads again and puts back.
#[derive(Default)]
struct Touched {
    rows: BTreeSet<Vec<u8>>,
    entries: HashSet<Vec<u8>>,
}

impl Touched {
    /// Notes `changes`, the plan of `batch[i]`.
    fn note(&mut self, batch: &[Mutation], i: usize, changes: Vec<Mutation>) -> Vec<Mutation> {
        if let (false, Some(row)) = (changes.is_empty(), batch.get(i)) {
            self.rows.insert(row.key().to_vec());
            self.entries
                .extend(changes.iter().map(|change| change.key().to_vec()));
        }
        changes
    }

    /// The puts of the touched entries that `rows` (read after the
    /// deletes) have now.
    fn restore<'a>(
        &self,
        schema: &Schema,
        rows: impl Iterator<Item = (&'a [u8], &'a [u8])>,
    ) -> Vec<Mutation> {
        let mut puts = Vec::new();
        for (key, value) in rows {
            for entry in schema.stored_entries(key, value) {
                if self.entries.contains(&entry) {
                    puts.push(Mutation::Put {
                        key: entry,
                        value: Vec::new(),
                    });
                }
            }
        }
        puts
    }
}

/// Writes `batch` (puts and deletes of `K`'s rows) with the entries of
/// `K`'s indexes: each put's entries put, each row's old entries that it
/// no longer has deleted, as one planned write (one transaction where the
/// store has them). Without indexes, the batch alone.
pub(crate) fn write_rows<K: RowKey, S: Store + ?Sized>(
    store: &S,
    batch: &[Mutation],
) -> Result<(), S::Error> {
    let schema = K::schema();
    if !schema.has_indexes() {
        return store.write_batch(batch);
    }
    if store.planned_writes_are_atomic() {
        return store
            .write_batch_planned(batch, &mut |i, old| entry_changes(schema, batch, i, old));
    }
    let mut touched = Touched::default();
    store.write_batch_planned(batch, &mut |i, old| {
        touched.note(batch, i, entry_changes(schema, batch, i, old))
    })?;
    if touched.rows.is_empty() {
        return Ok(());
    }
    // The check (see the module): the changed rows read again.
    let keys: Vec<Vec<u8>> = std::mem::take(&mut touched.rows).into_iter().collect();
    let now = store.get_many(&keys)?;
    let rows = keys
        .iter()
        .zip(&now)
        .filter_map(|(key, value)| Some((key.as_slice(), value.as_deref()?)));
    let puts = touched.restore(schema, rows);
    if puts.is_empty() {
        return Ok(());
    }
    store.write_batch(&puts)
}

/// The entry puts and deletes that keep `schema`'s indexes in step with
/// `batch[i]`, given the value its key held before it.
fn entry_changes(
    schema: &'static Schema,
    batch: &[Mutation],
    i: usize,
    old: Option<&[u8]>,
) -> Vec<Mutation> {
    let Some(m) = batch.get(i) else {
        return Vec::new();
    };
    let new = match m {
        Mutation::Put { key, value } => schema.stored_entries(key, value),
        Mutation::Delete { .. } => Vec::new(),
    };
    let gone = old.map_or_else(Vec::new, |old| schema.stored_entries(m.key(), old));
    let mut out: Vec<Mutation> = gone
        .into_iter()
        .filter(|k| !new.contains(k))
        .map(|key| Mutation::Delete { key })
        .collect();
    out.extend(new.into_iter().map(|key| Mutation::Put {
        key,
        value: Vec::new(),
    }));
    out
}

/// The typed write of `batch` on an async store, keeping `schema`'s
/// indexes: the rows' old values read in one request, then the three steps
/// of a store without transactions (the new entries, the rows, the old
/// entries' deletes), then the check of the changed rows (see the module).
/// Without indexes, the rows alone.
pub(crate) async fn write_rows_async<S: AsyncStore + ?Sized>(
    store: &S,
    schema: &'static Schema,
    batch: Vec<Mutation>,
) -> Result<(), S::Error> {
    if !schema.has_indexes() || store.keeps_indexes() {
        return store.write_for(schema, batch).await;
    }
    let mut keys: Vec<Vec<u8>> = batch.iter().map(|m| m.key().to_vec()).collect();
    keys.sort();
    keys.dedup();
    let old: HashMap<Vec<u8>, Vec<u8>> = store
        .get_many_for(schema, keys)
        .await?
        .into_iter()
        .collect();
    let mut touched = Touched::default();
    let steps = steps(
        &batch,
        |key| Ok::<_, S::Error>(old.get(key).cloned()),
        &mut |i, old| touched.note(&batch, i, entry_changes(schema, &batch, i, old)),
    )?;
    if !steps.puts.is_empty() {
        store.write(steps.puts).await?;
    }
    store.write_for(schema, batch).await?;
    if !steps.deletes.is_empty() {
        store.write(steps.deletes).await?;
    }
    if touched.rows.is_empty() {
        return Ok(());
    }
    let now = store
        .get_many_for(
            schema,
            std::mem::take(&mut touched.rows).into_iter().collect(),
        )
        .await?;
    let puts = touched.restore(
        schema,
        now.iter().map(|(k, v)| (k.as_slice(), v.as_slice())),
    );
    if !puts.is_empty() {
        store.write(puts).await?;
    }
    Ok(())
}
