//! Amazon DynamoDB, over the official AWS SDK: one table per key type, the
//! declared partition (`then = (a, b), c`, with the prefix and the salt) in
//! the partition-key attribute and the rest of the key in the sort-key
//! attribute.
//!
//! The files: this one (the store, the key split and the
//! service's key and item limits), `table` (creation and the check of an
//! existing table's key attributes), `write` (BatchWriteItem in batches of
//! 25 with unprocessed items retried, `RetryPolicy`), `read` (gets, and one paged Query per
//! salt bucket for typed scans), `cas` (conditional writes), `connect` (the
//! client, the table and the key type or schema), `sample` (a sample of the
//! table's keys, for the tools), `gsi` and `live` (indexes as GSIs),
//! `native` and `native_keys` (the native form), `forms` (the form the
//! table decides), `requests` (the requests a store sent).
//!
//! An item holds its key in two attributes, [`PARTITION_KEY`] and
//! [`SORT_KEY`] by default (binary, or strings for `format = text` keys, the
//! readable `INVOICE#42` style; other names for an existing single-table
//! design through [`ItemShape`]), and each key field again under its own
//! name in DynamoDB's type for it (`N`, `S`, `B`, `BOOL`), unless turned
//! off. A key type with value fields (`#[rowkey(value)]`) stores each as
//! its own attribute in DynamoDB's types (`item`: `N`, `S`, `B`, `BOOL`,
//! `NULL`, `L`, `M`); one without stores its raw value in [`VALUE`]
//! (binary). A key whose sort part is empty makes a table without a sort
//! key.

mod cas;
mod connect;
mod field_map;
mod forms;
mod gsi;
mod item;
mod items;
mod live;
mod native;
mod native_keys;
mod read;
mod requests;
mod sample;
mod shape;
mod table;
mod write;

pub use forms::REREAD;
pub use item::MAX_DEPTH;
pub use native::{index_form, IndexForm, KeyKind, KeySource, NativeAttribute, MAX_KEY_ATTRIBUTES};
use requests::Counters;
pub use requests::Requests;
pub use sample::KeySample;
pub use shape::{ItemShape, MAX_KEY_ATTRIBUTE_NAME};
pub use write::{RetryPolicy, MAX_BATCH_ITEMS};

/// The AWS SDK this store is built on, at the version it uses: for a
/// [`Client`] to pass to [`DynamoStore::from_client`], or for
/// requests keyschema does not make ([`DynamoStore::client`]).
pub use aws_sdk_dynamodb as sdk;

use crate::dynamic::DynSchema;
use crate::error::DecodeError;
use crate::record::ValueField;
use crate::schema::Schema;
use aws_sdk_dynamodb::types::AttributeValue;
use aws_sdk_dynamodb::Client;
use std::collections::HashMap;

/// The partition-key attribute, unless an [`ItemShape`] names another.
pub const PARTITION_KEY: &str = "pk";
/// The sort-key attribute, unless an [`ItemShape`] names another.
pub const SORT_KEY: &str = "sk";
/// The raw value's attribute, for key types without value fields.
pub const VALUE: &str = "v";

/// DynamoDB's limit on a partition key value: 2,048 bytes.
pub const MAX_PARTITION_KEY: usize = 2048;
/// DynamoDB's limit on a sort key value: 1,024 bytes.
pub const MAX_SORT_KEY: usize = 1024;
/// DynamoDB's limit on an item, attribute names and values together: 400 KB.
pub const MAX_ITEM: usize = 400 * 1024;

