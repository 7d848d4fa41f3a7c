//! Lent rows: `TypedRows::next_ref` decodes each row into one reused row
//! (`RowKey::decode_scanned_into`) and lends it with its value.
//!
//! * Decoding into a row that held another (or the same row: its equal
//!   strings are kept) is the same as decoding a new one, for every layout of the catalog (escaped, `rev`, byte-reversed,
//!   bucketed, text and time components), for damaged keys too (the same
//!   error), and for a type with skipped and value fields (reset to their
//!   `Default`).
//! * `next_ref` yields exactly the rows and errors the iterator yields, in
//!   the same order, with the same cursor after every page, ordered and
//!   unordered, both directions, mixed with the iterator, on memory, redb
//!   and a store that lends `scan`'s rows (`OwnedRows`).

mod common;

use common::catalog::{self, check_layout, Sample, Visit};
use common::no_txn::NoTxn;
use common::schemas::Event;
use keyschema::store::{MemoryStore, RedbStore, RowStore, Store};
use keyschema::{Cursor, RowKey, TypedRows};
use proptest::prelude::*;

struct DecodeInto {
    checked: usize,
}

impl Visit for DecodeInto {
    fn visit<K: Sample>(&mut self) {
        check_layout::<K, _>(
            96,
            (K::strategy(), K::strategy(), any::<(usize, u8)>()),
            |(row, held, (at, byte))| {
                let key = row.encode();
                let mut slot = held.clone();
                prop_assert_eq!(slot.decode_scanned_into(&key), Ok(()));
                // (A time's offset is not in its key: compared with a
                // new decode, not with the row.)
                let new = K::decode_scanned(&key).expect("a row's key decodes");
                prop_assert_eq!(
                    format!("{slot:?}"),
                    format!("{new:?}"),
                    "{}",
                    K::DECLARATION
                );
                // Into a slot that holds the same row (its strings are
                // kept as they are, unchanged): the same row.
                let mut same = row.clone();
                prop_assert_eq!(same.decode_scanned_into(&key), Ok(()));
                prop_assert_eq!(format!("{same:?}"), format!("{new:?}"));
                // A damaged key: the same answer as a new decode.
                let mut damaged = key.clone();
                let i = at % damaged.len();
                damaged[i] ^= byte | 1;
                for mut slot in [held, row.clone()] {
                    let into = slot.decode_scanned_into(&damaged);
                    match K::decode_scanned(&damaged) {
                        Ok(new) => {
                            prop_assert_eq!(into, Ok(()));
                            prop_assert_eq!(format!("{slot:?}"), format!("{new:?}"));
                        }
                        Err(e) => prop_assert_eq!(into, Err(e)),
                    }
                }
                Ok(())
            },
        );
        self.checked += 1;
    }
}

#[test]
fn decoding_into_a_held_row_is_decoding_anew_on_every_layout() {
    let mut check = DecodeInto { checked: 0 };
    catalog::for_each(&mut check);
    assert!(check.checked >= 30, "{} layouts", check.checked);
}

/// Skipped and value fields are not in the key: decoded into, they are
/// reset to their `Default`, as a new decode gives them.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = hash(id) % 4, then = id, bucket(day, 7), day, rev(name))]
struct Mixed {
    id: u32,
    day: i64,
    name: String,
    #[rowkey(skip)]
    note: String,
    #[rowkey(value)]
    amount: Option<u64>,
}

#[test]
fn skipped_and_value_fields_are_reset() {
    let row = Mixed {
        id: 7,
        day: -15,
        name: "ann\u{0}\u{1}x".into(),
        note: String::new(),
        amount: None,
    };
    let mut slot = Mixed {
        id: 1,
        day: 3,
        name: "a much longer name than the row's".into(),
        note: "kept?".into(),
        amount: Some(5),
    };
    assert_eq!(slot.decode_scanned_into(&row.encode()), Ok(()));
    assert_eq!(slot, row);
    assert_eq!(Mixed::decode(&row.encode()), Ok(row));
}

type Page = (Vec<Result<(Event, Vec<u8>), String>>, Cursor);

/// One page read with the iterator.
fn page_iter<S: Store>(mut rows: TypedRows<'_, Event, S>) -> Page
where
    S::Error: std::fmt::Debug,
{
    let page = rows
        .by_ref()
        .map(|r| r.map_err(|e| format!("{e:?}")))
        .collect();
    (page, rows.cursor())
}

/// The same page read with `next_ref`, every other row with the iterator
/// when `mixed`.
fn page_lent<S: Store>(mut rows: TypedRows<'_, Event, S>, mixed: bool) -> Page
where
    S::Error: std::fmt::Debug,
{
    let mut page = Vec::new();
    loop {
        let row = if mixed && page.len() % 2 == 1 {
            rows.next()
        } else {
            rows.next_ref()
                .map(|r| r.map(|(e, v)| (e.clone(), v.to_vec())))
        };
        let Some(row) = row else { break };
        page.push(row.map_err(|e| format!("{e:?}")));
    }
    (page, rows.cursor())
}

fn event() -> impl Strategy<Value = Event> {
    (0u8..6, 0u8..3, 0u64..40).prop_map(|(u, s, t)| Event {
        user_id: "u".repeat(usize::from(u) + 1),
        site: ["shop", "news", "a-much-longer-site-name"][usize::from(s)].into(),
        timestamp: t,
    })
}

/// Pages of `limit` through the whole scan, lent and iterated, compared
/// page by page.
fn same_pages<S: Store>(store: &S, limit: usize, ordered: bool, reverse: bool, mixed: bool)
where
    S::Error: std::fmt::Debug,
{
    let request = |after: Option<Cursor>| {
        let mut scan = Event::scan().limit(limit);
        if !ordered {
            scan = scan.unordered();
        }
        if reverse {
            scan = scan.reverse();
        }
        match after {
            Some(c) => scan.after(c),
            None => scan,
        }
    };
    let mut after: Option<Cursor> = None;
    for _ in 0..200 {
        let (want, want_cursor) = page_iter(request(after.clone()).run(store));
        let (got, got_cursor) = page_lent(request(after.clone()).run(store), mixed);
        assert_eq!(got, want);
        assert_eq!(got_cursor.to_bytes(), want_cursor.to_bytes());
        if want.is_empty() || want_cursor.is_finished() {
            return;
        }
        after = Some(want_cursor);
    }
    panic!("the pages did not end");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn next_ref_yields_what_the_iterator_yields(
        rows in prop::collection::vec((event(), prop::collection::vec(any::<u8>(), 0..40)), 0..60),
        limit in 1usize..9,
        ordered in any::<bool>(),
        reverse in any::<bool>(),
        mixed in any::<bool>(),
    ) {
        let memory = MemoryStore::new();
        let dir = tempfile::tempdir().expect("temp dir");
        let redb = RedbStore::open(dir.path()).expect("redb");
        let default = NoTxn::new();
        for (event, value) in &rows {
            memory.put_row(event, value).expect("put");
            redb.put_row(event, value).expect("put");
            default.put_row(event, value).expect("put");
        }
        // A key no Event decodes, inside bucket 3's range: an error in
        // both, at the same place.
        memory.put(&[3, 0xff], b"damage").expect("put");
        redb.put(&[3, 0xff], b"damage").expect("put");
        default.put(&[3, 0xff], b"damage").expect("put");
        same_pages(&memory, limit, ordered, reverse, mixed);
        same_pages(&redb, limit, ordered, reverse, mixed);
        same_pages(&default, limit, ordered, reverse, mixed);
    }
}
