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

use super::native::{native_parts, KeySource, NativeAttribute};
use super::{DynamoError, DynamoStore, ItemShape, MAX_PARTITION_KEY, MAX_SORT_KEY};
use crate::dynamic::DynSchema;
use crate::schema::{DynamoForm, Schema};
use aws_sdk_dynamodb::types::AttributeValue;
use std::sync::Arc;

/// One index as a GSI.
#[derive(Debug, Clone)]
pub(super) struct Gsi {
    /// The index name and the GSI's.
    pub(super) name: &'static str,
    pub(super) schema: &'static Schema,
    /// The encoded form's partition-key and sort-key attributes.
    pub(super) pk: String,
    pub(super) sk: Option<String>,
    /// The native form's key attributes, when the index has it.
    pub(super) native: Option<Arc<Native>>,
    /// Whether the index is native by default (no `dynamodb = ...`), so
    /// that the table decides: a GSI `Name` it already has in the encoded
    /// form keeps the index encoded (`forms.rs`).
    pub(super) by_default: bool,
    /// Whether the table's GSI made a default-native index encoded.
    pub(super) table_encoded: bool,
}

/// A native index's GSI (see `native.rs`).
#[derive(Debug)]
pub(super) struct Native {
    /// Its partition (HASH) attributes, the salt's first.
    pub(super) hash: Vec<NativeAttribute>,
    /// Its sort (RANGE) attributes.
    pub(super) range: Vec<NativeAttribute>,
    /// The index's layout read at run time: an entry key's components.
    pub(super) layout: DynSchema,
    /// The row's value fields among its components that are no key
    /// attribute of the GSI (a `rev` field's own value): projected into
    /// the GSI, so that a read rebuilds the entry from its items.
    pub(super) include: Vec<&'static str>,
}

impl Native {
    /// The GSI's key attributes, HASH then RANGE.
    pub(super) fn keys(&self) -> impl Iterator<Item = &NativeAttribute> {
        self.hash.iter().chain(&self.range)
    }
}

/// The shortest GSI name DynamoDB takes.
const MIN_INDEX_NAME: usize = 3;

impl Gsi {
    /// The GSI of each index of `schema` in items of `shape`, named once
    /// for the store's life; an index declared `dynamodb = native` that
    /// cannot be is refused, naming the component and why.
    pub(super) fn all_of(
        schema: &'static Schema,
        shape: &ItemShape,
    ) -> Result<Arc<[Gsi]>, DynamoError> {
        schema
            .indexes()
            .map(|i| Gsi::of(schema, i, shape))
            .collect()
    }

    fn of(
        row: &'static Schema,
        schema: &'static Schema,
        shape: &ItemShape,
    ) -> Result<Self, DynamoError> {
        let name = schema.name();
        let sorted = schema
            .partition_components()
            .is_some_and(|n| n < schema.components().len());
        let refuse = |reason: String| DynamoError::Shape {
            schema: row.name(),
            reason,
        };
        let declared = schema.dynamodb_form();
        // Native when declared so (refused if it cannot be), and by default
        // where it can be.
        let parts = match declared {
            DynamoForm::Native => Some(native_parts(schema, row, shape).map_err(|why| {
                refuse(format!("its index `{name}` is declared `dynamodb = native`, but {why}: declare it `dynamodb = encoded` (a GSI over `{name}_pk` and `{name}_sk`)"))
            })?),
            DynamoForm::Encoded => None,
            _ => native_parts(schema, row, shape).ok(),
        };
        let native = match parts {
            Some((hash, range)) => {
                let layout = DynSchema::from_json(&schema.to_json()).map_err(|e| {
                    refuse(format!(
                        "the layout of its index `{name}` cannot be read at run time: {e}"
                    ))
                })?;
                let keys: Vec<&str> = hash.iter().chain(&range).map(|a| a.name.as_str()).collect();
                let include = schema
                    .components()
                    .iter()
                    .map(|c| c.name())
                    .filter(|f| row.values().iter().any(|v| v.name == *f))
                    .filter(|f| !keys.contains(f))
                    .fold(Vec::new(), |mut out, f| {
                        if !out.contains(&f) {
                            out.push(f);
                        }
                        out
                    });
                Some(Arc::new(Native {
                    hash,
                    range,
                    layout,
                    include,
                }))
            }
            None => None,
        };
        Ok(Gsi {
            name,
            schema,
            pk: format!("{name}_pk"),
            sk: sorted.then(|| format!("{name}_sk")),
            by_default: native.is_some() && declared != DynamoForm::Native,
            native,
            table_encoded: false,
        })
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
    /// The key type's indexes as GSIs, each in the form the table decides
    /// once the store has read it (`forms.rs`), the declared one before.
    pub(super) fn gsis(&self) -> Arc<[Gsi]> {
        self.reading()
            .map_or_else(|| self.gsis.clone(), |reading| reading.forms)
    }

    /// The GSI of the index whose entries `schema` lays out, when it is
    /// one of this store's key type's.
    pub(super) fn gsi_of(&self, schema: &Schema) -> Option<Gsi> {
        self.gsis()
            .iter()
            .find(|g| std::ptr::eq(g.schema, schema) || g.name == schema.name())
            .cloned()
    }

    /// Whether an attribute is one the store writes for an index, in
    /// either form (the table decides a default-native index's): the
    /// encoded form's `_pk` and `_sk`, the native form's attributes of its
    /// own (`_shard`, `_rev`, `_bucket`; not the fields it is keyed on).
    pub(super) fn is_index_attribute(&self, name: &str) -> bool {
        self.gsis.iter().any(|g| {
            g.pk == name
                || g.sk.as_deref() == Some(name)
                || g.native.as_ref().is_some_and(|native| {
                    native
                        .keys()
                        .any(|a| a.name == name && !matches!(a.source, KeySource::Field(_)))
                })
        })
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
    /// `value` (item `index` of its batch, whose other attributes `item`
    /// holds), checked against DynamoDB's key limits: for each index the
    /// row has an entry in, an encoded index's `_pk` and `_sk`, a native
    /// index's attributes of its own (`native_keys.rs`).
    pub(super) fn index_attributes(
        &self,
        index: usize,
        key: &[u8],
        value: &[u8],
        item: &std::collections::HashMap<String, AttributeValue>,
    ) -> Result<Vec<(String, AttributeValue)>, DynamoError> {
        let mut out = Vec::new();
        if !self.schema.has_indexes() {
            return Ok(out);
        }
        let entries = self.schema.stored_entries(key, value);
        for gsi in self.gsis().iter() {
            let Some(entry) = entries.iter().find(|e| gsi.schema.bucket_of(e).is_ok()) else {
                continue;
            };
            if let Some(native) = &gsi.native {
                out.extend(self.native_attributes(index, key, gsi, native, entry, item)?);
                continue;
            }
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
