use keyschema::RowKey;

#[derive(RowKey)]
#[rowkey(then = user_id, payload)]
struct Event {
    user_id: String,
    #[rowkey(skip)]
    payload: Vec<u8>,
}

fn main() {}
