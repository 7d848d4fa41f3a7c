use keyschema::RowKey;

#[derive(RowKey)]
#[rowkey(then = user_id, desc(timestamp))]
struct Event {
    user_id: String,
    timestamp: u64,
}

fn main() {}
