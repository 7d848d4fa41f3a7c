use keyschema::RowKey;

#[derive(RowKey)]
#[rowkey(salt = hash(id) % 8, then = reverse(id), seq)]
#[rowkey_was(salt = none, until = id >= 1000)]
struct Order {
    id: u64,
    seq: u32,
}

fn main() {}
