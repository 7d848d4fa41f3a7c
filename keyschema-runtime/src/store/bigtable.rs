//! Cloud Bigtable, over its gRPC API (tonic), with keyschema's own ReadRows
//! path: chunk merging that survives rows split across messages, resumable
//! retries, reverse scans, and per-entry MutateRows errors.

use super::{Direction, Mutation, Row};
use crate::readrows::{Chunk, ChunkError, RowMerger};
use crate::scan::{KeyRange, ScanRangeSet};
use futures_util::stream::{self, StreamExt};
use googleapis_tonic_google_bigtable_admin_v2::google::bigtable::admin::v2 as admin;
use googleapis_tonic_google_bigtable_v2::google::bigtable::v2 as data;
use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;
use tonic::transport::{Channel, ClientTlsConfig, Endpoint};

/// Cloud Bigtable's data endpoint.
pub const ENDPOINT: &str = "https://bigtable.googleapis.com";

/// An error from a [`TokenSource`].
pub type TokenError = Box<dyn std::error::Error + Send + Sync>;

/// Supplies OAuth2 access tokens (scope
/// `https://www.googleapis.com/auth/bigtable.data`) for a real instance.
///
/// Implement it over the credential library you use; with `gcp_auth`
/// (not a dependency of keyschema, so shown, not compiled):
///
/// ```text
/// struct Gcp(std::sync::Arc<dyn gcp_auth::TokenProvider>);
/// impl keyschema::store::bigtable::TokenSource for Gcp {
///     fn token(&self) -> Pin<Box<dyn Future<Output = Result<String, TokenError>> + Send + '_>> {
///         Box::pin(async move {
///             let token = self.0.token(&["https://www.googleapis.com/auth/bigtable.data"]).await?;
///             Ok(token.as_str().to_string())
///         })
///     }
/// }
/// ```
pub trait TokenSource: Send + Sync + 'static {
    /// A current access token (the source caches and refreshes it).
    fn token(&self) -> Pin<Box<dyn Future<Output = Result<String, TokenError>> + Send + '_>>;
}

/// The rows of a Bigtable scan, as they stream in.
pub type RowStream = crate::BoxRowStream<BigtableError>;

/// The column family keyschema stores values in.
pub const FAMILY: &str = "v";
/// The column qualifier of the value cell.
pub const QUALIFIER: &[u8] = b"v";

/// What can go wrong talking to Bigtable.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BigtableError {
    /// The endpoint is not a valid URI.
    #[error("invalid Bigtable endpoint {endpoint:?}: {reason}")]
    Endpoint {
        /// The endpoint given.
        endpoint: String,
        /// Why it is invalid.
        reason: String,
    },
    /// The connection could not be made.
    #[error("cannot connect to Bigtable at {endpoint}: {source}")]
    Connect {
        /// The endpoint.
        endpoint: String,
        /// The transport error.
        #[source]
        source: tonic::transport::Error,
    },
    /// An RPC failed with a status that is not retried, or kept failing.
    #[error("Bigtable {operation} failed after {attempts} attempt(s): {code:?}: {message}")]
    Rpc {
        /// The RPC (`ReadRows`, `MutateRows`, `CreateTable`...).
        operation: &'static str,
        /// How many times it was tried.
        attempts: u32,
        /// The gRPC status code.
        code: tonic::Code,
        /// The status message.
        message: String,
    },
    /// The token source failed.
    #[error("cannot get Bigtable credentials: {0}")]
    Credentials(#[source] TokenError),
    /// The server sent an invalid chunk sequence.
    #[error(transparent)]
    Chunks(#[from] ChunkError),
    /// Some entries of a MutateRows batch failed, or were not confirmed
    /// because the call itself failed; every entry not listed was applied.
    #[error("{} of {total} mutations failed (first: row {} at index {}: {})",
        failed.len(),
        failed.first().map(|f| f.key.escape_ascii().to_string()).unwrap_or_default(),
        failed.first().map_or(0, |f| f.index),
        failed.first().map(|f| f.message.as_str()).unwrap_or_default())]
    PartialBatch {
        /// Every entry that failed.
        failed: Vec<FailedEntry>,
        /// The batch size.
        total: usize,
    },
    /// A mutation breaks one of Cloud Bigtable's documented limits (see
    /// [`MAX_ROW_KEY`], [`MAX_VALUE`]); nothing of the batch was sent.
    #[error("mutation {index} of the batch (row {}): its {what} is {len} bytes, above Cloud Bigtable's limit of {max} bytes; nothing was sent", key.escape_ascii())]
    TooLarge {
        /// Its index in the batch.
        index: usize,
        /// Its row key (cut to 64 bytes).
        key: Vec<u8>,
        /// `"row key"` or `"value"`.
        what: &'static str,
        /// Its size.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// The table exists but was not made for keyschema rows.
    #[error("table {table} exists but has no column family `{FAMILY}`: it was not created by keyschema; use another table or add the family")]
    NotAKeyschemaTable {
        /// The full table name.
        table: String,
    },
    /// A row in a scanned range has no value cell (`v:v`): not written by keyschema.
    #[error("row {} has no {FAMILY}:v cell", key.escape_ascii())]
    MissingValue {
        /// The row key.
        key: Vec<u8>,
    },
}

