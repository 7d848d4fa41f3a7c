use keyschema::RowKey;

#[derive(RowKey)]
#[rowkey(then = user_id, timestamp, rev(user_id))]
struct Event {
    user_id: String,
    timestamp: u64,
}

fn main() {}
