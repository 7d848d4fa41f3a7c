//! A schema document read as a [`Schema`]: what the stores take, for tools
//! that read a table they have no Rust type for (the `keyschema` command
//! reading a live Bigtable or DynamoDB table).

use super::json::SchemaError;
use super::{DynSchema, Transform};
use crate::record::ValueField;
use crate::schema::{Component, Format, Salt, Schema, DEFAULT_FAMILY, ROW_FORMAT};
use serde_json::Value as Json;

impl Schema {
    /// The layout a schema document ([`Schema::to_json`]) describes, as the
    /// stores take it: `DynamoStore::for_schema`, and the whole-row reads
    /// of `AsyncStore::scan_for` (value fields as Bigtable cells or DynamoDB
    /// attributes). For tools that read a table without its Rust type.
    ///
    /// The schema lives as long as the program (the stores keep
    /// `&'static Schema`): read a document once, not per request. It
    /// renders and splits keys as the derived schema does; the checks that
    /// need the Rust type (the salt against the hashed fields) are the
    /// [`DynSchema`]'s, which reads the same document. A document with a
    /// layout history (version 3) is refused: its cut-over is a value of
    /// the Rust type.
    ///
    /// ```
    /// use keyschema::{RowKey, Schema};
    ///
    /// #[derive(RowKey)]
    /// #[rowkey(salt = hash(user_id) % 8, then = (user_id), rev(ts), family = "visit")]
    /// struct Visit {
    ///     user_id: String,
    ///     ts: u64,
    ///     #[rowkey(value)]
    ///     url: String,
    /// }
    ///
    /// let schema = Schema::from_document(&Visit::schema().to_json())?;
    /// let key = Visit::get_key("u1", 7);
    /// assert_eq!(schema.render(&key), Visit::schema().render(&key));
    /// assert_eq!(schema.split_key(&key)?, Visit::schema().split_key(&key)?);
    /// assert_eq!(schema.values()[0].name, "url");
    /// assert_eq!(schema.family(), "visit");
    /// assert_eq!(schema.to_json(), Visit::schema().to_json());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_document(json: &str) -> Result<&'static Schema, SchemaError> {
        let layout = DynSchema::from_json(json)?;
        if layout.history.is_some() {
            return Err(SchemaError::Invalid {
                at: "history".into(),
                reason: "a layout with a history cannot be read as a store's schema (its cut-over is a value of the Rust type): read the table with the declared layout's document (version 2)".into(),
            });
        }
        let doc: Json = serde_json::from_str(json).map_err(|e| SchemaError::Json(e.to_string()))?;
        let row_format = read_row_format(doc.get("row_format"))?;
        let types = super::types::read_types(doc.get("types"))?;
        let values = read_values(doc.get("values"), row_format.is_some(), types)?;
        let family = match doc.get("family") {
            None | Some(Json::Null) => DEFAULT_FAMILY,
            Some(Json::String(f)) if !f.is_empty() => super::json::intern(f),
            Some(_) => return Err(invalid("family", "expected a non-empty string")),
        };
        let unkept: Vec<&'static str> = layout.indexes.iter().map(|i| i.name).collect();
        let schema = layout
            .as_schema(values, family)
            .with_unkept_indexes(Box::leak(unkept.into_boxed_slice()));
        Ok(Box::leak(Box::new(schema)))
    }
}

impl DynSchema {
    /// The entry layouts of the row type's indexes, as the document lists
    /// them (`indexes`, each index's own document), in declaration order;
    /// none for a document without the member.
    ///
    /// ```
    /// use keyschema::dynamic::DynSchema;
    /// use keyschema::RowKey;
    ///
    /// #[derive(RowKey)]
    /// #[rowkey(prefix = "v", then = user_id, ts, index(ByTs, prefix = "t", then = ts, user_id))]
    /// struct Visit { user_id: String, ts: u64 }
    ///
    /// let schema = DynSchema::from_json(&Visit::schema().to_json())?;
    /// assert_eq!(schema.indexes().len(), 1);
    /// assert_eq!(schema.indexes()[0].name(), "ByTs");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn indexes(&self) -> &[DynSchema] {
        &self.indexes
    }

    /// This layout as a [`Schema`] (leaked: it lives as long as the program).
    fn as_schema(&self, values: &'static [ValueField], family: &'static str) -> Schema {
        let text = matches!(self.format, Format::Text { .. });
        let components: Vec<Component> = self
            .components
            .iter()
            .map(|c| {
                let (reversed, bucket) = match c.transform {
                    Transform::Plain => (false, None),
                    Transform::Reverse => (true, None),
                    Transform::Bucket(w) => (false, Some(w)),
                };
                Component::of_document(
                    c.name,
                    super::json::intern(&c.type_name),
                    c.order,
                    reversed,
                    bucket,
                    c.encoding,
                    text,
                )
            })
            .collect();
        let salt = self.salt.as_ref().map(|s| {
            if s.random {
                Salt::random(s.buckets)
            } else {
                Salt::by_hash(s.buckets, Box::leak(s.hashed.clone().into_boxed_slice()))
            }
        });
        Schema::new(
            self.name,
            Box::leak(self.prefix.clone().into_boxed_slice()),
            salt,
            Box::leak(components.into_boxed_slice()),
            self.format,
        )
        .with_partition(self.partition)
        .with_values(values)
        .with_family(family)
    }
}