/// One failed entry of a batch write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FailedEntry {
    /// Its index in the batch.
    pub index: usize,
    /// Its row key.
    pub key: Vec<u8>,
    /// The gRPC status code.
    pub code: i32,
    /// The status message.
    pub message: String,
}

/// The HTTP/2 flow window of each ReadRows stream: how much of a bucket's
/// rows the client buffers ahead of the merge.
pub const STREAM_WINDOW: u32 = 1024 * 1024;

/// The connection's flow window: the HTTP/2 maximum, so that streams
/// waiting to be merged (`buckets x STREAM_WINDOW` at most) never block the
/// one being read, up to 2,047 buckets read at once.
pub const CONNECTION_WINDOW: u32 = (1 << 31) - 1;

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

/// How transient errors are retried.
#[derive(Debug, Clone, Copy)]
pub struct RetryPolicy {
    /// Attempts per RPC, the first included, without progress in between.
    pub attempts: u32,
    /// The pause before the first retry; doubled each time.
    pub backoff: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            attempts: 5,
            backoff: Duration::from_millis(20),
        }
    }
}

/// A Bigtable table used as a row store.
///
/// Values live in one cell per row, family [`FAMILY`], qualifier `v`. Each
/// put writes its cell with the **server's time** (timestamp `-1` in the
/// request: Bigtable stamps the cell when it applies it), so an age-based
/// garbage-collection rule counts a cell's age from its write, and reads
/// take the newest cell. Tables made by [`create_table`](Self::create_table)
/// keep one version per cell (`max_num_versions = 1`). A put retried after
/// a lost answer writes the same value again with a later time: the row
/// reads the same, so retries are safe.
///
/// Batches are cut to Cloud Bigtable's request limits ([`BatchLimits`]), and
/// keys and values are checked against [`MAX_ROW_KEY`] and [`MAX_VALUE`]
/// before anything is sent.
#[derive(Debug, Clone)]
pub struct BigtableStore {
    data: data::bigtable_client::BigtableClient<Channel>,
    admin: admin::bigtable_table_admin_client::BigtableTableAdminClient<Channel>,
    instance_name: String,
    table_id: String,
    table_name: String,
    retry: RetryPolicy,
    limits: BatchLimits,
    token: Option<Arc<dyn TokenSource>>,
}

impl std::fmt::Debug for dyn TokenSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TokenSource")
    }
}

fn is_transient(code: tonic::Code) -> bool {
    matches!(
        code,
        tonic::Code::Unavailable
            | tonic::Code::DeadlineExceeded
            | tonic::Code::Aborted
            | tonic::Code::Internal
    )
}

/// Whether a failed call is worth retrying: a transient status, or a broken
/// connection. tonic reports transport failures (a connection reset
/// mid-stream, a connection closed before answering) as `Unknown` or
/// `Cancelled` with the transport error as their source; a server's own
/// status carries none.
fn is_retryable(status: &tonic::Status) -> bool {
    let broken_connection = matches!(status.code(), tonic::Code::Unknown | tonic::Code::Cancelled)
        && std::error::Error::source(status).is_some();
    is_transient(status.code()) || broken_connection
}

fn rpc_error(operation: &'static str, attempts: u32, status: &tonic::Status) -> BigtableError {
    BigtableError::Rpc {
        operation,
        attempts,
        code: status.code(),
        message: status.message().to_string(),
    }
}

