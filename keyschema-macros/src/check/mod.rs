//! Check: every compile-time rule of the declaration, one function per
//! rule, each error at the offending token. All errors are collected and
//! reported together; what passes becomes the [`KeySpec`] model.

use crate::attr::KeyAttr;
use crate::model::{Field, KeySpec, Place, Role, ValueSpec};
use syn::DeriveInput;

mod components;
mod format;
mod history;
pub(crate) mod index;
mod partition;
mod salt;
mod shape;

use components::{buckets_followed_by_their_field, components, pair_buckets};
use format::text_separator;
use history::was_spec;
use partition::{partition_components, partition_group};
use salt::salt_spec;
use shape::{
    component_count, every_field_in_key, field_list, missing_then, named_fields, no_nil_in_option,
    not_generic,
};

pub(crate) type Errors = darling::error::Accumulator;

/// The struct's named fields, each with whether it is `#[rowkey(skip)]`.
struct StructFields<'a> {
    owner: &'a syn::Ident,
    list: Vec<(Field, Place)>,
}

impl StructFields<'_> {
    fn find(&self, name: &syn::Ident) -> Option<&(Field, Place)> {
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
    no_nil_in_option(&fields, &mut errors);
    let partition =
        partition_group(&attr, &mut errors).map(|entries| partition_components(entries, &listed));
    let salt = attr
        .salt
        .as_ref()
        .filter(|_| attr.then.is_some())
        .and_then(|salt| salt_spec(salt, &listed, &fields, &mut errors));

    let was = was_spec(input, &attr, &listed, &fields, salt.as_ref(), &mut errors);
    let family = shape::family(&attr, &fields, &mut errors);
    let prefix = attr
        .prefix
        .as_ref()
        .map(|(_, p)| p.clone())
        .unwrap_or_default();
    let indexes = index::check(
        &index::Row {
            input,
            attr: &attr,
            list: &fields.list,
            prefix: &prefix,
            salt: salt.as_ref(),
            sep: text_sep,
            history: was.is_some() || input.attrs.iter().any(|a| a.path().is_ident("rowkey_was")),
        },
        &mut errors,
    );

    errors.finish()?;
    Ok(KeySpec {
        ident: input.ident.clone(),
        vis: input.vis.clone(),
        krate: attr.krate.unwrap_or_else(|| syn::parse_quote!(::keyschema)),
        prefix,
        text_sep,
        salt,
        parts: pair_buckets(listed),
        partition,
        skipped: fields
            .list
            .iter()
            .filter(|(_, place)| *place == Place::Skip)
            .map(|(f, _)| f.clone())
            .collect(),
        values: fields
            .list
            .into_iter()
            .filter_map(|(field, place)| match place {
                Place::Value { default } => Some(ValueSpec {
                    optional: default || crate::types::is_option(&field.ty),
                    field,
                }),
                _ => None,
            })
            .collect(),
        family,
        was,
        indexes,
        building: false,
        dynamodb: None,
    })
}

/// The entry structs of the struct's indexes as far as they can be made
/// (the row's fields read without reporting their errors), for what is
/// emitted beside errors.
pub fn index_structs(input: &DeriveInput) -> Vec<index::Synth> {
    let mut errors = darling::Error::accumulator();
    let (attr, _, _) = parse_attr(input, &mut errors);
    let list = named_fields(input, &mut errors)
        .map(|named| field_list(named, &mut errors))
        .unwrap_or_default();
    drop(errors.finish());
    // A name the check refuses as taken is not declared again.
    let mut names = vec![input.ident.to_string(), format!("{}Scan", input.ident)];
    attr.indexes
        .iter()
        .filter(|index| {
            let name = index.name.to_string();
            let fresh = !names.contains(&name);
            names.push(name);
            fresh
        })
        .map(|i| index::synthesize(input, &attr, i, &list))
        .collect()
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

pub(crate) fn error(span: proc_macro2::Span, message: impl std::fmt::Display) -> darling::Error {
    darling::Error::custom(message).with_span(&span)
}

/// `"; did you mean `x`?"` for the closest of `names` to `name` (at most a
/// third of its letters edited, and at least one), else nothing.
pub(crate) fn did_you_mean(name: &str, names: &[String]) -> String {
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
