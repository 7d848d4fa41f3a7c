//! The backfill of a layout change on redb and in memory: copy, verify,
//! delete; killed mid-way (the store dropped, or its writes failing) and
//! resumed from the checkpoint in a new process; writers running between
//! its steps; rows an older binary wrote on either side of the cut-over.
//! Nothing lost, nothing duplicated, nothing brought back.

mod common;

use common::history::{Event, Thing, T};
use keyschema::backfill::{Backfill, BackfillError, Step};
use keyschema::history::Phase;
use keyschema::store::{Cas, Direction, Mutation, RedbStore, RowStore, Store};
use keyschema::{KeyRange, RowKey};
use std::cell::Cell;

/// 4,000 events around T: half before it, in the older layout.
pub fn events() -> Vec<Event> {
    (0..4_000u64)
        .map(|i| Event {
            user_id: format!("user{:03}", i % 97),
            site: ["a", "b", "c"][(i % 3) as usize].into(),
            timestamp: T - 2_000 + i,
        })
        .collect()
}

pub fn load<S: Store>(store: &S, events: &[Event])
where
    S::Error: std::fmt::Debug,
{
    for e in events {
        // Rows before the cut-over as the older binary wrote them.
        let phase = if e.timestamp < T {
            Phase::Old
        } else {
            Phase::Split
        };
        store
            .put_row_in(phase, e, &e.timestamp.to_be_bytes())
            .expect("put");
    }
}

/// Every row the table holds in the declared layout, and every older row.
pub fn layouts<S: Store>(store: &S) -> (Vec<Vec<u8>>, Vec<Vec<u8>>)
where
    S::Error: std::fmt::Debug,
{
    let mut declared = Vec::new();
    let mut older = Vec::new();
    let all = KeyRange::new(Vec::new(), None, 0);
    for row in store.scan(&all, Direction::Forward).expect("scan") {
        let (key, _) = row.expect("row");
        match Event::decode_stored(&key) {
            Ok((_, true)) => declared.push(key),
            Ok((_, false)) => older.push(key),
            // A backfilled copy: the declared layout's.
            Err(_) => declared.push(key),
        }
    }
    (declared, older)
}

fn all_rows<S: Store>(store: &S, phase: Phase) -> Vec<(Event, Vec<u8>)>
where
    S::Error: std::fmt::Debug,
{
    let mut rows: Vec<(Event, Vec<u8>)> = Event::scan()
        .phase(phase)
        .run(store)
        .collect::<Result<_, _>>()
        .expect("scan");
    rows.sort_by(|a, b| {
        (&a.0.user_id, &a.0.site, a.0.timestamp).cmp(&(&b.0.user_id, &b.0.site, b.0.timestamp))
    });
    rows
}

fn expected(events: &[Event]) -> Vec<(Event, Vec<u8>)> {
    let mut rows: Vec<(Event, Vec<u8>)> = events
        .iter()
        .map(|e| (e.clone(), e.timestamp.to_be_bytes().to_vec()))
        .collect();
    rows.sort_by(|a, b| {
        (&a.0.user_id, &a.0.site, a.0.timestamp).cmp(&(&b.0.user_id, &b.0.site, b.0.timestamp))
    });
    rows
}

