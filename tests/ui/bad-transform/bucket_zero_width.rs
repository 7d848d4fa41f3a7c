use keyschema::RowKey;

#[derive(RowKey)]
#[rowkey(then = hotel_id, bucket(day, 0), day)]
struct Availability {
    hotel_id: String,
    day: u32,
}

fn main() {}
