use keyschema::store::MemoryStore;
use keyschema::RowKey;

// A scan of a key type with a layout history names the phase it reads in;
// one that forgets would read one layout and miss the other's rows.
#[derive(RowKey)]
#[rowkey(salt = hash(user_id) % 8, then = user_id, rev(ts))]
#[rowkey_was(salt = none, until = ts >= 1000)]
struct Visit {
    user_id: String,
    ts: u64,
}

fn main() {
    let store = MemoryStore::new();
    let _ = Visit::scan().user_id("u1").run(&store);
    let _ = Visit::scan().user_id("u1").limit(3).run(&store);
    let _ = Visit::scan().user_id("u1").ts(..500).ranges();
    let _ = Visit::scan().ranges();
}
