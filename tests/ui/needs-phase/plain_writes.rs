use keyschema::store::{MemoryStore, RowStore};
use keyschema::RowKey;

// A key type with a layout history keeps a row in one layout or both,
// depending on the phase: the phase-blind writes and reads do not compile.
#[derive(RowKey)]
#[rowkey(salt = hash(id) % 16, then = id, seq)]
#[rowkey_was(salt = hash(id) % 8, until = migration)]
struct Thing {
    id: u64,
    seq: u32,
}

fn main() {
    let store = MemoryStore::new();
    let thing = Thing { id: 1, seq: 2 };
    let _ = store.put_row(&thing, b"v");
    let _ = store.replace_row(&thing, b"v");
    let _ = store.delete_row(&thing);
    let _ = store.put_rows([(&thing, b"v")]);
    let _ = store.get_row::<Thing>(&thing.encode());
}
