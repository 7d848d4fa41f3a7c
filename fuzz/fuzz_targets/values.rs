//! The value decoders on arbitrary bytes: a stored value (the ordered
//! stores' MessagePack map, a Bigtable cell map, or neither) read as the
//! value fields of a whole row and of a projection. Every input is a value
//! or a `ValueError`, never a panic; a value that reads writes back to a
//! map that reads as the same row.
#![no_main]

use keyschema::record::{cells, decode_projection, decode_values, encode_values};
use keyschema::{Projection, RowKey};
use libfuzzer_sys::fuzz_target;

#[allow(dead_code, unused_imports)]
#[path = "../../examples/events.rs"]
mod events;

use events::Event;

/// The action alone.
#[derive(Projection, Debug)]
#[projection(of = Event)]
struct Action {
    user_id: String,
    #[projection(value)]
    action: String,
}

fn key() -> Event {
    Event::decode(&Event::get_key("u1", "s", 7)).expect("a key")
}

fuzz_target!(|data: &[u8]| {
    let mut row = key();
    if decode_values(&mut row, data).is_ok() {
        let value = encode_values(&row).expect("a row that read writes back");
        let mut again = key();
        decode_values(&mut again, &value).expect("what was written reads");
        assert_eq!(again, row);
        // Its cells read as the same row.
        let cells = cells::cells_of(&value, Event::schema().values()).expect("cells");
        let map = cells::cell_map(cells.iter().map(|(q, v)| (&q[..], &v[..])));
        let mut from_cells = key();
        decode_values(&mut from_cells, &map).expect("the cells read");
        assert_eq!(from_cells, row);
    }
    let mut action = Action::from_key(key());
    if decode_projection(&mut action, data).is_ok() {
        // The key fields come from the key, whatever the value holds.
        assert_eq!(action.user_id, "u1");
        if decode_values(&mut key(), data).is_ok() {
            assert_eq!(action.action, row.action);
        }
    }
    let _ = cells::cells_of(data, Event::schema().values());
    let _ = cells::read_cell_map(data);
});