#[test]
fn a_backfill_dropped_mid_copy_resumes_from_its_checkpoint_and_loses_nothing() {
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("events.redb");
    let checkpoint = dir.path().join("backfill.checkpoint");
    let events = events();
    {
        let store = RedbStore::open(&db).expect("open");
        load(&store, &events);
        assert_eq!(all_rows(&store, Phase::Split), expected(&events));
        let mut backfill = Backfill::<Event>::new()
            .expect("history")
            .batch(300)
            .checkpoint(&checkpoint);
        for _ in 0..3 {
            let p = backfill.copy_batch(&store).expect("batch");
            assert!(!p.finished);
        }
        // The process dies here: store and backfill dropped.
    }
    let store = RedbStore::open(&db).expect("reopen");
    let (declared, _) = layouts(&store);
    assert_eq!(
        declared.len(),
        2_000 + 900,
        "3 batches of 300 copied before the crash"
    );
    // Reads in Split ignore the copies.
    assert_eq!(all_rows(&store, Phase::Split), expected(&events));
    let mut backfill = Backfill::<Event>::new()
        .expect("history")
        .batch(300)
        .checkpoint(&checkpoint);
    let done = backfill.copy(&store).expect("copy");
    assert!(done.finished);
    assert_eq!(
        done.rows_done, 2_000,
        "every older row once, over both runs"
    );
    assert!(
        done.remaining.iter().all(|(_, n)| *n == 0),
        "{:?}",
        done.remaining
    );
    // Re-running the copy is a no-op.
    let again = Backfill::<Event>::new()
        .expect("history")
        .batch(300)
        .copy(&store)
        .expect("again");
    assert_eq!((again.rows_done, again.rows_written), (2_000, 0));
    let (declared, older) = layouts(&store);
    assert_eq!((declared.len(), older.len()), (4_000, 2_000));
    let verified = backfill.verify(&store).expect("verify");
    assert!(verified.matches(), "{verified:?}");
    assert_eq!(
        verified.buckets().iter().map(|b| b.older_rows).sum::<u64>(),
        2_000
    );
    // Phase New reads the declared layout alone: the same rows.
    assert_eq!(all_rows(&store, Phase::New), expected(&events));
    let deleted = backfill.delete_older(&store, &verified).expect("delete");
    assert_eq!((deleted.step, deleted.rows_done), (Step::Delete, 2_000));
    let (declared, older) = layouts(&store);
    assert_eq!((declared.len(), older.len()), (4_000, 0));
    assert_eq!(all_rows(&store, Phase::New), expected(&events));
}

/// `events` loaded, copied in batches of 500 with `checkpoint`, verified.
fn loaded_and_copied(
    store: &RedbStore,
    events: &[Event],
    checkpoint: &std::path::Path,
) -> (Backfill<Event>, keyschema::backfill::Verification) {
    load(store, events);
    let mut backfill = Backfill::<Event>::new()
        .expect("history")
        .batch(500)
        .checkpoint(checkpoint);
    backfill.copy(store).expect("copy");
    let verified = backfill.verify(store).expect("verify");
    (backfill, verified)
}

/// A store whose writes fail after a number of batches.
struct Failing<'s> {
    inner: &'s RedbStore,
    writes_left: Cell<usize>,
}

fn io(e: impl std::fmt::Display) -> std::io::Error {
    std::io::Error::other(e.to_string())
}

impl Store for Failing<'_> {
    type Error = std::io::Error;
    type Rows<'a>
        = Box<dyn Iterator<Item = Result<keyschema::store::Row, std::io::Error>> + 'a>
    where
        Self: 'a;
    common::lend_scanned_rows!();
    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, Self::Error> {
        self.inner.get(key).map_err(io)
    }
    fn write_batch(&self, batch: &[Mutation]) -> Result<(), Self::Error> {
        if self.writes_left.get() == 0 {
            // Half of the batch lands, then the write fails.
            self.inner
                .write_batch(&batch[..batch.len() / 2])
                .map_err(io)?;
            return Err(io("injected: the process died mid-batch"));
        }
        self.writes_left.set(self.writes_left.get() - 1);
        self.inner.write_batch(batch).map_err(io)
    }
    fn scan(&self, range: &KeyRange, direction: Direction) -> Result<Self::Rows<'_>, Self::Error> {
        let rows = self.inner.scan(range, direction).map_err(io)?;
        Ok(Box::new(rows.map(|r| r.map_err(io))))
    }
    fn compare_and_write(&self, batch: &[Cas]) -> Result<Vec<bool>, Self::Error> {
        if self.writes_left.get() == 0 {
            // Half of the batch lands, then the write fails.
            self.inner
                .compare_and_write(&batch[..batch.len() / 2])
                .map_err(io)?;
            return Err(io("injected: the process died mid-batch"));
        }
        self.writes_left.set(self.writes_left.get() - 1);
        self.inner.compare_and_write(batch).map_err(io)
    }
}

#[test]
fn a_delete_that_fails_mid_batch_resumes_and_deletes_each_older_row_once() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = RedbStore::open(dir.path().join("t.redb")).expect("open");
    let checkpoint = dir.path().join("cp");
    let events = events();
    let (mut backfill, verified) = loaded_and_copied(&store, &events, &checkpoint);
    let failing = Failing {
        inner: &store,
        writes_left: Cell::new(2),
    };
    let err = backfill
        .delete_older(&failing, &verified)
        .expect_err("the third batch fails");
    assert!(matches!(err, BackfillError::Store(_)), "{err}");
    let resumed = Backfill::<Event>::new()
        .expect("history")
        .batch(500)
        .checkpoint(&checkpoint)
        .delete_older(&store, &verified)
        .expect("resume");
    assert!(resumed.finished);
    let (declared, older) = layouts(&store);
    assert_eq!((declared.len(), older.len()), (4_000, 0));
    assert_eq!(all_rows(&store, Phase::New), expected(&events));
}

