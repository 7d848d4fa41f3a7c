//! Hostile input: allocation counts, key length limits, garbage.

mod common;

use common::schemas::Event;
use keyschema::{DecodeError, RowKey, MAX_KEY_LEN};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// Counts allocations made on the current thread.
struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: forwards every call to the system allocator unchanged; the count
// is a thread-local integer that allocation never re-enters.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = ALLOCATIONS.with(Cell::get);
    let out = f();
    (out, ALLOCATIONS.with(Cell::get) - before)
}

#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = hash(*) % 1000, then = tenant, id, rev(at))]
struct Numeric {
    tenant: u32,
    id: u64,
    at: i64,
}

#[test]
fn encode_into_a_buffer_with_room_allocates_nothing() {
    let e = Event {
        user_id: "user-42".into(),
        site: "example.com".into(),
        timestamp: 1_700_000_000,
    };
    let mut buf = Vec::with_capacity(256);
    let ((), n) = allocations(|| {
        for _ in 0..1000 {
            buf.clear();
            e.encode_into(&mut buf);
        }
    });
    assert_eq!(n, 0, "encode_into allocated {n} times in 1,000 calls");
    let ((), n) = allocations(|| {
        buf.clear();
        Event::get_key_into(&mut buf, "user-42", "example.com", 1_700_000_000);
    });
    assert_eq!(n, 0);
}

#[test]
fn decode_allocates_only_for_owned_strings() {
    let key = Event {
        user_id: "user-42".into(),
        site: "example.com".into(),
        timestamp: 7,
    }
    .encode();
    let (decoded, n) = allocations(|| Event::decode(&key));
    assert!(decoded.is_ok());
    assert_eq!(n, 2, "one allocation per String field");
    let key = Numeric {
        tenant: 1,
        id: 2,
        at: -3,
    }
    .encode();
    let (decoded, n) = allocations(|| Numeric::decode(&key));
    assert!(decoded.is_ok());
    assert_eq!(n, 0, "a key of numbers decodes without allocating");
}

#[test]
fn a_megabyte_of_garbage_is_refused_before_reading() {
    let garbage: Vec<u8> = (0..1_048_576u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let (result, n) = allocations(|| Event::decode(&garbage));
    assert_eq!(
        result,
        Err(DecodeError::TooLong {
            len: 1_048_576,
            max: MAX_KEY_LEN
        })
    );
    assert_eq!(n, 0);
    // Just under the limit: decoded (and rejected) by reading, never a panic.
    let (result, _) = allocations(|| Event::decode(&garbage[..MAX_KEY_LEN]));
    let err = result.expect_err("garbage is not a key");
    assert!(
        !matches!(err, DecodeError::TooLong { .. }),
        "at the limit, the key is read: {err}"
    );
}

/// The derive keeps its own copy of the compile-time limits (a proc-macro
/// crate cannot share constants with the runtime): both copies agree.
#[test]
fn the_derive_and_the_runtime_agree_on_the_limits() {
    let source = include_str!("../keyschema-macros/src/limits.rs");
    let value = |name: &str| -> u64 {
        let line = source
            .lines()
            .find(|l| l.starts_with(&format!("pub const {name}:")))
            .unwrap_or_else(|| panic!("{name} in keyschema-macros/src/limits.rs"));
        let digits: String = line
            .split('=')
            .nth(1)
            .expect("a value")
            .chars()
            .filter(char::is_ascii_digit)
            .collect();
        digits.parse().expect("a number")
    };
    assert_eq!(value("MAX_COMPONENTS"), keyschema::MAX_COMPONENTS as u64);
    assert_eq!(value("MAX_BUCKETS"), u64::from(keyschema::MAX_BUCKETS));
    assert_eq!(
        value("MAX_BUCKET_EXPANSION"),
        keyschema::MAX_BUCKET_EXPANSION as u64
    );
}

/// The limits table of `docs/ENCODING.md`: every name and its value.
fn spec_limits() -> Vec<(String, u64)> {
    let spec = include_str!("../docs/ENCODING.md");
    let table = spec
        .split("<!-- limits -->")
        .nth(1)
        .and_then(|t| t.split("<!-- end limits -->").next())
        .expect("the limits table in docs/ENCODING.md");
    table
        .lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            let name = cells.get(1)?.strip_prefix('`')?.strip_suffix('`')?;
            Some((name.to_string(), cells.get(2)?.parse().ok()?))
        })
        .collect()
}

/// The spec, the Rust runtime and the Python package state one set of
/// limits: the spec's table is the source, and each copy must match it.
#[test]
fn the_spec_rust_and_python_state_the_same_limits() {
    let spec = spec_limits();
    let rust = [
        ("MAX_KEY_LEN", keyschema::MAX_KEY_LEN as u64),
        ("MAX_COMPONENTS", keyschema::MAX_COMPONENTS as u64),
        ("MAX_BUCKETS", u64::from(keyschema::MAX_BUCKETS)),
        (
            "MAX_BUCKET_EXPANSION",
            keyschema::MAX_BUCKET_EXPANSION as u64,
        ),
        ("MAX_NESTING", keyschema::MAX_NESTING as u64),
    ];
    let names: Vec<&str> = spec.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        rust.map(|(n, _)| n),
        "the spec's table names every limit"
    );
    let python = include_str!("../python/src/keyschema/_limits.py");
    for ((name, value), (_, ours)) in spec.iter().zip(rust) {
        assert_eq!(*value, ours, "Rust's {name}");
        let line = python
            .lines()
            .find(|l| l.starts_with(&format!("{name} = ")))
            .unwrap_or_else(|| panic!("{name} in the Python package"));
        let theirs: u64 = line[name.len() + 3..].trim().parse().expect("a number");
        assert_eq!(*value, theirs, "Python's {name}");
    }
}

/// A key longer than `MAX_KEY_LEN` is refused by the embedded stores when
/// written, by every write path (a typed put, a batch, a raw put, a
/// compare-and-set), and nothing of its batch lands: before, the store
/// kept it and every later read of it failed to decode. The error shows
/// the key's start, not all of it.
#[test]
fn keys_too_long_to_decode_are_refused_when_written() {
    use keyschema::store::{Cas, MemoryStore, RedbStore, RowStore};
    fn check<S: RowStore>(store: &S) -> Vec<String> {
        let long = Event {
            user_id: "u".repeat(MAX_KEY_LEN),
            site: "s".into(),
            timestamp: 1,
        };
        let short = Event {
            user_id: "u".into(),
            site: "s".into(),
            timestamp: 1,
        };
        let mut errors = vec![
            store.put_row(&long, b"v").unwrap_err().to_string(),
            store
                .put_rows([(&short, b"v"), (&long, b"v")])
                .unwrap_err()
                .to_string(),
            store.put(&long.encode(), b"v").unwrap_err().to_string(),
        ];
        let cas = Cas {
            key: long.encode(),
            expect: None,
            set: Some(b"v".to_vec()),
        };
        errors.push(store.compare_and_write(&[cas]).unwrap_err().to_string());
        // Nothing landed, not even the short row of the batch.
        assert_eq!(store.get(&short.encode()).expect("get"), None);
        store
            .delete_row(&long)
            .expect("a delete of a long key is harmless");
        errors
    }
    let dir = tempfile::tempdir().expect("a temp dir");
    let redb = RedbStore::open(dir.path()).expect("open");
    for message in check(&MemoryStore::new()).into_iter().chain(check(&redb)) {
        assert!(message.contains("longer than MAX_KEY_LEN"), "{message}");
        assert!(
            message.len() < 500,
            "{} bytes: {message:.200}",
            message.len()
        );
    }
}
