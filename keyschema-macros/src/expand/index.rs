//! An index's code: the entry struct and its key type's items (the same
//! expansion as any key type's), `impl Index` (the entry of a row, the row
//! of an entry), and the row type's `stored_index_keys`.

use crate::model::{Field, IndexSpec, KeySpec};
use proc_macro2::{Literal, TokenStream};
use quote::quote;

/// Every index's entry struct, key type items and `impl Index`.
pub(super) fn indexes(row: &KeySpec) -> TokenStream {
    let items = row.indexes.iter().map(|index| {
        let declared = declared_struct(&index.input);
        let key_type = super::expand_with(&index.spec, index_impl(row, index));
        quote! {
            #declared
            #key_type
        }
    });
    quote!(#(#items)*)
}

/// The entry struct as declared, without the `#[rowkey(...)]` its checks
/// read (no derive reads it here).
pub(crate) fn declared_struct(input: &syn::DeriveInput) -> TokenStream {
    let mut input = input.clone();
    input.attrs.retain(|a| !a.path().is_ident("rowkey"));
    let syn::DeriveInput {
        attrs,
        vis,
        ident,
        data,
        ..
    } = &input;
    let fields = match data {
        syn::Data::Struct(s) => &s.fields,
        _ => return TokenStream::new(),
    };
    quote!(#(#attrs)* #vis struct #ident #fields)
}

/// `impl Index`: an entry's key from a row's borrowed fields (an `Option`
/// value field's `None`: no entry), and the row's key from an entry's.
fn index_impl(row: &KeySpec, index: &IndexSpec) -> TokenStream {
    let (row_ident, entry) = (&row.ident, &index.spec.ident);
    let entry_args = index.spec.parts.iter().map(|p| &p.field.ident);
    let row_args = row.parts.iter().map(|p| {
        let field = &p.field.ident;
        quote!(__ks::KeyComponent::as_key_ref(&self.#field))
    });
    let building = index.building;
    let borrows: Vec<TokenStream> = index
        .fields
        .iter()
        .map(|(field, unwrap)| {
            let value = match unwrap {
                true => quote!(__row.#field.as_ref()?),
                false => quote!(&__row.#field),
            };
            let ty = super::checked(&Field {
                ident: field.clone(),
                ty: index
                    .spec
                    .parts
                    .iter()
                    .find(|p| p.field.ident == *field)
                    .map_or_else(|| syn::parse_quote!(()), |p| p.field.ty.clone()),
            });
            quote!(let #field = <#ty as __ks::KeyComponent>::as_key_ref(#value);)
        })
        .collect();
    let place = row
        .indexes
        .iter()
        .position(|i| i.spec.ident == index.spec.ident)
        .unwrap_or_default();
    let place = Literal::usize_unsuffixed(place);
    let key_fields = row.parts.iter().map(|p| &p.field.ident);
    let defaults = row
        .values
        .iter()
        .map(|v| &v.field.ident)
        .chain(row.skipped.iter().map(|f| &f.ident))
        .map(|f| quote!(#f: __ks::Default::default()));
    quote! {
        impl __ks::Index for #entry {
            type Row = #row_ident;
            const BUILDING: bool = #building;

            fn entry_key(__row: &#row_ident) -> __ks::Option<__ks::Vec<u8>> {
                #(#borrows)*
                __ks::Option::Some(#entry::get_key(#(#entry_args),*))
            }

            fn row_key(&self) -> __ks::Vec<u8> {
                #row_ident::get_key(#(#row_args),*)
            }

            fn into_row(self) -> #row_ident {
                #row_ident { #(#key_fields: self.#key_fields,)* #(#defaults,)* }
            }

            fn read_indexed<__R: __ks::ValueReader>(
                __row: &mut #row_ident,
                __reader: &mut __R,
            ) -> __ks::Result<(), __ks::ValueError> {
                <#row_ident as __ks::Record>::read_index_fields(__row, #place, __reader)
            }
        }
    }
}

/// The row type's `stored_index_keys`: the stored row's key decoded, then
/// for each index only the value fields it is over, read by name
/// (`read_index_fields`, each index on its own, so that a field one index
/// reads that does not read as its type hides no other index's fields),
/// so that a row another version of the struct wrote (without a field
/// this one requires, or with a field of another type) still gives the
/// entries it has. An index over a required field the row lacks, or one
/// that does not read as its type, gives none: the row was not written
/// with it. A value in neither stored shape reads as one without fields.
pub(super) fn stored_index_keys(row: &KeySpec) -> TokenStream {
    if row.indexes.is_empty() {
        return TokenStream::new();
    }
    let entries = row.indexes.iter().enumerate().map(|(n, index)| {
        let entry = &index.spec.ident;
        let n = Literal::usize_unsuffixed(n);
        quote! {
            let __read = __ks::read_stored(__value, |__reader| {
                <Self as __ks::Record>::read_index_fields(&mut __row, #n, __reader)
            });
            if __read.is_ok() {
                if let __ks::Option::Some(__k) = <#entry as __ks::Index>::entry_key(&__row) {
                    __out.push(__k);
                }
            }
        }
    });
    quote! {
        fn stored_index_keys(__key: &[u8], __value: &[u8], __out: &mut __ks::Vec<__ks::Vec<u8>>) {
            let __ks::Result::Ok(mut __row) = <Self as __ks::RowKey>::decode(__key) else {
                return;
            };
            #(#entries)*
        }
    }
}

/// The row schema's index list.
pub(super) fn index_schemas(row: &KeySpec) -> Option<TokenStream> {
    if row.indexes.is_empty() {
        return None;
    }
    let entries = row.indexes.iter().map(|i| &i.spec.ident);
    Some(quote!(&[#(<#entries as __ks::RowKey>::schema),*]))
}
