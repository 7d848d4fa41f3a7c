use keyschema::RowKey;

#[derive(RowKey)]
#[rowkey(then = user_id)]
enum Event {
    Click { user_id: String },
}

fn main() {}
