use keyschema::{Projection, RowKey};

#[derive(RowKey)]
#[rowkey(then = (invoice_id), line_no)]
struct Line {
    invoice_id: String,
    line_no: u16,
    #[rowkey(value)]
    amount: i64,
}

// A projection's field has the type of the key type's field.
#[derive(Projection)]
#[projection(of = Line)]
struct Amount {
    line_no: u32,
    #[projection(value)]
    amount: i32,
}

fn main() {}
