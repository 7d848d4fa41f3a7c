//! Check: every compile-time rule of the declaration, one function per
//! rule, each error at the offending token. All errors are collected and
//! reported together; what passes becomes the [`KeySpec`] model.

use crate::attr::{ComponentExpr, HashFields, KeyAttr, SaltExpr, Until, WasAttr};
use crate::limits::{MAX_BUCKETS, MAX_COMPONENTS, SCAN_METHODS};
use crate::model::{Cut, Field, KeySpec, Layout, Order, Part, Role, SaltSpec, WasSpec};
use darling::{util::Flag, FromField};
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields, FieldsNamed};

type Errors = darling::error::Accumulator;

#[derive(FromField)]
#[darling(attributes(rowkey))]
struct FieldOpts {
    ident: Option<syn::Ident>,
    ty: syn::Type,
    skip: Flag,
}

/// The struct's named fields, each with whether it is `#[rowkey(skip)]`.
struct StructFields<'a> {
    owner: &'a syn::Ident,
    list: Vec<(Field, bool)>,
}

impl StructFields<'_> {
    fn find(&self, name: &syn::Ident) -> Option<&(Field, bool)> {
        self.list.iter().find(|(f, _)| f.ident == *name)
    }

    /// `"; did you mean `x`?"` for the nearest field name, or nothing.
    fn suggest(&self, name: &syn::Ident) -> String {
        let names: Vec<String> = self.list.iter().map(|(f, _)| f.name()).collect();
        did_you_mean(&name.to_string(), &names)
    }
}

/// One encoded component as `then` lists it, before a bucket and its field
/// are paired into one [`Part`].
struct Listed {
    field: Field,
    role: Role,
    /// Its index in `then`.
    entry: usize,
}

/// The struct, checked and turned into a [`KeySpec`]; or every error found.
pub fn check(input: &DeriveInput) -> Result<KeySpec, darling::Error> {
    let mut errors = darling::Error::accumulator();
    let named = named_fields(input, &mut errors);
    not_generic(input, &mut errors);
    let (attr, attr_seen, attr_broken) = parse_attr(input, &mut errors);
    // Past a wrong shape or an unparsable attribute, the field checks would
    // only report follow-on errors.
    let Some(named) = named.filter(|_| !attr_broken) else {
        return Err(errors.finish().expect_err("an error was recorded"));
    };
    let fields = StructFields {
        owner: &input.ident,
        list: field_list(named, &mut errors),
    };
    let text_sep = text_separator(&attr, &mut errors);
    let listed = match &attr.then {
        None => {
            missing_then(input, attr_seen, &mut errors);
            Vec::new()
        }
        Some((_, exprs)) => components(exprs, &fields, &mut errors),
    };
    component_count(input, &listed, &mut errors);
    buckets_followed_by_their_field(&listed, &mut errors);
    every_field_in_key(&attr, &fields, &mut errors);
    let partition =
        partition_group(&attr, &mut errors).map(|entries| partition_components(entries, &listed));
    let salt = attr
        .salt
        .as_ref()
        .filter(|_| attr.then.is_some())
        .and_then(|salt| salt_spec(salt, &listed, &fields, &mut errors));

    let was = was_spec(input, &attr, &listed, &fields, salt.as_ref(), &mut errors);

    errors.finish()?;
    Ok(KeySpec {
        ident: input.ident.clone(),
        vis: input.vis.clone(),
        krate: attr.krate.unwrap_or_else(|| syn::parse_quote!(::keyschema)),
        prefix: attr.prefix.map(|(_, p)| p).unwrap_or_default(),
        text_sep,
        salt,
        parts: pair_buckets(listed),
        partition,
        skipped: fields
            .list
            .into_iter()
            .filter(|(_, skip)| *skip)
            .map(|(f, _)| f)
            .collect(),
        was,
    })
}

/// `Some(())` for a text key.
fn text_separator_of(attr: &KeyAttr) -> Option<()> {
    attr.format
        .as_ref()
        .filter(|(f, _)| f == "text")
        .map(|_| ())
}

