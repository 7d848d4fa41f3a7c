use keyschema::RowKey;

// Not a family name, the raw values' family, and a family without fields.
#[derive(RowKey)]
#[rowkey(then = id, family = "my family")]
struct Spaces {
    id: u64,
    #[rowkey(value)]
    amount: i64,
}

#[derive(RowKey)]
#[rowkey(then = id, family = "v")]
struct RawFamily {
    id: u64,
    #[rowkey(value)]
    amount: i64,
}

#[derive(RowKey)]
#[rowkey(then = id, family = "ledger")]
struct NoValues {
    id: u64,
}

fn main() {}
