use keyschema::RowKey;

// Unsalted to salted with nothing to tell the layouts apart: refused.
#[derive(RowKey)]
#[rowkey(salt = hash(id) % 8, then = id, name)]
#[rowkey_was(salt = none, until = migration)]
struct Thing {
    id: String,
    name: String,
}

fn main() {}