#[test]
fn delete_refuses_a_verification_that_does_not_match() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = RedbStore::open(dir.path().join("t.redb")).expect("open");
    load(&store, &events());
    let mut backfill = Backfill::<Event>::new().expect("history").batch(700);
    backfill.copy_batch(&store).expect("one batch only");
    let verified = backfill.verify(&store).expect("verify");
    assert!(!verified.matches());
    let err = backfill
        .delete_older(&store, &verified)
        .expect_err("refused");
    assert!(
        err.to_string().contains("no older row was deleted"),
        "{err}"
    );
    let (_, older) = layouts(&store);
    assert_eq!(older.len(), 2_000);
}

#[test]
fn a_migration_moves_every_row_through_old_dual_and_new() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = RedbStore::open(dir.path().join("t.redb")).expect("open");
    let things: Vec<Thing> = (0..1_000u64)
        .map(|id| Thing {
            id,
            seq: (id % 7) as u32,
        })
        .collect();
    for t in &things[..600] {
        store.put_row_in(Phase::Old, t, b"v").expect("put");
    }
    // Dual: new writes go to both layouts while the backfill runs.
    for t in &things[600..] {
        store.put_row_in(Phase::Dual, t, b"v").expect("put");
    }
    let read = |phase| -> Vec<u64> {
        let mut ids: Vec<u64> = Thing::scan()
            .phase(phase)
            .run(&store)
            .map(|r| r.map(|(t, _)| t.id))
            .collect::<Result<_, _>>()
            .expect("scan");
        ids.sort();
        ids
    };
    let all: Vec<u64> = (0..1_000).collect();
    assert_eq!(read(Phase::Dual), all);
    let mut backfill = Backfill::<Thing>::new().expect("history").batch(128);
    let copied = backfill.copy(&store).expect("copy");
    assert_eq!(copied.rows_done, 1_000);
    let verified = backfill.verify(&store).expect("verify");
    assert!(verified.matches(), "{verified:?}");
    assert_eq!(read(Phase::New), all);
    backfill.delete_older(&store, &verified).expect("delete");
    assert_eq!(read(Phase::New), all);
    // Every row is where a get in New finds it.
    for t in &things {
        assert!(
            store.get_row_in(Phase::New, t).expect("get").is_some(),
            "{t:?}"
        );
    }
}

fn event(user: &str, ts: u64) -> Event {
    Event {
        user_id: user.into(),
        site: "s".into(),
        timestamp: ts,
    }
}

fn get(
    store: &impl Store<Error = keyschema::KeyTooLong>,
    phase: Phase,
    e: &Event,
) -> Option<Vec<u8>> {
    store
        .get_row_in(phase, e)
        .expect("get")
        .map(|(_, value)| value)
}

/// Item 1: an older binary (which knows the older layout alone) deletes
/// and updates rows after the copy. Before, the copy never looked at the
/// declared rows again: the deleted row came back in `New` and `verify`
/// reported only a count. Now a copy pass makes the declared layout hold
/// what the older one holds.
#[test]
fn a_delete_and_an_update_by_the_older_binary_after_the_copy_reach_the_declared_layout() {
    use keyschema::store::MemoryStore;
    let store = MemoryStore::new();
    let (gone, changed, kept) = (event("u1", T - 3), event("u2", T - 2), event("u3", T - 1));
    for e in [&gone, &changed, &kept] {
        store.put_row_in(Phase::Old, e, b"v1").expect("put");
    }
    let mut backfill = Backfill::<Event>::new().expect("history");
    backfill.copy(&store).expect("copy");
    assert!(backfill.verify(&store).expect("verify").matches());
    // The older binary: its own keys only.
    let older = |e: &Event| e.encode_older().expect("a history");
    store.delete(&older(&gone)).expect("delete");
    store.put(&older(&changed), b"v2").expect("put");
    let verified = backfill.verify(&store).expect("verify");
    assert!(!verified.matches(), "{verified:?}");
    assert_eq!((verified.mismatched(), verified.uncovered()), (2, 0));
    let err = backfill
        .delete_older(&store, &verified)
        .expect_err("refused");
    assert!(matches!(err, BackfillError::NotVerified { .. }), "{err}");
    // A finished copy starts a new pass: it removes the orphan and takes
    // the new value.
    let again = backfill.copy(&store).expect("copy again");
    assert_eq!((again.rows_done, again.rows_written), (2, 2));
    let verified = backfill.verify(&store).expect("verify");
    assert!(verified.matches(), "{verified:?}");
    assert_eq!(get(&store, Phase::New, &gone), None);
    assert_eq!(get(&store, Phase::New, &changed), Some(b"v2".to_vec()));
    assert_eq!(get(&store, Phase::New, &kept), Some(b"v1".to_vec()));
    backfill.delete_older(&store, &verified).expect("delete");
    assert_eq!(get(&store, Phase::New, &gone), None);
    assert_eq!(store.len(), 2);
}

