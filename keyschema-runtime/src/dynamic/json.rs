//! Reading the schema document ("The schema as JSON" in `docs/ENCODING.md`)
//! into a [`DynSchema`], with every rule the derive checks at compile time
//! checked here, so no document yields a layout the derive could not.

use super::component::decode_plain;
use super::{DynComponent, DynCut, DynField, DynHistory, DynSalt, DynSchema, Transform};
use crate::encoding::{Base, Encoding, Reader};
use crate::limits::{MAX_BUCKETS, MAX_COMPONENTS};
use crate::schema::{DynamoForm, Format, Order};
use serde_json::{Map, Value as Json};
use std::collections::BTreeSet;
use std::sync::{Mutex, OnceLock};

/// The versions of the document this build reads: 2, and 3, which is 2
/// with a layout history.
const VERSION: u64 = 2;
const HISTORY_VERSION: u64 = 3;

/// A schema document that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SchemaError {
    /// Not JSON.
    #[error("the schema is not valid JSON: {0}")]
    Json(String),
    /// JSON, but not a schema this build can use.
    #[error("schema `{at}`: {reason}")]
    Invalid {
        /// Where in the document (`components[2].encoding`).
        at: String,
        /// What is wrong.
        reason: String,
    },
}

fn invalid(at: impl Into<String>, reason: impl Into<String>) -> SchemaError {
    SchemaError::Invalid {
        at: at.into(),
        reason: reason.into(),
    }
}

/// Names live as long as the program, as the derived schemas' do (errors
/// hold `&'static str`); each distinct name is stored once, however many
/// times a schema is loaded.
pub(crate) fn intern(name: &str) -> &'static str {
    static NAMES: OnceLock<Mutex<BTreeSet<&'static str>>> = OnceLock::new();
    let mut names = NAMES
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(&known) = names.get(name) {
        return known;
    }
    let leaked: &'static str = Box::leak(name.to_string().into_boxed_str());
    names.insert(leaked);
    leaked
}

fn field<'j>(obj: &'j Map<String, Json>, at: &str, key: &str) -> Result<&'j Json, SchemaError> {
    obj.get(key)
        .ok_or_else(|| invalid(format!("{at}{key}"), "missing"))
}

fn string<'j>(obj: &'j Map<String, Json>, at: &str, key: &str) -> Result<&'j str, SchemaError> {
    field(obj, at, key)?
        .as_str()
        .ok_or_else(|| invalid(format!("{at}{key}"), "expected a string"))
}

fn number(obj: &Map<String, Json>, at: &str, key: &str) -> Result<u64, SchemaError> {
    field(obj, at, key)?
        .as_u64()
        .ok_or_else(|| invalid(format!("{at}{key}"), "expected a non-negative integer"))
}

impl DynSchema {
    /// Reads a schema document written by
    /// [`Schema::to_json`](crate::Schema::to_json). Refuses, naming the
    /// place, a document of another version, a component whose type
    /// declares no [`Encoding`], and any layout the derive
    /// would not compile (a `reverse` on a string, a bucket without its
    /// field, N outside 1..=65,536, ...).
    ///
    /// ```
    /// use keyschema::dynamic::DynSchema;
    ///
    /// let err = DynSchema::from_json(r#"{"keyschema":1}"#).unwrap_err();
    /// assert_eq!(err.to_string(), "schema `keyschema`: version 1 is not supported; this build reads versions 2 and 3 (a layout history)");
    /// ```
    pub fn from_json(text: &str) -> Result<DynSchema, SchemaError> {
        let doc: Json = serde_json::from_str(text).map_err(|e| SchemaError::Json(e.to_string()))?;
        Self::from_document_value(&doc)
    }

