//! Indexes on DynamoDB: each index of the key type (`index(Name, ...)`) is
//! a global secondary index named `Name` over two attributes of the item,
//! `Name_pk` (the index key's partition part: prefix, salt and partition
//! group) and `Name_sk` (the rest), binary like the table's keys. A write
//! puts them on the item with its fields, so DynamoDB keeps the index: the
//! row and its entry are one item, one write. A row without an entry (an
//! `Option` field of the index that is `None`) has no such attributes, so
//! the index is sparse. Reads of a GSI are eventually consistent: an
//! index scan checks each row it names with a consistent read of the item
//! (never a row that is not in the table, nor one whose index value
//! changed); a row written a moment ago may be missing from the index until
//! DynamoDB has propagated it (usually within a second).

use super::{DynamoError, DynamoStore, MAX_PARTITION_KEY, MAX_SORT_KEY};
use crate::schema::Schema;
use aws_sdk_dynamodb::types::AttributeValue;

/// One index as a GSI.
#[derive(Debug, Clone)]
pub(super) struct Gsi {
    /// The index name and the GSI's.
    pub(super) name: &'static str,
    pub(super) schema: &'static Schema,
    /// Its partition-key and sort-key attributes.
    pub(super) pk: String,
    pub(super) sk: Option<String>,
}

/// The shortest GSI name DynamoDB takes.
const MIN_INDEX_NAME: usize = 3;

impl Gsi {
    /// The GSI of each index of `schema`, named once for the store's life.
    pub(super) fn all_of(schema: &'static Schema) -> std::sync::Arc<[Gsi]> {
        schema.indexes().map(Gsi::of).collect()
    }

    fn of(schema: &'static Schema) -> Self {
        let name = schema.name();
        let sorted = schema
            .partition_components()
            .is_some_and(|n| n < schema.components().len());
        Gsi {
            name,
            schema,
            pk: format!("{name}_pk"),
            sk: sorted.then(|| format!("{name}_sk")),
        }
    }

    /// An entry key of this index as its partition and sort parts.
    pub(super) fn split<'k>(&self, entry: &'k [u8]) -> Result<(&'k [u8], &'k [u8]), DynamoError> {
        self.schema
            .split_key(entry)
            .map_err(|source| DynamoError::Key {
                schema: self.name,
                key: entry.to_vec(),
                source,
            })
    }
}

impl DynamoStore {
    /// The key type's indexes as GSIs.
    pub(super) fn gsis(&self) -> &[Gsi] {
        &self.gsis
    }

    /// The GSI of the index whose entries `schema` lays out, when it is
    /// one of this store's key type's.
    pub(super) fn gsi_of(&self, schema: &Schema) -> Option<Gsi> {
        self.gsis
            .iter()
            .find(|g| std::ptr::eq(g.schema, schema) || g.name == schema.name())
            .cloned()
    }

    /// Whether an attribute is one of an index's key attributes.
    pub(super) fn is_index_attribute(&self, name: &str) -> bool {
        self.gsis
            .iter()
            .any(|g| g.pk == name || g.sk.as_deref() == Some(name))
    }

    /// The entry key of a GSI's item: its `_pk` and `_sk` together.
    pub(super) fn entry_key_of(
        &self,
        gsi: &Gsi,
        item: &std::collections::HashMap<String, AttributeValue>,
    ) -> Result<Vec<u8>, DynamoError> {
        let mut key = self.bytes_of(item.get(&gsi.pk), &gsi.pk)?;
        if let Some(sk) = &gsi.sk {
            key.extend(self.bytes_of(item.get(sk), sk)?);
        }
        Ok(key)
    }

    /// Refuses indexes DynamoDB cannot hold as GSIs: one without a
    /// partition group, a name shorter than 3 characters, a format other
    /// than the table's.
    pub(super) fn check_indexes(&self) -> Result<(), DynamoError> {
        for index in self.schema.indexes() {
            let refuse = |reason: String| DynamoError::Shape {
                schema: self.schema.name(),
                reason,
            };
            if index.partition_components().is_none() {
                return Err(refuse(format!("its index `{}` declares no partition key, and a DynamoDB GSI needs one: write the index's partition fields first in its `then`, in parentheses (`then = (site), rev(timestamp), user_id`)", index.name())));
            }
            if index.name().len() < MIN_INDEX_NAME {
                return Err(refuse(format!("its index `{}` has a name shorter than {MIN_INDEX_NAME} characters, which DynamoDB refuses for a GSI: rename it", index.name())));
            }
            if index.format() != self.schema.format() {
                return Err(refuse(format!("its index `{}` has another key format than the table's, and the GSI's key attributes take the table's type: give it the row's format", index.name())));
            }
        }
        Ok(())
    }

    /// The index key attributes of the row stored under `key` with
    /// `value` (item `index` of its batch), checked against DynamoDB's key
    /// limits: each index the row has an entry in, its `_pk` and `_sk`.
    pub(super) fn index_attributes(
        &self,
        index: usize,
        key: &[u8],
        value: &[u8],
    ) -> Result<Vec<(String, AttributeValue)>, DynamoError> {
        let mut out = Vec::new();
        if !self.schema.has_indexes() {
            return Ok(out);
        }
        let entries = self.schema.stored_entries(key, value);
        for gsi in self.gsis() {
            let Some(entry) = entries.iter().find(|e| gsi.schema.bucket_of(e).is_ok()) else {
                continue;
            };
            let (partition, sort) = gsi.split(entry)?;
            let limit = |what, len, max| DynamoError::Limit {
                index,
                key: key[..key.len().min(64)].to_vec(),
                what,
                len,
                max,
            };
            if partition.is_empty() || partition.len() > MAX_PARTITION_KEY {
                return Err(limit(
                    "index partition key",
                    partition.len(),
                    MAX_PARTITION_KEY,
                ));
            }
            out.push((gsi.pk.clone(), self.attr(partition)));
            if let Some(sk) = &gsi.sk {
                if sort.is_empty() || sort.len() > MAX_SORT_KEY {
                    return Err(limit("index sort key", sort.len(), MAX_SORT_KEY));
                }
                out.push((sk.clone(), self.attr(sort)));
            }
        }
        Ok(out)
    }
}
