//! Cloud Bigtable, over its gRPC API (tonic), with keyschema's own ReadRows
//! path: chunk merging that survives rows split across messages, resumable
//! retries, reverse scans, and per-entry MutateRows errors.

//!
//! The files: this one (the store, its connection, credentials, retry
//! policy and errors), `read` (ReadRows, gets, scans), `write` (MutateRows
//! batches within the service's limits), `admin` (table creation) and
//! `readrows` (the chunk merger, checked against Google's conformance cases).

mod admin;
mod cas;
mod read;
pub mod readrows;
mod rows;
mod sample;
pub use sample::SpreadSample;
mod write;

pub use write::{BatchLimits, MAX_MUTATIONS_PER_REQUEST, MAX_ROW_KEY, MAX_VALUE};

/// The largest gRPC message the store sends or reads: 256 MiB, as
/// Google's own Bigtable clients, above a row's largest value
/// ([`MAX_VALUE`]).
pub const MAX_READ_MESSAGE: usize = 256 * 1024 * 1024;

use crate::range::{Direction, KeyRange};
use crate::schema::Schema;
use crate::store::{AsyncStore, BoxFuture, Cas, Mutation, Row};
use googleapis_tonic_google_bigtable_admin_v2::google::bigtable::admin::v2 as admin_api;
use googleapis_tonic_google_bigtable_v2::google::bigtable::v2 as data;
use readrows::ChunkError;
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
pub type RowStream = crate::store::BoxRowStream<BigtableError>;

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
    /// A whole row's value fields cannot be made into cells: raw bytes
    /// given for a key type with value fields, or a broken cell map.
    #[error("row {}: {source}", crate::limits::ShortKey(key))]
    Value {
        /// The row's key.
        key: Vec<u8>,
        /// What is wrong.
        #[source]
        source: crate::record::ValueError,
    },
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
    #[error("mutation {index} of the batch (row {}): its {what} is {len} bytes, above Cloud Bigtable's limit of {max} bytes; nothing was sent", crate::limits::ShortKey(key))]
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
    /// A row in a scanned range has no value cell (`v:v`): not written by
    /// keyschema. An item error: a scan returns it in the row's place and
    /// reads on.
    #[error("row {} has no {FAMILY}:v cell", crate::limits::ShortKey(key))]
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
    admin: admin_api::bigtable_table_admin_client::BigtableTableAdminClient<Channel>,
    instance_name: String,
    table_id: String,
    table_name: String,
    retry: RetryPolicy,
    limits: BatchLimits,
    token: Option<Arc<dyn TokenSource>>,
    /// ReadRows calls made, retries included (shared by clones).
    read_rows: Arc<std::sync::atomic::AtomicU64>,
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
            // tonic refuses messages over 4 MiB by default; a row may hold
            // up to MAX_VALUE (100 MiB), and Google's own clients accept
            // 256 MiB, so a row the store wrote always reads back.
            data: data::bigtable_client::BigtableClient::new(channel.clone())
                .max_decoding_message_size(MAX_READ_MESSAGE)
                .max_encoding_message_size(MAX_READ_MESSAGE),
            admin: admin_api::bigtable_table_admin_client::BigtableTableAdminClient::new(channel),
            table_name: format!("{instance_name}/tables/{table}"),
            instance_name,
            table_id: table.to_string(),
            retry: RetryPolicy::default(),
            limits: BatchLimits::default(),
            token: None,
            read_rows: Arc::default(),
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

    async fn pause(&self, attempt: u32) {
        let factor = 1u32 << attempt.saturating_sub(1).min(10);
        tokio::time::sleep(self.retry.backoff.saturating_mul(factor)).await;
    }
}

impl BigtableStore {
    /// The ReadRows calls this store (and its clones) made so far, retries
    /// included: one per bucket of a scan and one per get or chunk of
    /// gets, so a scan's cost can be counted.
    pub fn read_rows_calls(&self) -> u64 {
        self.read_rows.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Counts one ReadRows call.
    pub(crate) fn count_read_rows(&self) {
        self.read_rows
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
}

impl AsyncStore for BigtableStore {
    type Error = BigtableError;

    /// A row without its value (no `v:v` cell, written by another
    /// program): the scan reports it and reads on.
    fn item_error(error: &BigtableError) -> bool {
        matches!(error, BigtableError::MissingValue { .. })
    }

    /// `bigtable:` and the table's full name (the endpoint aside: one
    /// table read through a proxy is the same table).
    fn identity(&self) -> Option<String> {
        Some(format!("bigtable:{}", self.table_name))
    }

    fn get_many(&self, keys: Vec<Vec<u8>>) -> BoxFuture<'_, Result<Vec<Row>, BigtableError>> {
        Box::pin(BigtableStore::get_many(self, keys))
    }

    fn write(&self, batch: Vec<Mutation>) -> BoxFuture<'_, Result<(), BigtableError>> {
        Box::pin(async move { self.write_batch(&batch).await })
    }

    fn compare_and_write(
        &self,
        batch: Vec<Cas>,
    ) -> BoxFuture<'_, Result<Vec<bool>, BigtableError>> {
        Box::pin(async move { BigtableStore::compare_and_write(self, &batch).await })
    }

    fn scan_stream(
        &self,
        range: &KeyRange,
        direction: Direction,
        limit: Option<usize>,
    ) -> RowStream {
        self.scan(range, direction, limit)
    }

    /// A key type with value fields: each field in its own column.
    fn write_for(
        &self,
        schema: &'static Schema,
        batch: Vec<Mutation>,
    ) -> BoxFuture<'_, Result<(), BigtableError>> {
        Box::pin(async move { self.write_rows(schema, &batch).await })
    }

    fn scan_for(
        &self,
        schema: &'static Schema,
        range: &KeyRange,
        direction: Direction,
        limit: Option<usize>,
    ) -> RowStream {
        self.scan_in(rows::reads_of(schema), range, direction, limit)
    }

    fn get_many_for(
        &self,
        schema: &'static Schema,
        keys: Vec<Vec<u8>>,
    ) -> BoxFuture<'_, Result<Vec<Row>, BigtableError>> {
        Box::pin(self.get_many_in(rows::reads_of(schema), keys))
    }

    fn compare_and_write_for(
        &self,
        schema: &'static Schema,
        batch: Vec<Cas>,
    ) -> BoxFuture<'_, Result<Vec<bool>, BigtableError>> {
        Box::pin(async move {
            self.compare_and_write_in(rows::family_of(schema), schema.values(), &batch)
                .await
        })
    }
}