/// What can go wrong with DynamoDB.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DynamoError {
    /// The key type declares no partition, so it has no DynamoDB key.
    #[error("`{schema}` declares no partition key: write the partition fields first in `then`, in parentheses (`then = (invoice_id), rev(created_at)`)")]
    NoPartition {
        /// The key type.
        schema: &'static str,
    },
    /// A key does not split into partition and sort parts.
    #[error(
        "key {} is not a key of `{schema}`: {source}",
        crate::limits::ShortKey(key)
    )]
    Key {
        /// The key type.
        schema: &'static str,
        /// The key.
        key: Vec<u8>,
        /// Why.
        #[source]
        source: DecodeError,
    },
    /// A key part or an item breaks one of DynamoDB's limits; nothing of
    /// the batch was sent.
    #[error("item {index} (key {}): its {what} is {len} bytes, {}; nothing was sent", crate::limits::ShortKey(key), if *len == 0 { "and DynamoDB refuses an empty key attribute".to_string() } else { format!("above DynamoDB's limit of {max} bytes") })]
    Limit {
        /// Its index in the batch.
        index: usize,
        /// Its key (cut to 64 bytes).
        key: Vec<u8>,
        /// `"partition key"`, `"sort key"`, `"index partition key"`,
        /// `"index sort key"` or `"item"`.
        what: &'static str,
        /// Its size.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// A scan that does not bind the whole partition: DynamoDB would need a
    /// table Scan, which keyschema never issues.
    #[error("a typed scan on DynamoDB must bind every partition field by equality ({}); this request spans several partitions, which would take a full table Scan", fields.join(", "))]
    UnboundPartition {
        /// The partition fields.
        fields: Vec<&'static str>,
    },
    /// A DynamoDB request failed (after the SDK's own retries).
    #[error("DynamoDB {operation} failed: {message}")]
    Request {
        /// `PutItem`, `Query`, `BatchWriteItem`...
        operation: &'static str,
        /// The error, with its service code.
        message: String,
    },
    /// Some items of a batch were not written; every other item was.
    #[error("{} of {total} items failed (first: item {} with key {}: {})",
        failed.len(),
        failed.first().map_or(0, |f| f.index),
        failed.first().map(|f| f.key.escape_ascii().to_string()).unwrap_or_default(),
        failed.first().map(|f| f.message.as_str()).unwrap_or_default())]
    PartialBatch {
        /// Every item that failed, by index.
        failed: Vec<FailedItem>,
        /// The batch size.
        total: usize,
    },
    /// The table exists with another key schema.
    #[error("table {table} exists but {reason}")]
    TableMismatch {
        /// The table.
        table: String,
        /// What differs.
        reason: String,
    },
    /// A key is too long for DynamoDB to hold any item under it: the read
    /// is refused rather than answered with nothing.
    #[error("{operation} of key {}: its {what} is {len} bytes, above DynamoDB's limit of {max} bytes, so no item can be stored under it; the request was not sent", crate::limits::ShortKey(key))]
    ReadLimit {
        /// `BatchGetItem` or `Query`.
        operation: &'static str,
        /// The key or scan bound (cut to 64 bytes).
        key: Vec<u8>,
        /// `"partition key"` or `"sort key"`.
        what: &'static str,
        /// Its size.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// An item in a scanned range has no binary `v` attribute: another
    /// program wrote it. A typed scan reports it and reads on.
    #[error("the item under key {} in table {table} has no binary `v` attribute: another program wrote it (keyschema stores its value there); the scan reads on past it", crate::limits::ShortKey(key))]
    NoValue {
        /// The table.
        table: String,
        /// The item's key.
        key: Vec<u8>,
    },
    /// An item of a key type with value fields holds a raw value (a binary
    /// `v` attribute, what `put_row` wrote before the type had value
    /// fields): it is not read as a row of defaults.
    #[error("the item under key {} in table {table} holds a raw value (a binary `v` attribute, written by put_row before the key type had value fields), not its value fields: rewrite it with put_record (docs/guide/rows.md, \"Upgrading from raw values\")", crate::limits::ShortKey(key))]
    RawValue {
        /// The table.
        table: String,
        /// The item's key.
        key: Vec<u8>,
    },
    /// A stored item lacks an attribute keyschema writes.
    #[error("an item of table {table} has no `{attribute}` attribute of the expected type: not written by keyschema")]
    ForeignItem {
        /// The table.
        table: String,
        /// The attribute.
        attribute: String,
    },
    /// An [`ItemShape`] the key type's items cannot have.
    #[error("the items of `{schema}` cannot have this shape: {reason}")]
    Shape {
        /// The key type.
        schema: &'static str,
        /// What clashes.
        reason: String,
    },
    /// A value field DynamoDB cannot hold as an attribute; nothing of the
    /// batch was sent.
    #[error("item {index} (key {}): value field `{field}` cannot be a DynamoDB attribute: {message}; nothing was sent", crate::limits::ShortKey(key))]
    Attribute {
        /// Its index in the batch.
        index: usize,
        /// Its key (cut to 64 bytes).
        key: Vec<u8>,
        /// The field.
        field: String,
        /// Why.
        message: String,
    },
    /// A field a native index is keyed on cannot be a key attribute of its
    /// GSI (an empty string or bytes, or an attribute of another type than
    /// the GSI's); nothing of the batch was sent.
    #[error("item {index} (key {}): field `{field}` cannot be a key attribute of the native index `{gsi}`'s GSI: {message}; nothing was sent", crate::limits::ShortKey(key))]
    NativeKey {
        /// Its index in the batch.
        index: usize,
        /// Its key (cut to 64 bytes).
        key: Vec<u8>,
        /// The index (and its GSI's name).
        gsi: &'static str,
        /// The field.
        field: String,
        /// Why, and what to do.
        message: String,
    },
    /// A raw value written for a key type whose rows are whole: its value
    /// fields are attributes, and bytes are not value fields.
    #[error("item {index} (key {}): `{schema}` stores its value fields as attributes and this value is not its value fields ({message}): write whole rows (`put_record`), or declare no value fields to store raw values; nothing was sent", crate::limits::ShortKey(key))]
    NotFields {
        /// Its index in the batch.
        index: usize,
        /// Its key (cut to 64 bytes).
        key: Vec<u8>,
        /// The key type.
        schema: &'static str,
        /// What the value is not.
        message: String,
    },
    /// The item of a row was asked for before the store read the table,
    /// and the table decides an index's form (an index native by default
    /// is encoded on a table whose GSI is): the item would be a guess.
    #[error("the item of a row of table {table} depends on the form of its GSI `{index}` (native by default, encoded where the table's GSI is), and this store has not read the table yet: call `check_table` first, or open the store with `connect` (which reads it); a program without a table can take the declared forms (`with_declared_forms`)")]
    TableUnread {
        /// The table.
        table: String,
        /// The first index whose form the table decides.
        index: &'static str,
    },
    /// A request this store does not make for this key type.
    #[error("{operation} is not supported here: {reason}")]
    Unsupported {
        /// What was asked.
        operation: &'static str,
        /// Why, and what to do.
        reason: String,
    },
}

