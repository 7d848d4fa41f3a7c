use keyschema::RowKey;

#[derive(RowKey)]
#[rowkey(salt = hash(user_id) % 8, then = user_id, rev(timestamp))]
#[rowkey_was(salt = none, until = timestmp >= 1_700_000_000)]
struct Event {
    user_id: String,
    timestamp: u64,
}

fn main() {}
