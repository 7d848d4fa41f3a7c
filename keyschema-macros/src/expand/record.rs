//! The `Record` impl: the value fields (`#[rowkey(value)]`) handed to a
//! store's writer and set from its reader, found by name.

use super::checked_value;
use crate::model::{KeySpec, ValueSpec};
use proc_macro2::{Literal, TokenStream};
use quote::{quote, quote_spanned};

/// The fields' roles, for `#[derive(Projection)]` to check a projection
/// against: `HasKeyField<N>` for each key field and `HasValueField<N>` for
/// each value field, `N` the hash of its name ([`field_id`]).
pub(super) fn roles(spec: &KeySpec) -> TokenStream {
    let ident = &spec.ident;
    let keys = spec.parts.iter().map(|p| field_id(&p.field.name()));
    let values = spec.values.iter().map(|v| field_id(&v.field.name()));
    quote! {
        #(impl __ks::HasKeyField<#keys> for #ident {})*
        #(impl __ks::HasValueField<#values> for #ident {})*
    }
}

/// A field name as a const generic argument: its 64-bit FNV-1a hash.
pub(crate) fn field_id(name: &str) -> Literal {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in name.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    Literal::u64_suffixed(hash)
}

/// The generated `read_values`' body: each stored field among `values`
/// (field ident, checked type, name) read by name into `target` (`self`,
/// or a row an index reads into), the required ones checked against
/// `fields_of` (the `ValueField`s of `values`, in their order).
pub(crate) fn read_body(
    target: TokenStream,
    values: &[(&syn::Ident, TokenStream, String)],
    fields_of: TokenStream,
) -> TokenStream {
    let names = values.iter().map(|(_, _, name)| name);
    let reads = values.iter().enumerate().map(|(i, (field, ty, name))| {
        let i = Literal::usize_unsuffixed(i);
        quote!(#i => #target.#field = __reader.value::<#ty>(#name)?,)
    });
    // A required field the store does not hold reads as nil when its type
    // takes nil (`()`, `serde_json::Value::Null`, an untagged unit
    // variant): a store of cells (Bigtable) writes nil as no cell.
    let nils = values.iter().enumerate().map(|(i, (field, ty, _))| {
        let i = Literal::usize_unsuffixed(i);
        quote! {
            if !__seen[#i] && (#fields_of).get(#i).is_some_and(|__f| __f.required) {
                if let __ks::Option::Some(__v) = __ks::from_nil::<#ty>() {
                    #target.#field = __v;
                    __seen[#i] = true;
                }
            }
        }
    });
    let n = values.len();
    quote! {
        let mut __seen = [false; #n];
        while let __ks::Option::Some(__i) = __reader.next_field(&[#(#names),*])? {
            match __i {
                #(#reads)*
                _ => {}
            }
            if let __ks::Option::Some(__s) = __seen.get_mut(__i) {
                *__s = true;
            }
        }
        #(#nils)*
        __ks::check_required(#fields_of, &__seen)
    }
}

/// `impl Record`: the field list, `write_values` and `read_values`.
pub(super) fn record_impl(spec: &KeySpec) -> TokenStream {
    let ident = &spec.ident;
    let fields = spec.values.iter().map(|v| {
        let name = v.field.name();
        let type_name = crate::types::name(&v.field.ty);
        let required = !v.optional;
        let ty = checked_value(&v.field);
        quote!(__ks::ValueField {
            name: #name,
            type_name: #type_name,
            required: #required,
            self_describing: __ks::is_self_describing::<#ty>,
            reads_nil: __ks::reads_nil::<#ty>,
            user_types: __ks::UserTypesOf::Traced(__ks::traced::<#ty>),
        })
    });
    let writes = spec.values.iter().map(|v| {
        let (field, name, ty) = (&v.field.ident, v.field.name(), checked_value(&v.field));
        quote_spanned!(ty.span()=> __writer.field::<#ty>(#name, &self.#field)?;)
    });
    let values: Vec<_> = spec
        .values
        .iter()
        .map(|v| {
            let ty = checked_value(&v.field);
            (&v.field.ident, quote!(#ty), v.field.name())
        })
        .collect();
    let read = read_body(
        quote!(self),
        &values,
        quote!(<Self as __ks::Record>::VALUES),
    );
    let read_index_fields = read_index_fields(spec);
    quote! {
        impl __ks::Record for #ident {
            const VALUES: &'static [__ks::ValueField] = &[#(#fields),*];

            fn write_values<__W: __ks::ValueWriter>(
                &self,
                __writer: &mut __W,
            ) -> __ks::Result<(), __W::Error> {
                #(#writes)*
                __ks::Result::Ok(())
            }

            fn read_values<__R: __ks::ValueReader>(
                &mut self,
                __reader: &mut __R,
            ) -> __ks::Result<(), __ks::ValueError> {
                #read
            }

            #read_index_fields
        }
    }
}

/// The row type's `Record::read_index_fields`: for each index (by its
/// place in the declaration), the value fields it is over, read by name
/// into the row (the generated `read_values`' body over those fields
/// alone), a required one the value lacks a `ValueError::Missing`; the
/// others are stepped over unread. Nothing for a type without indexes.
pub(super) fn read_index_fields(row: &KeySpec) -> TokenStream {
    if row.indexes.is_empty() {
        return TokenStream::new();
    }
    let row_ident = &row.ident;
    let arms = row.indexes.iter().enumerate().map(|(n, index)| {
        let n = Literal::usize_unsuffixed(n);
        // The value fields the index reads, in declaration order, with
        // their place among the row's.
        let read: Vec<(usize, &ValueSpec)> = row
            .values
            .iter()
            .enumerate()
            .filter(|(_, v)| {
                let name = v.field.name();
                index
                    .fields
                    .iter()
                    .any(|(f, _)| syn::ext::IdentExt::unraw(f) == name)
            })
            .collect();
        if read.is_empty() {
            return quote!(#n => __ks::Result::Ok(()),);
        }
        let places = read.iter().map(|(i, _)| Literal::usize_unsuffixed(*i));
        let values: Vec<_> = read
            .iter()
            .map(|(_, v)| {
                let ty = super::checked_value(&v.field);
                (&v.field.ident, quote!(#ty), v.field.name())
            })
            .collect();
        let body = read_body(quote!(self), &values, quote!(__FIELDS));
        quote! {
            #n => {
                const __FIELDS: &[__ks::ValueField] =
                    &[#(<#row_ident as __ks::Record>::VALUES[#places]),*];
                #body
            }
        }
    });
    quote! {
        fn read_index_fields<__R: __ks::ValueReader>(
            &mut self,
            __index: usize,
            __reader: &mut __R,
        ) -> __ks::Result<(), __ks::ValueError> {
            match __index {
                #(#arms)*
                _ => __ks::Result::Ok(()),
            }
        }
    }
}
