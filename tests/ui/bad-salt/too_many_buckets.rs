use keyschema::RowKey;

#[derive(RowKey)]
#[rowkey(salt = hash(user_id) % 65537, then = user_id, timestamp)]
struct Event {
    user_id: String,
    timestamp: u64,
}

fn main() {}
