//! A planned write on a store without transactions: the mutations a plan
//! adds to a batch, staged so that the batch's own earlier writes count and
//! a key the batch puts back is not deleted, then cut into the three steps
//! that never leave a row without its index entries.

use super::{Mutation, Plan};
use std::collections::{BTreeMap, HashMap};

/// What a plan adds to a batch, in the order they are written: the puts
/// before the batch, the deletes after it.
pub(crate) struct Steps {
    pub(crate) puts: Vec<Mutation>,
    pub(crate) deletes: Vec<Mutation>,
}

/// The mutations `plan` adds to `batch`, each mutation's plan given the
/// value its key holds just before it: the batch's own earlier write of
/// the key, else what `stored` reads. The last write of an added key wins.
pub(crate) fn steps<E>(
    batch: &[Mutation],
    mut stored: impl FnMut(&[u8]) -> Result<Option<Vec<u8>>, E>,
    plan: &mut Plan,
) -> Result<Steps, E> {
    let mut rows: HashMap<&[u8], Option<&[u8]>> = HashMap::new();
    let mut added: BTreeMap<Vec<u8>, Mutation> = BTreeMap::new();
    for (i, m) in batch.iter().enumerate() {
        let old = match rows.get(m.key()) {
            Some(staged) => staged.map(<[u8]>::to_vec),
            None => stored(m.key())?,
        };
        for extra in plan(i, old.as_deref()) {
            added.insert(extra.key().to_vec(), extra);
        }
        let now = match m {
            Mutation::Put { value, .. } => Some(value.as_slice()),
            Mutation::Delete { .. } => None,
        };
        rows.insert(m.key(), now);
    }
    let (puts, deletes) = added
        .into_values()
        .partition(|m| matches!(m, Mutation::Put { .. }));
    Ok(Steps { puts, deletes })
}
