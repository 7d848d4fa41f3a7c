use keyschema::RowKey;

#[derive(RowKey)]
#[rowkey(then = user_id, timestamp)]
struct Event {
    user_id: String,
    timestamp: u64,
}

fn main() {
    let _ = Event::scan().user_id(42u64);
}
