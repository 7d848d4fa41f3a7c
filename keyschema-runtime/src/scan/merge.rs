//! The core of a typed scan, whatever fetches its rows: the ranges, where
//! each bucket stands, the limit, the cursor, decoding, and the order of the
//! rows waiting in the merge. The sync driver ([`TypedRows`](super::TypedRows))
//! and the async one ([`AsyncTypedRows`](super::AsyncTypedRows)) share it, so
//! they merge identically.

use super::cursor::{fingerprint, Cursor, Position};
use crate::error::CursorError;
use crate::history::{Cut, History, LayoutError, Phase};
use crate::key::RowKey;
use crate::range::{Direction, KeyRange, OLDER_LAYOUT};
use crate::schema::Schema;
use crate::store::{typed_row, Row, RowError, TypedRow};

/// A typed row with the key bytes it was decoded from (a projection's
/// error names the key without encoding it again).
pub(crate) type Keyed<K> = (Vec<u8>, K, Vec<u8>);

/// A keyed row without its key bytes.
pub(super) fn unkeyed<K, E>(
    row: Result<Keyed<K>, RowError<E>>,
) -> Result<TypedRow<K>, RowError<E>> {
    row.map(|(_, row, value)| (row, value))
}
use std::cmp::Ordering;

/// How a typed scan runs: set through the methods of [`ScanRequest`](crate::ScanRequest).
#[derive(Debug, Clone)]
pub(crate) struct ScanOptions {
    pub limit: Option<usize>,
    pub direction: Direction,
    /// Whether `reverse()` chose the direction (a cursor then does not
    /// override it: a mismatch is refused as another request's cursor).
    pub direction_chosen: bool,
    pub ordered: bool,
    pub after: Option<Cursor>,
}

impl Default for ScanOptions {
    fn default() -> Self {
        ScanOptions {
            limit: None,
            direction: Direction::Forward,
            direction_chosen: false,
            ordered: true,
            after: None,
        }
    }
}

/// A row waiting in the merge: one per bucket at most.
pub(super) struct Pending {
    pub(super) key: Vec<u8>,
    pub(super) value: Vec<u8>,
    pub(super) source: usize,
    /// Where the key's logical part starts (after prefix and salt).
    pub(super) header: usize,
    pub(super) reverse: bool,
}

impl Pending {
    pub(super) fn new(core: &ScanCore, source: usize, (key, value): Row) -> Self {
        Pending {
            key,
            value,
            source,
            header: core.header_of(core.ranges.get(source).map_or(0, KeyRange::bucket)),
            reverse: core.options.direction == Direction::Reverse,
        }
    }

    pub(super) fn body(&self) -> &[u8] {
        self.key.get(self.header..).unwrap_or_default()
    }
}

