//! A scan request and the arguments of the builder's methods: equality or
//! a range on a component, and how to run the request.

use super::builder::{ScanStage, ScanState, Split};
use super::cursor::Cursor;
use super::merge::ScanOptions;
use super::plan::Plan;
use super::rows::TypedRows;
use super::stream::AsyncTypedRows;
use crate::encoding::{BucketKey, KeyArg, KeyComponent, TextOrdered};
use crate::error::ScanError;
use crate::history::{Cut, Phase};
use crate::key::{OneLayout, RowKey};
use crate::range::{Direction, KeyRange, ScanRangeSet, OLDER_LAYOUT};
use crate::store::{AsyncStore, Store};
use std::marker::PhantomData;
use std::ops::{Bound, Range, RangeFrom, RangeInclusive, RangeTo, RangeToInclusive};

/// Never implemented: the bound of the hidden scan methods that bind a field
/// out of key order. `M` names what to bind first.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "a scan binds the key's fields in key order: `{M}`",
    label = "bound before the fields that precede it in the key",
    note = "only a bound prefix of the key is one contiguous range of rows; bind the earlier fields first (`Key::scan().a(..).b(..)`), or bind a shorter prefix and filter the rows"
)]
pub trait BindInKeyOrder<M> {}

/// Marks an equality argument of a scan method.
#[doc(hidden)]
pub enum Equal {}

/// Marks a range argument of a scan method.
#[doc(hidden)]
pub enum Within {}

/// Whether a scan argument of this mode (equality or range) is exact on a
/// component of type `T` in a text key: every equality is; a range needs
/// [`TextOrdered`], whose message the compiler shows. (Implemented by the
/// mode, so that the mode is inferred from the argument first.)
#[doc(hidden)]
pub trait TextScan<T> {}
impl<T> TextScan<T> for Equal {}
impl<T: TextOrdered> TextScan<T> for Within {}

/// An argument to a scan builder method for a component of type `T`: a value
/// (equality; the scan may go on to the next component) or a range such as
/// `a..b`, `a..=b`, `a..`, `..b` (the last constraint of a scan).
///
/// `M` tells the two kinds apart; it is inferred and never written.
pub trait ScanArg<T, M> {
    /// What the scan becomes: the next builder stage after an equality, a
    /// finished [`ScanRequest`] after a range.
    type Output<S: ScanStage>;
    #[doc(hidden)]
    fn apply<S: ScanStage>(self, state: ScanState) -> Self::Output<S>;
}

impl<T: KeyComponent, A: KeyArg<T>> ScanArg<T, Equal> for A {
    type Output<S: ScanStage> = S;
    fn apply<S: ScanStage>(self, mut state: ScanState) -> S {
        state.push_equal::<T>(&self);
        S::from_state(state)
    }
}

macro_rules! range_arg {
    ($($range:ty => |$r:ident| ($lo:expr, $hi:expr)),* $(,)?) => {$(
        impl<T: KeyComponent, X: KeyArg<T>> ScanArg<T, Within> for $range {
            type Output<S: ScanStage> = ScanRequest<S::Key>;
            fn apply<S: ScanStage>(self, mut state: ScanState) -> ScanRequest<S::Key> {
                let $r = &self;
                state.set_range::<T, X>($lo, $hi);
                ScanRequest::from_state(state)
            }
        }
    )*};
}

range_arg! {
    Range<X> => |r| (Bound::Included(&r.start), Bound::Excluded(&r.end)),
    RangeInclusive<X> => |r| (Bound::Included(r.start()), Bound::Included(r.end())),
    RangeFrom<X> => |r| (Bound::Included(&r.start), Bound::Unbounded),
    RangeTo<X> => |r| (Bound::Unbounded, Bound::Excluded(&r.end)),
    RangeToInclusive<X> => |r| (Bound::Unbounded, Bound::Included(&r.end)),
    (Bound<X>, Bound<X>) => |r| (r.0.as_ref(), r.1.as_ref()),
}

/// An argument at a `bucket(field, WIDTH)` stage of a scan: a value of the
/// field (equality on both the bucket and the field; the scan goes on), or a
/// range of it (the scan ends, or fails if the range spans too many buckets).
pub trait BucketArg<T: BucketKey, M> {
    /// What the scan becomes.
    type Output<S: ScanStage>;
    #[doc(hidden)]
    fn apply<S: ScanStage>(self, state: ScanState, width: u64) -> Self::Output<S>;
}