impl DynamoError {
    /// A write's [`Limit`](Self::Limit) as a read's
    /// [`ReadLimit`](Self::ReadLimit).
    fn for_read(self, operation: &'static str) -> Self {
        match self {
            DynamoError::Limit {
                key,
                what,
                len,
                max,
                ..
            } => DynamoError::ReadLimit {
                operation,
                key,
                what,
                len,
                max,
            },
            other => other,
        }
    }
}

/// One item of a batch that was not written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FailedItem {
    /// Its index in the batch.
    pub index: usize,
    /// Its row key.
    pub key: Vec<u8>,
    /// Why.
    pub message: String,
}

/// A DynamoDB table that stores the rows of one key type.
///
/// ```no_run
/// # async fn demo() -> Result<(), keyschema::store::dynamodb::DynamoError> {
/// use keyschema::store::dynamodb::DynamoStore;
/// use keyschema::RowKey;
///
/// #[derive(RowKey)]
/// #[rowkey(salt = random % 10, then = (invoice_id), rev(created_at), line_no)]
/// struct Line { invoice_id: String, created_at: u64, line_no: u16 }
///
/// // Credentials and region from the environment, as every AWS tool reads them.
/// let store = DynamoStore::connect::<Line>("invoice_lines").await?;
/// store.create_table().await?;
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct DynamoStore {
    client: Client,
    table: String,
    schema: &'static Schema,
    retry: RetryPolicy,
    counters: std::sync::Arc<Counters>,
    shape: ItemShape,
    /// The key type's layout read at run time, for the key-field
    /// attributes (`None` when they are off).
    key_fields: Option<std::sync::Arc<DynSchema>>,
    /// The key type's indexes as GSIs, in their declared forms.
    gsis: std::sync::Arc<[gsi::Gsi]>,
    /// The forms the table decides, once read (`forms.rs`).
    learned: forms::Learned,
    /// Whether [`item_for`](Self::item_for) takes the declared forms
    /// before the store has read the table
    /// ([`with_declared_forms`](Self::with_declared_forms)).
    assume_declared: bool,
}

