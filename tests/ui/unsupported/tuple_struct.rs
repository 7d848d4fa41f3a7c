use keyschema::RowKey;

#[derive(RowKey)]
#[rowkey(then = user_id)]
struct Event(String, u64);

fn main() {}
