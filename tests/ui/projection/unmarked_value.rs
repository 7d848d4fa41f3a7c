use keyschema::{Projection, RowKey};

#[derive(RowKey)]
#[rowkey(then = (invoice_id), line_no)]
struct Line {
    invoice_id: String,
    line_no: u16,
    #[rowkey(value)]
    memo: String,
}

// `memo` is a value field of `Line`: without `#[projection(value)]` it
// would be taken from the key, which does not hold it.
#[derive(Projection)]
#[projection(of = Line)]
struct Memo {
    line_no: u16,
    memo: String,
}

fn main() {}
