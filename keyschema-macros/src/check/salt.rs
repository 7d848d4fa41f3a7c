//! Rules of the salt: the bucket count and the hashed fields.

use super::{error, Errors, Listed, StructFields};
use crate::attr::{HashFields, SaltExpr};
use crate::limits::MAX_BUCKETS;
use crate::model::{Role, SaltSpec};

/// Rules of the salt: 1 to `MAX_BUCKETS` buckets; `hash(...)` names at
/// least one field, each a key component (or a bucket of one), once.
pub(super) fn salt_spec(
    salt: &SaltExpr,
    listed: &[Listed],
    fields: &StructFields,
    errors: &mut Errors,
) -> Option<SaltSpec> {
    let SaltExpr {
        keyword,
        fields: hash,
        modulus,
    } = salt;
    let buckets = bucket_count(modulus, errors);
    let Some(hash) = hash else {
        return Some(SaltSpec::Random { buckets: buckets? });
    };
    let hashed = match hash {
        HashFields::All => (0..listed.len())
            .filter(|&i| !matches!(listed[i].role, Role::Bucket { .. }))
            .collect(),
        HashFields::List(list) if list.is_empty() => {
            errors.push(error(
                keyword.span(),
                "`hash()` needs at least one field, or `hash(*)` for every key field",
            ));
            Vec::new()
        }
        HashFields::List(list) => hashed_fields(list, listed, fields, errors),
    };
    Some(SaltSpec::Hash {
        buckets: buckets?,
        hashed,
    })
}

/// Rule: `% N` with N from 1 to `MAX_BUCKETS`.
pub(super) fn bucket_count(modulus: &syn::LitInt, errors: &mut Errors) -> Option<u32> {
    match modulus.base10_parse::<u64>() {
        Ok(0) => {
            errors.push(error(
                modulus.span(),
                "the salt needs at least 1 bucket: `% 0` divides by zero",
            ));
            None
        }
        Ok(n) if n > MAX_BUCKETS => {
            errors.push(error(
                modulus.span(),
                format!("at most 65,536 salt buckets (a two-byte salt); found {n}"),
            ));
            None
        }
        Ok(n) => u32::try_from(n).ok(),
        Err(_) => {
            errors.push(error(
                modulus.span(),
                "the bucket count must be an integer from 1 to 65,536",
            ));
            None
        }
    }
}

/// Rule: each hashed field is a key component (or a bucket of one), once;
/// the encoded indexes of the hashed components, in hash order.
pub(super) fn hashed_fields(
    list: &[crate::attr::HashItem],
    listed: &[Listed],
    fields: &StructFields,
    errors: &mut Errors,
) -> Vec<usize> {
    let mut hashed = Vec::new();
    for item in list {
        let name = &item.field;
        let width = match &item.bucket {
            None => None,
            Some(w) => match w.base10_parse::<u64>() {
                Ok(w) => Some(w),
                Err(_) => {
                    errors.push(error(w.span(), "the bucket width must be an integer"));
                    continue;
                }
            },
        };
        let position = listed.iter().position(|c| {
            let bucket = match c.role {
                Role::Bucket { width, .. } => Some(width),
                _ => None,
            };
            c.field.ident == *name && bucket == width
        });
        match position {
            Some(i) if hashed.contains(&i) => {
                errors.push(error(name.span(), format!("`{name}` is hashed twice")))
            }
            Some(i) => hashed.push(i),
            None if width.is_some() => errors.push(error(
                name.span(),
                format!("`bucket({name}, ...)` is hashed but `then` has no bucket of `{name}` with that width"),
            )),
            None if fields.find(name).is_some() => errors.push(error(
                name.span(),
                format!(
                    "`{name}` is hashed but is not a key component: decode could not recompute the salt; hash only fields listed in `then`"
                ),
            )),
            None => errors.push(error(
                name.span(),
                format!(
                    "unknown field `{name}` in `hash(...)`: `{}` has no field of that name{}",
                    fields.owner,
                    fields.suggest(name)
                ),
            )),
        }
    }
    hashed
}
