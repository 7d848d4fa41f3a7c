use keyschema::RowKey;

// An index over a field the row does not have, a skipped field, and one
// that does not name its row.
#[derive(RowKey)]
#[rowkey(
    salt = hash(user_id) % 8,
    then = user_id, rev(ts),
    index(BySitee, prefix = "s", then = sitee, user_id, ts),
    index(ByNote, prefix = "n", then = note, user_id, ts),
    index(BySite, prefix = "t", then = site, ts),
)]
struct Event {
    user_id: String,
    ts: u64,
    #[rowkey(value)]
    site: String,
    #[rowkey(skip)]
    note: String,
}

// An index named like the row, and one named twice.
#[derive(RowKey)]
#[rowkey(
    salt = hash(id) % 8,
    then = id,
    index(Visit, prefix = "a", then = page, id),
    index(ByPage, prefix = "b", then = page, id),
    index(ByPage, prefix = "c", then = page, id),
)]
struct Visit {
    id: u64,
    #[rowkey(value)]
    page: String,
}

fn main() {}
