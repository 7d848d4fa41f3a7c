use keyschema::RowKey;

#[derive(RowKey)]
#[rowkey(then = (), invoice_id, rev(created_at))]
struct Line {
    invoice_id: String,
    created_at: u64,
}

fn main() {}