impl BigtableStore {
    /// Connects to the Bigtable emulator at `host` (`127.0.0.1:8086`), in
    /// plaintext and without credentials, for the table `table` of
    /// `projects/{project}/instances/{instance}`.
    pub async fn connect_emulator(
        host: &str,
        project: &str,
        instance: &str,
        table: &str,
    ) -> Result<Self, BigtableError> {
        Self::connect_endpoint(&format!("http://{host}"), project, instance, table, None).await
    }

    /// Connects to Cloud Bigtable ([`ENDPOINT`], TLS) with credentials from `token`.
    pub async fn connect(
        project: &str,
        instance: &str,
        table: &str,
        token: impl TokenSource,
    ) -> Result<Self, BigtableError> {
        Self::connect_endpoint(ENDPOINT, project, instance, table, Some(Arc::new(token))).await
    }

    /// Connects to any endpoint: `https://...` uses TLS (web PKI roots),
    /// `http://...` plaintext. With a token source, every request carries
    /// `authorization: Bearer <token>`.
    pub async fn connect_endpoint(
        endpoint: &str,
        project: &str,
        instance: &str,
        table: &str,
        token: Option<Arc<dyn TokenSource>>,
    ) -> Result<Self, BigtableError> {
        let invalid = |reason: String| BigtableError::Endpoint {
            endpoint: endpoint.to_string(),
            reason,
        };
        // A typed scan reads one stream per bucket over one HTTP/2
        // connection but consumes only the stream whose row is next. Rows
        // buffered on the others must never use up the connection's flow
        // window, or the stream the merge waits on starves (a deadlock seen
        // with 8 buckets of 8 KB rows under the default 2 MB stream / 5 MB
        // connection windows): each stream may buffer STREAM_WINDOW, the
        // connection the largest window HTTP/2 allows.
        let mut builder = Endpoint::from_shared(endpoint.to_string())
            .map_err(|e| invalid(e.to_string()))?
            .connect_timeout(Duration::from_secs(10))
            .initial_stream_window_size(STREAM_WINDOW)
            .initial_connection_window_size(CONNECTION_WINDOW);
        if endpoint.starts_with("https://") {
            builder = builder
                .tls_config(ClientTlsConfig::new().with_webpki_roots())
                .map_err(|e| invalid(e.to_string()))?;
        }
        let channel = builder
            .connect()
            .await
            .map_err(|source| BigtableError::Connect {
                endpoint: endpoint.to_string(),
                source,
            })?;
        let mut store = Self::from_channel(channel, project, instance, table);
        store.token = token;
        Ok(store)
    }

    /// A store on an existing channel, without credentials (see
    /// [`connect`](Self::connect) for a real instance).
    pub fn from_channel(channel: Channel, project: &str, instance: &str, table: &str) -> Self {
        let instance_name = format!("projects/{project}/instances/{instance}");
        BigtableStore {
            data: data::bigtable_client::BigtableClient::new(channel.clone()),
            admin: admin::bigtable_table_admin_client::BigtableTableAdminClient::new(channel),
            table_name: format!("{instance_name}/tables/{table}"),
            instance_name,
            table_id: table.to_string(),
            retry: RetryPolicy::default(),
            limits: BatchLimits::default(),
            token: None,
        }
    }

    /// The same store with another retry policy.
    pub fn with_retry(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }

    /// The same store with other batch limits (each capped at Cloud
    /// Bigtable's own: [`MAX_MUTATIONS_PER_REQUEST`] mutations; at least one
    /// mutation and one byte).
    pub fn with_batch_limits(mut self, limits: BatchLimits) -> Self {
        self.limits = BatchLimits {
            max_mutations: limits.max_mutations.clamp(1, MAX_MUTATIONS_PER_REQUEST),
            max_bytes: limits.max_bytes.max(1),
        };
        self
    }

    /// The full table name, `projects/.../instances/.../tables/...`.
    pub fn table_name(&self) -> &str {
        &self.table_name
    }

    async fn request<T>(&self, message: T) -> Result<tonic::Request<T>, BigtableError> {
        let mut request = tonic::Request::new(message);
        // Routing for real instances; harmless on the emulator.
        if let Ok(value) = format!("table_name={}", self.table_name).parse() {
            request
                .metadata_mut()
                .insert("x-goog-request-params", value);
        }
        if let Some(source) = &self.token {
            let token = source.token().await.map_err(BigtableError::Credentials)?;
            let value = format!("Bearer {token}").parse().map_err(|_| {
                BigtableError::Credentials("the access token is not a valid header value".into())
            })?;
            request.metadata_mut().insert("authorization", value);
        }
        Ok(request)
    }

