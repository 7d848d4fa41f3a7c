//! Expand: small pieces that each produce tokens. Generated code is
//! straight-line and calls the runtime through `__private`.

use crate::model::{Field, KeySpec, Order, Role};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

mod dummy;
mod get_key;
pub(crate) mod index;
pub(crate) mod record;
mod row_key;
mod scan;
mod schema;

pub use dummy::dummy;
use get_key::get_key_fns;
use record::{record_impl, roles};
use row_key::row_key_impl;
use scan::scan_builder;
use schema::schema;

pub fn expand(spec: &KeySpec) -> TokenStream {
    expand_with(spec, TokenStream::new())
}

/// [`expand`], with `extra` items inside the block that holds the field
/// type aliases (an index's `impl Index` names its fields' types by them).
pub fn expand_with(spec: &KeySpec, extra: TokenStream) -> TokenStream {
    let KeySpec {
        ident, vis, krate, ..
    } = spec;
    let scan_ident = format_ident!("{}Scan", ident);
    let aliases = aliases(spec);
    let schema = schema(spec);
    let row_key = row_key_impl(spec);
    let record = record_impl(spec);
    let roles = roles(spec);
    let get_key = get_key_fns(spec);
    let scan = scan_builder(spec, &scan_ident);
    let indexes = index::indexes(spec);
    let doc = format!(
        "Typed scan builder for [`{ident}`], made by [`{ident}::scan`]. `STAGE` counts the components bound so far; each method binds the next one, by equality (the scan goes on) or by a range (the scan ends)."
    );
    quote! {
        #[doc = #doc]
        #[derive(Debug, Clone)]
        #[must_use = "a scan does nothing until its ranges are used"]
        #vis struct #scan_ident<const STAGE: usize> {
            state: #krate::__private::ScanState,
        }

        #[doc(hidden)]
        #[allow(non_upper_case_globals, non_camel_case_types, unused_qualifications, clippy::all)]
        const _: () = {
            use #krate::__private as __ks;
            #aliases
            #schema
            #row_key
            #record
            #roles
            #get_key
            #scan
            #extra
        };

        #indexes
    }
}

/// The encoder or decoder method for an encoded component: `asc`, `desc`,
/// `reversed`, or `text` in text keys (the schema says how to transform).
pub(crate) fn step(role: Role, span: Span, text: bool) -> syn::Ident {
    let name = match (text, role) {
        (true, _) => "text",
        (false, Role::Reversed(_)) => "reversed",
        (false, role) if role.order() == Order::Descending => "desc",
        (false, _) => "asc",
    };
    syn::Ident::new(name, span)
}

/// The alias through which generated code names a field's type:
/// `<T as KeyComponentCheck>::Checked`, so that a type that is not a key
/// component gives one error, at the field, instead of one per use.
fn checked(field: &Field) -> syn::Ident {
    format_ident!("__KsT_{}", field.ident, span = field.ty.span())
}

/// The alias of a value field's type: `<T as ValueFieldCheck>::Checked`.
fn checked_value(field: &Field) -> syn::Ident {
    format_ident!("__KsV_{}", field.ident, span = field.ty.span())
}

/// One alias per key field and per value field; see [`checked`].
fn aliases(spec: &KeySpec) -> TokenStream {
    let keys = spec.parts.iter().map(|part| {
        let (alias, ty) = (checked(&part.field), &part.field.ty);
        quote_spanned!(ty.span()=> type #alias = <#ty as __ks::KeyComponentCheck>::Checked;)
    });
    let values = spec.values.iter().map(|v| {
        let (alias, ty) = (checked_value(&v.field), &v.field.ty);
        quote_spanned!(ty.span()=> type #alias = <#ty as __ks::ValueFieldCheck>::Checked;)
    });
    quote!(#(#keys)* #(#values)*)
}

#[cfg(test)]
mod tests {
    use crate::limits::SCAN_METHODS;

    /// The reserved names are exactly the methods every scan stage has.
    #[test]
    fn reserved_names_are_the_common_scan_methods() {
        let input: syn::DeriveInput =
            syn::parse_str("#[rowkey(then = a)] struct E { a: u32 }").expect("parses");
        let spec = crate::check::check(&input).unwrap_or_else(|e| panic!("{e}"));
        let tokens = super::expand(&spec);
        let file: syn::File = syn::parse2(tokens).expect("generated code parses");
        let mut common = Vec::new();
        let mut visit = |items: &[syn::Item]| {
            for item in items {
                if let syn::Item::Impl(imp) = item {
                    // `impl<const STAGE: usize> EScan<STAGE>` (not the ScanStage trait impl).
                    if imp.trait_.is_none() && !imp.generics.params.is_empty() {
                        for i in &imp.items {
                            if let syn::ImplItem::Fn(f) = i {
                                common.push(f.sig.ident.to_string());
                            }
                        }
                    }
                }
            }
        };
        for item in &file.items {
            if let syn::Item::Const(c) = item {
                if let syn::Expr::Block(b) = &*c.expr {
                    let items: Vec<syn::Item> = b
                        .block
                        .stmts
                        .iter()
                        .filter_map(|s| match s {
                            syn::Stmt::Item(i) => Some(i.clone()),
                            _ => None,
                        })
                        .collect();
                    visit(&items);
                }
            }
        }
        common.sort();
        let mut reserved: Vec<String> = SCAN_METHODS.iter().map(|s| s.to_string()).collect();
        reserved.sort();
        assert_eq!(common, reserved);
    }

    #[test]
    fn thousands_separators() {
        assert_eq!(super::scan::thousands(4096), "4,096");
        assert_eq!(super::scan::thousands(65_536), "65,536");
        assert_eq!(super::scan::thousands(64), "64");
    }
}