/// Another writer's operation on the store.
type Writer<'a> = Box<dyn FnOnce(&keyschema::store::MemoryStore) + 'a>;

/// A store that runs another writer's operation just before its next
/// compare-and-set: the instant between the backfill's read and its write.
struct Interleaved<'a> {
    inner: keyschema::store::MemoryStore,
    before_cas: std::cell::RefCell<Option<Writer<'a>>>,
}

impl Store for Interleaved<'_> {
    type Error = keyschema::KeyTooLong;
    type Rows<'b>
        = <keyschema::store::MemoryStore as Store>::Rows<'b>
    where
        Self: 'b;
    type Lent<'a>
        = <keyschema::store::MemoryStore as Store>::Lent<'a>
    where
        Self: 'a;
    fn scan_into(
        &self,
        range: &KeyRange,
        direction: Direction,
    ) -> Result<Self::Lent<'_>, Self::Error> {
        self.inner.scan_into(range, direction)
    }
    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, Self::Error> {
        self.inner.get(key)
    }
    fn write_batch(&self, batch: &[Mutation]) -> Result<(), Self::Error> {
        self.inner.write_batch(batch)
    }
    fn scan(&self, range: &KeyRange, direction: Direction) -> Result<Self::Rows<'_>, Self::Error> {
        self.inner.scan(range, direction)
    }
    fn compare_and_write(&self, batch: &[Cas]) -> Result<Vec<bool>, Self::Error> {
        if let Some(writer) = self.before_cas.borrow_mut().take() {
            writer(&self.inner);
        }
        self.inner.compare_and_write(batch)
    }
}

/// Item 1: a writer in `Split` updates or deletes a row between the copy's
/// read of it and its write. The copy never overwrites the newer row and
/// never brings the deleted one back.
#[test]
fn a_write_between_the_copys_read_and_its_write_wins() {
    let row = event("u1", T - 1);
    for (writer, expected) in [
        (Some(b"newer".as_slice()), Some(b"newer".to_vec())),
        (None, None),
    ] {
        let store = Interleaved {
            inner: keyschema::store::MemoryStore::new(),
            before_cas: Default::default(),
        };
        store.put_row_in(Phase::Old, &row, b"older").expect("put");
        let r = row.clone();
        *store.before_cas.borrow_mut() = Some(Box::new(move |s| match writer {
            Some(value) => s.put_row_in(Phase::Split, &r, value).expect("put"),
            None => s.delete_row_in(Phase::Split, &r).expect("delete"),
        }));
        let mut backfill = Backfill::<Event>::new().expect("history");
        backfill.copy(&store).expect("copy");
        assert_eq!(get(&store.inner, Phase::Split, &row), expected);
        assert_eq!(get(&store.inner, Phase::New, &row), expected, "{writer:?}");
        assert!(backfill.verify(&store).expect("verify").matches());
    }
}

