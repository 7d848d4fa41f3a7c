//! The layout change as a model (issue 18), shared by every store: random
//! interleavings of typed puts, replaces, deletes, gets and paged scans by
//! the new binary, writes and deletes by the older binary on either side of
//! the cut-over, copy batches, crashes mid-batch, restarts in fresh
//! objects, verifications, the switch to `Phase::New` and the delete of the
//! older rows, checked against a plain map. Nothing lost, nothing brought
//! back, nothing read from another layout's rows as a wrong value.
//!
//! The older binary writes its own users' rows (`o1`, `o2`); the new one
//! its users' (`u1`, `u2`): during a rolling deploy one row is never
//! written by both binaries at once, since neither can order the other's
//! writes. A [`Driver`] runs each operation on one store, sync or async.

use super::history::{Event, Request, T};
use keyschema::backfill::{Progress, Verification};
use keyschema::history::Phase;
use keyschema::Cursor;
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};

#[derive(Debug, Clone)]
pub enum Op {
    /// The new binary, in the writers' phase.
    Put(Event, u8),
    Replace(Event, u8),
    Delete(Event),
    /// The older binary: the older layout alone (only while it runs, in
    /// `Split`).
    OldPut(Event, u8),
    OldDelete(Event),
    Get(Event),
    Scan(Request),
    CopyBatch,
    /// A copy batch whose store fails after this many compare-and-sets.
    CrashInCopy(usize),
    /// The process restarts: a fresh backfill from the checkpoint, the
    /// store reopened.
    Restart,
    /// Readers and writers move to `New` if a verification matches.
    Advance,
    /// The delete of the older rows, failing after this many
    /// compare-and-sets when given.
    DeleteOlder(Option<usize>),
    /// A put in `Phase::Dual`, which a cut-over by field does not have:
    /// refused, nothing written.
    WrongPhase(Event, u8),
}

pub fn event() -> impl Strategy<Value = (Event, bool)> {
    (
        prop::sample::select(vec!["u1", "u2", "o1", "o2"]),
        prop::sample::select(vec!["a", "b"]),
        T - 3..T + 3,
    )
        .prop_map(|(u, s, t)| {
            (
                Event {
                    user_id: u.into(),
                    site: s.into(),
                    timestamp: t,
                },
                u.starts_with('o'),
            )
        })
}

pub fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (event(), any::<u8>()).prop_map(|((e, old), v)| if old { Op::OldPut(e, v) } else { Op::Put(e, v) }),
        1 => (event(), any::<u8>()).prop_filter("new users", |((_, old), _)| !old).prop_map(|((e, _), v)| Op::Replace(e, v)),
        2 => event().prop_map(|(e, old)| if old { Op::OldDelete(e) } else { Op::Delete(e) }),
        2 => event().prop_map(|(e, _)| Op::Get(e)),
        2 => super::history::requests().prop_map(Op::Scan),
        3 => Just(Op::CopyBatch),
        1 => (1usize..6).prop_map(Op::CrashInCopy),
        1 => Just(Op::Restart),
        1 => Just(Op::Advance),
        1 => prop::option::of(1usize..6).prop_map(Op::DeleteOlder),
        1 => (event(), any::<u8>()).prop_map(|((e, _), v)| Op::WrongPhase(e, v)),
    ]
}

/// The operations of a store where the backfill is refused (DynamoDB):
/// writes by both binaries, gets, restarts, and scans that bind the
/// partition (user and site), as DynamoDB's typed scans must.
#[allow(dead_code)]
pub fn op_on_partitions() -> impl Strategy<Value = Op> {
    op().prop_filter("no backfill", |op| {
        !matches!(
            op,
            Op::CopyBatch | Op::CrashInCopy(_) | Op::Advance | Op::DeleteOlder(_)
        )
    })
    .prop_map(|op| match op {
        Op::Scan(mut r) => {
            r.bind = r.bind.max(2);
            Op::Scan(r)
        }
        op => op,
    })
}

/// A backfill as a new process makes it: batches of 3, from the checkpoint.
pub fn fresh_backfill(checkpoint: &std::path::Path) -> keyschema::backfill::Backfill<Event> {
    keyschema::backfill::Backfill::<Event>::new()
        .expect("a history")
        .batch(3)
        .checkpoint(checkpoint)
}

/// The scan of request `r` in `phase`, from `after` when given.
pub fn scan_from(
    r: &Request,
    phase: Phase,
    after: Option<Cursor>,
) -> keyschema::ScanRequest<Event, keyschema::Phased> {
    let scan = super::history::request(r, phase);
    match after {
        Some(c) => scan.after(c),
        None => scan,
    }
}

/// One page of a scan, and the cursor after it.
pub type Page = (Vec<(Event, Vec<u8>)>, Cursor);

