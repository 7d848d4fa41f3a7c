use keyschema::RowKey;
use std::collections::BTreeMap;

// `Some(None)` and `Some(())` are written as nil, as `None` is: every
// store would read them back as `None`. Key components keep them apart
// (`Option<Option<u8>>` in `then` is fine), and so does a value field
// whose `Option` holds something that is not nil.
#[derive(RowKey)]
#[rowkey(then = id, maybe)]
struct Row {
    id: u64,
    maybe: Option<Option<u8>>,
    #[rowkey(value)]
    patch: Option<Option<String>>,
    #[rowkey(value)]
    seen: Option<()>,
    #[rowkey(value, default)]
    boxed: Option<Box<Option<i64>>>,
    #[rowkey(value)]
    list: Vec<Option<Option<u8>>>,
    #[rowkey(value)]
    flags: BTreeMap<String, Option<()>>,
    #[rowkey(value)]
    fine: Option<Vec<Option<u8>>>,
}

fn main() {}
