use keyschema::RowKey;

#[derive(RowKey)]
#[rowkey(salt = hash() % 8, then = user_id, timestamp)]
struct Event {
    user_id: String,
    timestamp: u64,
}

fn main() {}