    /// [`from_json`](Self::from_json) of a parsed document (an index's,
    /// nested in its row type's `indexes`).
    fn from_document_value(doc: &Json) -> Result<DynSchema, SchemaError> {
        let obj = doc
            .as_object()
            .ok_or_else(|| invalid("", "expected a JSON object"))?;
        let version = number(obj, "", "keyschema")?;
        if version != VERSION && version != HISTORY_VERSION {
            return Err(invalid(
                "keyschema",
                format!("version {version} is not supported; this build reads versions {VERSION} and {HISTORY_VERSION} (a layout history)"),
            ));
        }
        if (version == HISTORY_VERSION) != obj.contains_key("history") {
            return Err(invalid(
                "history",
                format!("version {HISTORY_VERSION} documents, and only they, have a `history`"),
            ));
        }
        let name = intern(string(obj, "", "name")?);
        let format = read_format(field(obj, "", "format")?)?;
        let prefix = read_hex(string(obj, "", "prefix")?)
            .ok_or_else(|| invalid("prefix", "expected lowercase hex digits, two per byte"))?;
        if let Format::Text { sep } = format {
            if prefix.contains(&sep) {
                return Err(invalid(
                    "prefix",
                    format!(
                        "holds the separator {:?}: its keys would begin like another prefix's",
                        sep as char
                    ),
                ));
            }
        }
        let components = read_components(field(obj, "", "components")?, format)?;
        let salt = read_salt(field(obj, "", "salt")?, components.len())?;
        let partition = match field(obj, "", "partition")? {
            Json::Null => None,
            p => match p.as_u64() {
                Some(n) if n >= 1 && n as usize <= components.len() => Some(n as usize),
                _ => {
                    return Err(invalid(
                        "partition",
                        format!("expected null or 1..={} components", components.len()),
                    ))
                }
            },
        };
        let fields = fields_of(&components)?;
        let mut schema = DynSchema {
            name,
            prefix,
            format,
            salt,
            partition,
            components,
            fields,
            history: None,
            indexes: read_indexes(obj.get("indexes"))?,
            dynamodb: match obj.get("dynamodb") {
                None => DynamoForm::Undeclared,
                Some(form) => match form.as_str() {
                    Some("native") => DynamoForm::Native,
                    Some("encoded") => DynamoForm::Encoded,
                    _ => return Err(invalid("dynamodb", "expected \"native\" or \"encoded\"")),
                },
            },
        };
        if version == HISTORY_VERSION {
            schema.history = Some(Box::new(read_history(obj, &schema)?));
        }
        Ok(schema)
    }
}

fn read_format(format: &Json) -> Result<Format, SchemaError> {
    let obj = format
        .as_object()
        .ok_or_else(|| invalid("format", "expected an object"))?;
    match string(obj, "format.", "kind")? {
        "binary" => Ok(Format::Binary),
        "text" => {
            let sep = string(obj, "format.", "sep")?;
            match sep.as_bytes() {
                [b] if b.is_ascii_punctuation() && !b"%-=".contains(b) => {
                    Ok(Format::Text { sep: *b })
                }
                _ => Err(invalid(
                    "format.sep",
                    format!("{sep:?} is not one ASCII punctuation character other than %, - and ="),
                )),
            }
        }
        other => Err(invalid(
            "format.kind",
            format!("{other:?} is neither \"binary\" nor \"text\""),
        )),
    }
}

fn read_hex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    let digit = |c: u8| match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    };
    text.as_bytes()
        .chunks_exact(2)
        .map(|p| Some(digit(p[0])? << 4 | digit(p[1])?))
        .collect()
}

