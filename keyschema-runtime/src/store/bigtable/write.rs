//! Writes: MutateRows batches cut to Cloud Bigtable's limits, with
//! per-entry failures, and the typed puts and deletes.

use super::{
    is_retryable, is_transient, BigtableError, BigtableStore, FailedEntry, FAMILY, QUALIFIER,
};
use crate::store::{delete_batch, put_batch, replace_batch, Mutation};
use googleapis_tonic_google_bigtable_v2::google::bigtable::v2 as data;

/// Cloud Bigtable's limit on a row key: 4 KiB.
pub const MAX_ROW_KEY: usize = 4 * 1024;

/// Cloud Bigtable's limit on one cell's value: 100 MiB.
pub const MAX_VALUE: usize = 100 * 1024 * 1024;

/// Cloud Bigtable's limit on the mutations of one MutateRows request
/// (over all its entries): 100,000.
pub const MAX_MUTATIONS_PER_REQUEST: usize = 100_000;

/// How [`BigtableStore::write_batch`] cuts a batch into MutateRows requests.
///
/// Cloud Bigtable refuses a request with more than
/// [`MAX_MUTATIONS_PER_REQUEST`] mutations, and gRPC messages are capped
/// (256 MiB on the service); smaller requests also retry cheaper. A batch is
/// sent as consecutive requests, each within both limits (a single entry
/// larger than `max_bytes` goes alone). The emulator accepts far larger
/// requests, so these limits are enforced here, not discovered in production.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchLimits {
    /// Mutations per request; at most [`MAX_MUTATIONS_PER_REQUEST`].
    pub max_mutations: usize,
    /// Approximate encoded bytes per request (keys, values, framing).
    pub max_bytes: usize,
}

impl Default for BatchLimits {
    /// 100,000 mutations and 64 MiB per request.
    fn default() -> Self {
        BatchLimits {
            max_mutations: MAX_MUTATIONS_PER_REQUEST,
            max_bytes: 64 * 1024 * 1024,
        }
    }
}

impl BigtableStore {
    /// Applies a batch through MutateRows, in as many requests as
    /// [`BatchLimits`] require, one after the other. Every key and value is
    /// checked against Cloud Bigtable's limits first
    /// ([`BigtableError::TooLarge`]; nothing is sent).
    ///
    /// Entries that fail are retried while their errors are transient; the
    /// ones that still fail are all reported in
    /// [`BigtableError::PartialBatch`] with their index in `batch`, never
    /// dropped. When a request itself keeps failing (the server is gone),
    /// every entry it did not confirm, and every entry of the requests not
    /// yet sent, is reported there too: Bigtable puts and deletes are
    /// idempotent in effect, so writing those again is safe.
    pub async fn write_batch(&self, batch: &[Mutation]) -> Result<(), BigtableError> {
        self.write_entries(&batch.iter().map(entry).collect::<Vec<_>>())
            .await
    }

    /// [`write_batch`](Self::write_batch) of MutateRows entries as they are
    /// sent (a whole row's is several mutations: see `rows.rs`).
    pub(super) async fn write_entries(&self, batch: &[Entry]) -> Result<(), BigtableError> {
        check_limits(batch)?;
        let pieces = pieces(batch, self.limits);
        let mut failed: Vec<FailedEntry> = Vec::new();
        for (n, piece) in pieces.iter().enumerate() {
            let status = match self.write_piece(batch, piece.clone(), &mut failed).await {
                Ok(()) => continue,
                // Credentials: nothing of this request was sent.
                Err(PieceError::Fatal(e)) => return Err(e),
                Err(PieceError::Status(status)) => status,
            };
            let message = format!(
                "not sent: MutateRows request {} of {} failed first ({:?}: {})",
                n + 1,
                pieces.len(),
                status.code(),
                status.message()
            );
            failed.extend(pieces[n + 1..].iter().flatten().map(|&index| FailedEntry {
                index,
                key: batch[index].row_key.clone(),
                code: status.code() as i32,
                message: message.clone(),
            }));
            break;
        }
        if failed.is_empty() {
            Ok(())
        } else {
            failed.sort_by_key(|f| f.index);
            Err(BigtableError::PartialBatch {
                failed,
                total: batch.len(),
            })
        }
    }

