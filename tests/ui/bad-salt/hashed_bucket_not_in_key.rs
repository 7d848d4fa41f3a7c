use keyschema::RowKey;

#[derive(RowKey)]
#[rowkey(salt = hash(hotel_id, bucket(day, 7)) % 8, then = hotel_id, bucket(day, 30), day)]
struct Availability {
    hotel_id: String,
    day: u32,
}

fn main() {}
