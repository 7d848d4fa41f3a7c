//! A layout change on a live table (`#[rowkey_was(...)]`): both layouts'
//! keys, reads that see one table across the cut-over, and the backfill.

use keyschema::history::Phase;
use keyschema::{DecodeError, RowKey};

const T: u64 = 1_700_000_000;

/// The Bigtable article's migration: unsalted before T, salted from T.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = hash(user_id, site) % 8, then = user_id, site, rev(timestamp))]
#[rowkey_was(salt = none, until = timestamp >= 1_700_000_000)]
pub struct Event {
    pub user_id: String,
    pub site: String,
    pub timestamp: u64,
}

/// A bucket-count change by migration: `% 8` to `% 32`, no field decides.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = hash(id) % 32, then = id, seq)]
#[rowkey_was(salt = hash(id) % 8, until = migration)]
pub struct Thing {
    pub id: u64,
    pub seq: u32,
}

fn event(user: &str, ts: u64) -> Event {
    Event {
        user_id: user.into(),
        site: "s".into(),
        timestamp: ts,
    }
}

#[test]
fn both_layouts_hold_the_same_components_after_their_headers() {
    let old = event("u1", T - 1);
    let older = old.encode_older().expect("a history");
    assert_eq!(older, Event::get_key("u1", "s", T - 1)[1..]);
    assert_eq!(Event::decode_older(&older), Ok(old.clone()));
    assert_eq!(Event::decode_stored(&older), Ok((old.clone(), false)));
    let new = event("u1", T);
    assert_eq!(Event::decode_stored(&new.encode()), Ok((new.clone(), true)));
    assert!(!old.past_cut_over());
    assert!(new.past_cut_over());
    let history = Event::history().expect("declared");
    assert_eq!(history.first_phase(), Phase::Split);
    assert_eq!(history.older().buckets(), 1);
    assert_eq!(
        history.older().to_string(),
        "Event (older layout): then = user_id: String, site: String, rev(timestamp: u64)"
    );
}

#[test]
fn a_key_that_reads_in_both_layouts_is_decided_by_the_cut_over_or_refused() {
    // Thing: % 8 and % 32 keys differ only in the salt byte. A key whose
    // salt is right for both layouts reads in both, and no field decides.
    let mut both = None;
    for id in 0..10_000u64 {
        let t = Thing { id, seq: 1 };
        if t.encode() == t.encode_older().expect("history") {
            both = Some(t);
            break;
        }
    }
    let t = both.expect("some id hashes to the same bucket under % 8 and % 32");
    assert_eq!(
        Thing::decode_stored(&t.encode()),
        Err(DecodeError::AmbiguousLayout { schema: "Thing" })
    );
    // A key of one layout only reads as that one.
    let other = (0..10_000u64)
        .map(|id| Thing { id, seq: 1 })
        .find(|t| t.encode() != t.encode_older().expect("history"))
        .expect("most ids move");
    assert_eq!(
        Thing::decode_stored(&other.encode()),
        Ok((other.clone(), true))
    );
    assert_eq!(
        Thing::decode_stored(&other.encode_older().unwrap()),
        Ok((other, false))
    );
}