fn invalid(at: impl Into<String>, reason: impl Into<String>) -> SchemaError {
    SchemaError::Invalid {
        at: at.into(),
        reason: reason.into(),
    }
}

/// A [`ValueField`]'s probe whose answer the document gives: yes.
fn yes() -> bool {
    true
}

/// A [`ValueField`]'s probe whose answer the document gives: no.
fn no() -> bool {
    false
}

/// The document's `row_format`, the version of the stored row's form:
/// `Some(1)`, or `None` for a document written before the member (whose
/// rows are in that form too). Another version is refused.
fn read_row_format(format: Option<&Json>) -> Result<Option<u32>, SchemaError> {
    match format {
        None => Ok(None),
        Some(v) => match v.as_u64() {
            Some(n) if n == u64::from(ROW_FORMAT) => Ok(Some(ROW_FORMAT)),
            Some(n) => Err(invalid(
                "row_format",
                format!("version {n} of the stored rows is not supported; this build reads version {ROW_FORMAT}"),
            )),
            None => Err(invalid("row_format", "expected a non-negative integer")),
        },
    }
}

/// The document's `values`: each field's name, Rust type, whether a row
/// must hold it, whether its type reads nil (`nil`, absent when false;
/// such a field is not `required`: a missing one reads as nil) and whether
/// it is self-describing (`self_describing`, absent when false in a
/// document with a `row_format`; in an older document, absent, the type
/// text decides: a type named `Value` is). Absent: no value fields.
fn read_values(
    values: Option<&Json>,
    has_row_format: bool,
    types: &'static crate::record::UserTypes,
) -> Result<&'static [ValueField], SchemaError> {
    let list = match values {
        None | Some(Json::Null) => return Ok(&[]),
        Some(Json::Array(list)) => list,
        Some(_) => return Err(invalid("values", "expected an array")),
    };
    let mut out: Vec<ValueField> = Vec::with_capacity(list.len());
    for (i, v) in list.iter().enumerate() {
        let at = |member: &str| format!("values[{i}].{member}");
        let name = v
            .get("name")
            .and_then(Json::as_str)
            .filter(|n| !n.is_empty())
            .ok_or_else(|| invalid(at("name"), "expected a non-empty string"))?;
        if out.iter().any(|f| f.name == name) {
            return Err(invalid(at("name"), format!("`{name}` is named twice")));
        }
        let type_name = v
            .get("type")
            .and_then(Json::as_str)
            .ok_or_else(|| invalid(at("type"), "expected a string"))?;
        let required = v
            .get("required")
            .and_then(Json::as_bool)
            .ok_or_else(|| invalid(at("required"), "expected true or false"))?;
        let nil = match v.get("nil") {
            None => false,
            Some(nil) => nil
                .as_bool()
                .ok_or_else(|| invalid(at("nil"), "expected true or false"))?,
        };
        let shape = match v.get("shape") {
            None => None,
            Some(s) => match s.as_str() {
                Some(s) if !s.is_empty() => Some(super::json::intern(s)),
                _ => {
                    return Err(invalid(
                        at("shape"),
                        "expected a type text (a non-empty string)",
                    ))
                }
            },
        };
        let self_describing = match v.get("self_describing") {
            Some(s) => s
                .as_bool()
                .ok_or_else(|| invalid(at("self_describing"), "expected true or false"))?,
            None if has_row_format => false,
            // A document written before the member: a `serde_json::Value`
            // (or any type named `Value`) reads whatever a cell holds.
            None => type_name.rsplit("::").next().unwrap_or(type_name) == "Value",
        };
        out.push(ValueField {
            name: super::json::intern(name),
            type_name: super::json::intern(type_name),
            required,
            self_describing: if self_describing { yes } else { no },
            reads_nil: if nil { yes } else { no },
            user_types: crate::record::UserTypesOf::Read(types, shape),
        });
    }
    Ok(Box::leak(out.into_boxed_slice()))
}
