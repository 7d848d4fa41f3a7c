use keyschema::RowKey;

#[derive(RowKey)]
#[rowkey(then = user_id, rev(timestamp, 10))]
struct Event {
    user_id: String,
    timestamp: u64,
}

fn main() {}
