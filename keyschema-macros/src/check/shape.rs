//! Rules of the struct's shape: named fields, no generics, each field in
//! the key or skipped, `then` given, and the component count.

use super::{error, Errors, Listed, StructFields};
use crate::attr::KeyAttr;
use crate::limits::MAX_COMPONENTS;
use crate::model::{Field, Place};
use darling::{util::Flag, FromField};
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields, FieldsNamed};

/// A field's `#[rowkey(...)]` options, as darling reads them.
#[derive(FromField)]
#[darling(attributes(rowkey))]
struct FieldOpts {
    ident: Option<syn::Ident>,
    ty: syn::Type,
    skip: Flag,
    value: Flag,
    default: Flag,
}

/// Rule: the derive needs a struct with named fields.
pub(super) fn named_fields<'a>(
    input: &'a DeriveInput,
    errors: &mut Errors,
) -> Option<&'a FieldsNamed> {
    match &input.data {
        Data::Struct(s) => match &s.fields {
            Fields::Named(named) => Some(named),
            Fields::Unnamed(_) => {
                errors.push(error(
                    input.ident.span(),
                    "`RowKey` needs a struct with named fields; this is a tuple struct. Name the fields so `then = ...` can list them",
                ));
                None
            }
            Fields::Unit => {
                errors.push(error(
                    input.ident.span(),
                    "`RowKey` needs a struct with named fields; this is a unit struct",
                ));
                None
            }
        },
        Data::Enum(e) => {
            errors.push(error(
                e.enum_token.span,
                "`RowKey` can be derived only for a struct with named fields, not an enum",
            ));
            None
        }
        Data::Union(u) => {
            errors.push(error(
                u.union_token.span,
                "`RowKey` can be derived only for a struct with named fields, not a union",
            ));
            None
        }
    }
}

/// Rule: a key's layout is fixed, so the struct has no generics.
pub(super) fn not_generic(input: &DeriveInput, errors: &mut Errors) {
    if !input.generics.params.is_empty() {
        errors.push(error(
            input.generics.span(),
            "`RowKey` does not support generic structs: a key's layout must be fixed; use concrete field types",
        ));
    }
}

/// The named fields, each with where it goes (darling reports bad field
/// attributes). Rules: `skip` and `value` exclude each other; `default`
/// goes with `value`.
pub(super) fn field_list(named: &FieldsNamed, errors: &mut Errors) -> Vec<(Field, Place)> {
    named
        .named
        .iter()
        .filter_map(|f| {
            let opts = errors.handle(FieldOpts::from_field(f))?;
            let ident = opts.ident?;
            let place = match (opts.skip.is_present(), opts.value.is_present()) {
                (true, true) => {
                    errors.push(error(
                        opts.value.span(),
                        format!("`{ident}` is marked both `skip` (not stored) and `value` (stored beside the key): keep one"),
                    ));
                    Place::Skip
                }
                (true, false) => Place::Skip,
                (false, true) => Place::Value {
                    default: opts.default.is_present(),
                },
                (false, false) => Place::Key,
            };
            if opts.default.is_present() && !opts.value.is_present() {
                errors.push(error(
                    opts.default.span(),
                    format!("`default` applies to value fields: write `#[rowkey(value, default)]` on `{ident}`"),
                ));
            }
            Some((Field { ident, ty: opts.ty }, place))
        })
        .collect()
}

/// Rule: `then = ...` is required.
pub(super) fn missing_then(input: &DeriveInput, attr_seen: bool, errors: &mut Errors) {
    let message = if attr_seen {
        "missing `then = ...`: list the key's components in order, e.g. `#[rowkey(then = user_id, rev(timestamp))]`"
    } else {
        "missing `#[rowkey(then = ...)]`: list the key's components in order, e.g. `#[rowkey(then = user_id, rev(timestamp))]`"
    };
    errors.push(error(input.ident.span(), message));
}

/// Rule: every field is in the key, a value or skipped: a field left out
/// would make distinct rows share a key.
pub(super) fn every_field_in_key(attr: &KeyAttr, fields: &StructFields, errors: &mut Errors) {
    let Some((_, exprs)) = &attr.then else {
        return;
    };
    for (field, place) in &fields.list {
        if *place == Place::Key && !exprs.iter().any(|e| e.field == field.ident) {
            errors.push(error(
                field.span(),
                format!(
                    "field `{}` is not in the row key: add it to `then = ...`, mark it `#[rowkey(value)]` to store it beside the key, or `#[rowkey(skip)]` to not store it (a field left out of the key makes distinct rows share one key and overwrite each other)",
                    field.ident
                ),
            ));
        }
    }
}

/// Rule: at most `MAX_COMPONENTS` components.
pub(super) fn component_count(input: &DeriveInput, listed: &[Listed], errors: &mut Errors) {
    if listed.len() > MAX_COMPONENTS {
        errors.push(error(
            input.ident.span(),
            format!(
                "a key has at most {MAX_COMPONENTS} components; this one has {}",
                listed.len()
            ),
        ));
    }
}

/// Rule: `family = "..."` names a Bigtable column family
/// (`[-_.a-zA-Z0-9]+`, at most 64 characters) for value fields the struct
/// has, and not `v`, which holds the raw values of key types without them.
pub(super) fn family(attr: &KeyAttr, fields: &StructFields, errors: &mut Errors) -> Option<String> {
    let lit = attr.family.as_ref()?;
    let name = lit.value();
    let has_values = fields
        .list
        .iter()
        .any(|(_, place)| matches!(place, Place::Value { .. }));
    let valid = !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b));
    if !valid {
        errors.push(error(
            lit.span(),
            format!(
                "`{name}` is not a Bigtable column family name: use 1 to 64 of `a-z A-Z 0-9 - _ .`"
            ),
        ));
    } else if name == "v" {
        errors.push(error(
            lit.span(),
            "the family `v` holds the raw values of key types without value fields; name another family for this one's columns",
        ));
    } else if !has_values {
        errors.push(error(
            lit.span(),
            "`family` names where the value fields are stored, and this struct has none: mark fields `#[rowkey(value)]`, or drop `family`",
        ));
    }
    Some(name)
}

/// Rule: a value field's type has no `Option` of something serde also
/// writes as nil (`Option<Option<T>>`, `Option<()>`, also inside a `Vec`,
/// a map, a tuple...; `types::nil_in_option`). Every store keeps nil as
/// `None` (the map's nil, no DynamoDB attribute, no Bigtable cell) and
/// serde writes `Some(v)` as `v`, so the `Some` would read back as `None`.
pub(super) fn no_nil_in_option(fields: &StructFields, errors: &mut Errors) {
    use crate::types::{name, nil_in_option, NilInside};
    for (field, place) in &fields.list {
        if !matches!(place, Place::Value { .. }) {
            continue;
        }
        let Some((option, inside)) = nil_in_option(&field.ty) else {
            continue;
        };
        let (lost, instead) = match inside {
            NilInside::Option => (
                "`Some(None)`",
                "keep one `Option`, or name the cases with an enum of your own (`enum Patch<T> { #[default] Unset, Null, Set(T) }` stores each variant distinctly)",
            ),
            NilInside::Unit => ("`Some(())`", "use a `bool`"),
            NilInside::Phantom => ("`Some(PhantomData)`", "use a `bool`"),
        };
        errors.push(error(
            option.span(),
            format!(
                "value field `{}`: `{}` cannot be stored distinctly: serde writes `Some(v)` as `v`, so {lost} is nil, as `None` is, and every store reads it back as `None`; {instead}",
                field.name(),
                name(option),
            ),
        ));
    }
}