    /// One MutateRows request (retried) for the entries `pending` of
    /// `batch`. Failed entries go to `failed`; when the call itself fails for
    /// good, the entries it did not confirm go there too and its status is
    /// returned.
    async fn write_piece(
        &self,
        batch: &[Entry],
        mut pending: Vec<usize>,
        failed: &mut Vec<FailedEntry>,
    ) -> Result<(), PieceError> {
        let unconfirmed = |failed: &mut Vec<FailedEntry>,
                           indexes: &mut dyn Iterator<Item = usize>,
                           attempt: u32,
                           s: tonic::Status| {
            failed.extend(indexes.map(|index| FailedEntry {
                index,
                key: batch[index].row_key.clone(),
                code: s.code() as i32,
                message: format!(
                    "not confirmed: MutateRows failed after {attempt} attempt(s): {:?}: {}",
                    s.code(),
                    s.message()
                ),
            }));
            s
        };
        let mut attempt = 0;
        while !pending.is_empty() {
            attempt += 1;
            let entries = pending.iter().map(|&i| batch[i].clone()).collect();
            let message = data::MutateRowsRequest {
                table_name: self.table_name.clone(),
                entries,
                ..data::MutateRowsRequest::default()
            };
            let request = self.request(message).await.map_err(PieceError::Fatal)?;
            let mut responses = match self.data.clone().mutate_rows(request).await {
                Ok(r) => r.into_inner(),
                Err(s) if is_retryable(&s) && attempt < self.retry.attempts => {
                    self.pause(attempt).await;
                    continue;
                }
                Err(s) => {
                    return Err(
                        unconfirmed(failed, &mut pending.iter().copied(), attempt, s).into(),
                    )
                }
            };
            let mut retry = Vec::new();
            let mut answered = vec![false; pending.len()];
            loop {
                match responses.message().await {
                    Ok(Some(response)) => {
                        for e in response.entries {
                            let Some(slot) =
                                usize::try_from(e.index).ok().filter(|&i| i < pending.len())
                            else {
                                continue;
                            };
                            answered[slot] = true;
                            let index = pending[slot];
                            let Some(status) = e.status.filter(|s| s.code != 0) else {
                                continue;
                            };
                            let code = tonic::Code::from_i32(status.code);
                            if is_transient(code) && attempt < self.retry.attempts {
                                retry.push(index);
                            } else {
                                failed.push(FailedEntry {
                                    index,
                                    key: batch[index].row_key.clone(),
                                    code: status.code,
                                    message: status.message,
                                });
                            }
                        }
                    }
                    Ok(None) => break,
                    Err(s) if is_retryable(&s) && attempt < self.retry.attempts => break,
                    Err(s) => {
                        let mut rest = retry.iter().copied().chain(
                            answered
                                .iter()
                                .zip(&pending)
                                .filter(|(a, _)| !**a)
                                .map(|(_, &i)| i),
                        );
                        return Err(unconfirmed(failed, &mut rest, attempt, s).into());
                    }
                }
            }
            // Entries the stream never answered (it broke) are retried too.
            retry.extend(
                answered
                    .iter()
                    .zip(&pending)
                    .filter(|(a, _)| !**a)
                    .map(|(_, &i)| i),
            );
            retry.sort_unstable();
            if !retry.is_empty() {
                self.pause(attempt).await;
            }
            pending = retry;
        }
        Ok(())
    }

    /// Sets `key` to `value`.
    pub async fn put(&self, key: &[u8], value: &[u8]) -> Result<(), BigtableError> {
        self.write_batch(&[Mutation::Put {
            key: key.to_vec(),
            value: value.to_vec(),
        }])
        .await
    }

    /// Removes `key`.
    pub async fn delete(&self, key: &[u8]) -> Result<(), BigtableError> {
        self.write_batch(&[Mutation::Delete { key: key.to_vec() }])
            .await
    }

    /// Stores `value` under `row`'s key; with a `random % N` salt an insert
    /// (see [`RowStore`](crate::store::RowStore) for what that means).
    pub async fn put_row<K: crate::key::OneLayout>(
        &self,
        row: &K,
        value: &[u8],
    ) -> Result<(), BigtableError> {
        let batch = [Mutation::Put {
            key: row.encode(),
            value: value.to_vec(),
        }];
        crate::store::indexed::write_rows_async(self, K::schema(), batch.to_vec()).await
    }

    /// Stores `value` under `row`'s key, replacing the row in every bucket
    /// of a `random % N` salt: one MutateRows request with the put and the
    /// N - 1 deletes. Bigtable applies each row atomically but not the
    /// request as a whole: a failed entry is reported
    /// ([`BigtableError::PartialBatch`]) and the call can be repeated.
    pub async fn replace_row<K: crate::key::OneLayout>(
        &self,
        row: &K,
        value: &[u8],
    ) -> Result<(), BigtableError> {
        crate::store::indexed::write_rows_async(
            self,
            K::schema(),
            replace_batch::<K>(&row.encode(), value),
        )
        .await
    }

