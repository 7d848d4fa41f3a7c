use keyschema::RowKey;

#[derive(RowKey)]
#[rowkey(format = text(sep = "ab"), then = name)]
struct Tag {
    name: String,
}

#[derive(RowKey)]
#[rowkey(format = text(sep = "%"), then = name)]
struct Percent {
    name: String,
}

#[derive(RowKey)]
#[rowkey(format = yaml, then = name)]
struct Yaml {
    name: String,
}

fn main() {}
