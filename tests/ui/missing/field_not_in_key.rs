use keyschema::RowKey;

#[derive(RowKey)]
#[rowkey(then = user_id, timestamp)]
struct Event {
    user_id: String,
    timestamp: u64,
    site: String,
}

fn main() {}
