//! The core of a typed scan, whatever fetches its rows: the ranges, where
//! each bucket stands, the limit, the cursor, decoding, and the order of the
//! rows waiting in the merge. The sync driver ([`TypedRows`](super::TypedRows))
//! and the async one ([`AsyncTypedRows`](super::AsyncTypedRows)) share it, so
//! they merge identically.

use super::cursor::{fingerprint, Cursor, Position};
use super::plan::Plan;
use crate::encoding::bytes::copy_front;
use crate::error::CursorError;
use crate::history::{Cut, History, LayoutError, Phase};
use crate::key::RowKey;
use crate::range::{Direction, KeyRange, OLDER_LAYOUT};
use crate::schema::Schema;
use crate::store::RowError;
use std::cell::OnceCell;
use std::cmp::Ordering;

/// A typed row with the key bytes it was decoded from (a projection's
/// error names the key without encoding it again).
pub(crate) type Keyed<K> = (Vec<u8>, K, Vec<u8>);

/// The order of two rows' parts after the header (`a` of source `i`, `b`
/// of source `j`) in the merge: key order in `direction`, ties by source.
#[inline]
pub(super) fn before(a: &[u8], i: usize, b: &[u8], j: usize, direction: Direction) -> bool {
    let by_key = a.cmp(b);
    let by_key = match direction {
        Direction::Forward => by_key,
        Direction::Reverse => by_key.reverse(),
    };
    by_key.then(i.cmp(&j)) == Ordering::Less
}

/// How a typed scan runs: set through the methods of [`ScanRequest`](crate::ScanRequest).
#[derive(Debug, Clone)]
pub(crate) struct ScanOptions {
    pub limit: Option<usize>,
    /// An async scan's requests in flight at most.
    pub concurrency: usize,
    pub direction: Direction,
    /// Whether `reverse()` chose the direction (a cursor then does not
    /// override it: a mismatch is refused as another request's cursor).
    pub direction_chosen: bool,
    pub ordered: bool,
    pub after: Option<Cursor>,
    /// The most rows each source is asked for, when not one past the
    /// limit ([`RangeScan::per_range`](crate::RangeScan::per_range)).
    pub per_source: Option<usize>,
}

/// An async scan's requests in flight at most, unless set with
/// [`ScanRequest::concurrency`](crate::ScanRequest::concurrency).
pub const DEFAULT_CONCURRENCY: usize = 16;

impl Default for ScanOptions {
    fn default() -> Self {
        ScanOptions {
            limit: None,
            concurrency: DEFAULT_CONCURRENCY,
            direction: Direction::Forward,
            direction_chosen: false,
            ordered: true,
            after: None,
            per_source: None,
        }
    }
}

/// The fetch-independent state of a typed scan.
pub(crate) struct ScanCore {
    pub(super) options: ScanOptions,
    header: usize,
    /// The request's ranges, one per source, made on demand.
    pub(super) plan: Plan,
    /// What identifies the request, for its cursor's fingerprint.
    request: Vec<u8>,
    /// Computed when a cursor is given or asked for, not on every scan.
    fingerprint: OnceCell<[u8; 8]>,
    pub(super) started: bool,
    pub(super) returned: usize,
    /// A store error was returned: the scan is over.
    pub(super) failed: bool,
    /// The key type's layout, for the request's fingerprint.
    schema: &'static Schema,
    /// The cursor given to `after` belongs to another request, or the
    /// phase is not one of the key type's cut-over: returned as the first
    /// item, and nothing is read.
    refused: Option<Refused>,
    /// The scan was refused: its cursor stays at the start.
    was_refused: bool,
    /// A key type with a layout history: the phase read in, and the older
    /// layout's header length.
    history: Option<(Phase, usize)>,
    /// Where the given cursor resumes: merged, every source; unordered,
    /// source `resume_source` (those before it are done).
    resume: Position,
    resume_source: usize,
    /// The part after the header of the last row returned (merged), or of
    /// the last row returned from `current` (unordered): `last[..last_len]`
    /// (the buffer only grows); `has_last` says whether it is set.
    last: Vec<u8>,
    last_len: usize,
    has_last: bool,
    /// Unordered: the source being read; every one before it is done.
    pub(super) current: usize,
    /// Merged: the source of the last row returned (or of the cursor's).
    last_source: usize,
    /// Merged: the sources not yet read to their end.
    open: usize,
}

/// Why a scan reads nothing.
#[derive(Debug)]
pub(super) enum Refused {
    Cursor(CursorError),
    Layout(LayoutError),
}

