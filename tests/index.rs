//! Indexes on the ordered stores: entries written and removed with their
//! rows, typed index scans that return the rows whole, sparse indexes.

use keyschema::store::{MemoryStore, RecordStore, RowStore, Store};
use keyschema::{Index, RowKey};

#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(
    salt = hash(user_id, site) % 8,
    then = user_id, site, rev(timestamp),
    index(EventBySite, prefix = "s", salt = hash(site) % 8, then = (site), rev(timestamp), user_id),
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
