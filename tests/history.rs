//! A layout change on a live table (`#[rowkey_was(...)]`): both layouts'
//! keys, reads that see one table across the cut-over, and the backfill.

mod common;

use common::history::{Event, Thing, T};
use keyschema::history::Phase;
use keyschema::{DecodeError, RowKey};

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
    // salt is right for both layouts is the same row in both.
    let same = (0..10_000u64)
        .map(|id| Thing { id, seq: 1 })
        .find(|t| t.encode() == t.encode_older().expect("history"))
        .expect("some id hashes to the same bucket under % 8 and % 32");
    assert_eq!(Thing::decode_stored(&same.encode()), Ok((same, true)));
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
    // Event, unsalted before T: a salted key reads as an older row whose id
    // starts with the salt byte. Past T the cut-over decides (no older row
    // is past it); a backfilled copy of a row before T is undecided.
    let new = event("u1", T + 5);
    assert!(Event::decode_older(&new.encode()).is_ok());
    assert_eq!(Event::decode_stored(&new.encode()), Ok((new, true)));
    let copy = event("u1", T - 5).encode();
    assert!(Event::decode_older(&copy).is_ok());
    assert_eq!(
        Event::decode_stored(&copy),
        Err(DecodeError::AmbiguousLayout { schema: "Event" })
    );
    assert_eq!(
        DecodeError::AmbiguousLayout { schema: "Event" }.to_string(),
        "the key reads as a row of `Event` in both its declared and its older layout (`#[rowkey_was]`), and the cut-over does not decide which"
    );
}

mod scan_law {
    //! The scan law across a cut-over: a typed scan over a table in any
    //! migration state returns exactly the brute-force answer, in order,
    //! through limits, reverse and cursors, on memory and redb.

    use crate::common::history::{expected, request, requests, tables, Event, Request, Table, T};
    use keyschema::history::Phase;
    use keyschema::store::{MemoryStore, RedbStore, RowError, RowStore, Store};
    use keyschema::Cursor;
    use keyschema::DecodeError;
    use proptest::prelude::*;

    /// The table as it is stored in its phase: written through `put_row_in`
    /// in `Split` (rows before T in the older layout, which stay there in
    /// `New` until deleted), with copies of some of them in the new layout
    /// (what the backfill writes). A row whose key would be ambiguous is
    /// refused, and so is not in the table.
    pub fn load<S: Store>(store: &S, t: &mut Table)
    where
        S::Error: std::fmt::Debug,
    {
        let mut kept = Vec::new();
        for (row, &copied) in t.rows.iter().zip(&t.copied) {
            // Rows before the cut-over as the older binary wrote them.
            let phase = if row.timestamp < T {
                Phase::Old
            } else {
                Phase::Split
            };
            match store.put_row_in(phase, row, b"v") {
                Ok(()) => {}
                Err(RowError::Decode {
                    source: DecodeError::AmbiguousLayout { .. },
                    ..
                }) => continue,
                Err(e) => panic!("{e:?}"),
            }
            if row.timestamp < T && (copied || t.phase == Phase::New) {
                match store.put_row_in(Phase::New, row, b"v") {
                    Ok(()) => {}
                    Err(RowError::Decode {
                        source: DecodeError::AmbiguousLayout { .. },
                        ..
                    }) => {
                        // Its copy would be ambiguous: the backfill refuses it,
                        // so no table reaches `New` with the row.
                        if t.phase == Phase::New {
                            store.delete_row_in(Phase::Split, row).expect("delete");
                            continue;
                        }
                    }
                    Err(e) => panic!("{e:?}"),
                }
            }
            kept.push(row.clone());
        }
        t.rows = kept;
    }

    /// Every page of the request, resumed by cursor.
    pub fn pages<S: Store>(
        store: &S,
        t: &Table,
        r: &Request,
    ) -> Result<Vec<Event>, RowError<S::Error>> {
        let mut all = Vec::new();
        let mut after: Option<Cursor> = None;
        loop {
            let mut scan = request(r, t.phase);
            if let Some(c) = after.take() {
                scan = scan.after(c);
            }
            let mut rows = scan.run(store);
            let mut page = 0;
            for row in rows.by_ref() {
                all.push(row?.0);
                page += 1;
            }
            if r.limit.is_none() || page < r.limit.unwrap_or(0) {
                return Ok(all);
            }
            after = Some(rows.cursor());
            assert!(all.len() <= 200, "the scan does not end");
        }
    }

