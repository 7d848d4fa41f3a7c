use keyschema::RowKey;

/// Neither serde's traits nor Default.
#[derive(Debug)]
struct Opaque(u8);

#[derive(RowKey)]
#[rowkey(then = id)]
struct Row {
    id: u64,
    #[rowkey(value)]
    blob: Opaque,
}

fn main() {}
