use keyschema::RowKey;

// An index field's type must be a key component, reported at the field.
#[derive(RowKey)]
#[rowkey(salt = hash(id) % 4, then = id, index(ByTags, prefix = "t", then = tags, id))]
struct Tagged {
    id: u64,
    #[rowkey(value)]
    tags: std::collections::HashMap<String, String>,
}

fn main() {}
