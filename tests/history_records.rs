//! Whole rows of a key type with a layout history (`#[rowkey_was]`): the
//! `_in` record writes and gets, scans of whole rows in each phase, and the
//! backfill carrying value fields to the new layout, on memory and redb.

use keyschema::backfill::Backfill;
use keyschema::history::Phase;
use keyschema::store::{MemoryStore, RecordStore, RedbStore, RowStore, Store};
use keyschema::RowKey;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
struct Payload {
    page: String,
    referrer: Option<String>,
}

/// Unsalted before T, salted from T, with value fields.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = hash(user_id) % 4, then = user_id, rev(timestamp))]
#[rowkey_was(salt = none, until = timestamp >= 1_000)]
struct Visit {
    user_id: String,
    timestamp: u64,
    #[rowkey(value)]
    action: String,
    #[rowkey(value)]
    payload: Payload,
}

fn visit(user: &str, timestamp: u64, action: &str) -> Visit {
    Visit {
        user_id: user.into(),
        timestamp,
        action: action.into(),
        payload: Payload {
            page: format!("/p/{timestamp}"),
            referrer: timestamp.is_multiple_of(2).then(|| "search".into()),
        },
    }
}

fn whole<S: Store>(store: &S, phase: Phase, user: &str) -> Vec<Visit> {
    Visit::scan()
        .user_id(user)
        .phase(phase)
        .run(store)
        .records()
        .collect::<Result<_, _>>()
        .expect("whole rows")
}

fn whole_rows_across_the_cut_over<S: Store>(store: &S) {
    // The older binary: every row in the older layout.
    let before: Vec<Visit> = (0..5).map(|i| visit("u1", 500 + i, "view")).collect();
    store.put_records_in(Phase::Old, &before).expect("put");
    assert_eq!(
        store.get_record_in(Phase::Old, &before[0]).expect("get"),
        Some(before[0].clone())
    );

    // Split: rows from T go to the salted layout, whole.
    let after = visit("u1", 2_000, "click");
    store.put_record_in(Phase::Split, &after).expect("put");
    let mut expected: Vec<Visit> = before.iter().rev().cloned().collect();
    expected.insert(0, after.clone());
    assert_eq!(whole(store, Phase::Split, "u1"), expected);

    // A replace in Split changes the value where the row is.
    let mut corrected = before[2].clone();
    corrected.action = "corrected".into();
    store
        .replace_record_in(Phase::Split, &corrected)
        .expect("replace");
    assert_eq!(
        store.get_record_in(Phase::Split, &corrected).expect("get"),
        Some(corrected.clone())
    );
    expected[3] = corrected.clone();

    // The backfill copies the values with the keys; New reads them whole.
    let mut backfill = Backfill::<Visit>::new().expect("backfill");
    backfill.copy(store).expect("copy");
    let verified = backfill.verify(store).expect("verify");
    assert!(verified.matches());
    assert_eq!(whole(store, Phase::New, "u1"), expected);
    backfill.delete_older(store, &verified).expect("delete");
    assert_eq!(whole(store, Phase::New, "u1"), expected);
    assert_eq!(
        store.get_record_in(Phase::New, &corrected).expect("get"),
        Some(corrected.clone())
    );

    store.delete_row_in(Phase::New, &corrected).expect("delete");
    assert_eq!(
        store.get_record_in(Phase::New, &corrected).expect("get"),
        None
    );
    assert_eq!(whole(store, Phase::New, "u1").len(), 5);
}

#[test]
fn whole_rows_across_the_cut_over_on_memory() {
    whole_rows_across_the_cut_over(&MemoryStore::new());
}

#[test]
fn whole_rows_across_the_cut_over_on_redb() {
    let dir = tempfile::tempdir().expect("tempdir");
    whole_rows_across_the_cut_over(&RedbStore::open(dir.path()).expect("redb"));
}

/// Raw bytes for a whole row are refused by the record reads, naming the
/// key, not taken for an empty row.
#[test]
fn raw_bytes_under_a_whole_row_type_are_an_error_not_a_default() {
    let store = MemoryStore::new();
    let row = visit("u2", 10, "view");
    store.put_row_in(Phase::Old, &row, b"raw").expect("put");
    assert!(store.get_record_in(Phase::Old, &row).is_err());
}
