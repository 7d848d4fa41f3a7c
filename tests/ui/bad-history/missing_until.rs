use keyschema::RowKey;

#[derive(RowKey)]
#[rowkey(salt = hash(user_id) % 32, then = user_id, rev(timestamp))]
#[rowkey_was(salt = hash(user_id) % 8)]
struct Event {
    user_id: String,
    timestamp: u64,
}

fn main() {}
