//! Typed writes of a row type with indexes: each row's entries put and its
//! old ones removed with it (see [`crate::index`]), in one transaction on
//! a store that has them, in three ordered steps on one that has not.

use super::planned::steps;
use super::{AsyncStore, Mutation, Store};
use crate::key::RowKey;
use crate::schema::Schema;
use std::collections::HashMap;

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
    store.write_batch_planned(batch, &mut |i, old| entry_changes(schema, batch, i, old))
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
/// entries' deletes). Without indexes, the rows alone.
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
    let steps = steps(
        &batch,
        |key| Ok::<_, S::Error>(old.get(key).cloned()),
        &mut |i, old| entry_changes(schema, &batch, i, old),
    )?;
    if !steps.puts.is_empty() {
        store.write(steps.puts).await?;
    }
    store.write_for(schema, batch).await?;
    if !steps.deletes.is_empty() {
        store.write(steps.deletes).await?;
    }
    Ok(())
}
