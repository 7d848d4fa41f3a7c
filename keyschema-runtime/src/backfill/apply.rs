//! How a batch of the backfill is written while other writers run: each
//! row's two keys are read, then set by compare-and-set, then checked, so
//! that no step overwrites a newer row or brings a deleted one back.
//!
//! The protocol is a state machine that asks for reads and compare-and-set
//! batches ([`Next`]) and takes their answers; the sync and the async
//! backfill drive it the same way.
//!
//! * **Sync** (`Dual`, and `Split` before the cut-over: the older layout is
//!   read, every writer writes both layouts): the declared key is made to
//!   hold what the older key holds, absent included, by a compare-and-set
//!   on what it held; then the older key is read again, and a row that a
//!   writer changed in between is done again.
//! * **Move** (a row the older binary wrote past the cut-over, and every
//!   row in the delete step: the declared layout is read): the declared
//!   key is set only if it is absent (a present one is newer), then the
//!   older key is deleted only if it still holds what was copied.

use crate::store::Cas;

/// How many times a row that writers keep changing is tried in one batch.
const ATTEMPTS: u32 = 8;

/// What a row of the older layout becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum How {
    /// The declared key is made equal to the older key.
    Sync,
    /// The row goes to the declared layout unless it is there, and leaves
    /// the older one.
    Move,
}

/// One row's two keys and what to do with them.
#[derive(Debug, Clone)]
pub(crate) struct Pair {
    pub(crate) older: Vec<u8>,
    pub(crate) declared: Vec<u8>,
    pub(crate) how: How,
}

/// A request the protocol makes.
#[derive(Debug)]
pub(crate) enum Next {
    /// The values of these keys (`None` when absent), in this order.
    Read(Vec<Vec<u8>>),
    /// Whether each compare-and-set applied, in this order.
    Write(Vec<Cas>),
    /// Every row is done.
    Done,
    /// This older key kept changing under the batch: it is left for the
    /// next run.
    Contended(Vec<u8>),
}

/// The answer to the last request.
#[derive(Debug)]
pub(crate) enum Answer {
    /// Nothing was asked yet.
    Start,
    /// The values read.
    Read(Vec<Option<Vec<u8>>>),
    /// Whether each write applied.
    Wrote(Vec<bool>),
}

/// What the request in flight was for.
#[derive(Debug)]
enum Stage {
    /// Nothing is in flight.
    Idle,
    /// Both keys of the pending rows.
    Both,
    /// The first writes: the row each is for, and the older value copied.
    First(Vec<(usize, Option<Vec<u8>>)>),
    /// The moves' deletes of the older key.
    Second(Vec<usize>),
    /// The synced rows' older keys, read again, with the value copied.
    Check(Vec<(usize, Option<Vec<u8>>)>),
}

/// The protocol for one batch of rows.
#[derive(Debug)]
pub(crate) struct Apply {
    pairs: Vec<Pair>,
    /// The rows of this round.
    pending: Vec<usize>,
    /// The rows of the next round (a writer changed them meanwhile).
    retry: Vec<usize>,
    stage: Stage,
    round: u32,
    /// Moves whose declared key holds the row: their older key goes next.
    deletes: Vec<(usize, Vec<u8>)>,
    /// Synced rows whose older key is read again.
    check: Vec<(usize, Option<Vec<u8>>)>,
    /// Compare-and-sets that applied.
    pub(crate) written: u64,
}

impl Apply {
    pub(crate) fn new(pairs: Vec<Pair>) -> Self {
        Apply {
            retry: (0..pairs.len()).collect(),
            pairs,
            pending: Vec::new(),
            stage: Stage::Idle,
            round: 0,
            deletes: Vec::new(),
            check: Vec::new(),
            written: 0,
        }
    }

