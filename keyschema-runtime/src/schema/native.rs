//! The form of each index on DynamoDB: **native**, a GSI keyed on the
//! item's own typed attributes (up to 4 partition and 4 sort attributes,
//! DynamoDB's multi-attribute keys), which the console and boto3 query by
//! field values; or **encoded**, a GSI over the two binary attributes
//! `Name_pk` and `Name_sk` that hold the entry key's bytes.
//!
//! An index is native by default where it can be (`dynamodb = encoded`
//! keeps the encoded form; a table whose GSI is encoded keeps it, see
//! `forms.rs`), and only where DynamoDB's order of every attribute is
//! the order the index declares (the entry keys' byte order), so that a
//! Query of one partition returns the entries in key order: integers up to
//! 64 bits as `N` (`rev` of one as its negation, in `Name_<field>_rev`),
//! `String` and `char` as `S` (UTF-8 byte order), a `uuid` as `S`
//! (hyphenated lowercase hex), bytes as `B`, a bucket as `N`
//! (`Name_<field>_bucket`), the salt as `N` (`Name_shard`, the first
//! partition attribute). Everything else keeps the encoded form, and
//! `index_form` says why (docs/ENCODING.md, "Indexes on DynamoDB").
//! Compiled without the `dynamodb` feature too: the schema document says
//! each index's form (`"dynamodb"`), whatever features built it.

use crate::encoding::Base;
use crate::schema::{DynamoForm, Format, Order, Schema};
use std::fmt;

/// DynamoDB's limit on the attributes of a GSI's partition key, and of its
/// sort key: 4 each.
pub const MAX_KEY_ATTRIBUTES: usize = 4;

/// The type of a key attribute: a number, a string or a binary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KeyKind {
    /// `N`.
    N,
    /// `S`.
    S,
    /// `B`.
    B,
}

impl KeyKind {
    /// `N`, `S` or `B`, as DynamoDB writes it.
    pub fn as_str(&self) -> &'static str {
        match self {
            KeyKind::N => "N",
            KeyKind::S => "S",
            KeyKind::B => "B",
        }
    }
}

/// What a native index's key attribute holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KeySource {
    /// The salt bucket of the row's entry (`Name_shard`).
    Shard,
    /// Component `n` of the index: the field's own attribute, which the
    /// item holds anyway (a key field's, or a value field's).
    Field(usize),
    /// Component `n`, kept by the write in an attribute of the index's
    /// own: a bucket (`Name_<field>_bucket`), or a number negated so that
    /// DynamoDB's ascending order is the component's descending one
    /// (`Name_<field>_rev`, `Name_<field>_bucket_rev`).
    Derived {
        /// The component.
        at: usize,
        /// Whether the attribute holds the negated value.
        negated: bool,
    },
}

/// One key attribute of a native index's GSI.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct NativeAttribute {
    /// The attribute's name.
    pub name: String,
    /// Its type.
    pub kind: KeyKind,
    /// What it holds.
    pub source: KeySource,
}

/// The form an index has on DynamoDB, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IndexForm {
    /// A GSI over the item's own typed attributes: `hash` its partition
    /// attributes (the salt's `Name_shard` first), `range` its sort
    /// attributes, in key order.
    Native {
        /// The GSI's partition (HASH) attributes.
        hash: Vec<NativeAttribute>,
        /// The GSI's sort (RANGE) attributes.
        range: Vec<NativeAttribute>,
    },
    /// A GSI over the binary (or, for text keys, string) attributes
    /// `Name_pk` and `Name_sk`, which hold the entry key's two parts.
    Encoded {
        /// Why it is not native.
        why: String,
    },
}

impl IndexForm {
    /// Whether the form is native.
    pub fn is_native(&self) -> bool {
        matches!(self, IndexForm::Native { .. })
    }
}

