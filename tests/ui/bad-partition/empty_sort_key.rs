use keyschema::RowKey;

// The only component after the partition is zero bytes wide.
#[derive(RowKey)]
#[rowkey(then = (invoice_id), marker)]
struct Invoice {
    invoice_id: String,
    marker: [u8; 0],
}

fn main() {}
