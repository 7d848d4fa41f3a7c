//! The `#[derive(RowKey)]` and `#[derive(KeyComponent)]` macros of keyschema. Use it through the `keyschema`
//! crate, whose documentation describes the attribute.
//!
//! The derive runs in four stages, one module each: `attr` parses the
//! attributes, `check` applies every compile-time rule and builds the
//! `model`, and `expand` turns the model into code.

mod attr;
mod check;
mod component;
mod expand;
mod limits;
mod model;
mod projection;
mod types;

use proc_macro::TokenStream;

/// Derives `keyschema::RowKey`, `get_key`, `get_key_into` and `scan()` from a
/// `#[rowkey(...)]` declaration. See the `keyschema` crate for the syntax.
#[proc_macro_derive(RowKey, attributes(rowkey, rowkey_was))]
pub fn derive_row_key(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    match check::check(&input) {
        Ok(spec) => expand::expand(&spec).into(),
        Err(errors) => {
            let mut out = errors.write_errors();
            out.extend(expand::dummy(&input));
            for index in check::index_structs(&input) {
                out.extend(expand::index::declared_struct(&index.input));
                out.extend(expand::dummy(&index.input));
            }
            out.into()
        }
    }
}

/// Part of a key type's row, read through its scans and gets while the
/// store fetches only the projection's value fields: see the runtime's
/// `Projection` trait.
#[proc_macro_derive(Projection, attributes(projection))]
pub fn derive_projection(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    projection::derive(&input).into()
}

/// Derives `keyschema::KeyComponent` (and `TextComponent`) for a newtype,
/// which delegates every item to the type it wraps, or for a fieldless
/// enum, stored as its discriminant (the `#[repr]` integer, `i64` without
/// one) and rendered by variant name. See `keyschema::KeyComponent`.
#[proc_macro_derive(KeyComponent)]
pub fn derive_key_component(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    component::derive(&input).into()
}
