use keyschema::RowKey;

#[derive(RowKey)]
#[rowkey(
    salt = hash(user_id, site) % 8,
    then = user_id, site, rev(timestamp),
    index(EventBySite, prefix = "s", salt = hash(site) % 8, then = (site), rev(timestamp), user_id),
)]
struct Event {
    user_id: String,
    site: String,
    timestamp: u64,
}

fn main() {
    // An index scan binds its fields in the index's key order.
    let _ = EventBySite::scan().timestamp(5);
}