impl ScanCore {
    pub(super) fn new(
        schema: &'static Schema,
        plan: Plan,
        request: Vec<u8>,
        mut options: ScanOptions,
        history: Option<(&'static History, Phase)>,
    ) -> Self {
        let mut core = ScanCore {
            header: schema.header_len(),
            plan,
            request,
            fingerprint: OnceCell::new(),
            started: false,
            returned: 0,
            failed: false,
            schema,
            refused: None,
            was_refused: false,
            history: history.map(|(h, phase)| (phase, h.older().header_len())),
            resume: Position::Start,
            resume_source: 0,
            last: Vec::new(),
            last_len: 0,
            has_last: false,
            current: 0,
            last_source: 0,
            open: 0,
            options: ScanOptions::default(),
        };
        let given = options.after.take();
        core.options = options;
        let refused = match given {
            Some(cursor)
                if cursor.fingerprint != *core.fingerprint()
                    || cursor.ordered != core.options.ordered =>
            {
                Some(Refused::Cursor(CursorError::OtherRequest {
                    schema: schema.name(),
                }))
            }
            Some(cursor) => {
                core.resume_source = cursor.source as usize;
                core.current = core.resume_source;
                core.last_source = core.resume_source;
                core.resume = cursor.position;
                if core.resume == Position::Done {
                    core.current = core.plan.len();
                }
                None
            }
            None => None,
        };
        core.refused = refused.or_else(|| {
            let (h, phase) = history?;
            h.check_phase(schema.name(), phase)
                .err()
                .map(Refused::Layout)
        });
        if core.refused.is_some() {
            // Nothing is read; the cursor stays at the start.
            core.was_refused = true;
            core.plan = Plan::Listed(Vec::new());
            core.resume = Position::Start;
            core.current = 0;
        }
        core
    }

    fn fingerprint(&self) -> &[u8; 8] {
        self.fingerprint.get_or_init(|| {
            fingerprint(
                self.schema,
                &self.request,
                self.options.direction,
                self.options.ordered,
            )
        })
    }

    /// The refusal of a foreign cursor or a phase, once; the scan then
    /// ends.
    pub(super) fn take_refusal<E>(&mut self) -> Option<RowError<E>> {
        let refused = self.refused.take()?;
        self.failed = true;
        Some(match refused {
            Refused::Cursor(e) => RowError::Cursor(e),
            Refused::Layout(e) => RowError::Layout(e),
        })
    }

    /// Where the components start in the keys of source `i`.
    #[inline]
    pub(super) fn header_of(&self, i: usize) -> usize {
        match self.history {
            Some((_, older)) if self.plan.bucket(i) & OLDER_LAYOUT != 0 => older,
            _ => self.header,
        }
    }

    /// Starts the scan: merged, every source is open until it runs out.
    pub(super) fn start(&mut self) {
        self.started = true;
        if self.options.ordered && self.resume != Position::Done {
            self.open = self.plan.len();
        }
    }

    /// Source `i`'s range narrowed past the cursor given; `None` when
    /// nothing is left in it.
    pub(super) fn range_for(&self, i: usize) -> Option<KeyRange> {
        let range = self.plan.range(i)?;
        let position = if self.options.ordered || i == self.resume_source {
            &self.resume
        } else if i < self.resume_source {
            return None;
        } else {
            return Some(range);
        };
        let body = match position {
            Position::Start => return Some(range),
            Position::Done => return None,
            Position::After(body) => body,
        };
        let header = self.header_of(i);
        let head = range.start().get(..header).unwrap_or(range.start());
        let mut at = Vec::with_capacity(head.len() + body.len() + 1);
        at.extend_from_slice(head);
        at.extend_from_slice(body);
        if self.options.ordered && i > self.resume_source {
            // Merged, a row of a later source with the same body comes
            // after the cursor's row: it resumes at the body.
            return range.at_or_after(&at, self.options.direction);
        }
        range.after(&at, self.options.direction)
    }

    /// Merged: the body of the cursor's row and its source, every source
    /// resuming after it (see [`range_for`](Self::range_for)); `None` at
    /// the start (or when done: then no source has a range).
    pub(super) fn resume_after(&self) -> Option<(&[u8], usize)> {
        match &self.resume {
            Position::After(body) => Some((body, self.resume_source)),
            Position::Start | Position::Done => None,
        }
    }

    #[inline]
    pub(super) fn limit_reached(&self) -> bool {
        self.failed || self.options.limit.is_some_and(|n| self.returned >= n)
    }

    /// The per-bucket limit pushed down to each source: one row past the
    /// scan's limit, so that a bucket that ran out with a full page is
    /// known done and the page's cursor is finished when no row is left
    /// (the row past the limit is never returned: the scan's limit stops
    /// first; a stream that ends is one that ran out, never one cut here).
    #[inline]
    pub(super) fn per_source_limit(&self) -> Option<usize> {
        // Across a layout history some rows of a source are skipped (keys
        // of the other layout): a source may need more than the limit.
        if let Some(n) = self.options.per_source {
            return Some(n);
        }
        let limit = self.options.limit.filter(|_| self.history.is_none())?;
        Some(limit.saturating_add(1))
    }

    /// Source `i` has no more rows: merged, one fewer open; unordered, the
    /// next source is read from its start.
    pub(super) fn mark_done(&mut self, i: usize) {
        if self.options.ordered {
            self.open = self.open.saturating_sub(1);
        } else if i == self.current {
            self.current += 1;
            self.has_last = false;
        }
    }

    /// Bookkeeping for a returned row of source `source`, then its
    /// decoding. No allocation but the row's own. `None`: the row belongs
    /// to the other layout of a history (or to the other side of the
    /// cut-over) and is skipped.
    #[inline]
    pub(super) fn emit<K: RowKey, E>(
        &mut self,
        source: usize,
        key: &[u8],
    ) -> Option<Result<K, RowError<E>>> {
        let decoded = match self.history {
            None => K::decode_scanned(key),
            Some(_) => self.classify::<K>(source, key)?,
        };
        self.returned(source, key);
        Some(decoded.map_err(|e| decode_error(key, e)))
    }

    /// [`emit`](Self::emit) into the row in `slot`, reusing what its fields
    /// own ([`RowKey::decode_scanned_into`]): no allocation once the slot
    /// holds a row.
    #[inline(always)]
    pub(super) fn emit_into<K: RowKey, E>(
        &mut self,
        source: usize,
        key: &[u8],
        slot: &mut Option<K>,
    ) -> Option<Result<(), RowError<E>>> {
        let decoded = match (self.history, slot.as_mut()) {
            (None, Some(row)) => row.decode_scanned_into(key),
            (None, None) => K::decode_scanned(key).map(|row| *slot = Some(row)),
            (Some(_), _) => self
                .classify::<K>(source, key)?
                .map(|row| *slot = Some(row)),
        };
        self.returned(source, key);
        Some(decoded.map_err(|e| decode_error(key, e)))
    }

    /// A key of a layout history read from source `source`: its row, or
    /// `None` when it is the other layout's (see [`classify`]).
    fn classify<K: RowKey>(
        &self,
        source: usize,
        key: &[u8],
    ) -> Option<Result<K, crate::error::DecodeError>> {
        let (phase, _) = self.history?;
        let older = self.plan.bucket(source) & OLDER_LAYOUT != 0;
        classify::<K>(key, older, phase).transpose()
    }

    /// Counts a row returned from source `source` and keeps its part after
    /// the header for the cursor.
    #[inline(always)]
    pub(super) fn returned(&mut self, source: usize, key: &[u8]) {
        self.returned += 1;
        self.last_source = source;
        let body = key.get(self.header_of(source)..).unwrap_or_default();
        self.last_len = copy_front(&mut self.last, body);
        self.has_last = true;
    }

    /// The part after the header of the last row returned.
    fn last_body(&self) -> &[u8] {
        self.last.get(..self.last_len).unwrap_or_default()
    }

    pub(super) fn cursor(&self) -> Cursor {
        let (source, position) = if self.was_refused || !self.started {
            (self.resume_source, self.resume.clone())
        } else if self.options.ordered {
            let position = if self.open == 0 {
                Position::Done
            } else if self.has_last {
                Position::After(self.last_body().to_vec())
            } else {
                self.resume.clone()
            };
            (self.last_source, position)
        } else if self.current >= self.plan.len() {
            (self.plan.len(), Position::Done)
        } else if self.has_last {
            (self.current, Position::After(self.last_body().to_vec()))
        } else if self.current == self.resume_source {
            (self.current, self.resume.clone())
        } else {
            (self.current, Position::Start)
        };
        Cursor {
            direction: self.options.direction,
            fingerprint: *self.fingerprint(),
            ordered: self.options.ordered,
            source: source as u32,
            position,
        }
    }
}

/// A key that does not decode, as the scan returns it.
fn decode_error<E>(key: &[u8], source: crate::error::DecodeError) -> RowError<E> {
    RowError::Decode {
        key: key.to_vec(),
        source,
    }
}

/// The row a key read from a range of one layout stands for, in `phase`:
/// `None` when it is not that layout's row (a key of the other layout that
/// the range covers, or a backfilled copy on the other side of the
/// cut-over); an error when it reads in neither layout, or when it reads
/// as a row of both and the cut-over does not decide.
fn classify<K: RowKey>(
    key: &[u8],
    older: bool,
    phase: Phase,
) -> Result<Option<K>, crate::error::DecodeError> {
    let Some(history) = K::history() else {
        return K::decode(key).map(Some);
    };
    let decode = |older: bool| {
        if older {
            K::decode_older(key)
        } else {
            K::decode(key)
        }
    };
    // Whether a row belongs to a layout in this phase: while a cut-over by
    // field is split, the rows before it are read from the older layout and
    // the others from the declared one (backfilled copies are skipped).
    let split = matches!(history.cut(), Cut::Field { .. }) && phase == Phase::Split;
    let belongs = |row: &K| !split || row.past_cut_over() != older;
    // The other layout is decoded only when it can change the answer.
    match decode(older) {
        // A key of the other layout inside this range, or damage.
        Err(e) => match decode(!older) {
            Ok(_) => Ok(None),
            Err(_) => Err(e),
        },
        // A key that also reads as another row of the declared layout is
        // that layout's (older writes refuse such keys; a backfilled copy
        // is one).
        Ok(_) if older && !history.same_components(K::schema()) && K::decode(key).is_ok() => {
            Ok(None)
        }
        Ok(row) => Ok(belongs(&row).then_some(row)),
    }
}
