//! Rules of the components `then` lists: each names a field once, with a
//! known transform, a bucket followed by its field, no reserved name.

use super::{error, Errors, Listed, StructFields};
use crate::attr::ComponentExpr;
use crate::limits::SCAN_METHODS;
use crate::model::{Field, Layout, Order, Part, Place, Role};
use syn::spanned::Spanned;

/// The components `then` lists, in key order, each checked by the rules
/// below; a component that breaks one is left out (and reported).
pub(super) fn components(
    exprs: &[ComponentExpr],
    fields: &StructFields,
    errors: &mut Errors,
) -> Vec<Listed> {
    let mut listed: Vec<Listed> = Vec::new();
    for (entry, expr) in exprs.iter().enumerate() {
        let role = transform(expr, errors);
        let Some(field) = known_field(expr, fields, errors) else {
            continue;
        };
        let is_bucket = matches!(role, Some(Role::Bucket { .. }));
        if !not_listed_twice(expr, is_bucket, &listed, errors) || !not_reserved(expr, errors) {
            continue;
        }
        if is_bucket && !bucketable(expr, field, errors) {
            continue;
        }
        // A bucket takes the order of its field, which must come right after it.
        if let (
            Some(Listed {
                field: f,
                role: Role::Bucket { order, .. },
                ..
            }),
            Some(Role::Value(o)),
        ) = (listed.last_mut(), role)
        {
            if f.ident == expr.field {
                *order = o;
            }
        }
        if let Some(role) = role {
            listed.push(Listed {
                field: field.clone(),
                role,
                entry,
            });
        }
    }
    listed
}

/// Rule: a transform is `rev(f)`, `reverse(f)` or `bucket(f, WIDTH)` with
/// a width above 0.
pub(super) fn transform(expr: &ComponentExpr, errors: &mut Errors) -> Option<Role> {
    let Some(t) = &expr.transform else {
        return Some(Role::Value(Order::Ascending));
    };
    if t.name == "rev" || t.name == "reverse" {
        if let Some(extra) = t.args.first() {
            errors.push(error(
                extra.span(),
                format!("`{}` takes one field: `{}(timestamp)`", t.name, t.name),
            ));
        }
        return Some(if t.name == "reverse" {
            Role::Reversed(t.name.span())
        } else {
            Role::Value(Order::Descending)
        });
    }
    if t.name == "bucket" {
        return match t.args.first().map(|w| (w, w.base10_parse::<u64>())) {
            Some((_, Ok(width))) if width > 0 && t.args.len() == 1 => Some(Role::Bucket {
                width,
                span: t.name.span(),
                order: Order::Ascending,
            }),
            Some((w, _)) => {
                errors.push(error(
                    w.span(),
                    "the bucket width must be one integer above 0: `bucket(day, 30)`",
                ));
                None
            }
            None => {
                errors.push(error(
                    t.name.span(),
                    "`bucket` needs a width: `bucket(day, 30)`",
                ));
                None
            }
        };
    }
    errors.push(error(
        t.name.span(),
        format!(
            "unknown transform `{}`; expected `rev(field)` (descending order), `reverse(field)` (byte-reversed integer) or `bucket(field, WIDTH)` (a coarse bucket before the field)",
            t.name
        ),
    ));
    None
}

/// Rules: a component names a field of the struct, and not a skipped one.
/// Rule: `bucket(f, W)` takes an integer field; a type that is certainly
/// not one is one error at the field (others are left to the trait bound).
pub(super) fn bucketable(expr: &ComponentExpr, field: &Field, errors: &mut Errors) -> bool {
    let Some(ty) = crate::types::not_bucketable(&field.ty) else {
        return true;
    };
    let name = &expr.field;
    errors.push(error(
        field.ty.span(),
        format!("`bucket({name}, ...)` needs an integer field (u8..u64, i8..i64), and `{name}` is a `{ty}`: bucket a timestamp or a day number (`bucket(day, 30)` puts `day / 30` in the key), or list `{name}` without `bucket`"),
    ));
    false
}

pub(super) fn known_field<'f>(
    expr: &ComponentExpr,
    fields: &'f StructFields,
    errors: &mut Errors,
) -> Option<&'f Field> {
    let Some((field, place)) = fields.find(&expr.field) else {
        errors.push(error(
            expr.field.span(),
            format!(
                "unknown field `{}` in `then`: `{}` has no field of that name{}",
                expr.field,
                fields.owner,
                fields.suggest(&expr.field)
            ),
        ));
        return None;
    };
    let marked = match place {
        Place::Key => return Some(field),
        Place::Skip => "#[rowkey(skip)]",
        Place::Value { .. } => "#[rowkey(value)]",
    };
    errors.push(error(
        expr.field.span(),
        format!(
            "`{}` is marked `{marked}` and cannot also be a key component",
            expr.field
        ),
    ));
    None
}

/// Rule: each field is one component (a bucket of it and the field itself
/// are one pair).
pub(super) fn not_listed_twice(
    expr: &ComponentExpr,
    is_bucket: bool,
    listed: &[Listed],
    errors: &mut Errors,
) -> bool {
    let after_its_bucket = listed
        .last()
        .is_some_and(|c| matches!(c.role, Role::Bucket { .. }) && c.field.ident == expr.field)
        && !is_bucket;
    let twice = listed
        .iter()
        .any(|c| c.field.ident == expr.field && matches!(c.role, Role::Bucket { .. }) == is_bucket);
    if !after_its_bucket && twice {
        errors.push(error(
            expr.field.span(),
            format!(
                "`{}` is listed twice in `then`; each field is one component",
                expr.field
            ),
        ));
        return false;
    }
    true
}

/// Rule: a key field cannot be named like a method every scan stage has.
pub(super) fn not_reserved(expr: &ComponentExpr, errors: &mut Errors) -> bool {
    if SCAN_METHODS.contains(&expr.field.to_string().as_str()) {
        errors.push(error(
            expr.field.span(),
            format!(
                "a key component cannot be named `{}`: the typed scan builder has a method of that name; rename the field",
                expr.field
            ),
        ));
        return false;
    }
    true
}

/// Rule: `bucket(f, W)` is followed directly by `f` (or `rev(f)`).
pub(super) fn buckets_followed_by_their_field(listed: &[Listed], errors: &mut Errors) {
    for (i, c) in listed.iter().enumerate() {
        let Role::Bucket { width, span, .. } = c.role else {
            continue;
        };
        let followed = listed.get(i + 1).is_some_and(|next| {
            next.field.ident == c.field.ident && matches!(next.role, Role::Value(_))
        });
        if !followed {
            errors.push(error(
                span,
                format!(
                    "`bucket({}, {width})` must be followed directly by `{}` (or `rev({})`): the bucket is derived from it, and decode checks one against the other",
                    c.field.ident, c.field.ident, c.field.ident
                ),
            ));
        }
    }
}

/// The checked components as key fields: a bucket and the field after it
/// become one [`Layout::Bucketed`] part.
pub(super) fn pair_buckets(listed: Vec<Listed>) -> Vec<Part> {
    let mut parts = Vec::with_capacity(listed.len());
    let mut listed = listed.into_iter().peekable();
    while let Some(Listed { field, role, .. }) = listed.next() {
        let layout = match role {
            Role::Value(order) => Layout::Plain(order),
            Role::Reversed(span) => Layout::Reversed(span),
            Role::Bucket { width, span, order } => {
                // Checked: the field itself follows.
                listed.next();
                Layout::Bucketed { width, span, order }
            }
        };
        parts.push(Part { field, layout });
    }
    parts
}
