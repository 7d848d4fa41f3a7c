//! An async store in front of a real one that watches how many of a
//! scan's streams wait for the server at once: a stream counts from the
//! poll that found it waiting until it yields. The rows come from the
//! real server.

use futures_util::Stream;
use keyschema::store::{AsyncStore, BoxFuture, BoxRowStream, Cas, Direction, Mutation, Row};
use keyschema::{KeyRange, Schema};
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};

#[derive(Clone)]
pub struct Watch<S> {
    pub inner: S,
    waiting: Arc<AtomicUsize>,
    most: Arc<AtomicUsize>,
    streams_polled: Arc<AtomicUsize>,
}

impl<S> Watch<S> {
    pub fn new(inner: S) -> Self {
        Watch {
            inner,
            waiting: Arc::default(),
            most: Arc::default(),
            streams_polled: Arc::default(),
        }
    }

    /// The most streams waiting at once since the last reset, and the
    /// streams polled at all.
    pub fn take(&self) -> (usize, usize) {
        (
            self.most.swap(0, Ordering::SeqCst),
            self.streams_polled.swap(0, Ordering::SeqCst),
        )
    }
}

struct Watched<E> {
    inner: BoxRowStream<E>,
    waiting: Arc<AtomicUsize>,
    most: Arc<AtomicUsize>,
    streams_polled: Arc<AtomicUsize>,
    polled: bool,
    is_waiting: bool,
}

impl<E> Stream for Watched<E> {
    type Item = Result<Row, E>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        if !this.polled {
            this.polled = true;
            this.streams_polled.fetch_add(1, Ordering::SeqCst);
        }
        let polled = this.inner.as_mut().poll_next(cx);
        match (this.is_waiting, polled.is_pending()) {
            (false, true) => {
                let now = this.waiting.fetch_add(1, Ordering::SeqCst) + 1;
                this.most.fetch_max(now, Ordering::SeqCst);
            }
            (true, false) => {
                this.waiting.fetch_sub(1, Ordering::SeqCst);
            }
            _ => {}
        }
        this.is_waiting = polled.is_pending();
        polled
    }
}

impl<E> Drop for Watched<E> {
    fn drop(&mut self) {
        if self.is_waiting {
            self.waiting.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

impl<S: AsyncStore + Send + Sync> AsyncStore for Watch<S> {
    type Error = S::Error;

    fn scan_stream(
        &self,
        range: &KeyRange,
        direction: Direction,
        limit: Option<usize>,
    ) -> BoxRowStream<S::Error> {
        self.watched(self.inner.scan_stream(range, direction, limit))
    }
    fn get_many(&self, keys: Vec<Vec<u8>>) -> BoxFuture<'_, Result<Vec<Row>, S::Error>> {
        self.inner.get_many(keys)
    }
    fn write(&self, batch: Vec<Mutation>) -> BoxFuture<'_, Result<(), S::Error>> {
        self.inner.write(batch)
    }
    fn compare_and_write(&self, batch: Vec<Cas>) -> BoxFuture<'_, Result<Vec<bool>, S::Error>> {
        self.inner.compare_and_write(batch)
    }
    fn write_for(
        &self,
        schema: &'static Schema,
        batch: Vec<Mutation>,
    ) -> BoxFuture<'_, Result<(), S::Error>> {
        self.inner.write_for(schema, batch)
    }
    fn scan_for(
        &self,
        schema: &'static Schema,
        range: &KeyRange,
        direction: Direction,
        limit: Option<usize>,
    ) -> BoxRowStream<S::Error> {
        self.watched(self.inner.scan_for(schema, range, direction, limit))
    }
    fn get_many_for(
        &self,
        schema: &'static Schema,
        keys: Vec<Vec<u8>>,
    ) -> BoxFuture<'_, Result<Vec<Row>, S::Error>> {
        self.inner.get_many_for(schema, keys)
    }
    fn check_key_type(&self, schema: &'static Schema) -> Result<(), S::Error> {
        self.inner.check_key_type(schema)
    }
    fn keeps_indexes(&self) -> bool {
        self.inner.keeps_indexes()
    }
}

impl<S: AsyncStore> Watch<S> {
    fn watched(&self, inner: BoxRowStream<S::Error>) -> BoxRowStream<S::Error> {
        Box::pin(Watched {
            inner,
            waiting: Arc::clone(&self.waiting),
            most: Arc::clone(&self.most),
            streams_polled: Arc::clone(&self.streams_polled),
            polled: false,
            is_waiting: false,
        })
    }
}