    /// Creates the table with the value family (one version per cell) and
    /// initial split points. Fails with `AlreadyExists` when the table is
    /// there; [`create_table_if_missing`](Self::create_table_if_missing) does not.
    pub async fn create_table(&self, splits: &[Vec<u8>]) -> Result<(), BigtableError> {
        let family = admin::ColumnFamily {
            gc_rule: Some(admin::GcRule {
                rule: Some(admin::gc_rule::Rule::MaxNumVersions(1)),
            }),
            ..admin::ColumnFamily::default()
        };
        let table = admin::Table {
            column_families: HashMap::from([(FAMILY.to_string(), family)]),
            ..admin::Table::default()
        };
        let message = admin::CreateTableRequest {
            parent: self.instance_name.clone(),
            table_id: self.table_id.clone(),
            table: Some(table),
            initial_splits: splits
                .iter()
                .map(|key| admin::create_table_request::Split { key: key.clone() })
                .collect(),
        };
        self.admin
            .clone()
            .create_table(self.request(message).await?)
            .await
            .map_err(|s| rpc_error("CreateTable", 1, &s))?;
        Ok(())
    }

    /// Creates the table unless it exists; `true` when it was created. An
    /// existing table must have the value family [`FAMILY`]
    /// ([`BigtableError::NotAKeyschemaTable`] otherwise); its splits and
    /// garbage-collection rules are left as they are.
    pub async fn create_table_if_missing(&self, splits: &[Vec<u8>]) -> Result<bool, BigtableError> {
        match self.create_table(splits).await {
            Ok(()) => Ok(true),
            Err(BigtableError::Rpc {
                code: tonic::Code::AlreadyExists,
                ..
            }) => {
                let message = admin::GetTableRequest {
                    name: self.table_name.clone(),
                    view: admin::table::View::SchemaView as i32,
                };
                let table = self
                    .admin
                    .clone()
                    .get_table(self.request(message).await?)
                    .await
                    .map_err(|s| rpc_error("GetTable", 1, &s))?
                    .into_inner();
                if table.column_families.contains_key(FAMILY) {
                    Ok(false)
                } else {
                    Err(BigtableError::NotAKeyschemaTable {
                        table: self.table_name.clone(),
                    })
                }
            }
            Err(e) => Err(e),
        }
    }

