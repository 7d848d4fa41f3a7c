//! A native index's key attributes on the item (writes), and its entries
//! rebuilt from the GSI's items (reads).
//!
//! A write puts on the item the attributes of the index's own
//! (`Name_shard`, the salt bucket; `Name_<field>_rev`, a negated integer;
//! `Name_<field>_bucket`); the fields the GSI is keyed on are the item's
//! attributes already, and are checked to be what the GSI needs (not
//! empty, of the key's type). A read rebuilds each item's entry key the
//! way a write computes it: the row key from the table's key attributes,
//! the index's value fields from the projected attributes, and the row
//! type's own `stored_index_keys`.

use super::gsi::{Gsi, Native};
use super::native::{negated, KeySource};
use super::write::attr_len;
use super::{DynamoError, DynamoStore, MAX_PARTITION_KEY, MAX_SORT_KEY};
use crate::dynamic::Value;
use aws_sdk_dynamodb::types::AttributeValue;
use std::collections::HashMap;

impl DynamoStore {
    /// The attributes of its own the native index `gsi` puts on the item
    /// (item `index` of its batch, under `key`) whose entry is `entry`,
    /// with the item's other attributes in `item`: each key attribute
    /// checked (a field's attribute is the value the entry holds, no key
    /// attribute is an empty string or bytes) and the partition and sort
    /// attributes' sizes held to DynamoDB's key limits.
    pub(super) fn native_attributes(
        &self,
        index: usize,
        key: &[u8],
        gsi: &Gsi,
        native: &Native,
        entry: &[u8],
        item: &HashMap<String, AttributeValue>,
    ) -> Result<Vec<(String, AttributeValue)>, DynamoError> {
        let cut = || key[..key.len().min(64)].to_vec();
        let values = native
            .layout
            .decode_components(entry)
            .map_err(|source| DynamoError::Key {
                schema: gsi.name,
                key: entry.to_vec(),
                source,
            })?;
        let shard = gsi
            .schema
            .bucket_of(entry)
            .map_err(|source| DynamoError::Key {
                schema: gsi.name,
                key: entry.to_vec(),
                source,
            })?;
        let components = gsi.schema.components();
        let refuse = |field: &str, message: String| DynamoError::NativeKey {
            index,
            key: cut(),
            gsi: gsi.name,
            field: field.to_string(),
            message,
        };
        let mut out = Vec::new();
        let mut sizes = [0usize; 2];
        for (side, attributes) in [&native.hash, &native.range].into_iter().enumerate() {
            for attribute in attributes {
                let (field, value) = match attribute.source {
                    KeySource::Shard => ("", AttributeValue::N(shard.to_string())),
                    KeySource::Field(at) => {
                        let field = components[at].name();
                        let want = key_value(attribute.source, &values, shard);
                        let have = item.get(&attribute.name);
                        match (have, want) {
                            (Some(have), Some(want)) if *have == want => (field, want),
                            (have, want) => {
                                return Err(refuse(
                                    field,
                                    format!(
                                        "the item's `{}` attribute is {} where the GSI is keyed on {}: a field whose stored attribute is not its key value (a serde form of its own) cannot key a native index; declare the index `dynamodb = encoded`",
                                        attribute.name,
                                        shown(have),
                                        shown(want.as_ref()),
                                    ),
                                ));
                            }
                        }
                    }
                    KeySource::Derived { at, .. } => {
                        let field = components[at].name();
                        let Some(value) = key_value(attribute.source, &values, shard) else {
                            return Err(refuse(
                                field,
                                format!("{} is no integer", values[at].to_text()),
                            ));
                        };
                        (field, value)
                    }
                };
                let empty = match &value {
                    AttributeValue::S(s) => s.is_empty(),
                    AttributeValue::B(b) => b.as_ref().is_empty(),
                    _ => false,
                };
                if empty {
                    return Err(refuse(field, "it is empty, and DynamoDB refuses an empty string or binary as a GSI's key attribute: give the field a value, or declare the index `dynamodb = encoded` (its encoded key holds an empty field)".to_string()));
                }
                sizes[side] += attr_len(&value);
                if !matches!(attribute.source, KeySource::Field(_)) {
                    out.push((attribute.name.clone(), value));
                }
            }
        }
        for (len, max, what) in [
            (sizes[0], MAX_PARTITION_KEY, "index partition key"),
            (sizes[1], MAX_SORT_KEY, "index sort key"),
        ] {
            if len > max {
                return Err(DynamoError::Limit {
                    index,
                    key: cut(),
                    what,
                    len,
                    max,
                });
            }
        }
        Ok(out)
    }
}

/// The value of the key attribute `source` names, from an entry's (or a
/// bound's leading) component values and its salt bucket; `None` when the
/// values do not reach the component, or it is none a key attribute holds.
pub(super) fn key_value(source: KeySource, values: &[Value], shard: u32) -> Option<AttributeValue> {
    match source {
        KeySource::Shard => Some(AttributeValue::N(shard.to_string())),
        KeySource::Field(at) => super::item::key_attribute(values.get(at)?.clone()),
        KeySource::Derived { at, negated: neg } => {
            let text = integer_text(values.get(at)?)?;
            Some(AttributeValue::N(if neg { negated(&text) } else { text }))
        }
    }
}

/// An attribute as a message shows it: its type and value.
fn shown(value: Option<&AttributeValue>) -> String {
    match value {
        None => "missing".to_string(),
        Some(AttributeValue::N(n)) => format!("the number (N) {n}"),
        Some(AttributeValue::S(s)) => format!("the string (S) {s:?}"),
        Some(AttributeValue::B(b)) => format!("{} bytes (B)", b.as_ref().len()),
        Some(other) => format!("{other:?}"),
    }
}

