use keyschema::Projection;

// A projection names the key type whose rows it reads part of.
#[derive(Projection)]
struct Amount {
    line_no: u16,
    #[projection(value, other)]
    amount: i64,
}

fn main() {}
