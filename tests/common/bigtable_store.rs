//! What the Bigtable store's tests (`tests/bigtable*.rs`) share: a store on
//! a fresh table of the shared emulator, a batch of puts, and a raw scan's
//! keys.
#![cfg(feature = "bigtable")]

use super::schemas::Event;
use super::{emulator, proxy};
use futures_util::StreamExt;
use keyschema::store::bigtable::{BigtableStore, RowStream};
use keyschema::store::Mutation;

/// A store on a fresh table (named from `prefix`) of the shared emulator,
/// created for [`Event`].
pub async fn store(prefix: &str) -> BigtableStore {
    let store = BigtableStore::connect_emulator(
        &emulator::host(),
        "keyschema",
        "test",
        &emulator::fresh_table(prefix),
    )
    .await
    .expect("connect to the emulator");
    store
        .create_table_for::<Event>()
        .await
        .expect("create table");
    store
}

/// One put per key, its value `v:` then the key.
pub fn puts(keys: &[Vec<u8>]) -> Vec<Mutation> {
    keys.iter()
        .map(|k| Mutation::Put {
            key: k.clone(),
            value: [b"v:".as_slice(), k].concat(),
        })
        .collect()
}

/// The keys a raw scan yields, in its order.
pub async fn collect(stream: RowStream) -> Vec<Vec<u8>> {
    stream.map(|r| r.expect("row").0).collect().await
}

/// A proxy's faults: `cuts` connections cut `cut_after` bytes into the
/// server's answer, and new connections refused after a cut if
/// `refuse_after_cut`.
pub fn faults(
    cuts: usize,
    cut_after: usize,
    refuse_after_cut: bool,
) -> std::sync::Arc<proxy::Faults> {
    use std::sync::atomic::Ordering::SeqCst;
    let f = proxy::Faults::default();
    f.cuts.store(cuts, SeqCst);
    f.cut_after.store(cut_after, SeqCst);
    f.refuse_after_cut.store(refuse_after_cut, SeqCst);
    std::sync::Arc::new(f)
}
