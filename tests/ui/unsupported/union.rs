use keyschema::RowKey;

#[derive(RowKey)]
#[rowkey(then = a)]
union Event {
    a: u32,
    b: f32,
}

fn main() {}