/// One store under the model: each public operation, run to its end (an
/// async store's on a runtime). The driver keeps the store and the
/// backfill (batches of 3, with a checkpoint file); `restart` and a crash
/// replace them with fresh objects.
pub trait Driver {
    /// A put; the error's message when it is refused.
    fn put_in(&mut self, phase: Phase, e: &Event, value: &[u8]) -> Result<(), String>;
    fn replace_in(&mut self, phase: Phase, e: &Event, value: &[u8]);
    fn delete_in(&mut self, phase: Phase, e: &Event);
    /// The older binary's delete: its own layout's key alone.
    fn delete_older_key(&mut self, e: &Event);
    fn get_in(&mut self, phase: Phase, e: &Event) -> Option<Vec<u8>>;
    /// Whether the older layout holds `e`'s key.
    fn older_holds(&mut self, e: &Event) -> bool;
    /// One page of a scan from `after`, and the cursor after it.
    fn scan_page(
        &mut self,
        r: &Request,
        phase: Phase,
        after: Option<Cursor>,
    ) -> Result<Page, String>;
    /// One copy batch; the error's message when it is refused.
    fn copy_batch(&mut self) -> Result<(), String>;
    /// A copy batch that dies after `n` compare-and-sets; the backfill
    /// object is replaced by a fresh one (the process died). The error,
    /// if the batch did not end before.
    fn crash_in_copy(&mut self, n: usize) -> Option<String>;
    fn restart(&mut self);
    fn copy(&mut self) -> Progress;
    fn verify(&mut self) -> Verification;
    /// The delete of the older rows; with `fail`, dying after that many
    /// compare-and-sets (the backfill object replaced).
    fn delete_older(&mut self, verified: &Verification, fail: Option<usize>) -> Result<(), String>;
}

/// What the readers must see.
struct Model {
    rows: BTreeMap<Event, Vec<u8>>,
    /// Rows the older binary wrote past the cut-over, not yet written by
    /// the new binary: a get finds them; a scan in `Split` finds them once
    /// the copy moved them (the docs say so).
    stranded: BTreeSet<Event>,
    phase: Phase,
    /// A copy batch ran: the older binary no longer writes past the
    /// cut-over (what the cut-over assumes, as the README says).
    copy_began: bool,
    /// `delete_older` was called: its checkpoint says so from then on.
    delete_began: bool,
}

impl Model {
    /// Whether the older binary may write `e` now: before the cut-over
    /// while it runs; past it only until the copy begins.
    fn older_may_write(&self, e: &Event) -> bool {
        self.phase == Phase::Split && (e.timestamp < T || !self.copy_began)
    }
}

fn trace() -> bool {
    std::env::var("MODEL_TRACE").is_ok()
}

