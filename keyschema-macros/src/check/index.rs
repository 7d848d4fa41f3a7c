//! Index layouts: `#[rowkey(index(Name, prefix = ..., salt = ..., then = ...))]`.
//!
//! Each index becomes a key type of its own, the entry struct `Name`: a
//! struct with the fields its `then` lists (types from the row; an
//! `Option` value field as the type it holds, so a row whose field is
//! `None` has no entry), under a `#[rowkey(...)]` made of the index's
//! options as written. That struct goes through the whole `RowKey` check
//! and expansion, so an index layout obeys every rule a key type does, each
//! error at the user's own token; this module adds the rules of an index
//! as such (it names its row, its prefix keeps its entries apart).

use super::{did_you_mean, error, Errors};
use crate::attr::{IndexAttr, KeyAttr};
use crate::model::{DynamoDecl, Field, IndexSpec, KeySpec, Place, SaltSpec};
use proc_macro2::TokenStream;
use quote::quote;
use syn::ext::IdentExt;
use syn::DeriveInput;

/// The entry struct of one index, before its checks: what the derive
/// declares, also beside errors (so that code naming it does not drown
/// them in follow-on errors).
pub struct Synth {
    pub input: DeriveInput,
    pub fields: Vec<(syn::Ident, bool)>,
}

