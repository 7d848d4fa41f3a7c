use keyschema::RowKey;

// A random salt on the index, and on the row; a layout history.
#[derive(RowKey)]
#[rowkey(salt = hash(id) % 4, then = id, index(ByName, prefix = "n", salt = random % 4, then = name, id))]
struct RandomIndex {
    id: u64,
    #[rowkey(value)]
    name: String,
}

#[derive(RowKey)]
#[rowkey(salt = random % 4, then = id, index(ByName2, prefix = "n", then = name, id))]
struct RandomRow {
    id: u64,
    #[rowkey(value)]
    name: String,
}

#[derive(RowKey)]
#[rowkey(salt = hash(id) % 4, then = id, index(ByName3, prefix = "n", then = name, id))]
#[rowkey_was(salt = hash(id) % 2, until = migration)]
struct WithHistory {
    id: u64,
    #[rowkey(value)]
    name: String,
}

// The index layout follows every key rule: a bad transform; family on an
// index.
#[derive(RowKey)]
#[rowkey(
    salt = hash(id) % 4,
    then = id,
    index(ByRev, prefix = "r", then = backwards(name), id),
    index(ByFamily, prefix = "f", family = "g", then = name, id),
)]
struct Rules {
    id: u64,
    #[rowkey(value)]
    name: String,
}

fn main() {}