impl<T: BucketKey, A: KeyArg<T>> BucketArg<T, Equal> for A {
    type Output<S: ScanStage> = S;
    fn apply<S: ScanStage>(self, mut state: ScanState, width: u64) -> S {
        // A KeyArg<T> of an integer always decodes back.
        let _ = state.push_bucket_equal::<T>(&self, width);
        S::from_state(state)
    }
}

macro_rules! bucket_range_arg {
    ($($range:ty => |$r:ident| ($lo:expr, $hi:expr)),* $(,)?) => {$(
        impl<T: BucketKey> BucketArg<T, Within> for $range {
            type Output<S: ScanStage> = Result<ScanRequest<S::Key>, ScanError>;
            fn apply<S: ScanStage>(self, state: ScanState, width: u64) -> Self::Output<S> {
                let $r = self;
                state.bucket_range::<T>($lo, $hi, width).map(ScanRequest::from_state)
            }
        }
    )*};
}

bucket_range_arg! {
    Range<T> => |r| (Bound::Included(r.start), Bound::Excluded(r.end)),
    RangeInclusive<T> => |r| (Bound::Included(*r.start()), Bound::Included(*r.end())),
    RangeFrom<T> => |r| (Bound::Included(r.start), Bound::Unbounded),
    RangeTo<T> => |r| (Bound::Unbounded, Bound::Excluded(r.end)),
    RangeToInclusive<T> => |r| (Bound::Unbounded, Bound::Included(r.end)),
    (Bound<T>, Bound<T>) => |r| (r.0, r.1),
}

/// A scan request: equality on a prefix of the components, maybe a range on
/// the next one, and how to run it.
///
/// ```
/// use keyschema::store::{MemoryStore, RowStore};
/// use keyschema::RowKey;
///
/// #[derive(RowKey, Debug, Clone, PartialEq)]
/// #[rowkey(salt = hash(user_id, site) % 8, then = user_id, site, rev(timestamp))]
/// struct Event { user_id: String, site: String, timestamp: u64 }
///
/// let store = MemoryStore::new();
/// for (site, ts) in [("a", 1), ("b", 2), ("a", 3), ("c", 4), ("b", 5)] {
///     let e = Event { user_id: "u1".into(), site: site.into(), timestamp: ts };
///     store.put_row(&e, b"")?;
/// }
/// // The user's rows sit in up to 8 buckets; the merge returns them in key
/// // order (by site, then newest first), two per page.
/// let mut page = Event::scan().user_id("u1").limit(2).run(&store);
/// let first: Vec<(String, u64)> = page.by_ref().map(|r| r.map(|(e, _)| (e.site, e.timestamp))).collect::<Result<_, _>>()?;
/// assert_eq!(first, [("a".to_string(), 3), ("a".to_string(), 1)]);
/// let rest: Vec<u64> = Event::scan().user_id("u1").after(page.cursor()).run(&store)
///     .map(|r| r.map(|(e, _)| e.timestamp)).collect::<Result<_, _>>()?;
/// assert_eq!(rest, [5, 2, 4]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
#[must_use = "a scan does nothing until it runs"]
pub struct ScanRequest<K, P = Unphased> {
    state: ScanState,
    options: ScanOptions,
    /// For a key type with a layout history: the migration's phase.
    phase: Option<Phase>,
    key: PhantomData<fn() -> (K, P)>,
}

/// A scan request that names no [`Phase`]: it runs only for a key type
/// without a layout history ([`OneLayout`]).
#[derive(Debug, Clone, Copy)]
pub enum Unphased {}

/// A scan request that reads in the [`Phase`] given to
/// [`ScanRequest::phase`].
#[derive(Debug, Clone, Copy)]
pub enum Phased {}

/// Whether a request in phase state `Self` says where `K`'s rows are: a
/// [`Phased`] request always; an [`Unphased`] one when `K` has one layout.
/// A scan of a key type with a layout history that forgets its phase does
/// not compile (it would read one layout and miss the other's rows).
pub trait PhaseKnown<K> {}
impl<K: OneLayout> PhaseKnown<K> for Unphased {}
impl<K: RowKey> PhaseKnown<K> for Phased {}

/// The gate of the scan methods generated on the builder's stages: a store
/// `S` runs a scan without a phase of key types with one layout.
#[doc(hidden)]
pub trait ScanWithoutPhase<K> {}
impl<S: ?Sized, K: OneLayout> ScanWithoutPhase<K> for S {}