impl DynamoStore {
    /// The same store, for items of `shape` (key attribute names, key-field
    /// attributes); a shape whose names clash is a [`DynamoError::Shape`].
    pub fn with_shape(mut self, shape: ItemShape) -> Result<Self, DynamoError> {
        shape.check(self.schema)?;
        self.gsis = gsi::Gsi::all_of(self.schema, &shape)?;
        self.learned = std::sync::Arc::default();
        self.key_fields = if shape.key_fields {
            let layout =
                DynSchema::from_json(&self.schema.to_json()).map_err(|e| DynamoError::Shape {
                    schema: self.schema.name(),
                    reason: format!("its key fields cannot be read at run time: {e}"),
                })?;
            Some(std::sync::Arc::new(layout))
        } else {
            None
        };
        self.shape = shape;
        Ok(self)
    }

    /// The same store, whose [`item_for`](Self::item_for) takes each
    /// index in its declared form (an index native by default native, as
    /// on a table [`create_table`](Self::create_table) makes) before the
    /// store has read the table: for a program that makes items without a
    /// server. Its index writes and reads still read the table first, and
    /// take the forms the table has.
    pub fn with_declared_forms(mut self) -> Self {
        self.assume_declared = true;
        self
    }

    /// The shape of this store's items.
    pub fn shape(&self) -> &ItemShape {
        &self.shape
    }

