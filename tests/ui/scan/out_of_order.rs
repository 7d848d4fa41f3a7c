use keyschema::RowKey;

#[derive(RowKey)]
#[rowkey(salt = hash(user_id, site) % 8, then = user_id, site, rev(timestamp))]
struct Event {
    user_id: String,
    site: String,
    timestamp: u64,
}

fn main() {
    // `site` comes after `user_id` in the key: it cannot be bound first.
    let _ = Event::scan().site("s");
}