impl fmt::Display for IndexForm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |attributes: &[NativeAttribute]| {
            attributes
                .iter()
                .map(|a| format!("{} {}", a.name, a.kind.as_str()))
                .collect::<Vec<_>>()
                .join(", ")
        };
        match self {
            IndexForm::Native { hash, range } => {
                write!(f, "native: HASH [{}]", list(hash))?;
                if !range.is_empty() {
                    write!(f, ", RANGE [{}]", list(range))?;
                }
                Ok(())
            }
            IndexForm::Encoded { why } => write!(f, "encoded: {why}"),
        }
    }
}

/// The form the index whose entries `index` lays out has on DynamoDB, for
/// the rows of `row` in items whose key fields are attributes of their own
/// or not (`key_fields`, `ItemShape::key_fields`): native when every component can
/// be one of the GSI's typed key attributes, unless it is declared
/// `dynamodb = encoded`; else encoded, with why (the declaration, or the
/// first component that cannot be native, and the reason).
///
/// A store refuses to open when an index declared `dynamodb = native`
/// cannot be (`DynamoError::Shape`, naming the component and the reason).
/// An index native by default is encoded on a table whose GSI of its name
/// is (the table decides: `DynamoStore::index_forms` says so).
pub fn index_form(index: &Schema, row: &Schema, key_fields: bool) -> IndexForm {
    let native = native_parts(index, row, key_fields);
    match (index.dynamodb_form(), native) {
        (DynamoForm::Encoded, _) => IndexForm::Encoded {
            why: "it is declared `dynamodb = encoded`".to_string(),
        },
        (_, Ok((hash, range))) => IndexForm::Native { hash, range },
        (DynamoForm::Native, Err(why)) => IndexForm::Encoded {
            why: format!("it is declared `dynamodb = native`, but {why}"),
        },
        (_, Err(why)) => IndexForm::Encoded {
            why: format!("it could not be native (the default where it can be): {why}"),
        },
    }
}

/// The key attributes of `index` as a native GSI, or why it cannot be one.
pub(crate) fn native_parts(
    index: &Schema,
    row: &Schema,
    key_fields: bool,
) -> Result<(Vec<NativeAttribute>, Vec<NativeAttribute>), String> {
    if let Format::Text { .. } = index.format() {
        return Err("its keys are text (`format = text`), which order a string by its escaped text and not by the string; keyschema keeps the indexes of text keys encoded".to_string());
    }
    if !key_fields {
        return Err("the row's key fields are not stored as attributes of their own (ItemShape::key_fields(false)), and a native GSI is keyed on them: turn key-field attributes on".to_string());
    }
    let components = index.components();
    let partition = index.partition_components().unwrap_or(components.len());
    let mut hash = Vec::new();
    if index.salt().is_some() {
        hash.push(NativeAttribute {
            name: format!("{}_shard", index.name()),
            kind: KeyKind::N,
            source: KeySource::Shard,
        });
    }
    let mut range = Vec::new();
    for at in 0..components.len() {
        let attribute = component_attribute(index, row, at)?;
        match at < partition {
            true => hash.push(attribute),
            false => range.push(attribute),
        }
    }
    let salted = if index.salt().is_some() {
        " (the salt's `_shard` one included)"
    } else {
        ""
    };
    if hash.len() > MAX_KEY_ATTRIBUTES {
        return Err(format!("its partition needs {} attributes{salted}, and a GSI's partition key takes at most {MAX_KEY_ATTRIBUTES}", hash.len()));
    }
    if range.len() > MAX_KEY_ATTRIBUTES {
        return Err(format!(
            "its sort part needs {} attributes, and a GSI's sort key takes at most {MAX_KEY_ATTRIBUTES}",
            range.len()
        ));
    }
    Ok((hash, range))
}