    /// Removes `row`, from every candidate bucket of a `random % N` salt,
    /// in one MutateRows request.
    pub async fn delete_row<K: crate::key::OneLayout>(&self, row: &K) -> Result<(), BigtableError> {
        crate::store::indexed::write_rows_async(self, K::schema(), delete_batch::<K>(&row.encode()))
            .await
    }

    /// Stores many typed rows (each inserted, for a `random % N` salt), in
    /// as few MutateRows requests as [`BatchLimits`] allow.
    pub async fn put_rows<'r, K: crate::key::OneLayout + 'r, V: AsRef<[u8]> + 'r>(
        &self,
        rows: impl IntoIterator<Item = (&'r K, V)>,
    ) -> Result<(), BigtableError> {
        crate::store::indexed::write_rows_async(self, K::schema(), put_batch(rows)).await
    }
}

/// One row's mutations in a MutateRows request.
pub(super) type Entry = data::mutate_rows_request::Entry;

/// The entry of a raw put or delete: the value in the cell `v:v`.
fn entry(m: &Mutation) -> Entry {
    use data::mutation::Mutation as M;
    let (row_key, mutation) = match m {
        Mutation::Put { key, value } => (
            key.clone(),
            M::SetCell(data::mutation::SetCell {
                family_name: FAMILY.to_string(),
                column_qualifier: QUALIFIER.to_vec(),
                // The server's time: see `BigtableStore`.
                timestamp_micros: -1,
                value: value.clone(),
            }),
        ),
        Mutation::Delete { key } => (
            key.clone(),
            M::DeleteFromRow(data::mutation::DeleteFromRow {}),
        ),
    };
    data::mutate_rows_request::Entry {
        row_key,
        mutations: vec![data::Mutation {
            mutation: Some(mutation),
        }],
        ..Default::default()
    }
}

/// Why one request of a batch ended early.
enum PieceError {
    /// The call kept failing; its unconfirmed entries are in the failures.
    Status(tonic::Status),
    /// The request could not be made (credentials).
    Fatal(BigtableError),
}

impl From<tonic::Status> for PieceError {
    fn from(status: tonic::Status) -> Self {
        PieceError::Status(status)
    }
}

/// Checks every key and cell value against Cloud Bigtable's limits.
fn check_limits(batch: &[Entry]) -> Result<(), BigtableError> {
    for (index, e) in batch.iter().enumerate() {
        let key = &e.row_key;
        let too_large = |what, len, max| BigtableError::TooLarge {
            index,
            key: key[..key.len().min(64)].to_vec(),
            what,
            len,
            max,
        };
        if key.len() > MAX_ROW_KEY {
            return Err(too_large("row key", key.len(), MAX_ROW_KEY));
        }
        for value in e.mutations.iter().filter_map(cell_value) {
            if value.len() > MAX_VALUE {
                return Err(too_large("value", value.len(), MAX_VALUE));
            }
        }
    }
    Ok(())
}

/// The value a mutation sets, if it sets one.
fn cell_value(m: &data::Mutation) -> Option<&[u8]> {
    match &m.mutation {
        Some(data::mutation::Mutation::SetCell(set)) => Some(&set.value),
        _ => None,
    }
}

/// What an entry adds to a request, roughly: its key, values and the
/// protobuf framing around them (family, qualifier, timestamp, tags).
fn entry_bytes(e: &Entry) -> usize {
    let values: usize = e
        .mutations
        .iter()
        .map(|m| cell_value(m).map_or(0, <[u8]>::len) + 32)
        .sum();
    e.row_key.len() + values
}

/// The batch cut into consecutive pieces within `limits`.
fn pieces(batch: &[Entry], limits: BatchLimits) -> Vec<Vec<usize>> {
    let mut pieces: Vec<Vec<usize>> = Vec::new();
    let (mut mutations, mut bytes) = (0usize, 0usize);
    for (index, e) in batch.iter().enumerate() {
        let size = entry_bytes(e);
        let count = e.mutations.len();
        let full = mutations + count > limits.max_mutations
            || bytes.saturating_add(size) > limits.max_bytes;
        match pieces.last_mut() {
            Some(piece) if !full => piece.push(index),
            _ => {
                pieces.push(vec![index]);
                (mutations, bytes) = (0, 0);
            }
        }
        mutations += count;
        bytes = bytes.saturating_add(size);
    }
    pieces
}
