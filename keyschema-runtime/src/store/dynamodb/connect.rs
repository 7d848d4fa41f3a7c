//! Connecting: the store's client (to the service, with the environment's
//! credentials, or to a local server) and its table and key type.

use super::{DynamoError, DynamoStore, ItemShape, RetryPolicy};
use crate::key::RowKey;
use crate::schema::Schema;
use aws_sdk_dynamodb::Client;

fn http_client() -> aws_sdk_dynamodb::config::SharedHttpClient {
    use aws_smithy_http_client::tls::{self, rustls_provider::CryptoMode};
    aws_smithy_http_client::Builder::new()
        .tls_provider(tls::Provider::Rustls(CryptoMode::Ring))
        .build_https()
}

impl DynamoStore {
    /// Connects to DynamoDB with the credentials and region of the
    /// environment (`AWS_*` variables, profiles, SSO, instance roles), for
    /// the table of key type `K`; an existing table must have `K`'s key
    /// attributes ([`check_table`](Self::check_table)).
    pub async fn connect<K: RowKey>(table: &str) -> Result<Self, DynamoError> {
        Self::connect_with::<K>(table, ItemShape::default()).await
    }

    /// [`connect`](Self::connect), for items of another [`ItemShape`] (the
    /// `PK`/`SK` of an existing single-table design).
    pub async fn connect_with<K: RowKey>(
        table: &str,
        shape: ItemShape,
    ) -> Result<Self, DynamoError> {
        let client = Self::environment_client().await;
        let store = Self::from_client_with::<K>(client, table, shape)?;
        store.check_table().await?;
        Ok(store)
    }

    /// Connects to a local DynamoDB-API server (DynamoDB Local, dynalite)
    /// at `endpoint` (`http://127.0.0.1:8000`), with placeholder credentials.
    pub fn connect_local<K: RowKey>(endpoint: &str, table: &str) -> Result<Self, DynamoError> {
        Self::from_client::<K>(Self::local_client(endpoint), table)
    }

    /// A client of a local DynamoDB-API server (DynamoDB Local, dynalite)
    /// at `endpoint`, with placeholder credentials, for
    /// [`for_schema`](Self::for_schema).
    pub fn local_client(endpoint: &str) -> Client {
        let credentials =
            aws_sdk_dynamodb::config::Credentials::new("local", "local", None, None, "keyschema");
        let config = aws_sdk_dynamodb::Config::builder()
            .behavior_version(aws_sdk_dynamodb::config::BehaviorVersion::latest())
            .endpoint_url(endpoint)
            .region(aws_sdk_dynamodb::config::Region::new("us-east-1"))
            .credentials_provider(credentials)
            .http_client(http_client())
            .build();
        Client::from_conf(config)
    }

    /// A client with the credentials and region of the environment (as
    /// [`connect`](Self::connect) makes), for [`for_schema`](Self::for_schema).
    pub async fn environment_client() -> Client {
        Self::configured_client(None, None, None).await
    }

    /// A client configured as the AWS CLI's `--region`, `--profile` and
    /// `--endpoint-url` do: the environment's credentials and region
    /// (`AWS_*` variables, profiles, SSO, instance roles), with `region`
    /// and the named `profile` (of `~/.aws/config` and
    /// `~/.aws/credentials`) when given, and requests sent to `endpoint`
    /// when given. [`environment_client`](Self::environment_client) is this
    /// with none of them.
    pub async fn configured_client(
        region: Option<&str>,
        profile: Option<&str>,
        endpoint: Option<&str>,
    ) -> Client {
        let mut loader =
            aws_config::defaults(aws_config::BehaviorVersion::latest()).http_client(http_client());
        if let Some(profile) = profile {
            loader = loader.profile_name(profile);
        }
        if let Some(region) = region {
            loader = loader.region(aws_sdk_dynamodb::config::Region::new(region.to_string()));
        }
        if let Some(endpoint) = endpoint {
            loader = loader.endpoint_url(endpoint);
        }
        Client::new(&loader.load().await)
    }

    /// A client of a local DynamoDB-API server at `endpoint`, as
    /// [`local_client`](Self::local_client) makes, in `region` (DynamoDB
    /// Local keeps one set of tables per region, unless `-sharedDb`).
    pub fn local_client_in(endpoint: &str, region: &str) -> Client {
        let config = Self::local_client(endpoint)
            .config()
            .to_builder()
            .region(aws_sdk_dynamodb::config::Region::new(region.to_string()))
            .build();
        Client::from_conf(config)
    }

    /// A store on a client configured by the caller.
    pub fn from_client<K: RowKey>(client: Client, table: &str) -> Result<Self, DynamoError> {
        Self::for_schema(client, table, K::schema())
    }

    /// [`from_client`](Self::from_client), for items of another
    /// [`ItemShape`]: also the way to a key type whose default shape
    /// clashes (a key field named `pk`, or `v` beside a raw value, with
    /// [`ItemShape::key_fields`] off).
    pub fn from_client_with<K: RowKey>(
        client: Client,
        table: &str,
        shape: ItemShape,
    ) -> Result<Self, DynamoError> {
        Self::for_schema_with(client, table, K::schema(), shape)
    }

    /// A store for the rows of `schema` on `client`: for a tool reading a
    /// table from its schema document ([`Schema::from_document`]). A key
    /// type's store is [`from_client`](Self::from_client)'s. A schema read
    /// from a document that lists indexes cannot compute their entries
    /// ([`Schema::unkept_indexes`]): such a store reads, and refuses puts
    /// ([`DynamoError::Unsupported`]), which would leave the rows out of
    /// the GSIs.
    pub fn for_schema(
        client: Client,
        table: &str,
        schema: &'static Schema,
    ) -> Result<Self, DynamoError> {
        Self::for_schema_with(client, table, schema, ItemShape::default())
    }

    /// [`for_schema`](Self::for_schema), for items of another
    /// [`ItemShape`] (the `PK`/`SK` of an existing single-table design).
    pub fn for_schema_with(
        client: Client,
        table: &str,
        schema: &'static Schema,
        shape: ItemShape,
    ) -> Result<Self, DynamoError> {
        if schema.partition_components().is_none() {
            return Err(DynamoError::NoPartition {
                schema: schema.name(),
            });
        }
        let store = DynamoStore {
            client,
            table: table.to_string(),
            schema,
            retry: RetryPolicy::default(),
            counters: std::sync::Arc::default(),
            shape: ItemShape::default(),
            key_fields: None,
            gsis: std::sync::Arc::new([]),
            learned: std::sync::Arc::default(),
            assume_declared: false,
        };
        store.check_indexes()?;
        store.with_shape(shape)
    }
}
