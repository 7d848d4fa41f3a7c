use keyschema::RowKey;

#[derive(RowKey)]
#[rowkey(then = reverse(user_id), ts)]
struct Event {
    user_id: String,
    ts: u64,
}

fn main() {}
