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

// `building` twice; a missing name; the scan builder's name; a salt over a
// field the index does not list.
#[derive(RowKey)]
#[rowkey(
    salt = hash(id) % 8,
    then = id,
    index(ByA, building, building, prefix = "a", then = page, id),
)]
struct Twice {
    id: u64,
    #[rowkey(value)]
    page: String,
}

#[derive(RowKey)]
#[rowkey(salt = hash(id) % 8, then = id, index(prefix = "a", then = page, id))]
struct Nameless {
    id: u64,
    #[rowkey(value)]
    page: String,
}

#[derive(RowKey)]
#[rowkey(
    salt = hash(id) % 8,
    then = id,
    index(ScannedScan, prefix = "a", then = page, id),
    index(ByPage2, prefix = "b", salt = hash(action) % 4, then = page, id),
)]
struct Scanned {
    id: u64,
    #[rowkey(value)]
    page: String,
    #[rowkey(value)]
    action: String,
}

fn main() {}
