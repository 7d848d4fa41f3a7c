use keyschema::KeyComponent;

#[derive(KeyComponent)]
struct Pair(String, u32);

#[derive(KeyComponent)]
struct Named {
    tenant: u32,
    name: String,
}

#[derive(KeyComponent)]
struct Unit;

fn main() {}
