use keyschema::RowKey;

#[derive(RowKey)]
#[rowkey(then = line_no, (invoice_id), rev(created_at))]
struct Line {
    invoice_id: String,
    created_at: u64,
    line_no: u16,
}

fn main() {}