    pub fn check<S: Store>(store: &S, t: &Table, r: &Request) -> Result<(), TestCaseError>
    where
        S::Error: std::fmt::Debug,
    {
        let got = pages(store, t, r).map_err(|e| TestCaseError::fail(format!("{e:?}")))?;
        // Paged to the end: every row, whatever the limit.
        let want = expected(t, r);
        prop_assert_eq!(got, want, "{:?}", request(r, t.phase).ranges());
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]
        #[test]
        fn scans_across_a_cut_over_return_exactly_the_rows_memory(mut t in tables(), r in requests()) {
            let store = MemoryStore::new();
            load(&store, &mut t);
            check(&store, &t, &r)?;
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]
        #[test]
        fn scans_across_a_cut_over_return_exactly_the_rows_redb(mut t in tables(), r in requests()) {
            let dir = tempfile::tempdir().expect("temp dir");
            let store = RedbStore::open(dir.path().join("t.redb")).expect("open");
            load(&store, &mut t);
            check(&store, &t, &r)?;
        }
    }
}

mod backfill {
    //! The backfill on redb: copy, verify, delete; killed mid-way (the
    //! store dropped, or its writes failing) and resumed from the
    //! checkpoint, losing and duplicating nothing.

    use crate::common::history::{Event, Thing, T};
    use keyschema::backfill::{Backfill, BackfillError, Step};
    use keyschema::history::Phase;
    use keyschema::store::{Direction, Mutation, RedbStore, RowStore, Store};
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
        assert_eq!(again.rows_done, 2_000);
        let (declared, older) = layouts(&store);
        assert_eq!((declared.len(), older.len()), (4_000, 2_000));
        let verified = backfill.verify(&store).expect("verify");
        assert!(verified.matches(), "{verified:?}");
        assert_eq!(
            verified.buckets.iter().map(|b| b.older_rows).sum::<u64>(),
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
        fn scan(
            &self,
            range: &KeyRange,
            direction: Direction,
        ) -> Result<Self::Rows<'_>, Self::Error> {
            let rows = self.inner.scan(range, direction).map_err(io)?;
            Ok(Box::new(rows.map(|r| r.map_err(io))))
        }
    }

    #[test]
    fn a_delete_that_fails_mid_batch_resumes_and_deletes_each_older_row_once() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = RedbStore::open(dir.path().join("t.redb")).expect("open");
        let checkpoint = dir.path().join("cp");
        let events = events();
        load(&store, &events);
        let mut backfill = Backfill::<Event>::new()
            .expect("history")
            .batch(500)
            .checkpoint(&checkpoint);
        backfill.copy(&store).expect("copy");
        let verified = backfill.verify(&store).expect("verify");
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
        assert!(err.to_string().contains("the older rows are kept"), "{err}");
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
}

#[test]
fn gets_read_the_layout_the_phase_keeps_the_row_in() {
    use keyschema::store::{MemoryStore, RowStore};
    let store = MemoryStore::new();
    let old = event("u1", T - 1);
    let new = event("u1", T);
    // The older binary wrote the row before the cut-over.
    store.put_row_in(Phase::Old, &old, b"old").expect("put");
    store.put_row_in(Phase::Split, &new, b"new").expect("put");
    // Split: each row on its side of the cut-over.
    assert_eq!(
        Event::get_in(&store, Phase::Split, "u1", "s", T - 1).expect("get"),
        Some((old.clone(), b"old".to_vec()))
    );
    assert_eq!(
        Event::get_in(&store, Phase::Split, "u1", "s", T).expect("get"),
        Some((new.clone(), b"new".to_vec()))
    );
    assert_eq!(
        store.get_row_in(Phase::Split, &old).expect("get"),
        Some((old.clone(), b"old".to_vec()))
    );
    // New reads the declared layout: the older row is not there yet.
    assert_eq!(
        Event::get_in(&store, Phase::New, "u1", "s", T - 1).expect("get"),
        None
    );
    // After the backfill, New reads the declared layout for both.
    let mut backfill = keyschema::backfill::Backfill::<Event>::new().expect("history");
    backfill.copy(&store).expect("copy");
    assert_eq!(
        Event::get_in(&store, Phase::New, "u1", "s", T - 1).expect("get"),
        Some((old.clone(), b"old".to_vec()))
    );
    assert_eq!(
        store.get_row_in(Phase::New, &old).expect("get"),
        Some((old, b"old".to_vec()))
    );
}

