use keyschema::RowKey;

#[derive(RowKey)]
#[rowkey(then = (tenant), (invoice_id), rev(created_at))]
struct Line {
    tenant: String,
    invoice_id: String,
    created_at: u64,
}

fn main() {}