fn read_components(list: &Json, format: Format) -> Result<Vec<DynComponent>, SchemaError> {
    let list = list
        .as_array()
        .ok_or_else(|| invalid("components", "expected an array"))?;
    if list.is_empty() || list.len() > MAX_COMPONENTS {
        return Err(invalid(
            "components",
            format!(
                "a key has 1..={MAX_COMPONENTS} components, not {}",
                list.len()
            ),
        ));
    }
    let text = matches!(format, Format::Text { .. });
    let mut out: Vec<DynComponent> = Vec::with_capacity(list.len());
    for (i, c) in list.iter().enumerate() {
        let at = format!("components[{i}].");
        let obj = c
            .as_object()
            .ok_or_else(|| invalid(&at[..at.len() - 1], "expected an object"))?;
        let name = string(obj, &at, "name")?;
        let type_name = string(obj, &at, "type")?;
        let encoding: Encoding = match field(obj, &at, "encoding")? {
            Json::Null => {
                return Err(invalid(
                    format!("{at}encoding"),
                    format!("the type `{type_name}` of `{name}` declares no encoding (`KeyComponent::ENCODING` in its impl), so its bytes cannot be read without the Rust type"),
                ))
            }
            e => e
                .as_str()
                .ok_or_else(|| invalid(format!("{at}encoding"), "expected a string"))?
                .parse()
                .map_err(|e: crate::encoding::UnknownEncoding| {
                    invalid(format!("{at}encoding"), e.to_string())
                })?,
        };
        let order = match string(obj, &at, "order")? {
            "asc" => Order::Ascending,
            "desc" => Order::Descending,
            other => {
                return Err(invalid(
                    format!("{at}order"),
                    format!("{other:?} is neither \"asc\" nor \"desc\""),
                ))
            }
        };
        let transform = match field(obj, &at, "transform")? {
            Json::String(t) if t == "plain" => Transform::Plain,
            Json::String(t) if t == "reverse" => Transform::Reverse,
            Json::Object(b) => match b.get("bucket").and_then(Json::as_u64) {
                Some(w) if w >= 1 && b.len() == 1 => Transform::Bucket(w),
                _ => {
                    return Err(invalid(
                        format!("{at}transform"),
                        "expected {\"bucket\": W} with W >= 1",
                    ))
                }
            },
            _ => {
                return Err(invalid(
                    format!("{at}transform"),
                    "expected \"plain\", \"reverse\" or {\"bucket\": W}",
                ))
            }
        };
        if let Some(Json::Number(w)) = obj.get("fixed_width") {
            if w.as_u64().map(|w| w as usize) != encoding.fixed_width() {
                return Err(invalid(
                    format!("{at}fixed_width"),
                    format!("{w} disagrees with the encoding `{encoding}`"),
                ));
            }
        }
        let fixed_int = encoding.is_integer();
        let refuse = |reason: &str| Err(invalid(format!("{at}transform"), reason.to_string()));
        match transform {
            Transform::Reverse if !fixed_int => {
                return refuse("`reverse` needs a fixed-width integer")
            }
            Transform::Reverse if order == Order::Descending => {
                return refuse("`reverse` is stored ascending")
            }
            Transform::Bucket(_)
                if !fixed_int || matches!(encoding.base(), Base::U128 | Base::I128) =>
            {
                return refuse("`bucket` needs an integer field (u8..u64, i8..i64)")
            }
            _ => {}
        }
        if text && order == Order::Descending && !fixed_int {
            return Err(invalid(
                format!("{at}order"),
                "`rev` in a text key needs a number (its digits are complemented)",
            ));
        }
        if let Some(prev) = out.last() {
            if let Transform::Bucket(_) = prev.transform {
                if transform != Transform::Plain
                    || prev.name != name
                    || prev.encoding != encoding
                    || prev.order != order
                {
                    return Err(invalid(
                        &at[..at.len() - 1],
                        format!("a bucket of `{}` must be followed by `{}` itself: the same name, encoding and order, stored plain", prev.name, prev.name),
                    ));
                }
            }
        }
        out.push(DynComponent {
            name: intern(name),
            type_name: type_name.to_string(),
            encoding,
            order,
            transform,
        });
    }
    if let Some(last) = out.last() {
        if let Transform::Bucket(_) = last.transform {
            return Err(invalid(
                format!("components[{}]", out.len() - 1),
                format!(
                    "a bucket of `{}` must be followed by `{}` itself",
                    last.name, last.name
                ),
            ));
        }
    }
    Ok(out)
}

fn read_salt(salt: &Json, components: usize) -> Result<Option<DynSalt>, SchemaError> {
    let obj = match salt {
        Json::Null => return Ok(None),
        Json::Object(obj) => obj,
        _ => return Err(invalid("salt", "expected null or an object")),
    };
    let buckets = number(obj, "salt.", "buckets")?;
    if buckets == 0 || buckets > u64::from(MAX_BUCKETS) {
        return Err(invalid(
            "salt.buckets",
            format!("N = {buckets} is outside 1..={MAX_BUCKETS}"),
        ));
    }
    let buckets = buckets as u32;
    match string(obj, "salt.", "kind")? {
        "random" => Ok(Some(DynSalt {
            buckets,
            hashed: Vec::new(),
            random: true,
        })),
        "hash" => {
            let list = field(obj, "salt.", "hashed")?
                .as_array()
                .ok_or_else(|| invalid("salt.hashed", "expected an array"))?;
            let mut hashed = Vec::with_capacity(list.len());
            for (i, h) in list.iter().enumerate() {
                match h.as_u64() {
                    Some(h) if (h as usize) < components && !hashed.contains(&(h as usize)) => {
                        hashed.push(h as usize)
                    }
                    _ => {
                        return Err(invalid(
                            format!("salt.hashed[{i}]"),
                            format!(
                                "expected the index of a component (0..{components}), each once"
                            ),
                        ))
                    }
                }
            }
            if hashed.is_empty() {
                return Err(invalid(
                    "salt.hashed",
                    "a hash salt hashes at least one component",
                ));
            }
            Ok(Some(DynSalt {
                buckets,
                hashed,
                random: false,
            }))
        }
        other => Err(invalid(
            "salt.kind",
            format!("{other:?} is neither \"hash\" nor \"random\""),
        )),
    }
}