/// The gate of a builder stage's `ranges()`: a stage of a key type with one
/// layout has its ranges without a phase.
#[doc(hidden)]
pub trait StageWithoutPhase {}
impl<T: ScanStage> StageWithoutPhase for T where T::Key: OneLayout {}

impl<K: RowKey> ScanRequest<K> {
    pub(crate) fn from_state(state: ScanState) -> Self {
        ScanRequest {
            state,
            options: ScanOptions::default(),
            phase: None,
            key: PhantomData,
        }
    }

    /// For a key type with a layout history (`#[rowkey_was]`): reads as in
    /// `phase`. Such a key type's scans must name it (a scan that does not
    /// does not compile); see [`Phase`]. Without a history the phase
    /// changes nothing.
    pub fn phase(self, phase: Phase) -> ScanRequest<K, Phased> {
        ScanRequest {
            state: self.state,
            options: self.options,
            phase: Some(phase),
            key: PhantomData,
        }
    }

    /// Runs on `store` without a phase: the generated stage methods, gated
    /// by [`ScanWithoutPhase`].
    #[doc(hidden)]
    pub fn run_gated<'s, S: Store + ScanWithoutPhase<K>>(
        &self,
        store: &'s S,
    ) -> TypedRows<'s, K, S> {
        self.run_any(store)
    }

    /// The ranges without a phase: the generated stage method, gated by
    /// [`StageWithoutPhase`].
    #[doc(hidden)]
    pub fn ranges_gated(&self) -> ScanRangeSet {
        self.ranges_any()
    }

    /// [`run_gated`](Self::run_gated) on an async store.
    #[doc(hidden)]
    pub fn stream_gated<S: AsyncStore + ScanWithoutPhase<K>>(
        &self,
        store: &S,
    ) -> AsyncTypedRows<K, S::Error> {
        self.stream_any(store)
    }
}

impl<K: RowKey, P> ScanRequest<K, P> {
    /// The phase the request reads in, when the key type has a history
    /// (the types make sure a history's requests have one).
    pub(crate) fn read_phase(&self) -> Option<Phase> {
        K::history()?;
        Some(self.phase.unwrap_or(Phase::New))
    }

    /// The key ranges holding exactly the matching keys (whatever the
    /// cursor). For a key type with a layout history, the ranges of the
    /// layouts the phase reads: in `Split`, the older layout's ranges
    /// before the cut-over (their buckets tagged with
    /// [`OLDER_LAYOUT`](crate::OLDER_LAYOUT)) and the declared layout's from
    /// it, the range on the cut-over field cut in two.
    pub fn ranges(&self) -> ScanRangeSet
    where
        P: PhaseKnown<K>,
    {
        self.ranges_any()
    }

    fn ranges_any(&self) -> ScanRangeSet {
        let (Some(history), Some(phase)) = (K::history(), self.read_phase()) else {
            return self.state.ranges();
        };
        let older = |state: &ScanState| {
            state
                .ranges_in(history.older())
                .into_iter()
                .map(|r| {
                    let bucket = r.bucket() | OLDER_LAYOUT;
                    r.with_bucket(bucket)
                })
                .collect::<Vec<_>>()
        };
        let reads = history.reads(phase);
        let mut ranges: Vec<KeyRange> = match (reads.older, reads.declared, history.cut()) {
            (false, _, _) => return self.state.ranges(),
            (true, false, _) => older(&self.state),
            (true, true, Cut::Field { component, at }) => {
                match self.state.split_at(component, at()) {
                    Split::Older => older(&self.state),
                    Split::Declared => return self.state.ranges(),
                    Split::Both {
                        older: o, declared, ..
                    } => {
                        let mut all = older(&o);
                        all.extend(declared.ranges());
                        all
                    }
                }
            }
            (true, true, Cut::Migration) => {
                let mut all = older(&self.state);
                all.extend(self.state.ranges());
                all
            }
        };
        ranges.sort_by(|a, b| a.start().cmp(b.start()).then(a.bucket().cmp(&b.bucket())));
        ScanRangeSet::from_sorted_unchecked(ranges)
    }

    /// Returns at most `n` rows; each bucket is asked for at most `n + 1`
    /// (the row past the limit says whether the bucket ran out with the
    /// page, so that the page's cursor is finished when no row is left).
    /// `limit(0)` reads nothing and leaves the cursor where it was: a
    /// paging loop stops on an empty page as well as on a finished cursor.
    pub fn limit(mut self, n: usize) -> Self {
        self.options.limit = Some(n);
        self
    }

