//! A layout history used off the documented path: a phase the cut-over does
//! not have, a copy after the delete began, a verification or a checkpoint
//! of another store, a row the older layout cannot hold. Each is refused
//! before it writes anything, with a message that says what to do; each of
//! these tests failed before the refusal existed.

mod common;

use common::history::{Event, Thing, T};
use keyschema::backfill::{Backfill, BackfillError};
use keyschema::history::{LayoutError, Phase};
use keyschema::store::{Direction, MemoryStore, RedbStore, RowError, RowStore, Store};
use keyschema::{KeyRange, RowKey};

/// Every stored key and value.
fn dump<S: Store>(store: &S) -> Vec<(Vec<u8>, Vec<u8>)>
where
    S::Error: std::fmt::Debug,
{
    let all = KeyRange::new(Vec::new(), None, 0);
    store
        .scan(&all, Direction::Forward)
        .expect("scan")
        .map(|r| r.expect("row"))
        .collect()
}

fn event(user: &str, timestamp: u64) -> Event {
    Event {
        user_id: user.into(),
        site: "a".into(),
        timestamp,
    }
}

fn refused_phase<E: std::fmt::Debug>(
    result: Result<impl std::fmt::Debug, RowError<E>>,
    phase: Phase,
) {
    match result {
        Err(RowError::Layout(LayoutError::Phase { phase: p, .. })) => assert_eq!(p, phase),
        other => panic!("expected the phase refused, got {other:?}"),
    }
}

#[test]
fn a_phase_the_cut_over_does_not_have_is_refused_before_anything_is_written() {
    let store = MemoryStore::new();
    // A migration has no Split: its rows would go to the declared layout
    // alone, where readers in Old and Dual do not look.
    let thing = Thing { id: 7, seq: 1 };
    refused_phase(store.put_row_in(Phase::Split, &thing, b"v"), Phase::Split);
    refused_phase(
        store.replace_row_in(Phase::Split, &thing, b"v"),
        Phase::Split,
    );
    refused_phase(
        store.put_rows_in(Phase::Split, [(&thing, b"v")]),
        Phase::Split,
    );
    refused_phase(store.delete_row_in(Phase::Split, &thing), Phase::Split);
    refused_phase(store.get_row_in(Phase::Split, &thing), Phase::Split);
    refused_phase(Thing::get_in(&store, Phase::Split, 7, 1), Phase::Split);
    let mut scan = Thing::scan().id(7).phase(Phase::Split).run(&store);
    refused_phase(scan.next().expect("the refusal"), Phase::Split);
    assert!(scan.next().is_none());
    assert!(dump(&store).is_empty());

    // A cut-over by field has no Dual: it reads the older layout alone,
    // where no row past the cut-over is.
    let e = event("u1", T + 5);
    refused_phase(store.put_row_in(Phase::Dual, &e, b"v"), Phase::Dual);
    let mut scan = Event::scan().user_id("u1").phase(Phase::Dual).run(&store);
    refused_phase(scan.next().expect("the refusal"), Phase::Dual);
    assert!(dump(&store).is_empty());

    // Old, what the older binary does, stays allowed on both.
    store
        .put_row_in(Phase::Old, &e, b"v")
        .expect("older binary");
    store
        .put_row_in(Phase::Old, &thing, b"v")
        .expect("older binary");
    let message = store
        .put_row_in(Phase::Split, &thing, b"v")
        .expect_err("refused")
        .to_string();
    assert!(message.contains("`Old`, `Dual`, then `New`"), "{message}");
}

/// `(user, older)`: a user whose row's older key is the declared key of the
/// row of `user` with the same other fields (`"\x05u0"` and `"u0"`, when
/// `"u0"`'s bucket is 5).
fn colliding_user() -> (String, String) {
    (0..1_000)
        .map(|i| format!("u{i}"))
        .find_map(|user| {
            let salt = event(&user, 10).encode()[0];
            // 0 and 1 are escaped in a string: they would not collide.
            (salt >= 2).then(|| (user.clone(), format!("{}{user}", char::from(salt))))
        })
        .expect("a user in a bucket above 1")
}

#[test]
fn a_row_whose_older_key_reads_as_another_row_is_refused_with_both_keys() {
    let store = MemoryStore::new();
    let (user, older_user) = colliding_user();
    let row = event(&older_user, 10);
    let older_key = row.encode_older().expect("a history");
    assert_eq!(older_key, event(&user, 10).encode(), "the keys collide");
    let error = store
        .put_row_in(Phase::Split, &row, b"v")
        .expect_err("refused");
    match &error {
        RowError::Layout(LayoutError::Ambiguous {
            older, declared, ..
        }) => {
            assert_eq!(*older, older_key);
            assert_eq!(*declared, row.encode());
        }
        other => panic!("expected an ambiguous row, got {other:?}"),
    }
    let message = error.to_string();
    assert!(message.contains("Phase::New"), "{message}");
    assert!(!message.contains("scanned range"), "{message}");
    assert!(message.contains(&user), "names the other row: {message}");
    assert!(dump(&store).is_empty());
    // In New the row is the declared layout's alone.
    store
        .put_row_in(Phase::New, &row, b"v")
        .expect("declared only");
}