#[test]
fn a_row_the_older_binary_wrote_past_the_cut_over_is_read() {
    use keyschema::store::{MemoryStore, RowStore};
    // A rolling deploy: the older binary, still running, writes a row at T
    // in the older layout. Before this was read nowhere.
    let store = MemoryStore::new();
    let stranded = event("u1", T + 5);
    store
        .put_row_in(Phase::Old, &stranded, b"late")
        .expect("put");
    assert_eq!(
        Event::get_in(&store, Phase::Split, "u1", "s", T + 5).expect("get"),
        Some((stranded.clone(), b"late".to_vec()))
    );
    assert_eq!(
        store.get_row_in(Phase::Split, &stranded).expect("get"),
        Some((stranded.clone(), b"late".to_vec()))
    );
    // The declared row, once written, is the one read.
    store
        .put_row_in(Phase::Split, &stranded, b"new")
        .expect("put");
    assert_eq!(
        store.get_row_in(Phase::Split, &stranded).expect("get"),
        Some((stranded, b"new".to_vec()))
    );
}

#[test]
fn writes_in_split_and_dual_reach_every_layout_a_phase_reads() {
    use keyschema::store::{MemoryStore, RowStore};
    let store = MemoryStore::new();
    let before = event("u1", T - 1);
    store.put_row_in(Phase::Old, &before, b"v1").expect("put");
    let mut backfill = keyschema::backfill::Backfill::<Event>::new().expect("history");
    backfill.copy(&store).expect("copy");
    // Replaced and then deleted in Split after the copy: both layouts.
    store
        .replace_row_in(Phase::Split, &before, b"v2")
        .expect("replace");
    assert_eq!(
        store.get_row_in(Phase::New, &before).expect("get"),
        Some((before.clone(), b"v2".to_vec()))
    );
    store.delete_row_in(Phase::Split, &before).expect("delete");
    assert_eq!(store.get_row_in(Phase::Split, &before).expect("get"), None);
    assert_eq!(store.get_row_in(Phase::New, &before).expect("get"), None);
    backfill.copy(&store).expect("copy again");
    assert_eq!(store.get_row_in(Phase::New, &before).expect("get"), None);
    assert!(store.is_empty());
}

/// The report (migration `% 8 -> % 16`, `Dual`, redb): a delete and
/// an update during `Dual`, after the copy, then the copy again. Before,
/// the plain `delete_row` and `put_row` touched the declared layout alone,
/// the copy brought the stale older rows back, and `verify` matched. Now
/// the plain forms do not compile for this type (tests/ui/needs-phase) and
/// the phase-aware ones reach both layouts.
#[test]
fn a_delete_and_an_update_in_dual_survive_the_copy() {
    use keyschema::backfill::Backfill;
    use keyschema::store::{RedbStore, RowStore};
    #[derive(RowKey, Debug, Clone, PartialEq)]
    #[rowkey(salt = hash(id) % 16, then = id, seq)]
    #[rowkey_was(salt = hash(id) % 8, until = migration)]
    struct Thing {
        id: u64,
        seq: u32,
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let store = RedbStore::open(dir.path().join("t.redb")).expect("open");
    let things: Vec<Thing> = (0..200u64).map(|id| Thing { id, seq: 1 }).collect();
    for t in &things {
        store.put_row_in(Phase::Old, t, b"v1").expect("put");
    }
    let mut backfill = Backfill::<Thing>::new().expect("history");
    backfill.copy(&store).expect("copy");
    // Keys that differ between the layouts (bucket % 8 != bucket % 16).
    let moved: Vec<&Thing> = things
        .iter()
        .filter(|t| t.encode() != t.encode_older().expect("older"))
        .take(2)
        .collect();
    let (deleted, updated) = (moved[0], moved[1]);
    store.delete_row_in(Phase::Dual, deleted).expect("delete");
    store
        .replace_row_in(Phase::Dual, updated, b"updated")
        .expect("replace");
    assert_eq!(store.get_row_in(Phase::Dual, deleted).expect("get"), None);
    assert_eq!(
        store.get_row_in(Phase::Dual, updated).expect("get"),
        Some((updated.clone(), b"updated".to_vec()))
    );
    backfill.copy(&store).expect("copy again");
    assert!(backfill.verify(&store).expect("verify").matches());
    assert_eq!(store.get_row_in(Phase::New, deleted).expect("get"), None);
    assert_eq!(
        store.get_row_in(Phase::New, updated).expect("get"),
        Some((updated.clone(), b"updated".to_vec()))
    );
    let rows: Vec<(u64, Vec<u8>)> = Thing::scan()
        .phase(Phase::New)
        .run(&store)
        .map(|r| r.map(|(t, v)| (t.id, v)))
        .collect::<Result<_, _>>()
        .expect("scan");
    assert_eq!(rows.len(), 199);
    assert!(rows.contains(&(updated.id, b"updated".to_vec())));
    assert!(!rows.iter().any(|(id, _)| *id == deleted.id));
}
