//! Indexes on the ordered stores: entries written and removed with their
//! rows, typed index scans that return the rows whole, sparse indexes.

mod common;

use common::no_txn::NoTxn;
use keyschema::index::{IndexBackfill, IndexError};
use keyschema::store::{MemoryStore, RecordStore, RowError, RowStore, Store};
use keyschema::{Index, RowKey};

#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(
    salt = hash(user_id, site) % 8,
    then = user_id, site, rev(timestamp),
    index(EventBySite, prefix = "s", salt = hash(site, user_id) % 8, then = (site), rev(timestamp), user_id),
    index(EventByReferrer, prefix = "r", then = referrer, user_id, site, timestamp),
)]
pub struct Event {
    pub user_id: String,
    pub site: String,
    pub timestamp: u64,
    #[rowkey(value)]
    pub action: String,
    #[rowkey(value)]
    pub referrer: Option<String>,
}

fn event(user: &str, site: &str, ts: u64, referrer: Option<&str>) -> Event {
    Event {
        user_id: user.into(),
        site: site.into(),
        timestamp: ts,
        action: "view".into(),
        referrer: referrer.map(Into::into),
    }
}

fn by_site<S: Store>(store: &S, site: &str) -> Vec<(String, u64)> {
    EventBySite::scan()
        .site(site)
        .run(store)
        .rows()
        .map(|r| r.map(|e| (e.user_id, e.timestamp)))
        .collect::<Result<_, _>>()
        .expect("index scan")
}

#[test]
fn entries_follow_puts_updates_and_deletes() {
    let store = MemoryStore::new();
    store
        .put_record(&event("u1", "a", 5, Some("search")))
        .unwrap();
    store.put_record(&event("u2", "a", 9, None)).unwrap();
    store.put_record(&event("u1", "b", 7, None)).unwrap();
    // 3 rows, 3 by-site entries, 1 by-referrer entry (sparse).
    assert_eq!(store.len(), 7);
    assert_eq!(by_site(&store, "a"), [("u2".into(), 9), ("u1".into(), 5)]);

    // An update that changes an indexed value field moves its entry.
    store.put_record(&event("u1", "a", 5, Some("ad"))).unwrap();
    let referrers: Vec<Option<String>> = EventByReferrer::scan()
        .run(&store)
        .rows()
        .map(|r| r.map(|e| e.referrer))
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(referrers, [Some("ad".to_string())]);
    assert_eq!(store.len(), 7);

    // A delete removes the row and every entry.
    store.delete_row(&event("u1", "a", 5, None)).unwrap();
    assert_eq!(by_site(&store, "a"), [("u2".into(), 9)]);
    assert_eq!(EventByReferrer::scan().run(&store).count(), 0);
    assert_eq!(store.len(), 4);
}

#[test]
fn entry_and_row_keys_agree() {
    let e = event("u1", "a", 5, Some("x"));
    let entry = EventBySite::decode(&EventBySite::entry_key(&e).unwrap()).unwrap();
    assert_eq!(entry.row_key(), e.encode());
    assert!(EventByReferrer::entry_key(&event("u1", "a", 5, None)).is_none());
    assert_eq!(Event::schema().indexes().count(), 2);
}

/// The events as the binary before the index wrote them: the same layout.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = hash(user_id, site) % 8, then = user_id, site, rev(timestamp))]
pub struct EventBefore {
    pub user_id: String,
    pub site: String,
    pub timestamp: u64,
    #[rowkey(value)]
    pub action: String,
    #[rowkey(value)]
    pub referrer: Option<String>,
}

/// The same rows while the by-site index is built.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(
    salt = hash(user_id, site) % 8,
    then = user_id, site, rev(timestamp),
    index(BuildingBySite, building, prefix = "s", salt = hash(site, user_id) % 8, then = (site), rev(timestamp), user_id),
)]
pub struct EventBuilding {
    pub user_id: String,
    pub site: String,
    pub timestamp: u64,
    #[rowkey(value)]
    pub action: String,
    #[rowkey(value)]
    pub referrer: Option<String>,
}

fn before(user: &str, site: &str, ts: u64) -> EventBefore {
    EventBefore {
        user_id: user.into(),
        site: site.into(),
        timestamp: ts,
        action: "view".into(),
        referrer: None,
    }
}

#[test]
fn a_building_index_refuses_its_scans() {
    let store = MemoryStore::new();
    let mut rows = BuildingBySite::scan().site("a").run(&store).rows();
    let err = rows.next().expect("an item").expect_err("refused");
    assert!(
        matches!(
            err,
            RowError::Index(IndexError::Building {
                index: "BuildingBySite",
                ..
            })
        ),
        "{err}"
    );
    assert!(err.to_string().contains("drop `building`"), "{err}");
    assert!(rows.next().is_none());
}