/// An integer's decimal text.
fn integer_text(value: &Value) -> Option<String> {
    Some(match value {
        Value::U8(v) => v.to_string(),
        Value::U16(v) => v.to_string(),
        Value::U32(v) => v.to_string(),
        Value::U64(v) => v.to_string(),
        Value::I8(v) => v.to_string(),
        Value::I16(v) => v.to_string(),
        Value::I32(v) => v.to_string(),
        Value::I64(v) => v.to_string(),
        _ => return None,
    })
}

/// The Query of one range of a native index's entries: the GSI's
/// partition attributes by equality and a condition on its sort
/// attributes that holds for every entry of the range (and for some
/// outside it, which the read drops by their rebuilt entry keys).
#[derive(Debug, Clone)]
pub(super) struct NativeQuery {
    /// The `KeyConditionExpression`, its names and its values.
    pub(super) condition: String,
    pub(super) names: HashMap<String, String>,
    pub(super) values: HashMap<String, AttributeValue>,
    /// The range's start and (exclusive) end, as entry keys.
    pub(super) start: Vec<u8>,
    pub(super) end: Option<Vec<u8>>,
}

impl DynamoStore {
    /// The Query of `range` (one partition of the index `gsi`, which
    /// [`plan_in`](Self::plan_in) checked) on the native GSI: each
    /// partition attribute from the range's partition (the shard from its
    /// salt, each field's value as the item holds it); then the sort
    /// attributes, left to right, by equality while the range's start and
    /// end hold the same value of the component, then the next one's range
    /// from the start's value to the end's (inclusive; either side open
    /// when the bound does not hold the component whole). Each attribute
    /// sorts as its component does, a negated one included, so a bound's
    /// attribute bounds the attribute in the same direction.
    pub(super) fn native_query(
        &self,
        gsi: &Gsi,
        native: &Native,
        start: &[u8],
        end: Option<&[u8]>,
    ) -> Result<NativeQuery, DynamoError> {
        let low = native.layout.decode_leading(start);
        let high = end.map(|e| native.layout.decode_leading(e));
        let shard = gsi.schema.bucket_of(start).unwrap_or(0);
        let mut query = NativeQuery {
            condition: String::new(),
            names: HashMap::new(),
            values: HashMap::new(),
            start: start.to_vec(),
            end: end.map(<[u8]>::to_vec),
        };
        let mut terms = Vec::new();
        for (n, attribute) in native.hash.iter().enumerate() {
            let Some(value) = key_value(attribute.source, &low, shard) else {
                return Err(DynamoError::UnboundPartition {
                    fields: gsi
                        .schema
                        .components()
                        .iter()
                        .take(gsi.schema.partition_components().unwrap_or(0))
                        .filter(|c| c.bucket_width().is_none())
                        .map(|c| c.name())
                        .collect(),
                });
            };
            terms.push(format!("#h{n} = :h{n}"));
            query.names.insert(format!("#h{n}"), attribute.name.clone());
            query.values.insert(format!(":h{n}"), value);
        }
        for (n, attribute) in native.range.iter().enumerate() {
            let lo = key_value(attribute.source, &low, shard);
            let hi = high
                .as_ref()
                .and_then(|h| key_value(attribute.source, h, shard));
            let name = format!("#s{n}");
            let (term, values) = match (lo, hi) {
                (Some(lo), Some(hi)) if lo == hi => {
                    terms.push(format!("{name} = :l{n}"));
                    query.values.insert(format!(":l{n}"), lo);
                    query.names.insert(name, attribute.name.clone());
                    continue;
                }
                (Some(lo), Some(hi)) => (
                    format!("{name} BETWEEN :l{n} AND :u{n}"),
                    vec![(format!(":l{n}"), lo), (format!(":u{n}"), hi)],
                ),
                (Some(lo), None) => (format!("{name} >= :l{n}"), vec![(format!(":l{n}"), lo)]),
                (None, Some(hi)) => (format!("{name} <= :u{n}"), vec![(format!(":u{n}"), hi)]),
                (None, None) => break,
            };
            // A range ends the condition: no sort attribute after it.
            terms.push(term);
            query.names.insert(name, attribute.name.clone());
            query.values.extend(values);
            break;
        }
        query.condition = terms.join(" AND ");
        Ok(query)
    }

    /// The entry of the native index `gsi` an item of its GSI stands for:
    /// the row key from the table's key attributes, the index's value
    /// fields from the projected attributes, the row type's own entries of
    /// them; `None` for an item that is no row of the key type (another
    /// type's in a single-table design), that has no entry of the index,
    /// or whose GSI key attributes are not the entry's (written by a
    /// program that did not keep them: it is not where the entry sorts).
    pub(super) fn native_entry_of(
        &self,
        gsi: &Gsi,
        native: &Native,
        item: &HashMap<String, AttributeValue>,
    ) -> Result<Option<Vec<u8>>, DynamoError> {
        let key = self.key_of(item)?;
        if self.schema.head().check_prefix(&key).is_err() {
            return Ok(None);
        }
        let value = match self.whole_rows() {
            true => self.value_of(&key, item)?,
            false => Vec::new(),
        };
        let entries = self.schema.stored_entries(&key, &value);
        let Some(entry) = entries
            .into_iter()
            .find(|e| gsi.schema.bucket_of(e).is_ok())
        else {
            return Ok(None);
        };
        let Ok(values) = native.layout.decode_components(&entry) else {
            return Ok(None);
        };
        let shard = gsi.schema.bucket_of(&entry).unwrap_or(0);
        let placed = native.keys().all(|a| {
            key_value(a.source, &values, shard).is_some_and(|v| item.get(&a.name) == Some(&v))
        });
        Ok(placed.then_some(entry))
    }
}
