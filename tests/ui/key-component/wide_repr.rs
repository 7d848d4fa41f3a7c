use keyschema::KeyComponent;

// A 128-bit discriminant, and an enum no key could hold.
#[derive(KeyComponent)]
#[repr(u128)]
enum Huge {
    A,
}

#[derive(KeyComponent)]
enum Never {}

fn main() {}
