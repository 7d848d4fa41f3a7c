//! Reads: ReadRows through the chunk merger, resumed after the last
//! complete row on transient errors; gets, scans and the typed get.

use super::readrows::{Chunk, MergedRow, RowMerger};
use super::rows::{value_of, Reads};
use super::{is_retryable, rpc_error, BigtableError, BigtableStore, RowStream};
use crate::range::{Direction, KeyRange, ScanRangeSet};
use crate::store::{Row, RowError, TypedRow};
use futures_util::stream::{self, StreamExt};
use googleapis_tonic_google_bigtable_v2::google::bigtable::v2 as data;
use std::collections::VecDeque;

impl BigtableStore {
    /// The row under `key`, decoded, with its value; with a `random % N`
    /// salt every candidate bucket is read in one ReadRows request. The
    /// generated `K::get_async(&store, ...)` calls this.
    pub async fn get_row<K: crate::key::OneLayout>(
        &self,
        key: &[u8],
    ) -> Result<Option<TypedRow<K>>, RowError<BigtableError>> {
        crate::store::AsyncStore::get_row::<K>(self, key).await
    }

    /// When the row under `key` was last written: the newest timestamp of
    /// its cells (the value cell, or a whole row's), in microseconds since the Unix epoch (the server's clock; see
    /// [`BigtableStore`]). `None` when the row is absent. One attempt, no
    /// retry: a diagnostic, for the engineer asking "when did this change?".
    pub async fn written_at(&self, key: &[u8]) -> Result<Option<i64>, BigtableError> {
        let message = read_request(
            &self.table_name,
            None,
            &[],
            vec![key.to_vec()],
            Direction::Forward,
            Some(1),
        );
        let mut newest = None;
        self.read_once(message, |row| {
            newest = row.cells.iter().map(|c| c.timestamp_micros).max();
            false
        })
        .await?;
        Ok(newest)
    }

    /// One ReadRows request, one attempt and no retry (the diagnostics):
    /// each complete row to `row`, until it returns `false` or the stream
    /// ends.
    /// The first `limit` row keys of `range` in `direction`, whatever
    /// their cells (any family; only the keys travel: each row's first
    /// cell, its value stripped). One attempt: a tool's check that a
    /// schema document fits the table (rows under another prefix, salt
    /// bytes past the document's buckets) before it trusts an empty read.
    pub async fn keys_in(
        &self,
        range: &KeyRange,
        direction: Direction,
        limit: usize,
    ) -> Result<Vec<Vec<u8>>, BigtableError> {
        use data::row_filter::{Chain, Filter};
        let one = |f| data::RowFilter { filter: Some(f) };
        let mut message = read_request(
            &self.table_name,
            None,
            std::slice::from_ref(range),
            Vec::new(),
            direction,
            Some(limit.max(1)),
        );
        message.filter = Some(one(Filter::Chain(Chain {
            filters: vec![
                one(Filter::CellsPerRowLimitFilter(1)),
                one(Filter::StripValueTransformer(true)),
            ],
        })));
        let mut keys = Vec::new();
        self.read_once(message, |row| {
            keys.push(row.key);
            true
        })
        .await?;
        keys.truncate(limit);
        Ok(keys)
    }

    /// One ReadRows request, one attempt and no retry (the diagnostics):
    /// each complete row to `row`, until it returns `false` or the stream
    /// ends.
    pub(super) async fn read_once(
        &self,
        message: data::ReadRowsRequest,
        mut row: impl FnMut(MergedRow) -> bool,
    ) -> Result<(), BigtableError> {
        self.count_read_rows();
        let mut stream = self
            .data
            .clone()
            .read_rows(self.request(message).await?)
            .await
            .map_err(|s| rpc_error("ReadRows", 1, &s))?
            .into_inner();
        let mut merger = RowMerger::new(false);
        while let Some(response) = stream
            .message()
            .await
            .map_err(|s| rpc_error("ReadRows", 1, &s))?
        {
            for c in response.chunks {
                if let Some(merged) = merger.push(chunk(c))? {
                    if !row(merged) {
                        return Ok(());
                    }
                }
            }
        }
        Ok(())
    }

    /// The rows stored under any of `keys`, in key order, in one ReadRows
    /// request (absent keys are left out).
    pub async fn get_many(&self, keys: Vec<Vec<u8>>) -> Result<Vec<Row>, BigtableError> {
        self.get_many_in(None, keys).await
    }

    /// [`get_many`](Self::get_many) of whole rows as `reads` says, or raw values.
    pub(super) async fn get_many_in(
        &self,
        reads: Option<Reads>,
        keys: Vec<Vec<u8>>,
    ) -> Result<Vec<Row>, BigtableError> {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        let message = read_request(&self.table_name, reads, &[], keys, Direction::Forward, None);
        let rows = self.read(reads, message, Vec::new(), Direction::Forward, None);
        futures_util::TryStreamExt::try_collect(rows).await
    }

