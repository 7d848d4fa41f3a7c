use keyschema::RowKey;

#[derive(RowKey)]
#[rowkey(then = id)]
struct Row {
    id: u64,
    #[rowkey(skip, value)]
    memo: String,
    #[rowkey(default)]
    other: String,
}

fn main() {}
