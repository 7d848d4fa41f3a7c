//! The `Record` impl: the value fields (`#[rowkey(value)]`) handed to a
//! store's writer and set from its reader, found by name.

use super::checked_value;
use crate::model::KeySpec;
use proc_macro2::{Literal, TokenStream};
use quote::{quote, quote_spanned};

/// `impl Record`: the field list, `write_values` and `read_values`.
pub(super) fn record_impl(spec: &KeySpec) -> TokenStream {
    let ident = &spec.ident;
    let fields = spec.values.iter().map(|v| {
        let name = v.field.name();
        let type_name = crate::types::name(&v.field.ty);
        let required = !v.optional;
        quote!(__ks::ValueField { name: #name, type_name: #type_name, required: #required })
    });
    let names: Vec<String> = spec.values.iter().map(|v| v.field.name()).collect();
    let writes = spec.values.iter().map(|v| {
        let (field, name, ty) = (&v.field.ident, v.field.name(), checked_value(&v.field));
        quote_spanned!(ty.span()=> __writer.field::<#ty>(#name, &self.#field)?;)
    });
    let reads = spec.values.iter().enumerate().map(|(i, v)| {
        let (field, ty, name) = (&v.field.ident, checked_value(&v.field), v.field.name());
        let i = Literal::usize_unsuffixed(i);
        quote!(#i => self.#field = __reader.value::<#ty>(#name)?,)
    });
    let n = spec.values.len();
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
                __ks::check_required(<Self as __ks::Record>::VALUES, &__seen)
            }
        }
    }
}
