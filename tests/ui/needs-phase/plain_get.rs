use keyschema::store::MemoryStore;
use keyschema::RowKey;

// The generated `get` does not say which layout it reads: a key type with a
// layout history reads through `get_in(&store, phase, ..)`.
#[derive(RowKey)]
#[rowkey(salt = hash(id) % 16, then = id, seq)]
#[rowkey_was(salt = hash(id) % 8, until = migration)]
struct Thing {
    id: u64,
    seq: u32,
}

fn main() {
    let store = MemoryStore::new();
    let _ = Thing::get(&store, 1, 2);
}
