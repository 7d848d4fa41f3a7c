//! Reading the schema document's `types` (docs/ENCODING.md, "User
//! types"; written by `schema::types_json`).

use super::json::SchemaError;
use crate::record::{UserField, UserType, UserTypes, UserVariant, VariantForm};
use serde_json::Value as Json;

fn invalid(at: impl Into<String>, reason: impl Into<String>) -> SchemaError {
    SchemaError::Invalid {
        at: at.into(),
        reason: reason.into(),
    }
}

/// The document's `types` (none when absent), kept for the program's
/// life: every value field of the document reads by them.
pub(super) fn read_types(types: Option<&Json>) -> Result<&'static UserTypes, SchemaError> {
    let map = match types {
        None | Some(Json::Null) => return Ok(crate::record::no_user_types()),
        Some(Json::Object(map)) => map,
        Some(_) => return Err(invalid("types", "expected an object of user types by name")),
    };
    let mut out = UserTypes::default();
    for (name, t) in map {
        let at = format!("types.{name}");
        if name.is_empty() {
            return Err(invalid("types", "a user type's name is empty"));
        }
        let obj = t.as_object().ok_or_else(|| {
            invalid(
                &at,
                "expected an object with one of `fields`, `tuple`, `newtype`, `unit` or `enum`",
            )
        })?;
        if obj.len() != 1 {
            return Err(invalid(
                &at,
                "expected exactly one of `fields`, `tuple`, `newtype`, `unit` or `enum`",
            ));
        }
        let user = match obj.iter().next() {
            Some((k, v)) if k == "fields" => UserType::Struct(fields(v, &format!("{at}.fields"))?),
            Some((k, v)) if k == "tuple" => UserType::Tuple(list(v, &format!("{at}.tuple"))?),
            Some((k, v)) if k == "newtype" => UserType::Newtype(text(v, &format!("{at}.newtype"))?),
            Some((k, Json::Bool(true))) if k == "unit" => UserType::Unit,
            Some((k, v)) if k == "enum" => UserType::Enum(variants(v, &format!("{at}.enum"))?),
            _ => {
                return Err(invalid(
                    &at,
                    "expected exactly one of `fields`, `tuple`, `newtype`, `unit` (true) or `enum`",
                ))
            }
        };
        out.types.insert(name.clone(), user);
    }
    Ok(Box::leak(Box::new(out)))
}

fn text(v: &Json, at: &str) -> Result<String, SchemaError> {
    match v.as_str() {
        Some(t) if !t.is_empty() => Ok(t.to_string()),
        _ => Err(invalid(at, "expected a type text (a non-empty string)")),
    }
}

fn list(v: &Json, at: &str) -> Result<Vec<String>, SchemaError> {
    v.as_array()
        .ok_or_else(|| invalid(at, "expected an array of type texts"))?
        .iter()
        .enumerate()
        .map(|(i, t)| text(t, &format!("{at}[{i}]")))
        .collect()
}

fn fields(v: &Json, at: &str) -> Result<Vec<UserField>, SchemaError> {
    let list = v
        .as_array()
        .ok_or_else(|| invalid(at, "expected an array of fields"))?;
    let mut out: Vec<UserField> = Vec::with_capacity(list.len());
    for (i, f) in list.iter().enumerate() {
        let at = format!("{at}[{i}]");
        let name = match f.get("name").and_then(Json::as_str) {
            Some(n) if !n.is_empty() => n.to_string(),
            _ => return Err(invalid(format!("{at}.name"), "expected a non-empty string")),
        };
        if out.iter().any(|o| o.name == name) {
            return Err(invalid(
                format!("{at}.name"),
                format!("`{name}` is named twice"),
            ));
        }
        let type_name = text(f.get("type").unwrap_or(&Json::Null), &format!("{at}.type"))?;
        let optional = match f.get("optional").cloned() {
            None => false,
            Some(Json::Bool(b)) => b,
            Some(_) => return Err(invalid(format!("{at}.optional"), "expected true or false")),
        };
        out.push(UserField {
            name,
            type_name,
            optional,
        });
    }
    Ok(out)
}

fn variants(v: &Json, at: &str) -> Result<Vec<UserVariant>, SchemaError> {
    let given = v
        .as_array()
        .ok_or_else(|| invalid(at, "expected an array of variants"))?;
    let mut out: Vec<UserVariant> = Vec::with_capacity(given.len());
    for (i, variant) in given.iter().enumerate() {
        let at = format!("{at}[{i}]");
        let name = match variant.get("name").and_then(Json::as_str) {
            Some(n) if !n.is_empty() => n.to_string(),
            _ => return Err(invalid(format!("{at}.name"), "expected a non-empty string")),
        };
        if out.iter().any(|o| o.name == name) {
            return Err(invalid(
                format!("{at}.name"),
                format!("`{name}` is named twice"),
            ));
        }
        let forms: Vec<&str> = ["newtype", "tuple", "fields"]
            .into_iter()
            .filter(|k| variant.get(*k).is_some())
            .collect();
        let form = match forms.as_slice() {
            [] => VariantForm::Unit,
            ["newtype"] => {
                VariantForm::Newtype(text(&variant["newtype"], &format!("{at}.newtype"))?)
            }
            ["tuple"] => VariantForm::Tuple(list(&variant["tuple"], &format!("{at}.tuple"))?),
            ["fields"] => VariantForm::Struct(fields(&variant["fields"], &format!("{at}.fields"))?),
            _ => {
                return Err(invalid(
                    &at,
                    "expected at most one of `newtype`, `tuple` or `fields`",
                ))
            }
        };
        out.push(UserVariant { name, form });
    }
    Ok(out)
}
