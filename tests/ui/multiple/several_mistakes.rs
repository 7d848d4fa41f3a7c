use keyschema::RowKey;

// Five mistakes, all reported by one compile.
#[derive(RowKey)]
#[rowkey(salt = hash(user_id, region) % 0, then = user_id, sight, shuffle(timestamp))]
struct Event {
    user_id: String,
    site: String,
    timestamp: u64,
}

fn main() {}
