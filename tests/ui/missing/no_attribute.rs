use keyschema::RowKey;

#[derive(RowKey)]
struct Event {
    user_id: String,
}

fn main() {}
