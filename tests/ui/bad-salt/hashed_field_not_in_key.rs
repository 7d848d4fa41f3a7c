use keyschema::RowKey;

#[derive(RowKey)]
#[rowkey(salt = hash(user_id, region) % 8, then = user_id, timestamp)]
struct Event {
    user_id: String,
    timestamp: u64,
    #[rowkey(skip)]
    region: String,
}

fn main() {}
