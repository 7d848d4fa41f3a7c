use keyschema::{Projection, RowKey};

#[derive(RowKey)]
#[rowkey(then = (invoice_id), line_no)]
struct Line {
    invoice_id: String,
    line_no: u16,
    #[rowkey(value)]
    memo: String,
}

// `line_no` is in the key, and `total` is no field of `Line` at all.
#[derive(Projection)]
#[projection(of = Line)]
struct Wrong {
    #[projection(value)]
    line_no: u16,
    #[projection(value)]
    total: i64,
}

fn main() {}
