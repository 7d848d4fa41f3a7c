//! Typed scans of part of a row: `scan.project::<P>()` runs the key type's
//! scan, asks the store for the projection's value fields only, and yields
//! projections ([`Projection`]).

use super::merge::Keyed;
use super::request::{PhaseKnown, ScanRequest, Unphased};
use super::{AsyncTypedRows, TypedRows};
use crate::key::RowKey;
use crate::range::ScanRangeSet;
use crate::record::Projection;
use crate::store::project_row;
use crate::store::{AsyncStore, RowError, Store};
use std::marker::PhantomData;
use std::pin::Pin;
use std::task::{Context, Poll};

/// A scan request read through the projection `V`
/// ([`ScanRequest::project`]).
#[derive(Debug, Clone)]
#[must_use = "a scan does nothing until it runs"]
pub struct ProjectedScan<K, V, P = Unphased> {
    request: ScanRequest<K, P>,
    projection: PhantomData<fn() -> V>,
}

impl<K: RowKey, P> ScanRequest<K, P> {
    /// Reads the matching rows as the projection `V`: the store fetches
    /// `V`'s value fields only (the columns of a Bigtable column filter,
    /// the attributes of a DynamoDB `ProjectionExpression`), and each row
    /// comes back as a `V`. Order, limit, direction, cursor and phase are
    /// the request's.
    pub fn project<V: Projection<Of = K>>(self) -> ProjectedScan<K, V, P> {
        ProjectedScan {
            request: self,
            projection: PhantomData,
        }
    }
}

impl<K: RowKey, V: Projection<Of = K>, P: PhaseKnown<K>> ProjectedScan<K, V, P> {
    /// The key ranges read: the request's ([`ScanRequest::ranges`]).
    pub fn ranges(&self) -> ScanRangeSet {
        self.request.ranges()
    }

    /// Runs the scan on `store`: the rows, as `V`.
    pub fn run<'s, S: Store>(&self, store: &'s S) -> Projected<TypedRows<'s, K, S>, V> {
        Projected::new(self.request.run(store))
    }

    /// Runs the scan on an async store: the rows, as `V`, the store
    /// fetching `V`'s value fields only.
    pub fn stream<S: AsyncStore>(&self, store: &S) -> Projected<AsyncTypedRows<K, S::Error>, V> {
        Projected::new(self.request.stream_reading(store, V::schema()))
    }
}

/// The rows of a projected scan, each a `V`. A row whose projected fields
/// do not read is an error item ([`RowError::Value`], naming the field
/// and the key); the scan goes on after it.
pub struct Projected<I, V> {
    rows: I,
    projection: PhantomData<fn() -> V>,
}

impl<I, V> Projected<I, V> {
    fn new(rows: I) -> Self {
        Projected {
            rows,
            projection: PhantomData,
        }
    }

    /// The scan underneath (for its cursor).
    pub fn inner(&self) -> &I {
        &self.rows
    }
}

/// A keyed row of `V::Of`, read as `V`.
fn project<V: Projection, E>(row: Result<Keyed<V::Of>, RowError<E>>) -> Result<V, RowError<E>> {
    let (key, row, value) = row?;
    project_row(key, row, &value)
}

impl<'s, K: RowKey, S: Store, V: Projection<Of = K>> Iterator
    for Projected<TypedRows<'s, K, S>, V>
{
    type Item = Result<V, RowError<S::Error>>;

    fn next(&mut self) -> Option<Self::Item> {
        Some(project(self.rows.next_keyed()?))
    }
}

impl<K: RowKey, E, V: Projection<Of = K>> futures_core::Stream
    for Projected<AsyncTypedRows<K, E>, V>
{
    type Item = Result<V, RowError<E>>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        this.rows.poll_keyed(cx).map(|row| row.map(project::<V, E>))
    }
}
