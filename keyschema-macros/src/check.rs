//! Check: every rule of the compile-time list, each error on the offending
//! token. All errors are collected and reported together.

use crate::attr::{HashFields, KeyAttr, SaltExpr};
use crate::model::{Component, Field, KeySpec, Order, SaltSpec};
use darling::{util::Flag, FromField};
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields};

/// The methods every scan builder stage has; a component's method cannot share a name.
const SCAN_METHODS: [&str; 8] = [
    "ranges",
    "request",
    "limit",
    "reverse",
    "unordered",
    "after",
    "run",
    "stream",
];

/// The most components a key can declare (`keyschema::MAX_COMPONENTS`).
const MAX_COMPONENTS: usize = 64;

/// The largest bucket count: a two-byte salt.
const MAX_BUCKETS: u64 = 65_536;

#[derive(FromField)]
#[darling(attributes(rowkey))]
struct FieldOpts {
    ident: Option<syn::Ident>,
    ty: syn::Type,
    skip: Flag,
}

/// The struct, checked and turned into a [`KeySpec`]; or every error found.
pub fn check(input: &DeriveInput) -> Result<KeySpec, darling::Error> {
    let mut errors = darling::Error::accumulator();

    let named = match &input.data {
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
    };
    if !input.generics.params.is_empty() {
        errors.push(error(
            input.generics.span(),
            "`RowKey` does not support generic structs: a key's layout must be fixed; use concrete field types",
        ));
    }

    let mut attr = KeyAttr::default();
    let mut attr_seen = false;
    let mut attr_broken = false;
    for a in input.attrs.iter().filter(|a| a.path().is_ident("rowkey")) {
        attr_seen = true;
        if let Err(e) = a.parse_args_with(|stream: syn::parse::ParseStream| attr.parse_into(stream))
        {
            errors.push(e.into());
            attr_broken = true;
        }
    }
    // Past a wrong shape or an unparsable attribute, the field checks would
    // only report follow-on errors.
    if named.is_none() || attr_broken {
        return Err(errors.finish().expect_err("an error was recorded"));
    }

    let fields: Vec<(Field, bool)> = named
        .map(|named| {
            named
                .named
                .iter()
                .filter_map(|f| {
                    let opts = errors.handle(FieldOpts::from_field(f))?;
                    let ident = opts.ident?;
                    Some((Field { ident, ty: opts.ty }, opts.skip.is_present()))
                })
                .collect()
        })
        .unwrap_or_default();
    let find = |name: &syn::Ident| fields.iter().find(|(f, _)| f.ident == *name);
    let suggest = |name: &syn::Ident| {
        let names: Vec<String> = fields.iter().map(|(f, _)| f.name()).collect();
        did_you_mean(&name.to_string(), &names)
    };

    let mut text_sep = None;
    if let Some((format, sep)) = &attr.format {
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
    }

    // The components, in key order.
    let mut components: Vec<Component> = Vec::new();
    match &attr.then {
        None if named.is_some() => {
            let message = if attr_seen {
                "missing `then = ...`: list the key's components in order, e.g. `#[rowkey(then = user_id, rev(timestamp))]`"
            } else {
                "missing `#[rowkey(then = ...)]`: list the key's components in order, e.g. `#[rowkey(then = user_id, rev(timestamp))]`"
            };
            errors.push(error(input.ident.span(), message));
        }
        None => {}
        Some((_, exprs)) => {
            for expr in exprs {
                let mut reversed = None;
                let mut bucket = None;
                let order = match &expr.transform {
                    None => Some(Order::Ascending),
                    Some(t) if t.name == "rev" || t.name == "reverse" => {
                        if let Some(extra) = t.args.first() {
                            errors.push(error(
                                extra.span(),
                                format!("`{}` takes one field: `{}(timestamp)`", t.name, t.name),
                            ));
                        }
                        if t.name == "reverse" {
                            reversed = Some(t.name.span());
                            Some(Order::Ascending)
                        } else {
                            Some(Order::Descending)
                        }
                    }
                    Some(t) if t.name == "bucket" => {
                        match t.args.first().map(|w| (w, w.base10_parse::<u64>())) {
                            Some((_, Ok(width))) if width > 0 && t.args.len() == 1 => {
                                bucket = Some((width, t.name.span()));
                                Some(Order::Ascending)
                            }
                            Some((w, _)) => {
                                errors.push(error(w.span(), "the bucket width must be one integer above 0: `bucket(day, 30)`"));
                                None
                            }
                            None => {
                                errors.push(error(
                                    t.name.span(),
                                    "`bucket` needs a width: `bucket(day, 30)`",
                                ));
                                None
                            }
                        }
                    }
                    Some(t) => {
                        errors.push(error(
                            t.name.span(),
                            format!(
                                "unknown transform `{}`; expected `rev(field)` (descending order), `reverse(field)` (byte-reversed integer) or `bucket(field, WIDTH)` (a coarse bucket before the field)",
                                t.name
                            ),
                        ));
                        None
                    }
                };
                let Some((field, skipped)) = find(&expr.field) else {
                    errors.push(error(
                        expr.field.span(),
                        format!(
                            "unknown field `{}` in `then`: `{}` has no field of that name{}",
                            expr.field,
                            input.ident,
                            suggest(&expr.field)
                        ),
                    ));
                    continue;
                };
                if *skipped {
                    errors.push(error(
                        expr.field.span(),
                        format!(
                            "`{}` is marked `#[rowkey(skip)]` and cannot also be a key component",
                            expr.field
                        ),
                    ));
                    continue;
                }
                let after_its_bucket = components
                    .last()
                    .is_some_and(|c: &Component| c.bucket.is_some() && c.field.ident == expr.field)
                    && bucket.is_none();
                if !after_its_bucket
                    && components.iter().any(|c| {
                        c.field.ident == expr.field && c.bucket.is_none() == bucket.is_none()
                    })
                {
                    errors.push(error(
                        expr.field.span(),
                        format!(
                            "`{}` is listed twice in `then`; each field is one component",
                            expr.field
                        ),
                    ));
                    continue;
                }
                if SCAN_METHODS.contains(&expr.field.to_string().as_str()) {
                    errors.push(error(
                        expr.field.span(),
                        format!(
                            "a key component cannot be named `{}`: the typed scan builder has a method of that name; rename the field",
                            expr.field
                        ),
                    ));
                    continue;
                }
                // A bucket takes the order of its field, which must come right after it.
                if let Some(previous) = components.last_mut().filter(|c| c.bucket.is_some()) {
                    if previous.field.ident == expr.field && bucket.is_none() {
                        previous.order = order.unwrap_or(previous.order);
                    }
                }
                if let Some(order) = order {
                    components.push(Component {
                        field: field.clone(),
                        order,
                        reversed,
                        bucket,
                    });
                }
            }
        }
    }

    if components.len() > MAX_COMPONENTS {
        errors.push(error(
            input.ident.span(),
            format!(
                "a key has at most {MAX_COMPONENTS} components; this one has {}",
                components.len()
            ),
        ));
    }
    for (i, c) in components.iter().enumerate() {
        let Some((width, span)) = c.bucket else {
            continue;
        };
        let followed = components
            .get(i + 1)
            .is_some_and(|next| next.field.ident == c.field.ident && next.bucket.is_none());
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

    // Every field is in the key or skipped: a field left out would make distinct rows share a key.
    if let Some((_, exprs)) = &attr.then {
        for (field, skipped) in &fields {
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

    let salt = attr.salt.as_ref().filter(|_| attr.then.is_some()).and_then(|salt| {
        let SaltExpr {
            keyword,
            fields,
            modulus,
        } = salt;
        let buckets = match modulus.base10_parse::<u64>() {
            Ok(0) => {
                errors.push(error(modulus.span(), "the salt needs at least 1 bucket: `% 0` divides by zero"));
                None
            }
            Ok(n) if n > MAX_BUCKETS => {
                errors.push(error(
                    modulus.span(),
                    format!("at most 65,536 salt buckets (a two-byte salt); found {n}"),
                ));
                None
            }
            Ok(n) => Some(n as u32),
            Err(_) => {
                errors.push(error(modulus.span(), "the bucket count must be an integer from 1 to 65,536"));
                None
            }
        };
        let Some(fields) = fields else {
            return Some(SaltSpec {
                buckets: buckets?,
                hashed: Vec::new(),
                random: true,
            });
        };
        let hashed: Vec<usize> = match fields {
            HashFields::All => (0..components.len()).filter(|&i| components[i].bucket.is_none()).collect(),
            HashFields::List(list) if list.is_empty() => {
                errors.push(error(
                    keyword.span(),
                    "`hash()` needs at least one field, or `hash(*)` for every key field",
                ));
                Vec::new()
            }
            HashFields::List(list) => {
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
                    let position = components
                        .iter()
                        .position(|c| c.field.ident == *name && c.bucket.map(|(w, _)| w) == width);
                    match position {
                        Some(i) if hashed.contains(&i) => errors.push(error(name.span(), format!("`{name}` is hashed twice"))),
                        Some(i) => hashed.push(i),
                        None if width.is_some() => errors.push(error(
                            name.span(),
                            format!("`bucket({name}, ...)` is hashed but `then` has no bucket of `{name}` with that width"),
                        )),
                        None if find(name).is_some() => errors.push(error(
                            name.span(),
                            format!(
                                "`{name}` is hashed but is not a key component: decode could not recompute the salt; hash only fields listed in `then`"
                            ),
                        )),
                        None => errors.push(error(
                            name.span(),
                            format!("unknown field `{name}` in `hash(...)`: `{}` has no field of that name{}", input.ident, suggest(name)),
                        )),
                    }
                }
                hashed
            }
        };
        Some(SaltSpec {
            buckets: buckets?,
            hashed,
            random: false,
        })
    });

    errors.finish()?;
    Ok(KeySpec {
        ident: input.ident.clone(),
        vis: input.vis.clone(),
        krate: attr.krate.unwrap_or_else(|| syn::parse_quote!(::keyschema)),
        prefix: attr.prefix.map(|(_, p)| p).unwrap_or_default(),
        text_sep,
        salt,
        components,
        skipped: fields
            .into_iter()
            .filter(|(_, skip)| *skip)
            .map(|(f, _)| f)
            .collect(),
    })
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
        assert_eq!(spec.components.len(), 2);
        let input: syn::DeriveInput = syn::parse_str(
            "#[rowkey(salt = hash(*) % 256)] #[rowkey(then = a, rev(b), prefix = b\"x\\0\")] struct E { a: String, b: u64 }",
        )
        .expect("parses");
        let spec = check(&input).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            spec.salt.as_ref().map(|s| (s.buckets, s.hashed.clone())),
            Some((256, vec![0, 1]))
        );
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