/// Runs `ops` on `driver` against the map.
pub fn run(driver: &mut dyn Driver, ops: &[Op]) -> Result<(), TestCaseError> {
    // The verification that allowed the switch, in this process's hands.
    let mut in_hand: Option<Verification> = None;
    let mut model = Model {
        rows: BTreeMap::new(),
        stranded: BTreeSet::new(),
        phase: Phase::Split,
        copy_began: false,
        delete_began: false,
    };
    for (step, op) in ops.iter().enumerate() {
        let at = format!("step {step}: {op:?}");
        match op {
            Op::Put(e, v) | Op::Replace(e, v) => {
                if matches!(op, Op::Put(..)) {
                    driver
                        .put_in(model.phase, e, &[*v])
                        .map_err(|e| TestCaseError::fail(format!("{at}: {e}")))?;
                } else {
                    driver.replace_in(model.phase, e, &[*v]);
                }
                model.rows.insert(e.clone(), vec![*v]);
                model.stranded.remove(e);
            }
            Op::Delete(e) => {
                driver.delete_in(model.phase, e);
                model.rows.remove(e);
                model.stranded.remove(e);
            }
            Op::OldPut(e, v) if model.older_may_write(e) => {
                driver
                    .put_in(Phase::Old, e, &[*v])
                    .map_err(|e| TestCaseError::fail(format!("{at}: {e}")))?;
                model.rows.insert(e.clone(), vec![*v]);
                if e.timestamp >= T {
                    model.stranded.insert(e.clone());
                }
            }
            Op::OldDelete(e) if model.older_may_write(e) => {
                driver.delete_older_key(e);
                model.rows.remove(e);
                model.stranded.remove(e);
            }
            Op::OldPut(..) | Op::OldDelete(_) => {}
            Op::Get(e) => {
                let got = driver.get_in(model.phase, e);
                prop_assert_eq!(got.as_ref(), model.rows.get(e), "{}", at);
            }
            Op::Scan(r) => check_scan(driver, &model, r, &at)?,
            Op::CopyBatch if model.phase == Phase::Split => {
                model.copy_began = true;
                driver
                    .copy_batch()
                    .map_err(|e| TestCaseError::fail(format!("{at}: {e}")))?;
                // A moved row is a declared row like any other.
                model.stranded.retain(|e| driver.older_holds(e));
            }
            Op::CrashInCopy(n) if model.phase == Phase::Split => {
                model.copy_began = true;
                if let Some(e) = driver.crash_in_copy(*n) {
                    prop_assert!(e.contains("injected"), "{}: {}", at, e);
                }
                model.stranded.retain(|e| driver.older_holds(e));
            }
            // Off the documented path: a copy once the delete began (in
            // this process or, by its checkpoint, in one before) is
            // refused and changes nothing.
            Op::CopyBatch if model.delete_began => {
                let refused = driver.copy_batch();
                prop_assert!(
                    refused
                        .as_ref()
                        .is_err_and(|e| e.contains("delete of the older rows began")),
                    "{}: {:?}",
                    at,
                    refused
                );
            }
            Op::CopyBatch | Op::CrashInCopy(_) => {}
            Op::WrongPhase(e, v) => {
                let refused = driver.put_in(Phase::Dual, e, &[*v]);
                prop_assert!(
                    refused
                        .as_ref()
                        .is_err_and(|e| e.contains("has no `Phase::Dual`")),
                    "{}: {:?}",
                    at,
                    refused
                );
            }
            Op::Restart => {
                in_hand = None;
                driver.restart();
            }
            Op::Advance if model.phase == Phase::Split => {
                // The documented path: the copy to the end of its pass,
                // then a verification; when a write landed behind the
                // pass's cursor, one more pass (no writer meanwhile), after
                // which it must match.
                model.copy_began = true;
                driver.copy();
                if !driver.verify().matches() {
                    let again = driver.copy();
                    prop_assert!(again.finished);
                }
                model.stranded.retain(|e| driver.older_holds(e));
                prop_assert!(
                    model.stranded.is_empty(),
                    "{}: a stranded row was not moved",
                    at
                );
                let verified = driver.verify();
                prop_assert!(verified.matches(), "{}: {:?}", at, verified);
                if trace() {
                    eprintln!("advance at {step} with {} rows", model.rows.len());
                }
                model.phase = Phase::New;
                in_hand = Some(verified);
            }
            Op::Advance => {}
            Op::DeleteOlder(fail) if model.phase == Phase::New => {
                // The documented path: the verification in hand; after a
                // restart, a new one (which allows resuming a delete that
                // began, not beginning one).
                let verified = match &in_hand {
                    Some(v) => v.clone(),
                    None => driver.verify(),
                };
                if fail.is_some() {
                    in_hand = None;
                }
                let done = driver.delete_older(&verified, *fail);
                // Begun unless refused before any row was touched.
                if !matches!(&done, Err(e) if e.contains("does not allow")) {
                    model.delete_began = true;
                }
                if trace() {
                    let short = done
                        .as_ref()
                        .map_err(|e| e.chars().take(30).collect::<String>());
                    eprintln!("delete {short:?} with {} rows", model.rows.len());
                }
                // Refused only for want of a matching verification.
                if let Err(e) = done {
                    prop_assert!(
                        e.contains("injected") || e.contains("does not allow"),
                        "{}: {}",
                        at,
                        e
                    );
                }
            }
            Op::DeleteOlder(_) => {}
        }
        // Every get agrees with the model after every step.
        for e in model.rows.keys() {
            let got = driver.get_in(model.phase, e);
            prop_assert_eq!(got.as_ref(), model.rows.get(e), "{} (row {:?})", at, e);
        }
    }
    Ok(())
}

/// A paged scan (limit and cursor) in the model's phase: every row it
/// returns holds the model's value, each once, in order; every row of the
/// model it covers is returned (a stranded row in `Split` may be missing,
/// as the docs say, until the copy moves it).
fn check_scan(
    driver: &mut dyn Driver,
    model: &Model,
    r: &Request,
    at: &str,
) -> Result<(), TestCaseError> {
    let mut got: Vec<(Event, Vec<u8>)> = Vec::new();
    let mut after: Option<Cursor> = None;
    loop {
        let (page, cursor) = driver
            .scan_page(r, model.phase, after.take())
            .map_err(|e| TestCaseError::fail(format!("{at}: {e}")))?;
        let n = page.len();
        got.extend(page);
        if r.limit.is_none() || n < r.limit.unwrap_or(0) {
            break;
        }
        after = Some(cursor);
        prop_assert!(got.len() <= 200, "{}: the scan does not end", at);
    }
    let table = super::history::Table {
        rows: model.rows.keys().cloned().collect(),
        copied: Vec::new(),
        phase: model.phase,
    };
    let want: Vec<Event> = super::history::expected(&table, r)
        .into_iter()
        .filter(|e| {
            model.phase != Phase::Split
                || !model.stranded.contains(e)
                || got.iter().any(|(g, _)| g == e)
        })
        .collect();
    let got_rows: Vec<Event> = got.iter().map(|(e, _)| e.clone()).collect();
    prop_assert_eq!(&got_rows, &want, "{}", at);
    for (e, v) in &got {
        prop_assert_eq!(Some(v), model.rows.get(e), "{}: value of {:?}", at, e);
    }
    Ok(())
}
