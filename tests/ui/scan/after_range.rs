use keyschema::RowKey;

#[derive(RowKey)]
#[rowkey(salt = hash(user_id, site) % 8, then = user_id, site, rev(timestamp))]
struct Event {
    user_id: String,
    site: String,
    timestamp: u64,
}

fn main() {
    // A range ends the scan: nothing can be bound after it.
    let _ = Event::scan().user_id("a".."m").site("s");
}
