use keyschema::RowKey;

#[derive(RowKey)]
#[rowkey(salt = hash(user_id, user_id) % 8, then = user_id, timestamp)]
struct Event {
    user_id: String,
    timestamp: u64,
}

fn main() {}