    /// Takes the answer to the last request and makes the next one.
    pub(crate) fn step(&mut self, answer: Answer) -> Next {
        match (std::mem::replace(&mut self.stage, Stage::Idle), answer) {
            (Stage::Both, Answer::Read(values)) => {
                if let Some(writes) = self.plan(values) {
                    return Next::Write(writes);
                }
            }
            (Stage::First(rows), Answer::Wrote(applied)) => {
                self.count(&applied);
                for ((i, copied), ok) in rows.into_iter().zip(applied) {
                    match (ok, self.pairs[i].how, copied) {
                        (false, _, _) => self.retry.push(i),
                        (true, How::Sync, copied) => self.check.push((i, copied)),
                        (true, How::Move, Some(vo)) => self.deletes.push((i, vo)),
                        (true, How::Move, None) => {}
                    }
                }
            }
            (Stage::Second(rows), Answer::Wrote(applied)) => {
                self.count(&applied);
                for (i, ok) in rows.into_iter().zip(applied) {
                    if !ok {
                        self.retry.push(i);
                    }
                }
            }
            (Stage::Check(rows), Answer::Read(values)) => {
                for ((i, copied), now) in rows.into_iter().zip(values) {
                    if now != copied {
                        self.retry.push(i);
                    }
                }
            }
            (Stage::Idle, _) => {}
            // An answer that does not fit: the round's rows are done again.
            (_, _) => self.retry.extend(self.pending.iter().copied()),
        }
        self.request()
    }

    /// The first writes of a round, from both keys' values; `None` when
    /// no row needs one.
    fn plan(&mut self, values: Vec<Option<Vec<u8>>>) -> Option<Vec<Cas>> {
        let mut writes = Vec::new();
        let mut first = Vec::new();
        let mut values = values.into_iter();
        for &i in &self.pending {
            let (Some(vo), Some(vd)) = (values.next(), values.next()) else {
                // Fewer values than asked: the row is done again.
                self.retry.push(i);
                continue;
            };
            let pair = &self.pairs[i];
            match (pair.how, vo, vd) {
                (How::Sync, vo, vd) if vo == vd => {}
                (How::Sync, vo, vd) => {
                    writes.push(Cas {
                        key: pair.declared.clone(),
                        expect: vd,
                        set: vo.clone(),
                    });
                    first.push((i, vo));
                }
                (How::Move, None, _) => {}
                (How::Move, Some(vo), None) => {
                    writes.push(Cas::put_if_absent(pair.declared.clone(), vo.clone()));
                    first.push((i, Some(vo)));
                }
                (How::Move, Some(vo), Some(_)) => self.deletes.push((i, vo)),
            }
        }
        if writes.is_empty() {
            return None;
        }
        self.stage = Stage::First(first);
        Some(writes)
    }

    /// The request for where the batch stands.
    fn request(&mut self) -> Next {
        if !self.deletes.is_empty() {
            let deletes = std::mem::take(&mut self.deletes);
            let cas = deletes
                .iter()
                .map(|(i, vo)| Cas::delete_if(self.pairs[*i].older.clone(), vo.clone()))
                .collect();
            self.stage = Stage::Second(deletes.into_iter().map(|(i, _)| i).collect());
            return Next::Write(cas);
        }
        if !self.check.is_empty() {
            let check = std::mem::take(&mut self.check);
            let keys = check
                .iter()
                .map(|(i, _)| self.pairs[*i].older.clone())
                .collect();
            self.stage = Stage::Check(check);
            return Next::Read(keys);
        }
        // The round is over: on to the rows a writer changed meanwhile.
        self.pending = std::mem::take(&mut self.retry);
        self.pending.sort_unstable();
        self.pending.dedup();
        let Some(&first) = self.pending.first() else {
            return Next::Done;
        };
        if self.round >= ATTEMPTS {
            return Next::Contended(self.pairs[first].older.clone());
        }
        self.round += 1;
        self.stage = Stage::Both;
        Next::Read(
            self.pending
                .iter()
                .flat_map(|&i| [self.pairs[i].older.clone(), self.pairs[i].declared.clone()])
                .collect(),
        )
    }

    fn count(&mut self, applied: &[bool]) {
        self.written += applied.iter().filter(|a| **a).count() as u64;
    }
}
