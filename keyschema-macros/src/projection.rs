//! `#[derive(Projection)]`: part of a key type's row. The struct names the
//! key type (`#[projection(of = Event)]`); each field is a key field of it,
//! a `#[projection(value)]` field that is one of its value fields, or
//! `#[projection(skip)]`. The generated code checks every field against the
//! key type (its role, through the hidden `HasKeyField` and `HasValueField`
//! impls the `RowKey` derive writes; its type, by
//! moving it out of a decoded row), so a mistake is a compile error at the
//! field.

use darling::Error;
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields};

/// Where a projection's field comes from.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    Key,
    Value,
    Skip,
}

struct Spec<'a> {
    ident: &'a syn::Ident,
    of: syn::Path,
    krate: syn::Path,
    fields: Vec<(&'a syn::Field, &'a syn::Ident, Role)>,
}

/// The derive: the impl, or the errors.
pub fn derive(input: &DeriveInput) -> TokenStream {
    match check(input) {
        Ok(spec) => expand(&spec),
        Err(errors) => errors.write_errors(),
    }
}

fn check(input: &DeriveInput) -> Result<Spec<'_>, Error> {
    let mut errors = Error::accumulator();
    if !input.generics.params.is_empty() {
        errors.push(
            Error::custom("`Projection` cannot be derived for a generic type: a projection reads one key type's rows into one struct")
                .with_span(&input.generics),
        );
    }
    let (mut of, mut krate) = (None, None);
    for attr in input
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("projection"))
    {
        let parsed = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("of") {
                of = Some(meta.value()?.parse::<syn::Path>()?);
            } else if meta.path.is_ident("crate") {
                krate = Some(meta.value()?.parse::<syn::Path>()?);
            } else {
                return Err(meta.error("unknown option: `#[projection(...)]` takes `of = KeyType` (and `crate = path`)"));
            }
            Ok(())
        });
        if let Err(e) = parsed {
            errors.push(e.into());
        }
    }
    let fields = match &input.data {
        Data::Struct(s) => match &s.fields {
            Fields::Named(named) => named
                .named
                .iter()
                .filter_map(|f| {
                    let role = role(f, &mut errors);
                    Some((f, f.ident.as_ref()?, role))
                })
                .collect(),
            other => {
                errors.push(Error::custom("a projection is a struct with named fields: each is named as the key type's field it reads").with_span(other));
                Vec::new()
            }
        },
        _ => {
            errors.push(
                Error::custom("`Projection` can be derived for a struct only")
                    .with_span(&input.ident),
            );
            Vec::new()
        }
    };
    let of = of.ok_or_else(|| {
        Error::custom("name the key type this projects: `#[projection(of = Event)]`")
            .with_span(&input.ident)
    });
    let of = match of {
        Ok(of) => Some(of),
        Err(e) => {
            errors.push(e);
            None
        }
    };
    errors.finish()?;
    Ok(Spec {
        ident: &input.ident,
        of: of.ok_or_else(|| Error::custom("no key type").with_span(&input.ident))?,
        krate: krate.unwrap_or_else(|| syn::parse_quote!(::keyschema)),
        fields,
    })
}

/// A field's `#[projection(value)]` or `#[projection(skip)]`; a key field
/// without either.
fn role(field: &syn::Field, errors: &mut darling::error::Accumulator) -> Role {
    let mut role = Role::Key;
    for attr in field
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("projection"))
    {
        let parsed = attr.parse_nested_meta(|meta| {
            let next = if meta.path.is_ident("value") {
                Role::Value
            } else if meta.path.is_ident("skip") {
                Role::Skip
            } else {
                return Err(meta.error("unknown field option: a projection's field is a key field (no option), `#[projection(value)]` or `#[projection(skip)]`"));
            };
            if role != Role::Key {
                return Err(meta.error("a field is a value field or skipped, not both"));
            }
            role = next;
            Ok(())
        });
        if let Err(e) = parsed {
            errors.push(e.into());
        }
    }
    role
}

fn expand(spec: &Spec) -> TokenStream {
    let Spec {
        ident, of, krate, ..
    } = spec;
    let values: Vec<_> = spec
        .fields
        .iter()
        .filter(|(_, _, role)| *role == Role::Value)
        .collect();
    let value_fields = values.iter().map(|(field, name, _)| {
        let name = syn::ext::IdentExt::unraw(*name).to_string();
        let type_name = crate::types::name(&field.ty);
        let ty = &field.ty;
        quote!(__ks::ValueField {
            name: #name,
            type_name: #type_name,
            required: __ks::value_required(<#of as __ks::Record>::VALUES, #name),
            self_describing: __ks::is_self_describing::<#ty>,
            reads_nil: __ks::reads_nil::<#ty>,
            user_types: __ks::UserTypesOf::Traced(__ks::traced::<#ty>),
        })
    });
    // The role checks, each at its field: the key type through an alias
    // spanned there, so that the error points at the field.
    let roles = spec.fields.iter().filter_map(|(_, name, role)| {
        let id = crate::expand::record::field_id(&syn::ext::IdentExt::unraw(*name).to_string());
        let of = syn::Ident::new("__KsOf", name.span());
        match role {
            Role::Key => Some(quote_spanned!(name.span()=> __ks::key_field::<#of, #id>();)),
            Role::Value => Some(quote_spanned!(name.span()=> __ks::value_field::<#of, #id>();)),
            Role::Skip => None,
        }
    });
    let moves = spec.fields.iter().map(|(_, name, role)| match role {
        Role::Skip => quote_spanned!(name.span()=> #name: __ks::Default::default()),
        _ => quote_spanned!(name.span()=> #name: __row.#name),
    });
    let read_values: Vec<_> = values
        .iter()
        .map(|(field, name, _)| {
            let ty = &field.ty;
            (
                *name,
                quote_spanned!(ty.span()=> #ty),
                syn::ext::IdentExt::unraw(*name).to_string(),
            )
        })
        .collect();
    let read = crate::expand::record::read_body(
        quote!(self),
        &read_values,
        quote!(<Self as __ks::Projection>::VALUES),
    );
    quote! {
        #[doc(hidden)]
        #[allow(non_upper_case_globals, unused_qualifications, clippy::all)]
        const _: () = {
            use #krate::__private as __ks;
            type __KsOf = #of;

            impl __ks::Projection for #ident {
                type Of = #of;

                const VALUES: &'static [__ks::ValueField] = &[#(#value_fields),*];

                fn schema() -> &'static __ks::Schema {
                    static SCHEMA: __ks::OnceLock<__ks::Schema> = __ks::OnceLock::new();
                    SCHEMA.get_or_init(|| {
                        __ks::projected_schema(
                            <#of as __ks::RowKey>::schema(),
                            <Self as __ks::Projection>::VALUES,
                        )
                    })
                }

                fn from_key(__row: #of) -> Self {
                    #(#roles)*
                    #ident { #(#moves),* }
                }

                fn read_values<__R: __ks::ValueReader>(
                    &mut self,
                    __reader: &mut __R,
                ) -> __ks::Result<(), __ks::ValueError> {
                    #read
                }
            }
        };
    }
}