/// Rules of `#[rowkey_was(...)]`: given once; it changes the prefix or the
/// salt (else it is the same layout); its salt follows the salt rules and is
/// not random (nor is the declared one: a row's key must be computable from
/// its fields in both layouts, for the backfill and for reads); `until`
/// names a key field stored plain or `rev` (its bytes then sort like it) or
/// `migration`.
fn was_spec(
    input: &DeriveInput,
    attr: &KeyAttr,
    listed: &[Listed],
    fields: &StructFields,
    salt: Option<&SaltSpec>,
    errors: &mut Errors,
) -> Option<WasSpec> {
    let mut found = input
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("rowkey_was"));
    let first = found.next()?;
    if let Some(again) = found.next() {
        errors.push(error(
            again.span(),
            "`#[rowkey_was(...)]` is given twice: a key type names one older layout (migrate in steps, one layout change at a time)",
        ));
    }
    let was = match first
        .parse_args_with(|stream: syn::parse::ParseStream| WasAttr::parse(first.span(), stream))
    {
        Ok(was) => was,
        Err(e) => {
            errors.push(e.into());
            return None;
        }
    };
    attr.then.as_ref()?;
    let old_salt = was
        .salt
        .as_ref()
        .and_then(|s| salt_spec(s, listed, fields, errors));
    let random = |s: Option<&SaltSpec>| matches!(s, Some(SaltSpec::Random { .. }));
    if random(salt) || random(old_salt.as_ref()) {
        errors.push(error(
            was.span,
            "a layout history needs keys computed from the fields in both layouts: `random % N` salts cannot be re-keyed row by row; use `hash(...) % N`",
        ));
    }
    let prefix = was
        .prefix
        .as_ref()
        .map(|(_, p)| p.clone())
        .unwrap_or_else(|| {
            attr.prefix
                .as_ref()
                .map(|(_, p)| p.clone())
                .unwrap_or_default()
        });
    let same_prefix = prefix
        == attr
            .prefix
            .as_ref()
            .map(|(_, p)| p.clone())
            .unwrap_or_default();
    if same_prefix && was.salt.is_some() == salt.is_some() && old_salt.as_ref() == salt {
        errors.push(error(
            was.span,
            "`#[rowkey_was(...)]` describes the declared layout itself: give the older layout's `salt` (or `salt = none`) or `prefix`",
        ));
    }
    // With `until = migration` no field tells a key's layout: the two
    // layouts' keys must never read as two different rows.
    let header = |prefix: &[u8], salt: Option<&SaltSpec>| {
        let salt = salt.map_or(0, |s| match text_separator_of(attr) {
            Some(()) => (s.buckets().saturating_sub(1).max(1)).ilog10() as usize + 2,
            None if s.buckets() > 256 => 2,
            None => 1,
        });
        // The prefix as written: escaped and terminated in binary keys,
        // followed by the separator in text keys.
        let written = match (prefix.is_empty(), text_separator_of(attr)) {
            (true, _) => 0,
            (false, Some(())) => prefix.len() + 1,
            (false, None) => prefix.len() + 1 + prefix.iter().filter(|&&b| b <= 1).count(),
        };
        written + salt
    };
    let declared_prefix = attr
        .prefix
        .as_ref()
        .map(|(_, p)| p.clone())
        .unwrap_or_default();
    // Written prefixes are prefix-free: two different, non-empty ones never
    // begin each other's keys.
    let disjoint = !prefix.is_empty() && !declared_prefix.is_empty() && prefix != declared_prefix;
    let same_length = header(&prefix, old_salt.as_ref()) == header(&declared_prefix, salt);
    if matches!(was.until, Some(Until::Migration)) && !disjoint && !same_length {
        errors.push(error(
            was.span,
            "with `until = migration` nothing tells which layout a key is in, so the two layouts must not read one key as two rows: keep the salt's width (N up to 256, or both above) and the prefix, or give the older layout a prefix of its own; or cut over on a field (`until = field >= value`)",
        ));
    }
    let cut = match was.until {
        None => {
            errors.push(error(
                was.span,
                "`#[rowkey_was(...)]` needs `until = field >= value` (rows at or past the value use the declared layout) or `until = migration`",
            ));
            return None;
        }
        Some(Until::Migration) => Cut::Migration,
        Some(Until::Field { field, value }) => {
            let at = listed
                .iter()
                .position(|l| l.field.ident == field && !matches!(l.role, Role::Bucket { .. }));
            let Some(at) = at else {
                errors.push(error(
                    field.span(),
                    format!(
                        "the cut-over field `{field}` is not in the key{}",
                        fields.suggest(&field)
                    ),
                ));
                return None;
            };
            if matches!(listed[at].role, Role::Reversed(_)) {
                errors.push(error(
                    field.span(),
                    format!("the cut-over field `{field}` is stored `reverse`d, so its bytes do not sort like it; cut over on a plain or `rev` field"),
                ));
                return None;
            }
            if at > 0 && matches!(listed[at - 1].role, Role::Bucket { .. }) {
                errors.push(error(
                    field.span(),
                    format!("the cut-over field `{field}` is bucketed; cut over on a plain or `rev` field"),
                ));
                return None;
            }
            Cut::Field {
                component: at,
                field: Box::new(listed[at].field.clone()),
                value: Box::new(value),
            }
        }
    };
    Some(WasSpec {
        prefix,
        salt: old_salt,
        cut,
    })
}

