//! `MAX_NESTING`: a value field's value nests at most 128 levels of arrays
//! and maps. A deeper one is refused when written (nothing stored) and
//! when read (another program's row), before it is recursed into: read on
//! a 2 MiB thread stack (a tokio worker's), a row 500 levels deep is an
//! error, never a stack overflow that aborts the process.

use keyschema::store::{MemoryStore, RecordStore, Store};
use keyschema::{RowKey, MAX_NESTING};
use serde_json::{json, Value};

#[derive(RowKey, Debug, Clone, PartialEq, Default)]
#[rowkey(prefix = "d", then = id)]
struct Doc {
    id: u32,
    #[rowkey(value)]
    body: Value,
}

/// `levels` arrays, one inside the other, around `1`.
fn nested(levels: usize) -> Value {
    (0..levels).fold(json!(1), |v, _| json!([v]))
}

/// Runs `f` on a thread with a 2 MiB stack, as a tokio worker has.
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .expect("a thread")
        .join()
        .expect("no panic")
}

#[test]
fn a_value_of_max_nesting_levels_round_trips() {
    let got = on_small_stack(|| {
        let store = MemoryStore::new();
        let row = Doc {
            id: 1,
            body: nested(MAX_NESTING),
        };
        store.put_record(&row).expect("written");
        store.get_record::<Doc>(&row.encode()).expect("read")
    });
    assert_eq!(got.map(|d| d.body), Some(nested(MAX_NESTING)));
}

/// `levels` arrays, the innermost empty: `levels` levels too.
fn nested_empty(levels: usize) -> Value {
    (1..levels).fold(json!([]), |v, _| json!([v]))
}

#[test]
fn the_limit_counts_arrays_and_maps_however_the_innermost_ends() {
    let store = MemoryStore::new();
    let row = |id, body| Doc { id, body };
    store
        .put_record(&row(1, nested_empty(MAX_NESTING)))
        .expect("128 levels are written");
    assert_eq!(
        store.get_record::<Doc>(&Doc::get_key(1)).expect("read"),
        Some(row(1, nested_empty(MAX_NESTING)))
    );
    let err = store
        .put_record(&row(2, nested_empty(MAX_NESTING + 1)))
        .expect_err("129 levels are refused")
        .to_string();
    assert!(err.contains("nests deeper than 128 levels"), "{err}");
    // Stored by another program: refused when read.
    let mut value = vec![0x81, 0xa4];
    value.extend(b"body");
    value.extend(std::iter::repeat_n(0x91, MAX_NESTING));
    value.push(0x90);
    store.put(&Doc::get_key(3), &value).expect("a raw put");
    let err = store
        .get_record::<Doc>(&Doc::get_key(3))
        .expect_err("refused")
        .to_string();
    assert!(err.contains("nested deeper than 128 levels"), "{err}");
}

#[test]
fn a_deeper_value_is_refused_when_written_and_nothing_is_stored() {
    let store = MemoryStore::new();
    let row = Doc {
        id: 1,
        body: nested(MAX_NESTING + 1),
    };
    let err = store.put_record(&row).expect_err("refused").to_string();
    assert!(
        err.contains("value field `body`")
            && err.contains("nests deeper than 128 levels of lists and maps"),
        "{err}"
    );
    assert_eq!(store.get_record::<Doc>(&row.encode()).expect("read"), None);
}

#[test]
fn another_programs_deep_row_is_an_error_not_a_stack_overflow() {
    for levels in [MAX_NESTING + 1, 500, 5000] {
        let err = on_small_stack(move || {
            let store = MemoryStore::new();
            let key = Doc::get_key(7);
            let mut value = vec![0x81, 0xa4];
            value.extend(b"body");
            value.extend(std::iter::repeat_n(0x91, levels));
            value.push(0x01);
            store.put(&key, &value).expect("a raw put");
            let typed = store
                .get_record::<Doc>(&key)
                .expect_err("refused")
                .to_string();
            let rendered = keyschema::record::render_values(&value, Doc::schema().values())
                .expect_err("refused")
                .to_string();
            (typed, rendered)
        });
        for said in [&err.0, &err.1] {
            assert!(
                said.contains("nested deeper than 128 levels"),
                "{levels}: {said}"
            );
        }
    }
}
