use keyschema::RowKey;

// Unsalted keys that begin with a small integer: about 1 in 8 of them
// would also read as a salted key of another row.
#[derive(RowKey)]
#[rowkey(salt = hash(id) % 8, then = id, name, ts)]
#[rowkey_was(salt = none, until = ts >= 100)]
struct Account {
    id: u64,
    name: String,
    ts: u64,
}

// A prefix on the declared layout keeps them apart: accepted.
#[derive(RowKey)]
#[rowkey(prefix = "acct", salt = hash(id) % 8, then = id, name, ts)]
#[rowkey_was(prefix = "", salt = none, until = ts >= 100)]
struct Prefixed {
    id: u64,
    name: String,
    ts: u64,
}

fn main() {}
