use keyschema::RowKey;

// `stream` is a scan method (async scans): a field of that name gets the
// friendly error, not a duplicate definition.
#[derive(RowKey)]
#[rowkey(then = tenant, stream)]
struct Log {
    tenant: String,
    stream: u64,
}

fn main() {}
