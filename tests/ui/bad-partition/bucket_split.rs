use keyschema::RowKey;

// The bucket is in the partition, the day it is derived from is not.
#[derive(RowKey)]
#[rowkey(then = (hotel_id, bucket(day, 30)), day, room)]
struct Availability {
    hotel_id: u32,
    day: u32,
    room: u16,
}

fn main() {}
