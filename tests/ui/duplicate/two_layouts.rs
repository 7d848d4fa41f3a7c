use keyschema::RowKey;

// A user declaring the old layout as a second `#[rowkey]`.
#[derive(RowKey)]
#[rowkey(salt = hash(user_id) % 16, then = user_id, ts)]
#[rowkey(salt = hash(user_id) % 8, then = user_id, ts)]
struct Event {
    user_id: String,
    ts: u64,
}

fn main() {}
