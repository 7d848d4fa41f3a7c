//! The rules of `#[derive(KeyComponent)]`, each error at its token: no
//! generics; a struct has exactly one field; an enum has variants and none
//! carries fields; a union is refused; an enum's `#[repr]` is an integer of
//! at most 64 bits.

use darling::Error;
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields};

/// What the derive writes impls for.
pub enum Shape<'a> {
    /// `struct UserId(String)` or `struct UserId { id: String }`.
    Newtype {
        ident: &'a syn::Ident,
        /// `0`, or the field's name.
        member: syn::Member,
        ty: &'a syn::Type,
    },
    /// A fieldless enum.
    Enum {
        ident: &'a syn::Ident,
        /// The integer type the discriminants are stored as (`u8`, `i64`...).
        repr: syn::Ident,
        variants: Vec<&'a syn::Ident>,
    },
}

/// Reads the item, or reports every rule it breaks.
pub fn check(input: &DeriveInput) -> Result<Shape<'_>, Error> {
    let mut errors = Error::accumulator();
    if !input.generics.params.is_empty() {
        errors.push(Error::custom(
            "`KeyComponent` cannot be derived for a generic type: its encoding, and the name a schema document gives it, must be one; wrap a concrete type (`struct Ids(Vec<u8>);`)",
        ).with_span(&input.generics));
    }
    let shape = match &input.data {
        Data::Struct(s) => newtype(input, &s.fields, &mut errors),
        Data::Enum(e) => fieldless_enum(input, e, &mut errors),
        Data::Union(u) => {
            errors.push(Error::custom(
                "`KeyComponent` cannot be derived for a union: derive it for a newtype struct (`struct UserId(String);`) or a fieldless enum",
            ).with_span(&u.union_token.span));
            None
        }
    };
    errors.finish()?;
    shape.ok_or_else(|| Error::custom("no shape").with_span(&input.ident))
}

fn newtype<'a>(
    input: &'a DeriveInput,
    fields: &'a Fields,
    errors: &mut darling::error::Accumulator,
) -> Option<Shape<'a>> {
    if fields.len() != 1 {
        let span = match fields {
            Fields::Unit => input.ident.span(),
            _ => fields.span(),
        };
        errors.push(Error::custom(format!(
            "`KeyComponent` can be derived for a struct of exactly one field (a newtype, `struct UserId(String);`), which it delegates to; this struct has {}. For a key of several fields, derive `RowKey`",
            fields.len()
        )).with_span(&span));
        return None;
    }
    let field = fields.iter().next()?;
    let member = match &field.ident {
        Some(name) => syn::Member::Named(name.clone()),
        None => syn::Member::Unnamed(0.into()),
    };
    Some(Shape::Newtype {
        ident: &input.ident,
        member,
        ty: &field.ty,
    })
}

fn fieldless_enum<'a>(
    input: &'a DeriveInput,
    data: &'a syn::DataEnum,
    errors: &mut darling::error::Accumulator,
) -> Option<Shape<'a>> {
    if data.variants.is_empty() {
        errors.push(Error::custom(
            "`KeyComponent` cannot be derived for an enum without variants: no key could hold one",
        ).with_span(&input.ident));
    }
    for v in &data.variants {
        if !matches!(v.fields, Fields::Unit) {
            errors.push(Error::custom(format!(
                "variant `{}` has fields: `KeyComponent` can be derived for a fieldless enum only (stored as its discriminant); for data, make the variant's content its own key field",
                v.ident
            )).with_span(&v.fields));
        }
    }
    let repr = repr(input, errors);
    Some(Shape::Enum {
        ident: &input.ident,
        repr: repr?,
        variants: data.variants.iter().map(|v| &v.ident).collect(),
    })
}

/// The `#[repr]` integer: `u8`..`u64`, `i8`..`i64`; `usize` as `u64`,
/// `isize` (and no integer repr, Rust's default) as `i64`.
fn repr(input: &DeriveInput, errors: &mut darling::error::Accumulator) -> Option<syn::Ident> {
    let mut found = None;
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("repr")) {
        let _ = attr.parse_nested_meta(|meta| {
            if let Some(ident) = meta.path.get_ident() {
                let name = ident.to_string();
                let stored = match name.as_str() {
                    "u8" | "u16" | "u32" | "u64" | "i8" | "i16" | "i32" | "i64" => Some(name),
                    "usize" => Some("u64".to_string()),
                    "isize" => Some("i64".to_string()),
                    "u128" | "i128" => {
                        errors.push(Error::custom(
                            "a key component enum is stored as an integer of at most 64 bits: use `#[repr(u64)]` or narrower (`#[repr(u8)]` stores one byte)",
                        ).with_span(ident));
                        return Ok(());
                    }
                    _ => None,
                };
                if let Some(stored) = stored {
                    found = Some(syn::Ident::new(&stored, ident.span()));
                }
            }
            Ok(())
        });
    }
    Some(found.unwrap_or_else(|| syn::Ident::new("i64", input.ident.span())))
}