    /// The value fields a read of `schema` is limited to: a projection's,
    /// when this store's rows are whole (a raw value has no fields).
    fn projection_of(&self, schema: &Schema) -> Option<&'static [ValueField]> {
        schema.projection().filter(|_| self.whole_rows())
    }

    /// Whether rows are whole: the key type has value fields, each its own
    /// attribute (else the raw value is in [`VALUE`]).
    fn whole_rows(&self) -> bool {
        !self.schema.values().is_empty()
    }

    /// The same store with another retry policy for unprocessed items.
    pub fn with_retry(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }

    /// The SDK client, for requests keyschema does not make (table
    /// settings, TTL, backups).
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// The table name.
    pub fn table(&self) -> &str {
        &self.table
    }

    /// Whether the table has a sort key: the key has components after the partition.
    fn has_sort_key(&self) -> bool {
        self.schema
            .partition_components()
            .is_some_and(|n| n < self.schema.components().len())
    }

    /// Whether key attributes are strings (`format = text` keys).
    fn text(&self) -> bool {
        matches!(self.schema.format(), crate::schema::Format::Text { .. })
    }

    /// A key part as an attribute value.
    fn attr(&self, bytes: &[u8]) -> AttributeValue {
        if self.text() {
            // Text keys are ASCII-safe UTF-8 by construction; decode checked them.
            AttributeValue::S(String::from_utf8_lossy(bytes).into_owned())
        } else {
            AttributeValue::B(aws_sdk_dynamodb::primitives::Blob::new(bytes.to_vec()))
        }
    }

    /// An attribute value back to bytes.
    fn bytes_of(
        &self,
        value: Option<&AttributeValue>,
        attribute: &str,
    ) -> Result<Vec<u8>, DynamoError> {
        match value {
            Some(AttributeValue::B(b)) if !self.text() => Ok(b.as_ref().to_vec()),
            Some(AttributeValue::S(s)) if self.text() => Ok(s.as_bytes().to_vec()),
            _ => Err(DynamoError::ForeignItem {
                table: self.table.clone(),
                attribute: attribute.to_string(),
            }),
        }
    }

    /// The value of the item under `key`: for whole rows, its attributes
    /// other than the key's, as a field map (so that unknown attributes
    /// another program added are there to skip, and missing ones to
    /// report); else the raw value attribute (always binary).
    fn value_of(
        &self,
        key: &[u8],
        item: &HashMap<String, AttributeValue>,
    ) -> Result<Vec<u8>, DynamoError> {
        if self.whole_rows() {
            // A binary `v` is a raw value unless a field of the type is
            // named `v`: a value field, or a key field of bytes, whose
            // attribute the item holds under its name.
            let components = self.schema.components();
            let raw = matches!(item.get(VALUE), Some(AttributeValue::B(_)))
                && !self.schema.values().iter().any(|f| f.name == VALUE)
                && !(self.shape.key_fields && components.iter().any(|c| c.name() == VALUE));
            if raw {
                return Err(DynamoError::RawValue {
                    table: self.table.clone(),
                    key: key.to_vec(),
                });
            }
            // Every field `None`: no attribute says the row is one, so
            // the map's notes entry (the empty name) is its presence mark.
            return Ok(field_map::to_field_map(item, |name| {
                name == self.shape.partition_key
                    || name == self.shape.sort_key
                    || components.iter().any(|c| c.name() == name)
                    || self.is_index_attribute(name)
            }));
        }
        match item.get(VALUE) {
            Some(AttributeValue::B(b)) => Ok(b.as_ref().to_vec()),
            _ => Err(DynamoError::NoValue {
                table: self.table.clone(),
                key: key.to_vec(),
            }),
        }
    }

    /// Refuses a key type other than the one the store was made for: its
    /// keys would be split by another layout, and its rows would break the
    /// right type's scans.
    pub(super) fn check_schema(&self, schema: &'static Schema) -> Result<(), DynamoError> {
        let same = std::ptr::eq(schema, self.schema)
            || (schema.name() == self.schema.name() && schema.to_json() == self.schema.to_json())
            // An index's entries are read through its GSI.
            || self.gsi_of(schema).is_some();
        if same {
            return Ok(());
        }
        Err(DynamoError::TableMismatch {
            table: self.table.clone(),
            reason: format!(
                "this store was made for `{}` rows, not `{}`: connect a store for `{}` (DynamoStore::connect::<{}>), one table per key type",
                self.schema.name(),
                schema.name(),
                schema.name(),
                schema.name()
            ),
        })
    }

    /// The key's partition and sort parts, checked against DynamoDB's
    /// limits. A key of a type's older layout (`#[rowkey_was]`) is split by
    /// that layout, as the older binary split it.
    fn split<'k>(&self, index: usize, key: &'k [u8]) -> Result<(&'k [u8], &'k [u8]), DynamoError> {
        let (partition, sort) = self
            .schema
            .layout_of(key)
            .split_key(key)
            .map_err(|source| DynamoError::Key {
                schema: self.schema.name(),
                key: key.to_vec(),
                source,
            })?;
        let limit = |what, len, max| DynamoError::Limit {
            index,
            key: key[..key.len().min(64)].to_vec(),
            what,
            len,
            max,
        };
        if partition.is_empty() || partition.len() > MAX_PARTITION_KEY {
            return Err(limit("partition key", partition.len(), MAX_PARTITION_KEY));
        }
        if self.has_sort_key() && (sort.is_empty() || sort.len() > MAX_SORT_KEY) {
            return Err(limit("sort key", sort.len(), MAX_SORT_KEY));
        }
        Ok((partition, sort))
    }

    /// The key attributes of `key`.
    fn key_item(
        &self,
        index: usize,
        key: &[u8],
    ) -> Result<HashMap<String, AttributeValue>, DynamoError> {
        let (partition, sort) = self.split(index, key)?;
        let mut item = HashMap::with_capacity(3);
        item.insert(self.shape.partition_key.clone(), self.attr(partition));
        if self.has_sort_key() {
            item.insert(self.shape.sort_key.clone(), self.attr(sort));
        }
        Ok(item)
    }

    /// The row key of an item.
    fn key_of(&self, item: &HashMap<String, AttributeValue>) -> Result<Vec<u8>, DynamoError> {
        let (pk, sk) = (&self.shape.partition_key, &self.shape.sort_key);
        let mut key = self.bytes_of(item.get(pk), pk)?;
        if self.has_sort_key() {
            key.extend(self.bytes_of(item.get(sk), sk)?);
        }
        Ok(key)
    }
}

/// A request error as a [`DynamoError::Request`], with the service's code.
fn request_error(operation: &'static str, error: impl std::error::Error) -> DynamoError {
    let mut message = error.to_string();
    let mut source = error.source();
    while let Some(s) = source {
        message.push_str(": ");
        message.push_str(&s.to_string());
        source = s.source();
    }
    DynamoError::Request { operation, message }
}