    /// The value under `key`.
    pub async fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, BigtableError> {
        let message = read_request(
            &self.table_name,
            None,
            &[],
            vec![key.to_vec()],
            Direction::Forward,
            Some(1),
        );
        let mut rows = self.read(None, message, Vec::new(), Direction::Forward, Some(1));
        match rows.next().await {
            Some(Ok((_, value))) => Ok(Some(value)),
            Some(Err(e)) => Err(e),
            None => Ok(None),
        }
    }

    /// The rows of one range, streamed, at most `limit` of them.
    pub fn scan(&self, range: &KeyRange, direction: Direction, limit: Option<usize>) -> RowStream {
        self.scan_in(None, range, direction, limit)
    }

    /// [`scan`](Self::scan) of whole rows as `reads` says, or raw values.
    pub(super) fn scan_in(
        &self,
        reads: Option<Reads>,
        range: &KeyRange,
        direction: Direction,
        limit: Option<usize>,
    ) -> RowStream {
        let ranges = vec![range.clone()];
        let message = read_request(
            &self.table_name,
            reads,
            &ranges,
            Vec::new(),
            direction,
            limit,
        );
        self.read(reads, message, ranges, direction, limit)
    }

    /// Every range of a set in one ReadRows request (one RowSet). The rows
    /// come in plain key order, bucket after bucket: the single-request
    /// alternative to the per-bucket merge.
    pub fn scan_set(
        &self,
        set: &ScanRangeSet,
        direction: Direction,
        limit: Option<usize>,
    ) -> RowStream {
        let ranges: Vec<KeyRange> = set.iter().cloned().collect();
        let message = read_request(
            &self.table_name,
            None,
            &ranges,
            Vec::new(),
            direction,
            limit,
        );
        self.read(None, message, ranges, direction, limit)
    }

    /// Streams a ReadRows request through the chunk merger, resuming after
    /// the last complete row on transient errors.
    fn read(
        &self,
        reads: Option<Reads>,
        message: data::ReadRowsRequest,
        ranges: Vec<KeyRange>,
        direction: Direction,
        limit: Option<usize>,
    ) -> RowStream {
        let state = ReadState {
            store: self.clone(),
            reads,
            message,
            ranges,
            direction,
            limit,
            received: 0,
            merger: RowMerger::new(direction == Direction::Reverse),
            stream: None,
            ready: VecDeque::new(),
            attempts: 0,
            done: false,
        };
        stream::unfold(state, |mut st| async move {
            let item = st.next_row().await?;
            Some((item, st))
        })
        .boxed()
    }
}

struct ReadState {
    store: BigtableStore,
    /// Whole rows' family and projection; `None` for raw values in `v:v`.
    reads: Option<Reads>,
    message: data::ReadRowsRequest,
    ranges: Vec<KeyRange>,
    direction: Direction,
    limit: Option<usize>,
    received: usize,
    merger: RowMerger,
    stream: Option<tonic::Streaming<data::ReadRowsResponse>>,
    /// Rows read and not yet returned, and in their place each row that
    /// has no value (an item error: the stream reads on).
    ready: VecDeque<Result<Row, BigtableError>>,
    attempts: u32,
    done: bool,
}

