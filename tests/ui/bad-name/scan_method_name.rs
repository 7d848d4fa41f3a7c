use keyschema::RowKey;

#[derive(RowKey)]
#[rowkey(then = user_id, limit)]
struct Quota {
    user_id: String,
    limit: u64,
}

fn main() {}