/// Rule: the derive needs a struct with named fields.
fn named_fields<'a>(input: &'a DeriveInput, errors: &mut Errors) -> Option<&'a FieldsNamed> {
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
fn not_generic(input: &DeriveInput, errors: &mut Errors) {
    if !input.generics.params.is_empty() {
        errors.push(error(
            input.generics.span(),
            "`RowKey` does not support generic structs: a key's layout must be fixed; use concrete field types",
        ));
    }
}

/// Every `#[rowkey(...)]` on the struct, merged; whether one was seen, and
/// whether one did not parse.
pub fn parse_attr(input: &DeriveInput, errors: &mut Errors) -> (KeyAttr, bool, bool) {
    let mut attr = KeyAttr::default();
    let (mut seen, mut broken) = (false, false);
    for a in input.attrs.iter().filter(|a| a.path().is_ident("rowkey")) {
        let later = seen;
        seen = true;
        let parsed =
            a.parse_args_with(|stream: syn::parse::ParseStream| attr.parse_into(stream, later));
        if let Err(e) = parsed {
            errors.push(e.into());
            broken = true;
        }
    }
    (attr, seen, broken)
}

/// The named fields with their `#[rowkey(skip)]` flag (darling reports bad field attributes).
fn field_list(named: &FieldsNamed, errors: &mut Errors) -> Vec<(Field, bool)> {
    named
        .named
        .iter()
        .filter_map(|f| {
            let opts = errors.handle(FieldOpts::from_field(f))?;
            let ident = opts.ident?;
            Some((Field { ident, ty: opts.ty }, opts.skip.is_present()))
        })
        .collect()
}

/// Rule: `format` is `binary` or `text(sep = "c")` with one ASCII
/// punctuation separator that is not an escape or value mark.
fn text_separator(attr: &KeyAttr, errors: &mut Errors) -> Option<u8> {
    let (format, sep) = attr.format.as_ref()?;
    let mut text_sep = None;
    if format == "text" {
        let (value, span) = match sep {
            Some(lit) => (lit.value(), lit.span()),
            None => ("#".to_string(), format.span()),
        };
        let byte = match value.as_bytes() {
            [b] if b.is_ascii_punctuation() && !b"%-=".contains(b) => Some(*b),
            _ => None,
        };
        match byte {
            Some(b) => text_sep = Some(b),
            None => errors.push(error(
                span,
                format!(
                    "the separator must be one ASCII punctuation character other than `%`, `-` and `=` (those escape and mark values); found {value:?}"
                ),
            )),
        }
    } else if format != "binary" {
        errors.push(error(
            format.span(),
            "unknown format; expected `binary` or `text(sep = \"#\")`",
        ));
    }
    if format == "binary" && sep.is_some() {
        errors.push(error(format.span(), "`binary` takes no separator"));
    }
    if let (Some(b), Some((span, prefix))) = (text_sep, &attr.prefix) {
        if prefix.contains(&b) {
            errors.push(error(
                *span,
                format!(
                    "the prefix holds the separator `{}`: its keys would begin like another prefix's (`\"a{0}b\"` and `\"a\"` with a first field `b`); choose a prefix without it",
                    b as char
                ),
            ));
        }
    }
    text_sep
}

