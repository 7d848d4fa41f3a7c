use keyschema::RowKey;

#[derive(RowKey)]
#[rowkey(format = text(sep = "#"), then = rev(name), ts)]
struct Tag {
    name: String,
    ts: u64,
}

fn main() {}