/// Item 2: a row the older binary wrote past the cut-over (a rolling
/// deploy). Before, the copy skipped it, `verify` matched and
/// `delete_older` left it stored and unreachable. Now `verify` counts it,
/// the delete refuses, and the copy moves it (a newer declared row wins).
#[test]
fn a_row_the_older_binary_wrote_past_the_cut_over_is_counted_and_moved() {
    use keyschema::store::MemoryStore;
    let store = MemoryStore::new();
    let (late, both) = (event("u1", T + 5), event("u2", T + 6));
    store.put_row_in(Phase::Old, &late, b"late").expect("put");
    store.put_row_in(Phase::Old, &both, b"stale").expect("put");
    store
        .put_row_in(Phase::Split, &both, b"newer")
        .expect("put");
    store
        .put_row_in(Phase::Old, &event("u3", T - 1), b"v")
        .expect("put");
    let mut backfill = Backfill::<Event>::new().expect("history");
    let before = backfill.verify(&store).expect("verify");
    assert_eq!(before.stranded(), 2);
    assert!(!before.matches());
    let err = backfill.delete_older(&store, &before).expect_err("refused");
    assert!(
        err.to_string().contains("2 rows wait past the cut-over"),
        "{err}"
    );
    backfill.copy(&store).expect("copy");
    let after = backfill.verify(&store).expect("verify");
    assert!(after.matches(), "{after:?}");
    assert_eq!(get(&store, Phase::New, &late), Some(b"late".to_vec()));
    assert_eq!(get(&store, Phase::New, &both), Some(b"newer".to_vec()));
    // Split reads them too; the older layout holds only the row before T.
    assert_eq!(get(&store, Phase::Split, &late), Some(b"late".to_vec()));
    assert_eq!(store.len(), 4);
    backfill.delete_older(&store, &after).expect("delete");
    assert_eq!(store.len(), 3);
}

/// Item 3: a delete stopped by a failing store, resumed in a new process
/// with a new verification. Before, only the lost in-memory verification
/// allowed it: a fresh one did not match after a partial delete.
#[test]
fn a_delete_stopped_mid_way_resumes_in_a_new_process_with_a_new_verification() {
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("t.redb");
    let checkpoint = dir.path().join("cp");
    let events = events();
    {
        let store = RedbStore::open(&db).expect("open");
        let (mut backfill, verified) = loaded_and_copied(&store, &events, &checkpoint);
        let failing = Failing {
            inner: &store,
            writes_left: Cell::new(3),
        };
        backfill
            .delete_older(&failing, &verified)
            .expect_err("a batch fails");
        // The process dies: the verification is gone.
    }
    let text = std::fs::read_to_string(&checkpoint).expect("checkpoint");
    assert!(
        text.lines()
            .any(|l| l.starts_with("copy ") && l != "copy -"),
        "{text}"
    );
    assert!(
        text.lines()
            .any(|l| l.starts_with("delete ") && l != "delete -"),
        "{text}"
    );
    let store = RedbStore::open(&db).expect("reopen");
    let mut backfill = Backfill::<Event>::new()
        .expect("history")
        .batch(500)
        .checkpoint(&checkpoint);
    let fresh = backfill.verify(&store).expect("verify");
    assert!(!fresh.matches(), "some older rows are gone");
    assert!(fresh.covers(), "{fresh:?}");
    let done = backfill.delete_older(&store, &fresh).expect("resume");
    assert!(done.finished);
    assert_eq!(done.step, Step::Delete);
    let (declared, older) = layouts(&store);
    assert_eq!((declared.len(), older.len()), (4_000, 0));
    assert_eq!(all_rows(&store, Phase::New), expected(&events));
    // Another key type's verification allows nothing.
    let other = Backfill::<Thing>::new()
        .expect("history")
        .verify(&keyschema::store::MemoryStore::new())
        .expect("verify");
    assert!(other.matches());
    let err = backfill
        .delete_older(&store, &other)
        .expect_err("another key type's verification");
    assert!(matches!(err, BackfillError::OtherSchema { .. }), "{err}");
}

/// Item 3: a late write below the cut-over after a finished copy. Before,
/// the copy with the same checkpoint was a no-op and `verify` stayed
/// mismatched; now a finished copy starts a new pass.
#[test]
fn a_copy_run_again_after_it_finished_starts_a_new_pass() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = RedbStore::open(dir.path().join("t.redb")).expect("open");
    let checkpoint = dir.path().join("cp");
    load(&store, &events()[..100]);
    let run = || {
        Backfill::<Event>::new()
            .expect("history")
            .batch(30)
            .checkpoint(&checkpoint)
    };
    let first = run().copy(&store).expect("copy");
    assert_eq!((first.rows_done, first.rows_written), (100, 100));
    let late = event("late", T - 10_000);
    store.put_row_in(Phase::Old, &late, b"late").expect("put");
    assert!(!run().verify(&store).expect("verify").matches());
    let second = run().copy(&store).expect("copy");
    assert_eq!((second.rows_done, second.rows_written), (101, 1));
    assert!(run().verify(&store).expect("verify").matches());
}
