//! Keys without the Rust type: a [`DynSchema`] read from the JSON document
//! that [`Schema::to_json`](crate::Schema::to_json) writes encodes, decodes,
//! renders and plans scan ranges from [`Value`]s, byte for byte as the
//! derived code does. The `keyschema` command line tool is built on it.
//!
//! ```
//! use keyschema::dynamic::{DynSchema, Value};
//! use keyschema::RowKey;
//!
//! #[derive(RowKey, Debug, PartialEq)]
//! #[rowkey(salt = hash(user_id, site) % 8, then = user_id, site, rev(timestamp))]
//! struct Event { user_id: String, site: String, timestamp: u64 }
//!
//! // A tool that has only the document:
//! let schema = DynSchema::from_json(&Event::schema().to_json())?;
//! let values = [Value::from("u1"), Value::from("s"), Value::from(1_700_000_000u64)];
//! let key = schema.encode(&values)?;
//! assert_eq!(key, Event::get_key("u1", "s", 1_700_000_000));
//! assert_eq!(schema.decode(&key)?, values);
//! assert_eq!(schema.render(&key), "3|u1|s|~1700000000");
//!
//! // What a typed scan for user u1 on site s reads: one range, in bucket 3.
//! let ranges = schema.ranges(&values[..2], None)?;
//! assert_eq!(ranges, Event::scan().user_id("u1").site("s").ranges());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod component;
mod decode;
mod document;
mod error;
mod history;
mod json;
pub(crate) use json::intern;
mod json_input;
mod parts;
mod scan;
mod types;
mod value;

pub use error::ValueError;
pub use history::{DynCut, DynHistory, Layout};
pub use json::SchemaError;
pub use parts::{DynComponent, DynField, Transform};
pub use scan::ValueRange;
pub use value::Value;

use crate::encoding::Encoding;
use crate::error::DecodeError;
use crate::salt;
use crate::schema::{Format, Header};

/// A key layout read at run time (see the [module docs](self)).
#[derive(Debug, Clone)]
pub struct DynSchema {
    name: &'static str,
    prefix: Vec<u8>,
    format: Format,
    salt: Option<DynSalt>,
    partition: Option<usize>,
    components: Vec<DynComponent>,
    fields: Vec<DynField>,
    /// The older layout and the cut-over (a version 3 document).
    history: Option<Box<DynHistory>>,
    /// The index entry layouts the document lists (`indexes`).
    indexes: Vec<DynSchema>,
    /// An index's form on DynamoDB, as its row type's document says it.
    dynamodb: crate::DynamoForm,
}

/// The salt of a [`DynSchema`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DynSalt {
    buckets: u32,
    hashed: Vec<usize>,
    random: bool,
}

impl DynSchema {
    /// An index's form on DynamoDB as its row type's document says it
    /// (`"dynamodb"` in the index's document: `Native` for `"native"`,
    /// `Encoded` for `"encoded"`, and `Encoded` when it says none, which
    /// is what the versions before the member wrote);
    /// [`DynamoForm::Undeclared`](crate::DynamoForm::Undeclared) for a
    /// row type's own layout.
    pub fn dynamodb_form(&self) -> crate::DynamoForm {
        self.dynamodb
    }

    /// The name of the key type the document was written for.
    pub fn name(&self) -> &str {
        self.name
    }

    /// The key format.
    pub fn format(&self) -> Format {
        self.format
    }

    /// The constant bytes every key starts with.
    pub fn prefix(&self) -> &[u8] {
        &self.prefix
    }

    /// The salt, when the key has one.
    pub fn salt(&self) -> Option<&DynSalt> {
        self.salt.as_ref()
    }

    /// The number of salt buckets; 1 when unsalted.
    pub fn buckets(&self) -> u32 {
        self.salt.as_ref().map_or(1, |s| s.buckets)
    }

    /// How many leading components form the partition key.
    pub fn partition_components(&self) -> Option<usize> {
        self.partition
    }

    /// The components, in key order.
    pub fn components(&self) -> &[DynComponent] {
        &self.components
    }

    /// The key's fields, in key order: what [`encode`](Self::encode) takes.
    pub fn fields(&self) -> &[DynField] {
        &self.fields
    }

