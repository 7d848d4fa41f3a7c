use keyschema::KeyComponent;

// Both variants with fields are reported, each at its fields.
#[derive(KeyComponent)]
enum Payment {
    Pending,
    Paid(u64),
    Refunded { amount: u64 },
}

fn main() {}
