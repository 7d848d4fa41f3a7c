use keyschema::RowKey;

#[derive(RowKey)]
#[rowkey(then = user_id, tiemstamp)]
struct Event {
    user_id: String,
    timestamp: u64,
}

fn main() {}