    /// An async scan ([`stream`](Self::stream)) keeps at most `n` requests
    /// in flight (at least 1; [`DEFAULT_CONCURRENCY`](crate::DEFAULT_CONCURRENCY)
    /// unless set). Merged,
    /// every bucket's first request is needed before the first row, `n` at
    /// a time; unordered, buckets are read in order and the next ones are
    /// fetched ahead, up to `n` at once, as earlier ones run out. A sync
    /// scan ignores it.
    pub fn concurrency(mut self, n: usize) -> Self {
        self.options.concurrency = n.max(1);
        self
    }

    /// Descending key order (for a `rev` timestamp: oldest first).
    pub fn reverse(mut self) -> Self {
        self.options.direction = Direction::Reverse;
        self.options.direction_chosen = true;
        self
    }

    /// Rows as they come, bucket after bucket, without merging into key
    /// order. Buckets are read in ascending order in both directions
    /// (`.reverse()` reverses the rows within each bucket).
    pub fn unordered(mut self) -> Self {
        self.options.ordered = false;
        self
    }

    /// Resumes after the rows a previous run of the same request returned.
    /// The scan continues in the cursor's direction; with
    /// [`reverse`](Self::reverse) as well (before or after this call), a
    /// cursor of a forward scan is refused as another request's
    /// ([`CursorError::OtherRequest`](crate::CursorError::OtherRequest) on
    /// the first row), never resumed the other way.
    pub fn after(mut self, cursor: Cursor) -> Self {
        if !self.options.direction_chosen {
            self.options.direction = cursor.direction;
        }
        self.options.after = Some(cursor);
        self
    }

    /// Runs the scan on an async store (Cloud Bigtable): one request per
    /// bucket, all in flight together, merged like [`run`](Self::run).
    pub fn stream<S: AsyncStore>(&self, store: &S) -> AsyncTypedRows<K, S::Error>
    where
        P: PhaseKnown<K>,
    {
        self.stream_any(store)
    }

    /// Runs the scan on `store`: decoded rows with their values.
    pub fn run<'s, S: Store>(&self, store: &'s S) -> TypedRows<'s, K, S>
    where
        P: PhaseKnown<K>,
    {
        self.run_any(store)
    }

    /// The request without its limit, and the limit.
    pub(crate) fn without_limit(&self) -> (Self, Option<usize>) {
        let mut options = self.options.clone();
        let limit = options.limit.take();
        let request = ScanRequest {
            state: self.state.clone(),
            options,
            phase: self.phase,
            key: PhantomData,
        };
        (request, limit)
    }

    pub(crate) fn stream_any<S: AsyncStore>(&self, store: &S) -> AsyncTypedRows<K, S::Error> {
        self.stream_reading(store, K::schema())
    }

    /// [`stream`](Self::stream), the store reading rows as `reads` says
    /// (a projection's schema reads part of each row).
    pub(crate) fn stream_reading<S: AsyncStore>(
        &self,
        store: &S,
        reads: &'static crate::schema::Schema,
    ) -> AsyncTypedRows<K, S::Error> {
        AsyncTypedRows::new(
            store,
            reads,
            self.plan(),
            self.describe(),
            self.options.clone(),
            self.read_phase(),
        )
    }

    fn run_any<'s, S: Store>(&self, store: &'s S) -> TypedRows<'s, K, S> {
        TypedRows::new(
            store,
            self.plan(),
            self.describe(),
            self.options.clone(),
            self.read_phase(),
        )
    }

    /// The ranges the drivers read, one per source: made on demand when
    /// the request needs one per salt bucket (a layout history's are
    /// listed, both layouts in one order).
    fn plan(&self) -> Plan {
        if K::history().is_some() {
            return Plan::Listed(self.ranges_any().into_iter().collect());
        }
        Plan::of(&self.state, K::schema())
    }

    /// What identifies the request for its cursor's fingerprint: the
    /// bound values and range, and the phase (the ranges follow from them).
    fn describe(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.state.describe(&mut |bytes| {
            out.extend_from_slice(&(bytes.len() as u64).to_be_bytes());
            out.extend_from_slice(bytes);
        });
        if let Some(phase) = self.read_phase() {
            out.extend_from_slice(format!("{phase:?}").as_bytes());
        }
        out
    }
}