    fn sep(&self) -> Option<u8> {
        match self.format {
            Format::Text { sep } => Some(sep),
            _ => None,
        }
    }

    fn head(&self) -> Header<'_> {
        Header {
            name: self.name,
            prefix: &self.prefix,
            sep: self.sep(),
            salt: self.salt.as_ref().map(|s| (s.buckets, s.random)),
        }
    }

    /// The field names, for errors.
    fn field_list(&self) -> String {
        let names: Vec<&str> = self.fields.iter().map(|f| f.name).collect();
        names.join(", ")
    }

    /// Reads `name=value` texts (in any order) into the values of every
    /// field, in key order, each parsed as [`Value::parse`] reads it.
    pub fn parse_fields(&self, pairs: &[(&str, &str)]) -> Result<Vec<Value>, ValueError> {
        let mut values: Vec<Option<Value>> = vec![None; self.fields.len()];
        for &(name, text) in pairs {
            let (index, field) = self.field(name)?;
            if values[index].is_some() {
                return Err(ValueError::Field {
                    field: name.to_string(),
                    what: "given twice",
                });
            }
            values[index] = Some(field.parse(text)?);
        }
        values
            .into_iter()
            .zip(&self.fields)
            .map(|(v, f)| {
                v.ok_or(ValueError::Field {
                    field: f.name.to_string(),
                    what: "missing",
                })
            })
            .collect()
    }

    /// The field called `name`, with its index.
    pub fn field(&self, name: &str) -> Result<(usize, &DynField), ValueError> {
        self.fields
            .iter()
            .enumerate()
            .find(|(_, f)| f.name == name)
            .ok_or_else(|| ValueError::UnknownField {
                name: name.to_string(),
                fields: self.field_list(),
            })
    }

    /// Checks the values against the fields and returns one value per
    /// component (a bucket's computed from its field).
    fn component_values(&self, values: &[Value]) -> Result<Vec<Value>, ValueError> {
        if values.len() != self.fields.len() {
            return Err(ValueError::Count {
                given: values.len(),
                expected: self.fields.len(),
                fields: self.field_list(),
            });
        }
        let mut out = Vec::with_capacity(self.components.len());
        for (field, value) in self.fields.iter().zip(values) {
            field.check(value)?;
            if let Some((_, width)) = field.bucket {
                out.push(field.bucket_value(value, width));
            }
            out.push(value.clone());
        }
        Ok(out)
    }

    /// The key of a row whose key fields are `values` (in key order, see
    /// [`fields`](Self::fields)). A `random % N` salt gets a random bucket,
    /// as `get_key` does; [`encode_in`](Self::encode_in) chooses it.
    pub fn encode(&self, values: &[Value]) -> Result<Vec<u8>, ValueError> {
        let components = self.component_values(values)?;
        Ok(self.write(&components, None))
    }

    /// The key of the row in bucket `bucket` of a `random % N` salt (one of
    /// the N keys a get must try).
    pub fn encode_in(&self, values: &[Value], bucket: u32) -> Result<Vec<u8>, ValueError> {
        match &self.salt {
            Some(s) if s.random && bucket < s.buckets => {}
            Some(s) if s.random => {
                return Err(ValueError::Bucket {
                    bucket,
                    reason: "not below the salt's N",
                })
            }
            _ => {
                return Err(ValueError::Bucket {
                    bucket,
                    reason: "only a `random % N` salt lets the writer choose the bucket",
                })
            }
        }
        let components = self.component_values(values)?;
        Ok(self.write(&components, Some(bucket)))
    }

    /// Split points from a sample of keys, as [`splits::plan`](crate::splits::plan)
    /// computes them for a derived schema: every bucket boundary, and
    /// `per_bucket - 1` quantiles of the sample inside each bucket.
    pub fn split_points<'a>(
        &self,
        sample: impl IntoIterator<Item = &'a [u8]>,
        per_bucket: usize,
    ) -> Vec<Vec<u8>> {
        crate::splits::plan_in(self.head(), sample, per_bucket)
    }

    /// The salt bucket of an encoded key, read from its bytes.
    pub fn bucket_of(&self, key: &[u8]) -> Result<u32, DecodeError> {
        self.head().bucket_of(key)
    }

    /// Every key of the row: the N keys of a random salt, or just `key`.
    pub fn candidates(&self, key: &[u8]) -> Vec<Vec<u8>> {
        self.head().candidates(key)
    }

    /// The salt bucket of a row from its hashed fields, given by name
    /// (other fields may be given and are ignored).
    pub fn bucket(&self, pairs: &[(&str, Value)]) -> Result<u32, ValueError> {
        let Some(s) = &self.salt else { return Ok(0) };
        if s.random {
            return Err(ValueError::Bucket {
                bucket: 0,
                reason: "a `random % N` salt has no bucket of its own: a row may be in any",
            });
        }
        let mut input = Vec::new();
        for &h in &s.hashed {
            let name = self.components[h].name;
            let field = self.fields.iter().find(|f| f.name == name).ok_or_else(|| {
                ValueError::UnknownField {
                    name: name.to_string(),
                    fields: self.field_list(),
                }
            })?;
            let value = pairs
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v)
                .ok_or(ValueError::Field {
                    field: name.to_string(),
                    what: "missing (it is hashed into the salt)",
                })?;
            field.check(value)?;
            let value = match (field.bucket, h == field.component) {
                (Some((_, width)), false) => field.bucket_value(value, width),
                _ => value.clone(),
            };
            component::encode_plain(self.components[h].encoding, &value, &mut input);
        }
        Ok(salt::bucket(&input, s.buckets))
    }

    /// Writes a key from checked component values.
    fn write(&self, values: &[Value], bucket: Option<u32>) -> Vec<u8> {
        let head = self.head();
        let mut out = Vec::with_capacity(head.len() + 16 * values.len());
        head.push(None, &mut out);
        let mut plains = Plains::default();
        let last = values.len().saturating_sub(1);
        for (i, (c, v)) in self.components.iter().zip(values).enumerate() {
            plains.push(c.encoding, v);
            match self.sep() {
                None => {
                    let start = out.len();
                    out.extend_from_slice(plains.get(i));
                    c.transform_binary(&mut out[start..]);
                }
                Some(sep) => {
                    if i > 0 {
                        out.push(sep);
                    }
                    let start = out.len();
                    component::encode_text(c.encoding, v, &mut out, sep);
                    c.transform_text(&mut out[start..]);
                    if i == last && c.encoding.text_width().is_none() {
                        out.push(sep);
                    }
                }
            }
        }
        if let Some(s) = &self.salt {
            let bucket = match bucket {
                Some(b) => b,
                None if s.random => salt::choose(s.buckets),
                None => s.bucket_of(&plains),
            };
            let at = head.salt_at();
            head.write_salt(bucket, &mut out[at..at + head.salt_len()]);
        }
        out
    }
}

