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
        let flag = |member: &str| -> Result<bool, SchemaError> {
            match obj.get(member) {
                None => Ok(false),
                Some(Json::Bool(b)) => Ok(*b),
                Some(_) => Err(invalid(format!("{at}.{member}"), "expected true or false")),
            }
        };
        // `closed` and `other` stand beside the one member that says the
        // type's form.
        let forms: Vec<(&String, &Json)> = obj
            .iter()
            .filter(|(k, _)| *k != "closed" && *k != "other")
            .collect();
        if forms.len() != 1 {
            return Err(invalid(
                &at,
                "expected exactly one of `fields`, `tuple`, `newtype`, `unit` or `enum`",
            ));
        }
        let user =
            match forms[0] {
                (k, v) if k == "fields" => UserType::Struct(fields(v, &format!("{at}.fields"))?),
                (k, v) if k == "tuple" => UserType::Tuple(list(v, &format!("{at}.tuple"))?),
                (k, v) if k == "newtype" => UserType::Newtype(text(v, &format!("{at}.newtype"))?),
                (k, Json::Bool(true)) if k == "unit" => UserType::Unit,
                (k, v) if k == "enum" => {
                    UserType::Enum(variants(v, &format!("{at}.enum"), name, &mut out)?)
                }
                _ => return Err(invalid(
                    &at,
                    "expected exactly one of `fields`, `tuple`, `newtype`, `unit` (true) or `enum`",
                )),
            };
        // Each flag's value is checked first, then where it stands.
        let (closed, other) = (flag("closed")?, flag("other")?);
        if obj.contains_key("closed") && !matches!(user, UserType::Struct(_)) {
            return Err(invalid(
                format!("{at}.closed"),
                "only a struct with `fields` may be closed",
            ));
        }
        if obj.contains_key("other") && !matches!(user, UserType::Enum(_)) {
            return Err(invalid(
                format!("{at}.other"),
                "only an enum may have `other`",
            ));
        }
        if closed {
            out.closed.insert(name.clone());
        }
        if other {
            out.other.insert(name.clone());
        }
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

/// A field's or variant's `name` at `at`: a non-empty string none of
/// `named` holds.
fn member_name<'a>(
    member: &Json,
    at: &str,
    mut named: impl Iterator<Item = &'a str>,
) -> Result<String, SchemaError> {
    let name = match member.get("name").and_then(Json::as_str) {
        Some(n) if !n.is_empty() => n.to_string(),
        _ => return Err(invalid(format!("{at}.name"), "expected a non-empty string")),
    };
    if named.any(|n| n == name) {
        return Err(invalid(
            format!("{at}.name"),
            format!("`{name}` is named twice"),
        ));
    }
    Ok(name)
}

fn fields(v: &Json, at: &str) -> Result<Vec<UserField>, SchemaError> {
    let list = v
        .as_array()
        .ok_or_else(|| invalid(at, "expected an array of fields"))?;
    let mut out: Vec<UserField> = Vec::with_capacity(list.len());
    for (i, f) in list.iter().enumerate() {
        let at = format!("{at}[{i}]");
        let name = member_name(f, &at, out.iter().map(|o| o.name.as_str()))?;
        let type_name = text(f.get("type").unwrap_or(&Json::Null), &format!("{at}.type"))?;
        let optional = match f.get("optional").cloned() {
            None => false,
            Some(Json::Bool(b)) => b,
            Some(_) => return Err(invalid(format!("{at}.optional"), "expected true or false")),
        };
        let aliases = match f.get("aliases") {
            None => Vec::new(),
            Some(Json::Array(names)) => names
                .iter()
                .map(|n| match n.as_str() {
                    Some(n) if !n.is_empty() => Ok(n.to_string()),
                    _ => Err(invalid(
                        format!("{at}.aliases"),
                        "expected an array of names",
                    )),
                })
                .collect::<Result<_, _>>()?,
            Some(_) => {
                return Err(invalid(
                    format!("{at}.aliases"),
                    "expected an array of names",
                ))
            }
        };
        out.push(UserField {
            name,
            type_name,
            optional,
            aliases,
        });
    }
    Ok(out)
}

fn variants(
    v: &Json,
    at: &str,
    owner: &str,
    types: &mut UserTypes,
) -> Result<Vec<UserVariant>, SchemaError> {
    let given = v
        .as_array()
        .ok_or_else(|| invalid(at, "expected an array of variants"))?;
    let mut out: Vec<UserVariant> = Vec::with_capacity(given.len());
    for (i, variant) in given.iter().enumerate() {
        let at = format!("{at}[{i}]");
        let name = member_name(variant, &at, out.iter().map(|o| o.name.as_str()))?;
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
        let is_struct = matches!(form, VariantForm::Struct(_));
        match variant.get("closed") {
            None => {}
            Some(Json::Bool(_)) if !is_struct => {
                return Err(invalid(
                    format!("{at}.closed"),
                    "only a struct with `fields` may be closed",
                ))
            }
            Some(Json::Bool(true)) => {
                types.closed.insert(format!("{owner}::{name}"));
            }
            Some(Json::Bool(false)) => {}
            Some(_) => return Err(invalid(format!("{at}.closed"), "expected true or false")),
        }
        if variant.get("other").is_some() {
            return Err(invalid(
                format!("{at}.other"),
                "only an enum may have `other`",
            ));
        }
        out.push(UserVariant { name, form });
    }
    Ok(out)
}
