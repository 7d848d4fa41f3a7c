//! What an item looks like: the names of its key attributes, and whether
//! each key field is also stored as its own readable attribute.

use super::{DynamoError, PARTITION_KEY, SORT_KEY, VALUE};
use crate::schema::Schema;

/// DynamoDB's limit on a key attribute's name: 255 bytes.
pub const MAX_KEY_ATTRIBUTE_NAME: usize = 255;

/// The shape of a table's items ([`DynamoStore::with_shape`](super::DynamoStore::with_shape)).
///
/// By default the key attributes are `pk` and `sk` and every key field is
/// also stored under its own name, so that a filter expression, a
/// `ProjectionExpression` or a GSI can use it:
///
/// ```text
/// { "pk": B, "sk": B, "invoice_id": S "INV-1", "line_no": N "3", "amount": N "500", "memo": S "rent" }
/// ```
///
/// An existing single-table design names its keys `PK` and `SK`:
/// `ItemShape::default().key_attributes("PK", "SK")`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ItemShape {
    /// The partition-key attribute (`pk`).
    pub partition_key: String,
    /// The sort-key attribute (`sk`), for key types whose key has a sort part.
    pub sort_key: String,
    /// Whether each key field is also stored as its own attribute (`true`).
    /// A `None` key field has none (a GSI over it is sparse), nor has a
    /// float DynamoDB's numbers cannot hold (NaN, infinities).
    pub key_fields: bool,
}

impl Default for ItemShape {
    fn default() -> Self {
        ItemShape {
            partition_key: PARTITION_KEY.to_string(),
            sort_key: SORT_KEY.to_string(),
            key_fields: true,
        }
    }
}

impl ItemShape {
    /// The same shape with these key attribute names.
    pub fn key_attributes(mut self, partition_key: &str, sort_key: &str) -> Self {
        self.partition_key = partition_key.to_string();
        self.sort_key = sort_key.to_string();
        self
    }

    /// The same shape, storing key fields as their own attributes or not.
    pub fn key_fields(mut self, on: bool) -> Self {
        self.key_fields = on;
        self
    }

    /// Refuses a shape whose attribute names `schema`'s items cannot all
    /// have: an empty or too long key attribute name, the two key
    /// attributes under one name, a key attribute with the name of a
    /// field stored beside it (or of `v`, the raw value's attribute), a key
    /// field named `v` beside a raw value, or a field or key attribute
    /// named like an index's GSI attribute (`Name_pk`, `Name_sk`; a native
    /// index's `Name_shard`, `Name_<field>_rev`, `Name_<field>_bucket`).
    pub(super) fn check(&self, schema: &Schema) -> Result<(), DynamoError> {
        let refuse = |reason: String| {
            Err(DynamoError::Shape {
                schema: schema.name(),
                reason,
            })
        };
        let sorted = schema
            .partition_components()
            .is_some_and(|n| n < schema.components().len());
        let mut keys = vec![("partition", &self.partition_key)];
        if sorted {
            keys.push(("sort", &self.sort_key));
        }
        for (what, name) in &keys {
            if name.is_empty() || name.len() > MAX_KEY_ATTRIBUTE_NAME {
                return refuse(format!(
                    "the {what}-key attribute name `{name}` is {} bytes; DynamoDB takes 1 to {MAX_KEY_ATTRIBUTE_NAME}",
                    name.len()
                ));
            }
        }
        if sorted && self.partition_key == self.sort_key {
            return refuse(format!(
                "the partition and sort keys are both named `{}`",
                self.partition_key
            ));
        }
        // The other attributes an item holds, and what they are.
        let mut beside: Vec<(&str, &str)> = schema
            .values()
            .iter()
            .map(|v| (v.name, "value field"))
            .collect();
        if schema.values().is_empty() {
            beside.push((VALUE, "raw value attribute"));
        }
        if self.key_fields {
            beside.extend(schema.components().iter().map(|c| (c.name(), "key field")));
        }
        // A key field under the raw value's name would lose its attribute
        // to the value (the same item cannot hold both).
        if schema.values().is_empty() && self.key_fields {
            if let Some(field) = schema.components().iter().find(|c| c.name() == VALUE) {
                return refuse(format!(
                    "the key field `{}` has the name of the raw value's attribute `{VALUE}`, and one item cannot hold both: rename the field, or turn key-field attributes off (DynamoStore::from_client_with or connect_with, with ItemShape::default().key_fields(false))",
                    field.name()
                ));
            }
        }
        // An index's GSI key attributes sit beside the fields.
        for index in schema.indexes() {
            // A native index's attributes of its own (`_shard`, `_rev`,
            // `_bucket`); its fields' own are the item's anyway.
            let native = match index.dynamodb_form() {
                crate::schema::DynamoForm::Encoded => Vec::new(),
                _ => super::native::native_parts(index, schema, self)
                    .map(|(hash, range)| {
                        hash.into_iter()
                            .chain(range)
                            .filter(|a| !matches!(a.source, super::native::KeySource::Field(_)))
                            .map(|a| a.name)
                            .collect()
                    })
                    .unwrap_or_default(),
            };
            let encoded = [
                format!("{}_pk", index.name()),
                format!("{}_sk", index.name()),
            ];
            for gsi_attribute in encoded.into_iter().chain(native) {
                if let Some((_, role)) = beside.iter().find(|(name, _)| *name == gsi_attribute) {
                    return refuse(format!(
                        "the {role} `{gsi_attribute}` has the name of a key attribute of the index `{}`'s GSI, and one item cannot hold both: rename the field or the index",
                        index.name()
                    ));
                }
                if keys.iter().any(|(_, key)| **key == gsi_attribute) {
                    return refuse(format!(
                        "the key attribute `{gsi_attribute}` has the name of a key attribute of the index `{}`'s GSI: name the key attributes otherwise (ItemShape::key_attributes)",
                        index.name()
                    ));
                }
            }
        }
        for (what, key) in &keys {
            if let Some((_, role)) = beside.iter().find(|(name, _)| name == key) {
                return refuse(format!(
                    "the {what}-key attribute `{key}` has the name of a {role}: name the key attributes otherwise (ItemShape::key_attributes){}",
                    if *role == "key field" {
                        ", or turn key-field attributes off (DynamoStore::from_client_with or connect_with, with ItemShape::default().key_fields(false))"
                    } else {
                        ""
                    }
                ));
            }
        }
        Ok(())
    }
}