#[test]
fn a_copy_after_the_delete_began_is_refused_and_changes_nothing() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = RedbStore::open(dir.path()).expect("open");
    let checkpoint = dir.path().join("backfill.checkpoint");
    for ts in [10, 20, T + 1] {
        store
            .put_row_in(Phase::Old, &event("u1", ts), b"old")
            .expect("put");
    }
    let mut backfill = Backfill::<Event>::new()
        .expect("history")
        .checkpoint(&checkpoint);
    backfill.copy(&store).expect("copy");
    let verified = backfill.verify(&store).expect("verify");
    assert!(verified.matches(), "{verified:?}");
    backfill.delete_older(&store, &verified).expect("delete");
    // Writers in New: a new row and an update, in the declared layout.
    store
        .put_row_in(Phase::New, &event("u1", 30), b"new")
        .expect("put");
    store
        .put_row_in(Phase::New, &event("u1", 10), b"updated")
        .expect("put");
    let before = dump(&store);

    let refused = backfill.copy(&store).expect_err("refused");
    assert!(matches!(refused, BackfillError::DeleteBegan), "{refused:?}");
    // A fresh process with the same checkpoint is refused too.
    let mut fresh = Backfill::<Event>::new()
        .expect("history")
        .checkpoint(&checkpoint);
    assert!(matches!(
        fresh.copy(&store),
        Err(BackfillError::DeleteBegan)
    ));
    assert!(matches!(
        fresh.copy_batch(&store),
        Err(BackfillError::DeleteBegan)
    ));
    assert_eq!(dump(&store), before, "nothing written");
    let values: Vec<(u64, Vec<u8>)> = Event::scan()
        .user_id("u1")
        .phase(Phase::New)
        .run(&store)
        .map(|r| r.map(|(e, v)| (e.timestamp, v)))
        .collect::<Result<_, _>>()
        .expect("scan");
    assert_eq!(
        values,
        [
            (T + 1, b"old".to_vec()),
            (30, b"new".to_vec()),
            (20, b"old".to_vec()),
            (10, b"updated".to_vec())
        ]
    );
}

#[test]
fn a_verification_or_a_checkpoint_of_another_store_is_refused() {
    let (dir_a, dir_b) = (tempdir("store-a"), tempdir("store-b"));
    let (a, b) = (
        RedbStore::open(dir_a.path()).expect("open"),
        RedbStore::open(dir_b.path()).expect("open"),
    );
    for store in [&a, &b] {
        for ts in [10, 20] {
            store
                .put_row_in(Phase::Old, &event("u1", ts), b"v")
                .expect("put");
        }
    }
    // A's verification does not authorise B's delete: B was never copied.
    let mut on_a = Backfill::<Event>::new().expect("history");
    on_a.copy(&a).expect("copy");
    let verified = on_a.verify(&a).expect("verify");
    assert!(verified.matches());
    let before = dump(&b);
    let mut on_b = Backfill::<Event>::new().expect("history");
    match on_b.delete_older(&b, &verified) {
        Err(BackfillError::OtherStore { what, .. }) => assert_eq!(what, "verification"),
        other => panic!("expected another store's verification refused, got {other:?}"),
    }
    assert_eq!(dump(&b), before, "nothing deleted on B");

    // A checkpoint of A's finished copy does not say B is copied.
    let checkpoint = dir_a.path().join("backfill.checkpoint");
    let mut with_checkpoint = Backfill::<Event>::new()
        .expect("history")
        .checkpoint(&checkpoint);
    with_checkpoint.copy(&a).expect("copy on A");
    let mut reused = Backfill::<Event>::new()
        .expect("history")
        .checkpoint(&checkpoint);
    let error = reused.copy(&b).expect_err("refused");
    match &error {
        BackfillError::OtherStore {
            what,
            made_on,
            this,
        } => {
            assert_eq!(*what, "checkpoint");
            assert!(
                made_on.contains("store-a") && this.contains("store-b"),
                "{error}"
            );
        }
        other => panic!("expected another store's checkpoint refused, got {other:?}"),
    }
    assert_eq!(dump(&b), before, "nothing written on B");
    // The same object, used on A then on B, is refused the same way.
    assert!(matches!(
        on_a.copy(&b),
        Err(BackfillError::OtherStore { .. })
    ));
}

/// A temporary directory whose path holds `name`.
fn tempdir(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(name)
        .tempdir()
        .expect("temp dir")
}
