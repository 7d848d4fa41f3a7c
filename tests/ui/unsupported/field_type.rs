use keyschema::RowKey;

struct Region {
    name: String,
}

#[derive(RowKey)]
#[rowkey(then = user_id, region)]
struct Event {
    user_id: String,
    region: Region,
}

fn main() {}
