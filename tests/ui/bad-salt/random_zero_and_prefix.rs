use keyschema::RowKey;

#[derive(RowKey)]
#[rowkey(salt = random % 0, then = invoice_id)]
struct Shard {
    invoice_id: String,
}

#[derive(RowKey)]
#[rowkey(prefix = 5, then = invoice_id)]
struct Prefixed {
    invoice_id: String,
}

fn main() {}
