use keyschema::KeyComponent;

#[derive(KeyComponent)]
struct Id<T>(T);

fn main() {}
