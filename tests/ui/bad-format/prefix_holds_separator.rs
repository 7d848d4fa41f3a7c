use keyschema::RowKey;

// "ev#x" would begin the keys of prefix "ev" with a first field "x".
#[derive(RowKey)]
#[rowkey(format = text(sep = "#"), prefix = "ev#x", then = name)]
struct Tag {
    name: String,
}

fn main() {}