/// The entry struct of `index`, from the row's fields; names that are not
/// the row's stored fields are left out (and reported by [`check`]).
pub fn synthesize(
    row: &DeriveInput,
    attr: &KeyAttr,
    index: &IndexAttr,
    list: &[(Field, Place)],
) -> Synth {
    let mut parsed = KeyAttr::default();
    let _ = syn::parse::Parser::parse2(
        |s: syn::parse::ParseStream| parsed.parse_into(s, false),
        index.body.clone(),
    );
    let mut fields: Vec<(syn::Ident, bool)> = Vec::new();
    let mut decls = Vec::new();
    for expr in parsed.then.iter().flat_map(|(_, e)| e) {
        let found = list
            .iter()
            .find(|(f, p)| f.ident == expr.field && *p != Place::Skip);
        let Some((field, place)) = found else {
            continue;
        };
        if fields.iter().any(|(i, _)| *i == field.ident) {
            continue;
        }
        let inner = match place {
            Place::Value { .. } => option_inner(&field.ty),
            _ => None,
        };
        fields.push((field.ident.clone(), inner.is_some()));
        let (ident, ty) = (&field.ident, inner.unwrap_or(&field.ty));
        decls.push(quote!(#ident: #ty));
    }
    let body = &index.body;
    let mut inherited = TokenStream::new();
    if parsed.format.is_none() {
        if let Some((format, sep)) = &attr.format {
            let sep = sep.as_ref().map(|s| quote!((sep = #s)));
            inherited.extend(quote!(, format = #format #sep));
        }
    }
    if let Some(path) = &attr.krate {
        let text = quote!(#path).to_string().replace(' ', "");
        inherited.extend(quote!(, crate = #text));
    }
    let (vis, name) = (&row.vis, &index.name);
    let on_dynamodb = match index.dynamodb.as_ref().map(|w| w.to_string()).as_deref() {
        Some("native") => format!("declared `dynamodb = native`: a GSI `{name}` over the item's own typed attributes (its fields, with `{name}_shard` for the salt, `{name}_<field>_rev` for `rev` and `{name}_<field>_bucket` for `bucket`), which boto3 and the console query by field values; a store refuses to open if a component cannot be one"),
        Some(_) => format!("declared `dynamodb = encoded`: a GSI `{name}` over the binary attributes `{name}_pk` and `{name}_sk`"),
        None => format!("native where every component can be (the default): a GSI `{name}` over the item's own typed attributes, which boto3 and the console query by field values; else, or on a table whose GSI `{name}` is already encoded, a GSI over the binary attributes `{name}_pk` and `{name}_sk` (`dynamodb = encoded` declares that form, `dynamodb = native` refuses to open if a component cannot be native)"),
    };
    let doc = format!(
        "An entry of the index `{name}` of [`{row}`]: the row's fields in the index's key layout. Scan it with `{name}::scan()`, and read the rows it names whole with `.rows()` on the scan.\n\nOn DynamoDB this index is {on_dynamodb} (`DynamoStore::index_forms` says which form each index has, and why; docs/ENCODING.md, \"Indexes on DynamoDB\").",
        row = row.ident
    );
    let tokens = quote! {
        #[doc = #doc]
        #[derive(Debug, Clone, PartialEq)]
        #[rowkey(#body #inherited)]
        #vis struct #name { #(#vis #decls),* }
    };
    let input = syn::parse2(tokens).unwrap_or_else(|_| {
        syn::parse_quote! {
            #[derive(Debug, Clone, PartialEq)]
            #vis struct #name {}
        }
    });
    Synth { input, fields }
}

/// `T` when `ty` is written `Option<T>`.
fn option_inner(ty: &syn::Type) -> Option<&syn::Type> {
    let syn::Type::Path(p) = ty else {
        return None;
    };
    let last = p.path.segments.last()?;
    if p.qself.is_some() || last.ident != "Option" {
        return None;
    }
    match &last.arguments {
        syn::PathArguments::AngleBracketed(args) if args.args.len() == 1 => {
            match args.args.first()? {
                syn::GenericArgument::Type(inner) => Some(inner),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The row's parts an index check needs.
pub struct Row<'a> {
    pub input: &'a DeriveInput,
    pub attr: &'a KeyAttr,
    pub list: &'a [(Field, Place)],
    /// The row's prefix, salt and whether it has a layout history.
    pub prefix: &'a [u8],
    pub salt: Option<&'a SaltSpec>,
    /// The text keys' separator; `None` for binary keys.
    pub sep: Option<u8>,
    pub history: bool,
}

/// Every index of the row, checked: each as a key type, then the rules of
/// an index. `None` for an index with errors (they are in `errors`).
pub fn check(row: &Row, errors: &mut Errors) -> Vec<IndexSpec> {
    let mut out: Vec<IndexSpec> = Vec::new();
    let mut names: Vec<String> = vec![
        row.input.ident.unraw().to_string(),
        format!("{}Scan", row.input.ident.unraw()),
    ];
    // Each index checked so far, with its written prefix.
    let mut prefixes: Vec<(String, Vec<u8>)> = Vec::new();
    for index in &row.attr.indexes {
        let name = index.name.unraw().to_string();
        if names.contains(&name) {
            errors.push(error(
                index.name.span(),
                format!(
                    "`{name}` is already a name of this row's types: give the index another name"
                ),
            ));
            continue;
        }
        names.push(name.clone());
        names.push(format!("{name}Scan"));
        if let Some(e) = row_rules(row, index) {
            errors.push(e);
            continue;
        }
        let dynamodb = match dynamodb_form(index) {
            Ok(form) => form,
            Err(e) => {
                errors.push(e);
                continue;
            }
        };
        if !fields_known(row, index, errors) {
            continue;
        }
        let synth = synthesize(row.input, row.attr, index, row.list);
        let mut spec = match super::check(&synth.input) {
            Ok(spec) => spec,
            Err(e) => {
                errors.push(e);
                continue;
            }
        };
        if let Some(e) = names_its_row(row, index, &spec) {
            errors.push(e);
            continue;
        }
        if let Some(e) = apart(row, index, &spec, &prefixes) {
            errors.push(e);
            continue;
        }
        prefixes.push((name, written_prefix(&spec.prefix, spec.text_sep)));
        spec.building = index.building.is_some();
        spec.dynamodb = dynamodb;
        out.push(IndexSpec {
            spec,
            input: synth.input,
            fields: synth.fields,
            building: index.building.is_some(),
        });
    }
    out
}

/// `dynamodb = encoded` or `dynamodb = native`, when given.
fn dynamodb_form(index: &IndexAttr) -> Result<Option<DynamoDecl>, darling::Error> {
    let Some(word) = &index.dynamodb else {
        return Ok(None);
    };
    match word.to_string().as_str() {
        "encoded" => Ok(Some(DynamoDecl::Encoded)),
        "native" => Ok(Some(DynamoDecl::Native)),
        other => Err(error(
            word.span(),
            format!("`dynamodb = {other}` is no form of an index on DynamoDB: write `dynamodb = native` (a GSI over the item's own typed attributes) or `dynamodb = encoded` (a GSI over `{name}_pk` and `{name}_sk`)", name = index.name),
        )),
    }
}

/// Rules on the row: no layout history, no random salt (an entry names its
/// row by the row's key, so that key must follow from the fields).
fn row_rules(row: &Row, index: &IndexAttr) -> Option<darling::Error> {
    if row.history {
        return Some(error(
            index.span,
            "a key type with a layout history (`#[rowkey_was]`) cannot have an index yet: finish the migration (drop `#[rowkey_was]`), then add the index",
        ));
    }
    if matches!(row.salt, Some(SaltSpec::Random { .. })) {
        return Some(error(
            index.span,
            "an index entry names its row by the row's key, and a `random % N` salt gives a row N possible keys: salt the row with `hash(...) % N` to index it",
        ));
    }
    None
}

/// Rule: the index lists stored fields of the row (not `skip`ped ones).
fn fields_known(row: &Row, index: &IndexAttr, errors: &mut Errors) -> bool {
    let mut parsed = KeyAttr::default();
    if let Err(e) = syn::parse::Parser::parse2(
        |s: syn::parse::ParseStream| parsed.parse_into(s, false),
        index.body.clone(),
    ) {
        errors.push(e.into());
        return false;
    }
    let mut ok = true;
    if let Some(family) = &parsed.family {
        errors.push(error(
            family.span(),
            "an index entry holds no value fields, so it has no column family: `family` belongs on the row",
        ));
        ok = false;
    }
    if !parsed.indexes.is_empty() {
        errors.push(error(
            index.name.span(),
            "an index has no indexes of its own: declare every index on the row",
        ));
        ok = false;
    }
    let Some((then, exprs)) = &parsed.then else {
        errors.push(error(
            index.name.span(),
            format!("the index `{}` needs `then = ...`: its key's components, which must include every key field of the row", index.name),
        ));
        return false;
    };
    let _ = then;
    // The salt hashes the index's own components.
    if let Some(crate::attr::HashFields::List(items)) =
        parsed.salt.as_ref().and_then(|salt| salt.fields.as_ref())
    {
        for item in items {
            if !exprs.iter().any(|e| e.field == item.field) {
                errors.push(error(
                    item.field.span(),
                    format!("the index's salt hashes `{}`, which its `then` does not list: an index's salt hashes its own components", item.field),
                ));
                ok = false;
            }
        }
    }
    let names: Vec<String> = row.list.iter().map(|(f, _)| f.name()).collect();
    for expr in exprs {
        match row.list.iter().find(|(f, _)| f.ident == expr.field) {
            None => {
                errors.push(error(
                    expr.field.span(),
                    format!(
                        "`{}` is not a field of `{}`{}",
                        expr.field,
                        row.input.ident,
                        did_you_mean(&expr.field.unraw().to_string(), &names)
                    ),
                ));
                ok = false;
            }
            Some((_, Place::Skip)) => {
                errors.push(error(
                    expr.field.span(),
                    format!("`{}` is `#[rowkey(skip)]`: it is not stored, so no index can hold it; make it a key or value field", expr.field),
                ));
                ok = false;
            }
            Some(_) => {}
        }
    }
    ok
}

/// Rule: an entry names its row: it holds every key field of the row.
fn names_its_row(row: &Row, index: &IndexAttr, spec: &KeySpec) -> Option<darling::Error> {
    let missing: Vec<String> = row
        .list
        .iter()
        .filter(|(_, place)| *place == Place::Key)
        .filter(|(f, _)| !spec.parts.iter().any(|p| p.field.ident == f.ident))
        .map(|(f, _)| format!("`{}`", f.name()))
        .collect();
    if missing.is_empty() {
        return None;
    }
    Some(error(
        index.name.span(),
        format!(
            "the index `{}` must name its row: add {} (the key fields of `{}` it lacks) to its `then`, after the fields it is searched by; two rows with equal index fields would otherwise share one entry",
            index.name,
            missing.join(", "),
            row.input.ident,
        ),
    ))
}

/// Rules: an index has a prefix of its own, other than the row's and every
/// other index's, so that no key of one layout begins like another's (the
/// layouts share the table); and its salt is hashed.
fn apart(
    row: &Row,
    index: &IndexAttr,
    spec: &KeySpec,
    others: &[(String, Vec<u8>)],
) -> Option<darling::Error> {
    let span = index.name.span();
    if matches!(spec.salt, Some(SaltSpec::Random { .. })) {
        return Some(error(
            span,
            "an index's salt is `hash(...) % N`: a write must find an entry again to remove it, and a `random % N` entry could be in any bucket",
        ));
    }
    if spec.prefix.is_empty() {
        return Some(error(
            span,
            format!("the index `{}` needs a prefix of its own (`prefix = \"s\"`): its entries share the table with the rows, and the prefix keeps them apart", index.name),
        ));
    }
    // Layouts share the table: no written prefix (in its own format) may
    // begin another's, or one layout's scan would meet the other's keys.
    let written = written_prefix(&spec.prefix, spec.text_sep);
    let row_written = written_prefix(row.prefix, row.sep);
    let overlaps = |other: &[u8]| {
        !other.is_empty() && (other.starts_with(&written) || written.starts_with(other))
    };
    if overlaps(&row_written) {
        return Some(error(
            span,
            format!(
                "the index `{}` writes its keys after {}, and `{}` after {}: one begins the other, so the row's scans would meet the index's entries (or the other way round); give the index a prefix of its own that neither begins nor extends the row's",
                index.name,
                shown(&written),
                row.input.ident,
                shown(&row_written),
            ),
        ));
    }
    if let Some((other, other_written)) = others.iter().find(|(_, w)| overlaps(w)) {
        return Some(error(
            span,
            format!(
                "the index `{}` writes its keys after {}, and the index `{other}` after {}: one begins the other, so one's scans would meet the other's entries; give each index a prefix of its own",
                index.name,
                shown(&written),
                shown(other_written),
            ),
        ));
    }
    // Without a row prefix, the row's keys begin with its salt.
    if row.prefix.is_empty() && !row_keys_avoid(row, &written) {
        let row_ident = &row.input.ident;
        return Some(error(
            span,
            match (row.salt, written.first()) {
                (Some(salt), Some(first)) if row.sep.is_none() => {
                    let n = salt.buckets();
                    let highest = if n > 256 { (n - 1) >> 8 } else { n - 1 };
                    format!("the keys of `{row_ident}` begin with its salt (`% {n}`), whose first byte goes up to {highest} and so reaches the first byte of the index's prefix (0x{first:02x}): a scan of `{row_ident}` could meet entries of `{}`; give `{row_ident}` a prefix of its own (`prefix = \"e\"`), or fewer buckets, so that its salt's first byte stays below 0x{first:02x}", index.name)
                }
                _ => format!("the keys of `{row_ident}` may begin with the bytes of the index's prefix, so a scan of `{row_ident}` could meet entries of `{}`: give `{row_ident}` a prefix of its own (`prefix = \"e\"`), or salt it (its keys then begin with the salt, which the index prefix's first byte is above)", index.name),
            },
        ));
    }
    None
}

/// A prefix as a key begins with it: escaped and terminated by `00` in
/// binary keys, followed by the separator in text keys; nothing when empty.
pub(super) fn written_prefix(prefix: &[u8], sep: Option<u8>) -> Vec<u8> {
    if prefix.is_empty() {
        return Vec::new();
    }
    match sep {
        Some(sep) => prefix.iter().copied().chain([sep]).collect(),
        None => {
            let mut out = Vec::with_capacity(prefix.len() + 1);
            for &b in prefix {
                if b <= 1 {
                    out.push(1);
                }
                out.push(b);
            }
            out.push(0);
            out
        }
    }
}

/// Written bytes as a user reads them: `"ev#"`, with `\x00` escapes.
fn shown(bytes: &[u8]) -> String {
    format!("\"{}\"", bytes.escape_ascii())
}

/// Whether the row's keys (no prefix) can never begin with an index's
/// written prefix: a binary key begins with its salt's first byte, below
/// the prefix's first byte; a text key with the salt's digits.
fn row_keys_avoid(row: &Row, written: &[u8]) -> bool {
    let (Some(salt), Some(&first)) = (row.salt, written.first()) else {
        return false;
    };
    if row.sep.is_some() {
        return !first.is_ascii_digit();
    }
    let buckets = u64::from(salt.buckets());
    let highest_first_byte = if buckets > 256 {
        (buckets - 1) >> 8
    } else {
        buckets - 1
    };
    u64::from(first) > highest_first_byte
}
