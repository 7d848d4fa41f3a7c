use keyschema::KeyComponent;

#[derive(KeyComponent)]
union Bits {
    int: u32,
    float: f32,
}

fn main() {}
