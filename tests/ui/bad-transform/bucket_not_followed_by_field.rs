use keyschema::RowKey;

#[derive(RowKey)]
#[rowkey(then = hotel_id, bucket(day, 30), room, day)]
struct Availability {
    hotel_id: String,
    day: u32,
    room: u16,
}

fn main() {}