    /// Creates the table for key type `K` unless it exists, split at every
    /// salt bucket boundary (see [`salt_splits`](crate::Schema::salt_splits));
    /// `true` when it was created. Safe to call on every start.
    pub async fn create_table_for<K: crate::RowKey>(&self) -> Result<bool, BigtableError> {
        self.create_table_if_missing(&K::schema().salt_splits())
            .await
    }

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
                key: key_of(&batch[index]).to_vec(),
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
        batch: &[Mutation],
        mut pending: Vec<usize>,
        failed: &mut Vec<FailedEntry>,
    ) -> Result<(), PieceError> {
        let unconfirmed = |failed: &mut Vec<FailedEntry>,
                           indexes: &mut dyn Iterator<Item = usize>,
                           attempt: u32,
                           s: tonic::Status| {
            failed.extend(indexes.map(|index| FailedEntry {
                index,
                key: key_of(&batch[index]).to_vec(),
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
            let entries = pending.iter().map(|&i| entry(&batch[i])).collect();
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
                                    key: key_of(&batch[index]).to_vec(),
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
    pub async fn put_row<K: crate::RowKey>(
        &self,
        row: &K,
        value: &[u8],
    ) -> Result<(), BigtableError> {
        self.put(&row.encode(), value).await
    }

    /// Stores `value` under `row`'s key, replacing the row in every bucket
    /// of a `random % N` salt: one MutateRows request with the put and the
    /// N - 1 deletes. Bigtable applies each row atomically but not the
    /// request as a whole: a failed entry is reported
    /// ([`BigtableError::PartialBatch`]) and the call can be repeated.
    pub async fn replace_row<K: crate::RowKey>(
        &self,
        row: &K,
        value: &[u8],
    ) -> Result<(), BigtableError> {
        self.write_batch(&super::replace_batch::<K>(&row.encode(), value))
            .await
    }

    /// Removes `row`, from every candidate bucket of a `random % N` salt,
    /// in one MutateRows request.
    pub async fn delete_row<K: crate::RowKey>(&self, row: &K) -> Result<(), BigtableError> {
        self.write_batch(&super::delete_batch::<K>(&row.encode()))
            .await
    }

    /// Stores many typed rows (each inserted, for a `random % N` salt), in
    /// as few MutateRows requests as [`BatchLimits`] allow.
    pub async fn put_rows<'r, K: crate::RowKey + 'r, V: AsRef<[u8]> + 'r>(
        &self,
        rows: impl IntoIterator<Item = (&'r K, V)>,
    ) -> Result<(), BigtableError> {
        self.write_batch(&super::put_batch(rows)).await
    }

    /// The row under `key`, decoded, with its value; with a `random % N`
    /// salt every candidate bucket is read in one ReadRows request. The
    /// generated `K::get_async(&store, ...)` calls this.
    pub async fn get_row<K: crate::RowKey>(
        &self,
        key: &[u8],
    ) -> Result<Option<super::TypedRow<K>>, super::RowError<BigtableError>> {
        crate::AsyncStore::get_row::<K>(self, key).await
    }

    /// When the row under `key` was last written: the timestamp of its value
    /// cell, in microseconds since the Unix epoch (the server's clock; see
    /// [`BigtableStore`]). `None` when the row is absent. One attempt, no
    /// retry: a diagnostic, for the engineer asking "when did this change?".
    pub async fn written_at(&self, key: &[u8]) -> Result<Option<i64>, BigtableError> {
        let message = read_request(
            &self.table_name,
            &[],
            vec![key.to_vec()],
            Direction::Forward,
            Some(1),
        );
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
                if let Some(row) = merger.push(chunk(c))? {
                    return Ok(row
                        .cells
                        .iter()
                        .find(|c| c.family == FAMILY && c.qualifier == QUALIFIER)
                        .map(|c| c.timestamp_micros));
                }
            }
        }
        Ok(None)
    }

    /// The rows stored under any of `keys`, in key order, in one ReadRows
    /// request (absent keys are left out).
    pub async fn get_many(&self, keys: Vec<Vec<u8>>) -> Result<Vec<Row>, BigtableError> {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        let message = read_request(&self.table_name, &[], keys, Direction::Forward, None);
        let rows = self.read(message, Vec::new(), Direction::Forward, None);
        futures_util::TryStreamExt::try_collect(rows).await
    }

    /// The value under `key`.
    pub async fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, BigtableError> {
        let message = read_request(
            &self.table_name,
            &[],
            vec![key.to_vec()],
            Direction::Forward,
            Some(1),
        );
        let mut rows = self.read(message, Vec::new(), Direction::Forward, Some(1));
        match rows.next().await {
            Some(Ok((_, value))) => Ok(Some(value)),
            Some(Err(e)) => Err(e),
            None => Ok(None),
        }
    }

    /// The rows of one range, streamed, at most `limit` of them.
    pub fn scan(&self, range: &KeyRange, direction: Direction, limit: Option<usize>) -> RowStream {
        let ranges = vec![range.clone()];
        let message = read_request(&self.table_name, &ranges, Vec::new(), direction, limit);
        self.read(message, ranges, direction, limit)
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
        let message = read_request(&self.table_name, &ranges, Vec::new(), direction, limit);
        self.read(message, ranges, direction, limit)
    }

    async fn pause(&self, attempt: u32) {
        let factor = 1u32 << attempt.saturating_sub(1).min(10);
        tokio::time::sleep(self.retry.backoff.saturating_mul(factor)).await;
    }

    /// Streams a ReadRows request through the chunk merger, resuming after
    /// the last complete row on transient errors.
    fn read(
        &self,
        message: data::ReadRowsRequest,
        ranges: Vec<KeyRange>,
        direction: Direction,
        limit: Option<usize>,
    ) -> RowStream {
        let state = ReadState {
            store: self.clone(),
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

impl crate::AsyncStore for BigtableStore {
    type Error = BigtableError;

    fn get_many(
        &self,
        keys: Vec<Vec<u8>>,
    ) -> crate::BoxFuture<'_, Result<Vec<Row>, BigtableError>> {
        Box::pin(BigtableStore::get_many(self, keys))
    }

    fn scan_stream(
        &self,
        range: &KeyRange,
        direction: Direction,
        limit: Option<usize>,
    ) -> RowStream {
        self.scan(range, direction, limit)
    }
}

struct ReadState {
    store: BigtableStore,
    message: data::ReadRowsRequest,
    ranges: Vec<KeyRange>,
    direction: Direction,
    limit: Option<usize>,
    received: usize,
    merger: RowMerger,
    stream: Option<tonic::Streaming<data::ReadRowsResponse>>,
    ready: VecDeque<Row>,
    attempts: u32,
    done: bool,
}

impl ReadState {
    async fn next_row(&mut self) -> Option<Result<Row, BigtableError>> {
        loop {
            if let Some(row) = self.ready.pop_front() {
                return Some(Ok(row));
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
                                match value_of(row.cells) {
                                    Some(value) => self.ready.push_back((row.key, value)),
                                    None => {
                                        self.done = true;
                                        return Some(Err(BigtableError::MissingValue {
                                            key: row.key,
                                        }));
                                    }
                                }
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
                &[],
                keys,
                Direction::Forward,
                limit,
            ));
        }
        let ranges: Vec<KeyRange> = self
            .ranges
            .iter()
            .filter_map(|r| match self.direction {
                Direction::Forward => {
                    let mut after = last.to_vec();
                    after.push(0);
                    let start = after.max(r.start().to_vec());
                    let keep = r.end().is_none_or(|e| start.as_slice() < e);
                    keep.then(|| KeyRange::new(start, r.end().map(<[u8]>::to_vec), r.bucket()))
                }
                Direction::Reverse => {
                    let end = match r.end() {
                        Some(e) if e < last => e.to_vec(),
                        _ => last.to_vec(),
                    };
                    (r.start() < end.as_slice())
                        .then(|| KeyRange::new(r.start().to_vec(), Some(end), r.bucket()))
                }
            })
            .collect();
        if ranges.is_empty() {
            return None;
        }
        Some(read_request(
            &self.store.table_name,
            &ranges,
            Vec::new(),
            self.direction,
            limit,
        ))
    }
}

fn read_request(
    table_name: &str,
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
        // The latest cell of each column: one value per row.
        filter: Some(data::RowFilter {
            filter: Some(data::row_filter::Filter::CellsPerColumnLimitFilter(1)),
        }),
        rows_limit: limit.map_or(0, |n| i64::try_from(n).unwrap_or(i64::MAX)),
        reversed: direction == Direction::Reverse,
        ..data::ReadRowsRequest::default()
    }
}

fn entry(m: &Mutation) -> data::mutate_rows_request::Entry {
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

/// Checks every key and value against Cloud Bigtable's limits.
fn check_limits(batch: &[Mutation]) -> Result<(), BigtableError> {
    for (index, m) in batch.iter().enumerate() {
        let key = key_of(m);
        let value_len = match m {
            Mutation::Put { value, .. } => value.len(),
            Mutation::Delete { .. } => 0,
        };
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
        if value_len > MAX_VALUE {
            return Err(too_large("value", value_len, MAX_VALUE));
        }
    }
    Ok(())
}

/// The mutations one entry of a batch sends.
const MUTATIONS_PER_ENTRY: usize = 1;

/// What an entry adds to a request, roughly: its key and value and the
/// protobuf framing around them (family, qualifier, timestamp, tags).
fn entry_bytes(m: &Mutation) -> usize {
    let value = match m {
        Mutation::Put { value, .. } => value.len(),
        Mutation::Delete { .. } => 0,
    };
    key_of(m).len() + value + 32
}

/// The batch cut into consecutive pieces within `limits`.
fn pieces(batch: &[Mutation], limits: BatchLimits) -> Vec<Vec<usize>> {
    let mut pieces: Vec<Vec<usize>> = Vec::new();
    let (mut mutations, mut bytes) = (0usize, 0usize);
    for (index, m) in batch.iter().enumerate() {
        let size = entry_bytes(m);
        let full = mutations + MUTATIONS_PER_ENTRY > limits.max_mutations
            || bytes.saturating_add(size) > limits.max_bytes;
        match pieces.last_mut() {
            Some(piece) if !full => piece.push(index),
            _ => {
                pieces.push(vec![index]);
                (mutations, bytes) = (0, 0);
            }
        }
        mutations += MUTATIONS_PER_ENTRY;
        bytes = bytes.saturating_add(size);
    }
    pieces
}

fn key_of(m: &Mutation) -> &[u8] {
    match m {
        Mutation::Put { key, .. } | Mutation::Delete { key } => key,
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

fn value_of(cells: Vec<crate::readrows::Cell>) -> Option<Vec<u8>> {
    cells
        .into_iter()
        .find(|c| c.family == FAMILY && c.qualifier == QUALIFIER)
        .map(|c| c.value)
}
