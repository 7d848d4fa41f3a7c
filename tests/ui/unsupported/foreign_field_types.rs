use keyschema::RowKey;

// Stand-ins for `chrono::DateTime<Utc>` and `uuid::Uuid`: types the user's
// crate cannot implement `KeyComponent` for.
mod chrono {
    pub struct DateTime<Tz>(pub Tz);
    pub struct Utc;
}

struct Uuid([u8; 16]);

// Two fields of unsupported types: one error each, at the field.
#[derive(RowKey)]
#[rowkey(then = at, id, n)]
struct Event {
    at: chrono::DateTime<chrono::Utc>,
    id: Uuid,
    n: u32,
}

fn main() {}
