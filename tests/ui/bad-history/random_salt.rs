use keyschema::RowKey;

#[derive(RowKey)]
#[rowkey(salt = random % 10, then = (invoice_id), created_at)]
#[rowkey_was(salt = none, until = created_at >= 1_700_000_000)]
struct Line {
    invoice_id: String,
    created_at: u64,
}

fn main() {}
