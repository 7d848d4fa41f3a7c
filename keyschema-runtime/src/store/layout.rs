//! Where a key type with a layout history (`#[rowkey_was]`) keeps a row in
//! each [`Phase`]: the keys a write goes to, the key a get reads, and the
//! refusal of older keys that would read as another row; the batches of
//! phase-aware writes and the phase-aware gets.

use crate::history::{Cut, LayoutError, Phase};
use crate::key::RowKey;
use crate::store::{
    delete_batch, replace_batch, AsyncStore, BoxFuture, Mutation, RowError, Store, TypedGet,
    TypedRow,
};

/// The key of `row` in one layout: the declared one, or the older.
pub(crate) fn key_in<K: RowKey>(row: &K, older: bool) -> Vec<u8> {
    match (older, row.encode_older()) {
        (true, Some(key)) => key,
        _ => row.encode(),
    }
}

/// Whether an older-layout key also reads as another row of the declared
/// layout (the headers differ in length). Such a key is left to the
/// declared layout: every read takes a key that reads in both as the
/// declared layout's (a backfilled copy of a row before the cut-over reads
/// as an older row of another id), so an older row must never have one.
pub(crate) fn misread<K: RowKey>(older_key: &[u8]) -> bool {
    K::history().is_some_and(|history| {
        !history.same_components(K::schema()) && K::decode(older_key).is_ok()
    })
}

/// Refuses a phase `K`'s cut-over does not have (a key type without a
/// history has every phase).
pub(crate) fn check_phase<K: RowKey>(phase: Phase) -> Result<(), LayoutError> {
    match K::history() {
        Some(history) => history.check_phase(K::schema().name(), phase),
        None => Ok(()),
    }
}

/// The keys a write of `row` goes to in `phase` (one the cut-over has),
/// each with whether it is the older layout's; refused when a key would
/// be ambiguous.
fn write_keys<K: RowKey>(phase: Phase, row: &K) -> Result<Vec<(Vec<u8>, bool)>, LayoutError> {
    let Some(history) = K::history() else {
        return Ok(vec![(row.encode(), false)]);
    };
    let layouts = history.writes(phase, row.past_cut_over());
    let mut keys = Vec::with_capacity(2);
    for (wanted, older) in [(layouts.older, true), (layouts.declared, false)] {
        if wanted {
            let key = key_in(row, older);
            if older && misread::<K>(&key) {
                return Err(LayoutError::Ambiguous {
                    schema: K::schema().name(),
                    phase,
                    other: K::schema().render(&key),
                    older: key,
                    declared: row.encode(),
                });
            }
            if !keys.iter().any(|(k, _)| *k == key) {
                keys.push((key, older));
            }
        }
    }
    Ok(keys)
}

/// The keys a delete of `row` removes, in every phase: both layouts'
/// (the older key unless it would read as another row of the declared
/// layout). A row the older binary wrote, or a copy the backfill made, is
/// then never left to come back.
fn delete_keys<K: RowKey>(row: &K) -> Vec<(Vec<u8>, bool)> {
    let declared = row.encode();
    let mut keys = Vec::with_capacity(2);
    if let Some(older) = row.encode_older() {
        if older != declared && !misread::<K>(&older) {
            keys.push((older, true));
        }
    }
    keys.push((declared, false));
    keys
}

/// The key a get of `row` reads in `phase`, and whether it is the older
/// layout's: in `Split`, the layout of the row's side of the cut-over; in
/// `Old` and `Dual`, the older layout (complete); in `New`, the declared.
pub(crate) fn read_key<K: RowKey>(phase: Phase, row: &K) -> (Vec<u8>, bool) {
    let older = reads_older::<K>(phase, row.past_cut_over());
    (key_in(row, older), older)
}

/// Whether a get in `phase` reads the older layout, for a row on the
/// `past` side of the cut-over.
pub(crate) fn reads_older<K: RowKey>(phase: Phase, past: bool) -> bool {
    match (K::history(), phase) {
        (None, _) | (_, Phase::New) => false,
        (Some(_), Phase::Old | Phase::Dual) => true,
        (Some(_), Phase::Split) => !past,
    }
}

