//! Whole rows on the ordered stores (issue 19, first step): value fields
//! (`#[rowkey(value)]`) stored beside the key as one MessagePack map and
//! read back typed, on memory and redb; rows written by one version of a
//! struct read by the next; the bytes are plain MessagePack.

use keyschema::store::{MemoryStore, RecordStore, RedbStore, RowError, RowStore, Store};
use keyschema::{RowKey, ValueError};
use proptest::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
struct Payload {
    page: String,
    tags: Vec<String>,
    counts: BTreeMap<String, u32>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
enum Action {
    #[default]
    View,
    Click {
        x: i32,
        y: i32,
    },
    Buy(u64),
}

#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = hash(user_id, site) % 8, then = user_id, site, rev(timestamp))]
struct Event {
    user_id: String,
    site: String,
    timestamp: u64,
    #[rowkey(value)]
    action: Action,
    #[rowkey(value)]
    payload: Payload,
    #[rowkey(value)]
    note: Option<String>,
    #[rowkey(skip)]
    cached: u32,
}

fn event(user: &str, ts: u64, action: Action) -> Event {
    Event {
        user_id: user.into(),
        site: "shop".into(),
        timestamp: ts,
        action,
        payload: Payload {
            page: format!("/p/{ts}"),
            tags: vec!["a".into(), "b".into()],
            counts: [("views".to_string(), 3)].into(),
        },
        note: ts.is_multiple_of(2).then(|| "even".to_string()),
        cached: 0,
    }
}

fn whole_rows_round_trip<S: Store>(store: &S)
where
    S::Error: std::fmt::Debug,
{
    let rows = vec![
        event("u1", 10, Action::View),
        event("u1", 11, Action::Click { x: -3, y: 4 }),
        event("u1", 12, Action::Buy(4_200)),
        event("u2", 10, Action::View),
    ];
    store.put_records(&rows).unwrap();
    for row in &rows {
        let got = store.get_record::<Event>(&row.encode()).unwrap();
        assert_eq!(got.as_ref(), Some(row));
    }
    // A scan of whole rows, newest first, every value field filled.
    let scanned: Vec<Event> = Event::scan()
        .user_id("u1")
        .run(store)
        .records()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(
        scanned,
        vec![rows[2].clone(), rows[1].clone(), rows[0].clone()]
    );
    // Replace, then delete.
    let mut changed = rows[1].clone();
    changed.action = Action::Buy(1);
    changed.note = None;
    store.replace_record(&changed).unwrap();
    assert_eq!(
        store.get_record::<Event>(&changed.encode()).unwrap(),
        Some(changed.clone())
    );
    store.delete_row(&changed).unwrap();
    assert_eq!(store.get_record::<Event>(&changed.encode()).unwrap(), None);
    // The raw path stays: a key type's value is bytes to `get_row`.
    let (_, raw) = store.get_row::<Event>(&rows[0].encode()).unwrap().unwrap();
    assert_eq!(raw[0], 0x83, "a map of 3 value fields");
}

#[test]
fn whole_rows_round_trip_on_memory() {
    whole_rows_round_trip(&MemoryStore::new());
}

#[test]
fn whole_rows_round_trip_on_redb() {
    let dir = tempfile::tempdir().unwrap();
    whole_rows_round_trip(&RedbStore::open(dir.path()).unwrap());
}

/// The value is plain MessagePack: a map from field name to value, nested
/// structs as maps, what any MessagePack library reads.
#[test]
fn the_value_is_a_messagepack_map_by_field_name() {
    #[derive(RowKey, Debug, PartialEq)]
    #[rowkey(then = id)]
    struct Small {
        id: u32,
        #[rowkey(value)]
        action: String,
        #[rowkey(value)]
        n: u8,
    }
    let store = MemoryStore::new();
    let row = Small {
        id: 1,
        action: "click".into(),
        n: 7,
    };
    store.put_record(&row).unwrap();
    let raw = store.get(&row.encode()).unwrap().unwrap();
    let mut want = vec![0x82, 0xa6];
    want.extend(b"action");
    want.push(0xa5);
    want.extend(b"click");
    want.push(0xa1);
    want.extend(b"n");
    want.push(0x07);
    assert_eq!(raw, want);
    // A key type without value fields stores an empty map.
    #[derive(RowKey, Debug, PartialEq)]
    #[rowkey(then = id)]
    struct KeyOnly {
        id: u32,
    }
    store.put_record(&KeyOnly { id: 2 }).unwrap();
    assert_eq!(
        store.get(&KeyOnly { id: 2 }.encode()).unwrap(),
        Some(vec![0x80])
    );
    assert_eq!(
        store
            .get_record::<KeyOnly>(&KeyOnly { id: 2 }.encode())
            .unwrap(),
        Some(KeyOnly { id: 2 })
    );
}

mod v1 {
    use keyschema::RowKey;

    #[derive(RowKey, Debug, Clone, PartialEq)]
    #[rowkey(then = (account), seq)]
    pub struct Ledger {
        pub account: String,
        pub seq: u32,
        #[rowkey(value)]
        pub amount: i64,
        #[rowkey(value)]
        pub memo: String,
        #[rowkey(value)]
        pub legacy: bool,
    }
}

mod v2 {
    use keyschema::RowKey;