impl DynSalt {
    /// N in `% N`.
    pub fn buckets(&self) -> u32 {
        self.buckets
    }

    /// The hashed components' indexes, in hash order (empty when random).
    pub fn hashed(&self) -> &[usize] {
        &self.hashed
    }

    /// Whether the salt is `random % N`.
    pub fn is_random(&self) -> bool {
        self.random
    }

    /// The bucket from the components' plain encodings.
    fn bucket_of(&self, plains: &Plains) -> u32 {
        let parts = self
            .hashed
            .iter()
            .map(|&h| salt::Part::Plain(plains.get(h)));
        salt::bucket_of_parts(parts, self.buckets)
    }
}

/// The plain (ascending) encodings of a key's components, one after the
/// other in one buffer: what a hash salt hashes.
#[derive(Debug, Clone, Default)]
pub(crate) struct Plains {
    bytes: Vec<u8>,
    ends: Vec<usize>,
}

impl Plains {
    /// Appends the next component's encoding (of a value already checked).
    fn push(&mut self, encoding: Encoding, value: &Value) {
        component::encode_plain(encoding, value, &mut self.bytes);
        self.ends.push(self.bytes.len());
    }

    /// Component `i`'s encoding.
    fn get(&self, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.bytes[start..self.ends[i]]
    }

    /// How many components it holds.
    fn len(&self) -> usize {
        self.ends.len()
    }
}
