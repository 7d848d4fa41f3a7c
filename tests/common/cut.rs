//! An async store in front of a real one whose writes stop after a budget
//! of requests: a process that dies between two steps of a write. Reads
//! and writes go to the real server; the cut requests never leave.

use futures_util::StreamExt;
use keyschema::store::{AsyncStore, BoxFuture, BoxRowStream, Cas, Direction, Mutation, Row};
use keyschema::{KeyRange, Schema};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

#[derive(Clone)]
pub struct Cut<S> {
    pub inner: S,
    budget: Arc<AtomicUsize>,
}

#[derive(Debug)]
pub enum CutError<E> {
    Cut,
    Inner(E),
}

impl<E: std::fmt::Display> std::fmt::Display for CutError<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CutError::Cut => f.write_str("the process died before this request"),
            CutError::Inner(e) => e.fmt(f),
        }
    }
}

impl<E: std::error::Error + 'static> std::error::Error for CutError<E> {}

impl<S> Cut<S> {
    pub fn new(inner: S) -> Self {
        Cut {
            inner,
            budget: Arc::new(AtomicUsize::new(usize::MAX)),
        }
    }

    /// Fails every write request after the next `requests` (`None`: never).
    pub fn cut_after(&self, requests: Option<usize>) {
        self.budget
            .store(requests.unwrap_or(usize::MAX), Ordering::SeqCst);
    }

    fn spend(&self) -> bool {
        self.budget
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |left| {
                left.checked_sub(1)
            })
            .is_ok()
    }
}

fn inner<T, E>(r: Result<T, E>) -> Result<T, CutError<E>> {
    r.map_err(CutError::Inner)
}

impl<S: AsyncStore + Send + Sync> AsyncStore for Cut<S>
where
    S::Error: 'static,
{
    type Error = CutError<S::Error>;

    fn scan_stream(
        &self,
        range: &KeyRange,
        direction: Direction,
        limit: Option<usize>,
    ) -> BoxRowStream<Self::Error> {
        Box::pin(self.inner.scan_stream(range, direction, limit).map(inner))
    }
    fn get_many(&self, keys: Vec<Vec<u8>>) -> BoxFuture<'_, Result<Vec<Row>, Self::Error>> {
        Box::pin(async move { inner(self.inner.get_many(keys).await) })
    }
    fn write(&self, batch: Vec<Mutation>) -> BoxFuture<'_, Result<(), Self::Error>> {
        Box::pin(async move {
            if !self.spend() {
                return Err(CutError::Cut);
            }
            inner(self.inner.write(batch).await)
        })
    }
    fn compare_and_write(&self, batch: Vec<Cas>) -> BoxFuture<'_, Result<Vec<bool>, Self::Error>> {
        Box::pin(async move {
            if !self.spend() {
                return Err(CutError::Cut);
            }
            inner(self.inner.compare_and_write(batch).await)
        })
    }
    fn write_for(
        &self,
        schema: &'static Schema,
        batch: Vec<Mutation>,
    ) -> BoxFuture<'_, Result<(), Self::Error>> {
        Box::pin(async move {
            if !self.spend() {
                return Err(CutError::Cut);
            }
            inner(self.inner.write_for(schema, batch).await)
        })
    }
    fn scan_for(
        &self,
        schema: &'static Schema,
        range: &KeyRange,
        direction: Direction,
        limit: Option<usize>,
    ) -> BoxRowStream<Self::Error> {
        Box::pin(
            self.inner
                .scan_for(schema, range, direction, limit)
                .map(inner),
        )
    }
    fn get_many_for(
        &self,
        schema: &'static Schema,
        keys: Vec<Vec<u8>>,
    ) -> BoxFuture<'_, Result<Vec<Row>, Self::Error>> {
        Box::pin(async move { inner(self.inner.get_many_for(schema, keys).await) })
    }
    fn check_key_type(&self, schema: &'static Schema) -> Result<(), Self::Error> {
        inner(self.inner.check_key_type(schema))
    }
    fn identity(&self) -> Option<String> {
        self.inner.identity()
    }
    fn keeps_indexes(&self) -> bool {
        self.inner.keeps_indexes()
    }
}
