use keyschema::RowKey;

#[derive(RowKey)]
#[rowkey(then = id)]
struct Event<T> {
    id: T,
}

fn main() {}