#[test]
fn an_index_added_later_is_built_resumed_and_verified() {
    let store = NoTxn::new();
    // 60 rows written before the index existed: no entries.
    for i in 0..60u64 {
        let site = ["a", "b", "c"][(i % 3) as usize];
        store
            .put_record(&before(&format!("u{}", i % 7), site, i))
            .unwrap();
    }
    let dir = tempfile::tempdir().unwrap();
    let checkpoint = dir.path().join("by-site.checkpoint");
    let verified = IndexBackfill::<BuildingBySite>::new()
        .verify(&store)
        .unwrap();
    assert_eq!(
        (verified.rows, verified.expected, verified.present),
        (60, 60, 0)
    );
    assert!(!verified.matches());

    // The build dies after two batches of 7; a new one resumes from the file.
    store.fail_after(Some(2));
    let mut first = IndexBackfill::<BuildingBySite>::new()
        .batch(7)
        .checkpoint(&checkpoint);
    first.build(&store).expect_err("the process died");
    store.fail_after(None);
    // Meanwhile the new binary writes: a new row and an update, with entries.
    let writer = |i: u64, site: &str| EventBuilding {
        user_id: format!("u{}", i % 7),
        site: site.into(),
        timestamp: i,
        action: "view".into(),
        referrer: None,
    };
    store.put_record(&writer(100, "a")).unwrap();
    store.put_record(&writer(3, "b")).unwrap(); // was on site "a": another key
    let mut resumed = IndexBackfill::<BuildingBySite>::new()
        .batch(7)
        .checkpoint(&checkpoint);
    let progress = resumed.build(&store).unwrap();
    assert!(progress.finished);
    assert_eq!(progress.rows_done, 62, "{progress:?}");
    assert!(
        progress.remaining.iter().all(|(_, left)| *left == 0),
        "{progress:?}"
    );
    let verified = resumed.verify(&store).unwrap();
    assert!(verified.matches(), "{verified:?}");
    assert_eq!(
        (verified.rows, verified.entries, verified.stale),
        (62, 62, 0)
    );

    // With `building` dropped (the test's `Event` declares the same index
    // layout), the index returns every row.
    let a: Vec<u64> = EventBySite::scan()
        .site("a")
        .run(&store)
        .rows()
        .map(|r| r.map(|e| e.timestamp))
        .collect::<Result<_, _>>()
        .unwrap();
    let mut want: Vec<u64> = (0..60).filter(|i| i % 3 == 0).chain([100]).collect();
    want.sort_by(|x, y| y.cmp(x));
    assert_eq!(a, want);
}

#[test]
fn the_entry_bytes_are_the_published_ones() {
    let e = event("u2", "shop", 9, None);
    let entry = EventBySite::entry_key(&e).unwrap();
    let mut want = b"s\x00\x06shop\x00".to_vec();
    want.extend_from_slice(&(!9u64).to_be_bytes());
    want.extend_from_slice(b"u2\x00");
    assert_eq!(entry, want);
    assert_eq!(EventBySite::render(&entry), "s|6|shop|~9|u2");
}

/// A key type without value fields, written raw: its index reads it.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(prefix = "t", then = id, tag, index(TaggedByTag, prefix = "g", then = tag, id))]
pub struct Tagged {
    pub id: u32,
    pub tag: Option<String>,
}

#[test]
fn an_index_reads_rows_written_raw_by_a_type_without_value_fields() {
    let store = MemoryStore::new();
    store.put_row(&Tagged { id: 1, tag: None }, b"").unwrap();
    store
        .put_row(
            &Tagged {
                id: 2,
                tag: Some("x".into()),
            },
            b"raw bytes",
        )
        .unwrap();
    let rows: Vec<Tagged> = TaggedByTag::scan()
        .run(&store)
        .rows()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(
        rows,
        [
            Tagged { id: 1, tag: None },
            Tagged {
                id: 2,
                tag: Some("x".into())
            }
        ]
    );
    let verified = IndexBackfill::<TaggedByTag>::new().verify(&store).unwrap();
    assert!(verified.matches(), "{verified:?}");
}

/// An entry another program wrote that does not decode comes back as an
/// error in its place, also across a page boundary: a scan stopped after
/// the rows before it and resumed from its cursor meets the error (it was
/// lost when the chunk's last row returned the entries' cursor, already
/// past the bad entry), and one resumed after the error goes on past it.
fn damaged_entry_in_its_place<S: Store>(store: &S)
where
    S::Error: std::fmt::Debug,
{
    for (i, ts) in [60u64, 50, 40, 30, 20, 10].into_iter().enumerate() {
        store
            .put_record(&event(&format!("u{i}"), "shop", ts, None))
            .expect("put");
    }
    let mut damaged = EventBySite::entry_key(&event("u9", "shop", 35, None)).expect("an entry");
    damaged.pop();
    store.put(&damaged, b"").expect("put");
    let shown = |r: Result<Event, RowError<S::Error>>| match r {
        Ok(e) => e.timestamp.to_string(),
        Err(RowError::Decode { .. }) => "decode error".to_string(),
        Err(e) => panic!("{e:?}"),
    };
    let whole: Vec<String> = EventBySite::scan()
        .site("shop")
        .run(store)
        .rows()
        .map(shown)
        .collect();
    assert_eq!(whole, ["60", "50", "40", "decode error", "30", "20", "10"]);
    for stop in 0..whole.len() {
        let mut page = EventBySite::scan().site("shop").run(store).rows();
        let mut got: Vec<String> = page.by_ref().take(stop).map(shown).collect();
        let rest = EventBySite::scan()
            .site("shop")
            .after(page.cursor())
            .run(store)
            .rows()
            .map(shown);
        got.extend(rest);
        assert_eq!(got, whole, "stopped after {stop}");
    }
}

#[test]
fn a_damaged_entry_comes_back_in_its_place_across_pages() {
    damaged_entry_in_its_place(&MemoryStore::new());
    let dir = tempfile::tempdir().expect("temp dir");
    damaged_entry_in_its_place(&keyschema::store::RedbStore::open(dir.path()).expect("redb"));
    damaged_entry_in_its_place(&NoTxn::new());
}
