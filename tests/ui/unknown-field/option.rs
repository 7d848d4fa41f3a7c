use keyschema::RowKey;

#[derive(RowKey)]
#[rowkey(salts = hash(user_id) % 8, then = user_id)]
struct Event {
    user_id: String,
}

fn main() {}