impl ReadState {
    async fn next_row(&mut self) -> Option<Result<Row, BigtableError>> {
        loop {
            if let Some(row) = self.ready.pop_front() {
                return Some(row);
            }
            if self.done {
                return None;
            }
            let stream = match self.stream.as_mut() {
                Some(stream) => stream,
                None => {
                    let Some(message) = self.resumed_request() else {
                        self.done = true;
                        continue;
                    };
                    self.attempts += 1;
                    let mut request = match self.store.request(message).await {
                        Ok(request) => request,
                        Err(e) => {
                            self.done = true;
                            return Some(Err(e));
                        }
                    };
                    if self.direction == Direction::Reverse {
                        // FeatureFlags { reverse_scans: true }, base64: the server
                        // refuses a reversed scan without it.
                        request.metadata_mut().insert(
                            "bigtable-features",
                            tonic::metadata::MetadataValue::from_static("CAE="),
                        );
                    }
                    self.store.count_read_rows();
                    match self.store.data.clone().read_rows(request).await {
                        Ok(response) => self.stream.insert(response.into_inner()),
                        Err(status) => {
                            if let Some(err) = self.retry_or_fail(&status).await {
                                return Some(Err(err));
                            }
                            continue;
                        }
                    }
                }
            };
            match stream.message().await {
                Ok(Some(response)) => {
                    for c in response.chunks {
                        match self.merger.push(chunk(c)) {
                            Ok(Some(row)) => {
                                // Progress: only the request in flight counts as an attempt.
                                self.attempts = 1;
                                self.received += 1;
                                let value = match self.reads {
                                    Some(reads) => super::rows::row_value(reads.family, row.cells),
                                    None => value_of(row.cells),
                                };
                                // A row without its value is reported in
                                // its place, and the rows after it read.
                                self.ready.push_back(match value {
                                    Some(value) => Ok((row.key, value)),
                                    None => Err(BigtableError::MissingValue { key: row.key }),
                                });
                            }
                            Ok(None) => {}
                            Err(e) => {
                                self.done = true;
                                self.ready.clear();
                                return Some(Err(e.into()));
                            }
                        }
                    }
                }
                Ok(None) => {
                    self.stream = None;
                    self.done = true;
                    if let Err(e) = self.merger.finish() {
                        return Some(Err(e.into()));
                    }
                }
                Err(status) => {
                    self.stream = None;
                    self.merger.discard_partial_row();
                    if let Some(err) = self.retry_or_fail(&status).await {
                        return Some(Err(err));
                    }
                }
            }
        }
    }

    /// Pauses and returns `None` when the error is retried; the final error otherwise.
    async fn retry_or_fail(&mut self, status: &tonic::Status) -> Option<BigtableError> {
        if is_retryable(status) && self.attempts < self.store.retry.attempts {
            self.store.pause(self.attempts).await;
            return None;
        }
        self.done = true;
        Some(rpc_error("ReadRows", self.attempts, status))
    }

    /// The request for what is left: ranges narrowed past the last complete
    /// row, the limit reduced by the rows received. `None` when nothing is left.
    fn resumed_request(&self) -> Option<data::ReadRowsRequest> {
        let limit = match self.limit {
            Some(n) if self.received >= n => return None,
            Some(n) => Some(n - self.received),
            None => None,
        };
        let Some(last) = self.merger.last_committed() else {
            return Some(self.message.clone());
        };
        if self.ranges.is_empty() {
            // A point read (get): ask again for the keys after the last row.
            let keys: Vec<Vec<u8>> = self
                .message
                .rows
                .iter()
                .flat_map(|rows| rows.row_keys.iter())
                .filter(|k| k.as_slice() > last)
                .cloned()
                .collect();
            if keys.is_empty() {
                return None;
            }
            return Some(read_request(
                &self.store.table_name,
                self.reads,
                &[],
                keys,
                Direction::Forward,
                limit,
            ));
        }
        let ranges: Vec<KeyRange> = self
            .ranges
            .iter()
            .filter_map(|r| r.after(last, self.direction))
            .collect();
        if ranges.is_empty() {
            return None;
        }
        Some(read_request(
            &self.store.table_name,
            self.reads,
            &ranges,
            Vec::new(),
            self.direction,
            limit,
        ))
    }
}

fn read_request(
    table_name: &str,
    reads: Option<Reads>,
    ranges: &[KeyRange],
    keys: Vec<Vec<u8>>,
    direction: Direction,
    limit: Option<usize>,
) -> data::ReadRowsRequest {
    let row_ranges = ranges
        .iter()
        .map(|r| data::RowRange {
            start_key: Some(data::row_range::StartKey::StartKeyClosed(
                r.start().to_vec(),
            )),
            end_key: r
                .end()
                .map(|e| data::row_range::EndKey::EndKeyOpen(e.to_vec())),
        })
        .collect();
    data::ReadRowsRequest {
        table_name: table_name.to_string(),
        rows: Some(data::RowSet {
            row_keys: keys,
            row_ranges,
        }),
        // The latest cell of each column: one value per row (for whole
        // rows, of their family's columns and `v:v`).
        filter: Some(super::rows::filter_for(reads)),
        rows_limit: limit.map_or(0, |n| i64::try_from(n).unwrap_or(i64::MAX)),
        reversed: direction == Direction::Reverse,
        ..data::ReadRowsRequest::default()
    }
}

fn chunk(c: data::read_rows_response::CellChunk) -> Chunk {
    use data::read_rows_response::cell_chunk::RowStatus;
    Chunk {
        row_key: c.row_key,
        family_name: c.family_name,
        qualifier: c.qualifier,
        timestamp_micros: c.timestamp_micros,
        labels: c.labels,
        value: c.value,
        value_size: c.value_size,
        reset_row: matches!(c.row_status, Some(RowStatus::ResetRow(true))),
        commit_row: matches!(c.row_status, Some(RowStatus::CommitRow(true))),
    }
}
