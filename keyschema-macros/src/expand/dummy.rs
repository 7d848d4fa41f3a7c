//! What is emitted beside compile errors, so that the user's other code
//! does not drown them in follow-on errors.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

/// What is emitted beside the errors, so that the user's other code does
/// not drown the real errors in follow-on ones: `RowKey`, the generated
/// functions and a scan builder whose methods take anything, all through
/// the `crate = ...` path when one is given.
pub fn dummy(input: &syn::DeriveInput) -> TokenStream {
    if !input.generics.params.is_empty() {
        return TokenStream::new();
    }
    let ident = &input.ident;
    let vis = &input.vis;
    let scan_ident = format_ident!("{}Scan", ident);
    // Whatever parsed of the attribute: the crate path and the key fields.
    let mut errors = darling::Error::accumulator();
    let (attr, _, _) = crate::check::parse_attr(input, &mut errors);
    drop(errors.finish());
    let krate: syn::Path = attr
        .krate
        .clone()
        .unwrap_or_else(|| syn::parse_quote!(::keyschema));
    let named: Vec<&syn::Ident> = match &input.data {
        syn::Data::Struct(s) => s.fields.iter().filter_map(|f| f.ident.as_ref()).collect(),
        _ => Vec::new(),
    };
    let mut fields: Vec<&syn::Ident> = Vec::new();
    if let Some((_, exprs)) = &attr.then {
        for expr in exprs {
            let is_bucket = expr.transform.as_ref().is_some_and(|t| t.name == "bucket");
            if !is_bucket && named.contains(&&expr.field) && !fields.contains(&&expr.field) {
                fields.push(&expr.field);
            }
        }
    } else {
        fields = named;
    }
    let params = fields.iter().map(|f| quote!(#f: impl ::std::marker::Sized));
    let params2 = params.clone();
    let params3 = params.clone();
    let params4 = params.clone();
    let params5 = params.clone();
    let methods = fields
        .iter()
        .filter(|f| !crate::limits::SCAN_METHODS.contains(&f.to_string().as_str()))
        .map(|f| {
            quote! {
                #vis fn #f<__A>(self, _: __A) -> Self {
                    self
                }
            }
        });
    quote! {
        #[doc(hidden)]
        #vis struct #scan_ident<const STAGE: usize>;

        #[allow(unused_variables, clippy::all)]
        const _: () = {
            impl #krate::RowKey for #ident {
                const BUCKETS: u32 = 1;
                const SIZE_HINT: usize = 0;
                fn schema() -> &'static #krate::Schema {
                    unimplemented!()
                }
                fn encode_into(&self, _: &mut ::std::vec::Vec<u8>) {
                    unimplemented!()
                }
                fn decode(_: &[u8]) -> ::std::result::Result<Self, #krate::DecodeError> {
                    unimplemented!()
                }
            }

            impl #krate::Record for #ident {
                const VALUES: &'static [#krate::record::ValueField] = &[];
                fn write_values<__W: #krate::record::ValueWriter>(
                    &self,
                    _: &mut __W,
                ) -> ::std::result::Result<(), __W::Error> {
                    unimplemented!()
                }
                fn read_values<__R: #krate::record::ValueReader>(
                    &mut self,
                    _: &mut __R,
                ) -> ::std::result::Result<(), #krate::ValueError> {
                    unimplemented!()
                }
            }

            // Every generated form stays callable, so one mistake is one error.
            impl #krate::OneLayout for #ident {}

            impl #ident {
                #vis fn get_key(#(#params),*) -> ::std::vec::Vec<u8> {
                    unimplemented!()
                }
                #vis fn get_keys(#(#params2),*) -> ::std::vec::Vec<::std::vec::Vec<u8>> {
                    unimplemented!()
                }
                #vis fn get_key_into(__out: &mut ::std::vec::Vec<u8>, #(#params3),*) {
                    unimplemented!()
                }
                #vis fn get<__S: #krate::store::Store>(
                    __store: &__S,
                    #(#params4),*
                ) -> ::std::result::Result<::std::option::Option<#krate::store::TypedRow<Self>>, #krate::store::RowError<__S::Error>> {
                    unimplemented!()
                }
                #vis fn get_async<'__s, __S: #krate::store::AsyncStore>(
                    __store: &'__s __S,
                    #(#params5),*
                ) -> #krate::store::BoxFuture<'__s, #krate::store::TypedGet<Self, __S::Error>> {
                    unimplemented!()
                }
                #vis fn scan() -> #scan_ident<0> {
                    #scan_ident
                }
            }

            impl<const STAGE: usize> #scan_ident<STAGE> {
                #(#methods)*
                #vis fn ranges(&self) -> #krate::ScanRangeSet {
                    unimplemented!()
                }
                #vis fn request(self) -> #krate::ScanRequest<#ident> {
                    unimplemented!()
                }
                #vis fn limit(self, _: usize) -> #krate::ScanRequest<#ident> {
                    unimplemented!()
                }
                #vis fn reverse(self) -> #krate::ScanRequest<#ident> {
                    unimplemented!()
                }
                #vis fn unordered(self) -> #krate::ScanRequest<#ident> {
                    unimplemented!()
                }
                #vis fn concurrency(self, _: usize) -> #krate::ScanRequest<#ident> {
                    unimplemented!()
                }
                #vis fn after(self, _: #krate::Cursor) -> #krate::ScanRequest<#ident> {
                    unimplemented!()
                }
                #vis fn stream<__S: #krate::store::AsyncStore>(&self, _: &__S) -> #krate::AsyncTypedRows<#ident, __S::Error> {
                    unimplemented!()
                }
                #vis fn run<'__s, __S: #krate::store::Store>(&self, _: &'__s __S) -> #krate::TypedRows<'__s, #ident, __S> {
                    unimplemented!()
                }
            }
        };
    }
}