/// Rule: `then = ...` is required.
fn missing_then(input: &DeriveInput, attr_seen: bool, errors: &mut Errors) {
    let message = if attr_seen {
        "missing `then = ...`: list the key's components in order, e.g. `#[rowkey(then = user_id, rev(timestamp))]`"
    } else {
        "missing `#[rowkey(then = ...)]`: list the key's components in order, e.g. `#[rowkey(then = user_id, rev(timestamp))]`"
    };
    errors.push(error(input.ident.span(), message));
}

/// The components `then` lists, in key order, each checked by the rules
/// below; a component that breaks one is left out (and reported).
fn components(exprs: &[ComponentExpr], fields: &StructFields, errors: &mut Errors) -> Vec<Listed> {
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
fn transform(expr: &ComponentExpr, errors: &mut Errors) -> Option<Role> {
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
fn bucketable(expr: &ComponentExpr, field: &Field, errors: &mut Errors) -> bool {
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

fn known_field<'f>(
    expr: &ComponentExpr,
    fields: &'f StructFields,
    errors: &mut Errors,
) -> Option<&'f Field> {
    let Some((field, skipped)) = fields.find(&expr.field) else {
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
    if *skipped {
        errors.push(error(
            expr.field.span(),
            format!(
                "`{}` is marked `#[rowkey(skip)]` and cannot also be a key component",
                expr.field
            ),
        ));
        return None;
    }
    Some(field)
}

/// Rule: each field is one component (a bucket of it and the field itself
/// are one pair).
fn not_listed_twice(
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
fn not_reserved(expr: &ComponentExpr, errors: &mut Errors) -> bool {
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

/// Rule: at most `MAX_COMPONENTS` components.
fn component_count(input: &DeriveInput, listed: &[Listed], errors: &mut Errors) {
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

/// Rule: `bucket(f, W)` is followed directly by `f` (or `rev(f)`).
fn buckets_followed_by_their_field(listed: &[Listed], errors: &mut Errors) {
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

/// Rule: every field is in the key or skipped: a field left out would make
/// distinct rows share a key.
fn every_field_in_key(attr: &KeyAttr, fields: &StructFields, errors: &mut Errors) {
    let Some((_, exprs)) = &attr.then else {
        return;
    };
    for (field, skipped) in &fields.list {
        if !skipped && !exprs.iter().any(|e| e.field == field.ident) {
            errors.push(error(
                field.span(),
                format!(
                    "field `{}` is not in the row key: add it to `then = ...`, or mark it `#[rowkey(skip)]` if it is not part of the key (a field left out of the key makes distinct rows share one key and overwrite each other)",
                    field.ident
                ),
            ));
        }
    }
}

/// Rules of the salt: 1 to `MAX_BUCKETS` buckets; `hash(...)` names at
/// least one field, each a key component (or a bucket of one), once.
fn salt_spec(
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
fn bucket_count(modulus: &syn::LitInt, errors: &mut Errors) -> Option<u32> {
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
fn hashed_fields(
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

/// Rules of the partition group (`then = (a, b), c`): at most one, first
/// in `then`, not empty. How many entries of `then` it holds.
fn partition_group(attr: &KeyAttr, errors: &mut Errors) -> Option<usize> {
    let (first, rest) = attr.groups.split_first()?;
    for group in rest {
        errors.push(error(
            group.span,
            "the partition key is given twice: one `( ... )` group, first in `then`, holds it (`then = (tenant, invoice_id), rev(created_at)`)",
        ));
    }
    if first.start != 0 {
        errors.push(error(
            first.span,
            "the partition group must come first in `then`: the partition key is the key's leading components (`then = (invoice_id), rev(created_at), line_no`)",
        ));
        return None;
    }
    if first.len == 0 {
        errors.push(error(
            first.span,
            "the partition group is empty: put the partition key's fields inside `( ... )`, e.g. `then = (invoice_id), rev(created_at)`",
        ));
        return None;
    }
    rest.is_empty().then_some(first.len)
}

/// How many encoded components the partition holds: those listed in its
/// group (a bucket may be in the partition and its field outside: Cassandra's
/// month bucket as a partition column, the day as a clustering column).
fn partition_components(entries: usize, listed: &[Listed]) -> usize {
    listed.iter().take_while(|c| c.entry < entries).count()
}

/// The checked components as key fields: a bucket and the field after it
/// become one [`Layout::Bucketed`] part.
fn pair_buckets(listed: Vec<Listed>) -> Vec<Part> {
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

fn error(span: proc_macro2::Span, message: impl std::fmt::Display) -> darling::Error {
    darling::Error::custom(message).with_span(&span)
}

/// `"; did you mean `x`?"` for the closest of `names` to `name` (at most a
/// third of its letters edited, and at least one), else nothing.
fn did_you_mean(name: &str, names: &[String]) -> String {
    let budget = (name.chars().count() / 3).max(1);
    names
        .iter()
        .map(|n| (edit_distance(name, n), n))
        .filter(|(d, _)| *d <= budget)
        .min_by_key(|(d, _)| *d)
        .map(|(_, n)| format!("; did you mean `{n}`?"))
        .unwrap_or_default()
}

/// Levenshtein distance, with a swap of two neighbours counted as one edit.
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut rows = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in rows.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in rows[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut d = (rows[i - 1][j] + 1)
                .min(rows[i][j - 1] + 1)
                .min(rows[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(rows[i - 2][j - 2] + 1);
            }
            rows[i][j] = d;
        }
    }
    rows[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::check;

    /// Runs the check on a struct with the given attribute and fields.
    fn run(attr: &str, fields: &str) -> Result<crate::model::KeySpec, darling::Error> {
        let source = format!("#[rowkey({attr})] struct Event {{ {fields} }}");
        let input: syn::DeriveInput =
            syn::parse_str(&source).expect("test input parses as a struct");
        check(&input)
    }

    #[test]
    fn odd_attributes_are_errors_not_panics() {
        let fields = "a: String, b: u64";
        let attrs = [
            "",
            "then",
            "then =",
            "then = ,",
            "then = a,,b",
            "then = a, b,",
            "then = a(b(c)), b",
            "then = rev(), b",
            "then = rev(a, b, c), b",
            "then = a, b, salt",
            "then = a, b, salt =",
            "then = a, b, salt = hash",
            "then = a, b, salt = hash(a)",
            "then = a, b, salt = hash(a) %",
            "then = a, b, salt = hash(a) % -1",
            "then = a, b, salt = hash(a) % 1.5",
            "then = a, b, salt = hash(a) % 99999999999999999999999",
            "then = a, b, salt = hash(a,) % 8",
            "then = a, b, salt = hash(*, a) % 8",
            "then = a, b, salt = random % 8",
            "then = a, b, prefix = 5",
            "then = a, b, crate = \"not a path!\"",
            "then = a, b, format = text(sep = \"#\")",
            "then = a, b, format = yaml",
            "then = self, b",
            "then = r#a, b",
            "= a",
            "then == a",
        ];
        for attr in attrs {
            let _ = run(attr, fields);
        }
        let _ = run("then = a", "");
        let _ = run("then = a", "a: String, #[rowkey(skip = 1)] b: u64");
        let _ = run("then = a", "a: String, #[rowkey(unknown)] b: u64");
        let _ = run("then = a", "a: String, #[rowkey] b: u64");
    }

    #[test]
    fn trailing_comma_and_several_attributes_are_accepted() {
        let spec = run("then = a, b,", "a: String, b: u64").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(spec.parts.len(), 2);
        let input: syn::DeriveInput = syn::parse_str(
            "#[rowkey(salt = hash(*) % 256)] #[rowkey(then = a, rev(b), prefix = b\"x\\0\")] struct E { a: String, b: u64 }",
        )
        .expect("parses");
        let spec = check(&input).unwrap_or_else(|e| panic!("{e}"));
        let hashed = match &spec.salt {
            Some(crate::model::SaltSpec::Hash { buckets, hashed }) => {
                Some((*buckets, hashed.clone()))
            }
            _ => None,
        };
        assert_eq!(hashed, Some((256, vec![0, 1])));
        assert_eq!(spec.prefix, b"x\0");
    }

    #[test]
    fn every_mistake_is_reported_at_once() {
        let errors = run(
            "salt = hash(a, zz) % 0, then = a, qq, nope(b)",
            "a: String, b: u64, c: bool",
        )
        .err()
        .expect("mistakes are errors");
        // zz unknown, % 0, qq unknown, nope unknown, c not in the key (`nope(b)` names b).
        assert_eq!(errors.len(), 5, "{errors}");
    }
}
