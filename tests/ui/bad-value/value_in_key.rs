use keyschema::RowKey;

#[derive(RowKey)]
#[rowkey(then = id, amount)]
struct Row {
    id: u64,
    #[rowkey(value)]
    amount: i64,
}

fn main() {}