    /// The next version: `legacy` removed, fields reordered, `currency`
    /// added with a default, `reviewer` added as an `Option`.
    #[derive(RowKey, Debug, Clone, PartialEq)]
    #[rowkey(then = (account), seq)]
    pub struct Ledger {
        pub account: String,
        pub seq: u32,
        #[rowkey(value)]
        pub memo: String,
        #[rowkey(value, default)]
        pub currency: String,
        #[rowkey(value)]
        pub amount: i64,
        #[rowkey(value)]
        pub reviewer: Option<String>,
    }
}

mod v3 {
    use keyschema::RowKey;

    /// A version that added a required field: older rows lack it.
    #[derive(RowKey, Debug, Clone, PartialEq)]
    #[rowkey(then = (account), seq)]
    pub struct Ledger {
        pub account: String,
        pub seq: u32,
        #[rowkey(value)]
        pub amount: i64,
        #[rowkey(value)]
        pub approved_by: String,
    }
}

fn evolution<S: Store>(store: &S)
where
    S::Error: std::fmt::Debug,
{
    let old = v1::Ledger {
        account: "acc-1".into(),
        seq: 3,
        amount: 500,
        memo: "rent".into(),
        legacy: true,
    };
    store.put_record(&old).unwrap();
    let next = store.get_record::<v2::Ledger>(&old.encode()).unwrap();
    assert_eq!(
        next,
        Some(v2::Ledger {
            account: "acc-1".into(),
            seq: 3,
            memo: "rent".into(),
            currency: String::new(),
            amount: 500,
            reviewer: None,
        })
    );
    // The next version writes; the older one still reads its fields (the
    // new ones are skipped), except the one it requires and the new one
    // dropped.
    let mut written = next.unwrap();
    written.reviewer = Some("ana".into());
    store.put_record(&written).unwrap();
    let back = store.get_record::<v1::Ledger>(&old.encode());
    match back {
        Err(RowError::Value {
            schema,
            key,
            source: ValueError::Missing { field },
        }) => {
            assert_eq!((schema, field), ("Ledger", "legacy"));
            assert_eq!(key, old.encode());
        }
        other => panic!("expected a missing field, got {other:?}"),
    }
    let strict = store.get_record::<v3::Ledger>(&old.encode()).unwrap_err();
    let message = strict.to_string();
    assert!(
        message.contains("`approved_by` is missing") && message.contains("acc-1"),
        "{message}"
    );
}

#[test]
fn a_struct_reads_rows_its_older_and_newer_versions_wrote_on_memory() {
    evolution(&MemoryStore::new());
}

#[test]
fn a_struct_reads_rows_its_older_and_newer_versions_wrote_on_redb() {
    let dir = tempfile::tempdir().unwrap();
    evolution(&RedbStore::open(dir.path()).unwrap());
}

#[test]
fn a_value_of_the_wrong_shape_is_an_error_naming_the_field_and_the_scan_goes_on() {
    let store = MemoryStore::new();
    let good = event("u1", 10, Action::View);
    store.put_record(&good).unwrap();
    // Another program stored `note` as a number, and one value is not a map.
    let bad = event("u1", 11, Action::View);
    let mut value = vec![0x81, 0xa4];
    value.extend(b"note");
    value.push(0x05);
    store.put(&bad.encode(), &value).unwrap();
    let broken = event("u1", 12, Action::View);
    store.put(&broken.encode(), b"not msgpack \xc1").unwrap();
    let rows: Vec<Result<Event, _>> = Event::scan().user_id("u1").run(&store).records().collect();
    assert_eq!(rows.len(), 3);
    let messages: Vec<String> = rows
        .iter()
        .filter_map(|r| r.as_ref().err().map(|e| e.to_string()))
        .collect();
    assert_eq!(messages.len(), 2, "{messages:?}");
    assert!(
        messages.iter().any(|m| m.contains("`note`")),
        "{messages:?}"
    );
    assert!(
        messages
            .iter()
            .any(|m| m.contains("not a row's value fields")),
        "{messages:?}"
    );
    assert_eq!(rows[2].as_ref().unwrap(), &good);
}

fn any_event() -> impl Strategy<Value = Event> {
    (
        "[a-z\u{0}-\u{3}]{0,6}",
        0u64..1_000,
        prop_oneof![
            Just(Action::View),
            (any::<i32>(), any::<i32>()).prop_map(|(x, y)| Action::Click { x, y }),
            any::<u64>().prop_map(Action::Buy),
        ],
        ".{0,12}",
        prop::collection::vec(".{0,4}", 0..4),
        prop::collection::btree_map(".{0,4}", any::<u32>(), 0..3),
        prop::option::of(".{0,8}"),
    )
        .prop_map(
            |(user_id, timestamp, action, page, tags, counts, note)| Event {
                user_id,
                site: "s".into(),
                timestamp,
                action,
                payload: Payload { page, tags, counts },
                note,
                cached: 0,
            },
        )
}

proptest! {
    #[test]
    fn any_whole_row_round_trips(rows in prop::collection::vec(any_event(), 1..20)) {
        let store = MemoryStore::new();
        for row in &rows {
            store.put_record(row).unwrap();
        }
        for row in &rows {
            let key = row.encode();
            let last = rows.iter().rev().find(|r| r.encode() == key).unwrap();
            let got = store.get_record::<Event>(&key).unwrap();
            prop_assert_eq!(got.as_ref(), Some(last));
        }
    }
}