/// The key's fields: one per component, except that a bucket and the field
/// after it are one field.
fn fields_of(components: &[DynComponent]) -> Result<Vec<DynField>, SchemaError> {
    let mut fields: Vec<DynField> = Vec::new();
    for (i, c) in components.iter().enumerate() {
        if let Transform::Bucket(_) = c.transform {
            continue;
        }
        if fields.iter().any(|f| f.name == c.name) {
            return Err(invalid(
                format!("components[{i}].name"),
                format!("`{}` is in the key twice", c.name),
            ));
        }
        let bucket = match i.checked_sub(1).map(|p| (p, components[p].transform)) {
            Some((p, Transform::Bucket(w))) => Some((p, w)),
            _ => None,
        };
        fields.push(DynField {
            name: c.name,
            encoding: c.encoding,
            component: i,
            bucket,
        });
    }
    Ok(fields)
}

/// The `indexes` member: each index's entry layout, a document of its own,
/// read as any document is (an error names the index: `indexes[0].prefix`).
/// Absent (a document written before indexes were listed, or a type
/// without indexes): none. An index's `dynamodb` (its form on DynamoDB),
/// absent: encoded, what documents before it was written meant.
fn read_indexes(indexes: Option<&Json>) -> Result<Vec<DynSchema>, SchemaError> {
    let list = match indexes {
        None | Some(Json::Null) => return Ok(Vec::new()),
        Some(Json::Array(list)) => list,
        Some(_) => return Err(invalid("indexes", "expected an array of schema documents")),
    };
    list.iter()
        .enumerate()
        .map(|(i, doc)| {
            let mut index = DynSchema::from_document_value(doc).map_err(|e| match e {
                SchemaError::Invalid { at, reason } if at.is_empty() => {
                    invalid(format!("indexes[{i}]"), reason)
                }
                SchemaError::Invalid { at, reason } => {
                    invalid(format!("indexes[{i}].{at}"), reason)
                }
                other => other,
            })?;
            // A document written before indexes said their form: the
            // encoded one, the only one those versions wrote.
            if index.dynamodb == DynamoForm::Undeclared {
                index.dynamodb = DynamoForm::Encoded;
            }
            Ok(index)
        })
        .collect()
}

/// The `history` member of a version 3 document, checked as the derive
/// checks `#[rowkey_was(...)]`: the older layout differs from the declared
/// one in its prefix or salt, its salt is not random, and a cut-over field
/// is a key field stored plain or `rev` whose value reads in its encoding.
fn read_history(obj: &Map<String, Json>, declared: &DynSchema) -> Result<DynHistory, SchemaError> {
    let history = field(obj, "", "history")?
        .as_object()
        .ok_or_else(|| invalid("history", "expected an object"))?;
    let prefix = read_hex(string(history, "history.", "prefix")?).ok_or_else(|| {
        invalid(
            "history.prefix",
            "expected lowercase hex digits, two per byte",
        )
    })?;
    let salt = read_salt(
        field(history, "history.", "salt")?,
        declared.components.len(),
    )?;
    if salt.as_ref().is_some_and(|s| s.random) {
        return Err(invalid(
            "history.salt",
            "an older layout cannot have a random salt: its rows could not be found by key",
        ));
    }
    if prefix == declared.prefix && salt == declared.salt {
        return Err(invalid(
            "history",
            "the older layout is the declared one (same prefix and salt)",
        ));
    }
    let cut = field(history, "history.", "cut")?
        .as_object()
        .ok_or_else(|| invalid("history.cut", "expected an object"))?;
    let cut = match string(cut, "history.cut.", "kind")? {
        "migration" => DynCut::Migration,
        "field" => {
            let component = cut
                .get("component")
                .and_then(Json::as_u64)
                .and_then(|c| usize::try_from(c).ok())
                .filter(|&c| {
                    declared
                        .fields
                        .iter()
                        .any(|f| f.component == c && f.bucket.is_none())
                        && declared.components[c].transform() == super::Transform::Plain
                })
                .ok_or_else(|| {
                    invalid(
                        "history.cut.component",
                        "expected the index of a key field stored plain or `rev` (not `reverse`d, not a bucket)",
                    )
                })?;
            let at = read_hex(string(cut, "history.cut.", "at")?)
                .ok_or_else(|| invalid("history.cut.at", "expected lowercase hex digits"))?;
            let encoding = declared.components[component].encoding();
            let mut reader = Reader::new(&at);
            if decode_plain(encoding, &mut reader).is_err() || !reader.is_empty() {
                return Err(invalid(
                    "history.cut.at",
                    format!("is not one value of the encoding {encoding}"),
                ));
            }
            DynCut::Field { component, at }
        }
        other => {
            return Err(invalid(
                "history.cut.kind",
                format!("{other:?}: expected \"migration\" or \"field\""),
            ))
        }
    };
    let mut older = declared.clone();
    older.name = intern(&format!("{} (older layout)", declared.name));
    older.prefix = prefix;
    older.salt = salt;
    older.history = None;
    older.indexes = Vec::new();
    Ok(DynHistory { older, cut })
}
