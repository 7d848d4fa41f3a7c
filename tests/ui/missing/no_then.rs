use keyschema::RowKey;

#[derive(RowKey)]
#[rowkey(salt = hash(user_id) % 8)]
struct Event {
    user_id: String,
}

fn main() {}
