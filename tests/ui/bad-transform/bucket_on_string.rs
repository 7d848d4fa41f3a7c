use keyschema::RowKey;

#[derive(RowKey)]
#[rowkey(then = bucket(name, 10), name)]
struct Tag {
    name: String,
}

fn main() {}