impl PartialEq for Pending {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Pending {}
impl PartialOrd for Pending {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Pending {
    /// `BinaryHeap` pops the greatest: the next row is the smallest body
    /// forward, the largest in reverse.
    fn cmp(&self, other: &Self) -> Ordering {
        let by_key = self
            .body()
            .cmp(other.body())
            .then(self.source.cmp(&other.source));
        if self.reverse {
            by_key
        } else {
            by_key.reverse()
        }
    }
}

/// The fetch-independent state of a typed scan.
pub(super) struct ScanCore {
    pub(super) options: ScanOptions,
    pub(super) header: usize,
    /// The request's ranges, one per bucket.
    pub(super) ranges: Vec<KeyRange>,
    /// Per opened source: its bucket and how far it was read.
    pub(super) positions: Vec<(u32, Position)>,
    pub(super) started: bool,
    pub(super) returned: usize,
    /// The logical part of the last row returned (ordered mode).
    pub(super) last: Option<Vec<u8>>,
    /// A store error was returned: the scan is over.
    pub(super) failed: bool,
    /// The key type's layout, for the request's fingerprint (computed only
    /// when a cursor is given or asked for, not on every scan).
    pub(super) schema: &'static Schema,
    /// The cursor given to `after` belongs to another request, or the
    /// phase is not one of the key type's cut-over: returned as the first
    /// item, and nothing is read.
    pub(super) refused: Option<Refused>,
    /// A key type with a layout history: the phase read in, and the older
    /// layout's header length.
    pub(super) history: Option<(Phase, usize)>,
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
        ranges: Vec<KeyRange>,
        mut options: ScanOptions,
        history: Option<(&'static History, Phase)>,
    ) -> Self {
        let foreign = options.after.as_ref().is_some_and(|cursor| {
            cursor.fingerprint != fingerprint(schema, &ranges, options.direction, options.ordered)
        });
        let refused = foreign.then(|| {
            options.after = None;
            Refused::Cursor(CursorError::OtherRequest {
                schema: schema.name(),
            })
        });
        let refused = refused.or_else(|| {
            let (h, phase) = history?;
            h.check_phase(schema.name(), phase)
                .err()
                .map(Refused::Layout)
        });
        let mut core = ScanCore {
            options,
            header: schema.header_len(),
            ranges,
            positions: Vec::new(),
            started: false,
            returned: 0,
            last: None,
            failed: false,
            schema,
            refused,
            history: history.map(|(h, phase)| (phase, h.older().header_len())),
        };
        if core.refused.is_some() {
            // Nothing is read; the cursor stays at the start.
            core.ranges.clear();
        }
        core
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

    pub(super) fn initial_position(&self, bucket: u32) -> Position {
        self.options
            .after
            .as_ref()
            .map_or(Position::Start, |c| c.position(bucket).clone())
    }

    /// Where the components start in the keys of a range tagged `bucket`.
    pub(super) fn header_of(&self, bucket: u32) -> usize {
        match self.history {
            Some((_, older)) if bucket & OLDER_LAYOUT != 0 => older,
            _ => self.header,
        }
    }

    /// The ranges to open, one per source, each narrowed past the cursor;
    /// `None` for a bucket with nothing left.
    pub(super) fn plan(&mut self) -> Vec<Option<KeyRange>> {
        self.started = true;
        let ranges = std::mem::take(&mut self.ranges);
        let plan = ranges
            .iter()
            .map(|range| {
                let position = self.initial_position(range.bucket());
                let narrowed = self.resume(range, &position);
                let position = if narrowed.is_some() {
                    position
                } else {
                    Position::Done
                };
                self.positions.push((range.bucket(), position));
                narrowed
            })
            .collect();
        self.ranges = ranges;
        plan
    }

    /// `range` narrowed to the rows after `position`; `None` when nothing is left.
    pub(super) fn resume(&self, range: &KeyRange, position: &Position) -> Option<KeyRange> {
        let body = match position {
            Position::Start => return Some(range.clone()),
            Position::Done => return None,
            Position::After(body) => body,
        };
        let header = self.header_of(range.bucket());
        let head = range.start().get(..header).unwrap_or(range.start());
        let mut at = Vec::with_capacity(head.len() + body.len() + 1);
        at.extend_from_slice(head);
        at.extend_from_slice(body);
        range.after(&at, self.options.direction)
    }

    pub(super) fn limit_reached(&self) -> bool {
        self.failed || self.options.limit.is_some_and(|n| self.returned >= n)
    }

    /// The per-bucket limit pushed down to each source.
    pub(super) fn per_source_limit(&self) -> Option<usize> {
        // Across a layout history some rows of a source are skipped (keys
        // of the other layout): a source may need more than the limit.
        self.options.limit.filter(|_| self.history.is_none())
    }

    pub(super) fn mark_done(&mut self, source: usize) {
        self.positions[source].1 = Position::Done;
    }

    /// Bookkeeping for a returned row, then its decoding. Reuses buffers:
    /// no allocation per row. `None`: the row belongs to the other layout
    /// of a history (or to the other side of the cut-over) and is skipped.
    pub(super) fn emit<K: RowKey, E>(
        &mut self,
        source: usize,
        (key, value): Row,
    ) -> Option<Result<Keyed<K>, RowError<E>>> {
        let bucket = self.ranges.get(source).map_or(0, KeyRange::bucket);
        let row = match self.history {
            None => None,
            Some((phase, _)) => match classify::<K>(&key, bucket & OLDER_LAYOUT != 0, phase) {
                Ok(Some(row)) => Some(row),
                Ok(None) => return None,
                Err(source) => {
                    self.returned += 1;
                    return Some(Err(RowError::Decode { key, source }));
                }
            },
        };
        self.returned += 1;
        let body = key.get(self.header_of(bucket)..).unwrap_or_default();
        if self.options.ordered {
            set_after(self.last.get_or_insert_with(Vec::new), body);
        } else {
            let position = &mut self.positions[source].1;
            match position {
                Position::After(buf) => set_after(buf, body),
                // The source may already be marked done.
                Position::Done => {}
                Position::Start => *position = Position::After(body.to_vec()),
            }
        }
        Some(match row {
            Some(row) => Ok((key, row, value)),
            None => typed_row(&key, value).map(|(row, value)| (key, row, value)),
        })
    }

    pub(super) fn cursor(&self) -> Cursor {
        let mut positions: Vec<(u32, Position)> = if self.started {
            self.positions
                .iter()
                .map(|(bucket, position)| {
                    let position = match (position, &self.last) {
                        (Position::Done, _) => Position::Done,
                        // Merged: every bucket restarts after the last row returned
                        // overall (rows pulled but not returned are read again).
                        (_, Some(last)) if self.options.ordered => Position::After(last.clone()),
                        (p, _) => p.clone(),
                    };
                    (*bucket, position)
                })
                .collect()
        } else {
            self.ranges
                .iter()
                .map(|r| (r.bucket(), self.initial_position(r.bucket())))
                .collect()
        };
        positions.sort_by_key(|(b, _)| *b);
        Cursor {
            direction: self.options.direction,
            fingerprint: fingerprint(
                self.schema,
                &self.ranges,
                self.options.direction,
                self.options.ordered,
            ),
            positions,
        }
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

fn set_after(buf: &mut Vec<u8>, body: &[u8]) {
    buf.clear();
    buf.extend_from_slice(body);
}