/// The key to read next when a get in `phase` found nothing at `key`: in
/// `Split`, a row past the cut-over that the older binary wrote in the
/// older layout (a rolling deploy writes such rows; the backfill moves
/// them). `None` when there is no such place, or when the older key would
/// read as another row of the declared layout.
pub(crate) fn stranded_key<K: RowKey>(phase: Phase, key: &[u8], older: bool) -> Option<Vec<u8>> {
    let history = K::history()?;
    if older || phase != Phase::Split || !matches!(history.cut(), Cut::Field { .. }) {
        return None;
    }
    let old = K::decode(key).ok()?.encode_older()?;
    (!misread::<K>(&old)).then_some(old)
}

/// A key read from one layout of `K`, decoded in it, with its value.
pub(crate) fn decode_in<K: RowKey, E>(
    key: Vec<u8>,
    value: Vec<u8>,
    older: bool,
) -> Result<Option<(K, Vec<u8>)>, RowError<E>> {
    let row = if older {
        K::decode_older(&key)
    } else {
        K::decode(&key)
    };
    row.map(|row| Some((row, value)))
        .map_err(|source| RowError::Decode { key, source })
}

/// What a phase-aware write does with each of a row's keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Write {
    /// Sets the key (with a random salt: inserts in a fresh bucket).
    Put,
    /// Sets the key and removes the row from its other buckets.
    Replace,
    /// Removes the row from every bucket.
    Delete,
}

/// The batch of a phase-aware write: for each row, each key `phase` writes
/// it to (both layouts in `Dual`), refusing ambiguous keys; a delete goes
/// to both layouts in every phase. Refused, before any row, in a phase the
/// cut-over does not have.
pub(crate) fn phased_batch<'r, K: RowKey + 'r, V: AsRef<[u8]> + 'r, E>(
    phase: Phase,
    rows: impl IntoIterator<Item = (&'r K, V)>,
    write: Write,
) -> Result<Vec<Mutation>, RowError<E>> {
    check_phase::<K>(phase)?;
    let mut batch = Vec::new();
    for (row, value) in rows {
        let keys = match write {
            Write::Delete => delete_keys(row),
            _ => write_keys(phase, row)?,
        };
        for (key, _) in keys {
            match write {
                Write::Put => batch.push(Mutation::Put {
                    key,
                    value: value.as_ref().to_vec(),
                }),
                Write::Replace => batch.extend(replace_batch::<K>(&key, value.as_ref())),
                Write::Delete => batch.extend(delete_batch::<K>(&key)),
            }
        }
    }
    Ok(batch)
}

/// The row at `key` (of the older layout when `older`), decoded in its
/// layout; in `Split`, a stranded row's older key when `key` is empty (see
/// [`stranded_key`]).
pub(crate) fn get_in<K: RowKey, S: Store + ?Sized>(
    store: &S,
    phase: Phase,
    key: Vec<u8>,
    older: bool,
) -> Result<Option<TypedRow<K>>, RowError<S::Error>> {
    check_phase::<K>(phase)?;
    if let Some(value) = store.get(&key).map_err(RowError::Store)? {
        return decode_in(key, value, older);
    }
    let Some(old) = stranded_key::<K>(phase, &key, older) else {
        return Ok(None);
    };
    match store.get(&old).map_err(RowError::Store)? {
        Some(value) => decode_in(old, value, true),
        None => Ok(None),
    }
}

/// The async [`get_in`].
pub(crate) fn get_in_async<K: RowKey, S: AsyncStore + ?Sized>(
    store: &S,
    phase: Phase,
    key: Vec<u8>,
    older: bool,
) -> BoxFuture<'_, TypedGet<K, S::Error>> {
    let refused = store
        .check_key_type(K::schema())
        .map_err(RowError::Store)
        .and_then(|()| check_phase::<K>(phase).map_err(RowError::Layout))
        .err();
    let stranded = stranded_key::<K>(phase, &key, older);
    let mut keys = vec![key.clone()];
    keys.extend(stranded.clone());
    let get = store.get_many_for(K::schema(), keys);
    Box::pin(async move {
        if let Some(e) = refused {
            return Err(e);
        }
        let found = get.await.map_err(RowError::Store)?;
        // The declared key first; the stranded older key only without it.
        let mut declared = None;
        let mut old = None;
        for (k, value) in found {
            if k == key {
                declared = Some(value);
            } else if Some(&k) == stranded.as_ref() {
                old = Some(value);
            }
        }
        match (declared, old, stranded) {
            (Some(value), _, _) => decode_in(key, value, older),
            (None, Some(value), Some(old_key)) => decode_in(old_key, value, true),
            _ => Ok(None),
        }
    })
}