/// Component `at` of `index` as a native key attribute, or why it cannot
/// be one.
fn component_attribute(index: &Schema, row: &Schema, at: usize) -> Result<NativeAttribute, String> {
    let c = &index.components()[at];
    let (field, ty) = (c.name(), c.type_name());
    let because = |reason: &str| format!("`{field}` ({ty}) {reason}");
    if c.is_reversed() {
        return Err(format!("`reverse({field})` stores the field's bytes least-significant first, an order no DynamoDB attribute has"));
    }
    let Some(encoding) = c.encoding() else {
        return Err(because("has a type that declares no built-in encoding, so no attribute type is known to sort as it does"));
    };
    if encoding.options() > 0 {
        return Err(because("is an `Option` key field: a row whose field is `None` has no attribute, so DynamoDB would leave it out of the GSI while the index has its entry"));
    }
    let kind = match encoding.base() {
        Base::U8 | Base::U16 | Base::U32 | Base::U64 => KeyKind::N,
        Base::I8 | Base::I16 | Base::I32 | Base::I64 => KeyKind::N,
        Base::Char | Base::String | Base::Uuid => KeyKind::S,
        Base::Bytes | Base::Array(_) => KeyKind::B,
        Base::U128 | Base::I128 => {
            return Err(because(
                "is a 128-bit integer, beyond the 38 digits of DynamoDB's numbers",
            ))
        }
        Base::F32 | Base::F64 => return Err(because("is a float: DynamoDB's numbers make -0.0 equal to 0.0 and hold no NaN or infinity, so the GSI could not keep the declared order")),
        Base::Bool => return Err(because("is a bool, and BOOL is no key attribute type")),
        Base::Timestamp | Base::DateTime | Base::Date => return Err(because("is a time, stored as RFC 3339 text, whose variable fractional seconds do not sort as the instants do")),
        Base::Enum(_) => return Err(because("is an enum, stored by its variant's name, which sorts alphabetically and not as declared (by discriminant)")),
    };
    let value_field = row.values().iter().any(|v| v.name == field);
    let serde_form = matches!(encoding.base(), Base::Bytes | Base::Array(_) | Base::Uuid);
    if value_field && serde_form {
        return Err(because("is a value field, whose attribute is its serde form (a list for `Vec<u8>` and arrays, 16 bytes for a uuid), not the key attribute a native GSI needs"));
    }
    let descending = c.order() == Order::Descending;
    if descending && kind != KeyKind::N {
        return Err(format!("`rev({field})` ({ty}): DynamoDB has no descending order for an attribute, and only a number can be negated to sort the other way"));
    }
    let index = index.name();
    let rev = if descending { "_rev" } else { "" };
    let (name, source) = match (c.bucket_width(), descending) {
        (Some(_), _) => (
            format!("{index}_{field}_bucket{rev}"),
            KeySource::Derived {
                at,
                negated: descending,
            },
        ),
        (None, true) => (
            format!("{index}_{field}_rev"),
            KeySource::Derived { at, negated: true },
        ),
        (None, false) => (field.to_string(), KeySource::Field(at)),
    };
    Ok(NativeAttribute { name, kind, source })
}

/// The negation of an integer's decimal text, exactly (`-0` is never
/// written: DynamoDB has no negative zero): `7` -> `-7`, `-7` -> `7`,
/// `0` -> `0`; `-9223372036854775808` -> `9223372036854775808`.
pub(crate) fn negated(text: &str) -> String {
    match text.strip_prefix('-') {
        Some(magnitude) => magnitude.to_string(),
        None if text.bytes().all(|b| b == b'0') => "0".to_string(),
        None => format!("-{text}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negation_is_exact_at_the_extremes() {
        for (text, want) in [
            ("0", "0"),
            ("7", "-7"),
            ("-7", "7"),
            ("18446744073709551615", "-18446744073709551615"),
            ("-9223372036854775808", "9223372036854775808"),
            ("9223372036854775807", "-9223372036854775807"),
        ] {
            assert_eq!(negated(text), want, "{text}");
            let value: i128 = text.parse().expect("an integer");
            assert_eq!(negated(text).parse::<i128>(), Ok(-value), "{text}");
        }
    }
}
