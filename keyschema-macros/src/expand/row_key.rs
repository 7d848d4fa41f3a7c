//! The `RowKey` impl: encode, decode, the older layout's encode and decode,
//! and the cut-over test.

use super::{checked, step};
use crate::model::{Cut, KeySpec, Role, SaltSpec};
use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

pub(super) fn size_hint(spec: &KeySpec) -> TokenStream {
    let fixed = spec.prefix.len()
        + match &spec.salt {
            Some(s) if s.buckets() > 256 => 2,
            Some(_) => 1,
            None => 0,
        };
    let parts = spec.encoded().into_iter().map(|e| {
        let ty = &checked(e.field);
        quote_spanned!(ty.span()=> <#ty as __ks::KeyComponent>::SIZE_HINT)
    });
    quote!(#fixed #(+ #parts)*)
}

/// The straight-line encoding of a key into `__out` from locals named like
/// the fields (the encoder's steps), then `finish`. Every public function
/// inlines it rather than calling another generated function: a call would
/// re-check the parameter types at the derive, so a field type that is not a
/// key component would be reported twice.
pub(super) fn encode_steps(spec: &KeySpec, finish: TokenStream) -> TokenStream {
    encode_steps_in(spec, &format_ident!("__KEYSCHEMA"), finish)
}

/// [`encode_steps`] under the schema static `schema` (the older layout's).
pub(super) fn encode_steps_in(
    spec: &KeySpec,
    schema: &syn::Ident,
    finish: TokenStream,
) -> TokenStream {
    let encoded = spec.encoded();
    let n = encoded.len();
    let writes = encoded.iter().map(|e| {
        let (ident, ty) = (&e.field.ident, &checked(e.field));
        let method = step(e.role, ty.span(), spec.text_sep.is_some());
        match e.role {
            Role::Bucket { width, .. } => quote_spanned!(ty.span()=>
                __encoder.#method::<#ty>(<#ty as __ks::BucketKey>::bucket_of(#ident, #width));
            ),
            _ => quote_spanned!(ty.span()=> __encoder.#method::<#ty>(#ident);),
        }
    });
    quote! {
        let mut __encoder = __ks::KeyEncoder::<#n>::new(
            &#schema, __out, <Self as __ks::RowKey>::SIZE_HINT,
        );
        #(#writes)*
        #finish
    }
}

/// `impl RowKey`: encode through the encoder's steps, decode component by component.
pub(super) fn row_key_impl(spec: &KeySpec) -> TokenStream {
    let ident = &spec.ident;
    let buckets = spec.salt.as_ref().map_or(1, SaltSpec::buckets);
    let size_hint = size_hint(spec);
    let encoded = spec.encoded();
    let n = encoded.len();
    let refs = spec.parts.iter().map(|part| {
        let (field, ty) = (&part.field.ident, &checked(&part.field));
        quote_spanned!(ty.span()=> let #field = <#ty as __ks::KeyComponent>::as_key_ref(&self.#field);)
    });
    let encode = encode_steps(spec, quote!(__encoder.finish();));
    let (reads, checks) = decode_steps(spec, false);
    let fields: Vec<&syn::Ident> = spec.parts.iter().map(|part| &part.field.ident).collect();
    // Skipped and value fields: their `Default` (a key alone is decoded;
    // a whole-row read then sets the value fields).
    let skipped: Vec<TokenStream> = spec
        .skipped
        .iter()
        .map(|f| {
            let ident = &f.ident;
            quote_spanned!(f.ty.span()=> #ident: __ks::Default::default())
        })
        .chain(spec.values.iter().map(|v| {
            let (ident, ty) = (&v.field.ident, super::checked_value(&v.field));
            quote_spanned!(ty.span()=> #ident: <#ty as __ks::Default>::default())
        }))
        .collect();
    let decode_into = decode_into(spec);
    let history = spec.was.as_ref().map(|was| {
        let refs = spec.parts.iter().map(|part| {
            let (field, ty) = (&part.field.ident, &checked(&part.field));
            quote_spanned!(ty.span()=> let #field = <#ty as __ks::KeyComponent>::as_key_ref(&self.#field);)
        });
        let encode_older = encode_steps_in(spec, &format_ident!("__KEYSCHEMA_WAS"), quote!(__encoder.finish();));
        let past = past_cut_over(&was.cut, |f, ty| {
            quote!(<#ty as __ks::KeyComponent>::as_key_ref(&self.#f))
        });
        quote! {
            fn decode_older(__bytes: &[u8]) -> __ks::Result<Self, __ks::DecodeError> {
                let mut __decoder = __ks::KeyDecoder::<#n>::new(&__KEYSCHEMA_WAS, __bytes)?;
                #(#reads)*
                #(#checks)*
                __decoder.finish()?;
                __ks::Result::Ok(#ident { #(#fields,)* #(#skipped,)* })
            }

            fn encode_older(&self) -> __ks::Option<__ks::Vec<u8>> {
                let mut __key = __ks::Vec::new();
                let __out = &mut __key;
                #(#refs)*
                #encode_older
                __ks::Option::Some(__key)
            }

            fn past_cut_over(&self) -> bool {
                #past
            }
        }
    });
    let stored_index_keys = super::index::stored_index_keys(spec);
    // Without a history a row has one key: the plain reads and writes apply.
    let one_layout = match &spec.was {
        None => quote!(impl __ks::OneLayout for #ident {}),
        Some(_) => TokenStream::new(),
    };
    quote! {
        /// Decodes a key; `scanned`: read from its salt bucket's range, the
        /// salt not derived again.
        #[inline(always)]
        fn __keyschema_decode(
            __bytes: &[u8],
            __scanned: bool,
        ) -> __ks::Result<#ident, __ks::DecodeError> {
            let mut __decoder = if __scanned {
                __ks::KeyDecoder::<#n>::scanned(&__KEYSCHEMA, __bytes)?
            } else {
                __ks::KeyDecoder::<#n>::new(&__KEYSCHEMA, __bytes)?
            };
            #(#reads)*
            #(#checks)*
            __decoder.finish()?;
            __ks::Result::Ok(#ident { #(#fields,)* #(#skipped,)* })
        }

        impl __ks::RowKey for #ident {
            const BUCKETS: u32 = #buckets;
            const SIZE_HINT: usize = #size_hint;

            fn schema() -> &'static __ks::Schema {
                &__KEYSCHEMA
            }

            #[inline]
            fn encode_into(&self, __out: &mut __ks::Vec<u8>) {
                #(#refs)*
                #encode
            }

            #[inline]
            fn decode(__bytes: &[u8]) -> __ks::Result<Self, __ks::DecodeError> {
                __keyschema_decode(__bytes, false)
            }

            #[inline]
            fn decode_scanned(__bytes: &[u8]) -> __ks::Result<Self, __ks::DecodeError> {
                __keyschema_decode(__bytes, true)
            }

            #decode_into

            #history
            #stored_index_keys
        }

        #one_layout
    }
}

/// The steps of a decode: each component read, in key order, and each
/// `bucket(field, WIDTH)` then checked against its field. A bucket is read
/// into a local of its own; a field into a local of its name, or, `into`,
/// into the field of `self` (an ascending or descending one reusing what it
/// owns: `KeyDecoder::asc_into`).
fn decode_steps(spec: &KeySpec, into: bool) -> (Vec<TokenStream>, Vec<TokenStream>) {
    let text = spec.text_sep.is_some();
    let encoded = spec.encoded();
    let field = |ident: &syn::Ident| match into {
        true => quote!(self.#ident),
        false => quote!(#ident),
    };
    let reads = encoded.iter().enumerate().map(|(i, e)| {
        let (ident, ty) = (&e.field.ident, &checked(e.field));
        let method = step(e.role, ty.span(), text);
        match e.role {
            Role::Bucket { .. } => {
                let bucket = format_ident!("__bucket_{}", i);
                quote_spanned!(ty.span()=> let #bucket = __decoder.#method::<#ty>()?;)
            }
            // Ascending and descending components reuse the field's
            // buffer; byte-reversed and text ones are decoded and assigned.
            Role::Value(_) if into && !text => {
                let method = format_ident!("{}_into", method);
                quote_spanned!(ty.span()=> __decoder.#method::<#ty>(&mut self.#ident)?;)
            }
            _ if into => quote_spanned!(ty.span()=> self.#ident = __decoder.#method::<#ty>()?;),
            _ => quote_spanned!(ty.span()=> let #ident = __decoder.#method::<#ty>()?;),
        }
    });
    let checks = encoded.iter().enumerate().filter_map(|(i, e)| {
        let Role::Bucket { width, .. } = e.role else {
            return None;
        };
        let (ty, value) = (&checked(e.field), field(&e.field.ident));
        let bucket = format_ident!("__bucket_{}", i);
        Some(quote!(__decoder.check_bucket::<#ty>(#i, &#bucket, &#value, #width)?;))
    });
    (reads.collect(), checks.collect())
}

/// `decode_scanned_into`: the steps of a decode into the fields of `self`
/// ([`decode_steps`]), then the same checks as a decode. Skipped and
/// value fields get their `Default`.
fn decode_into(spec: &KeySpec) -> TokenStream {
    let n = spec.encoded().len();
    let (reads, checks) = decode_steps(spec, true);
    let defaults = spec
        .skipped
        .iter()
        .map(|f| {
            let ident = &f.ident;
            quote_spanned!(f.ty.span()=> self.#ident = __ks::Default::default();)
        })
        .chain(spec.values.iter().map(|v| {
            let (ident, ty) = (&v.field.ident, super::checked_value(&v.field));
            quote_spanned!(ty.span()=> self.#ident = <#ty as __ks::Default>::default();)
        }));
    quote! {
        #[inline]
        fn decode_scanned_into(&mut self, __bytes: &[u8]) -> __ks::Result<(), __ks::DecodeError> {
            let mut __decoder = __ks::KeyDecoder::<#n>::scanned(&__KEYSCHEMA, __bytes)?;
            #(#reads)*
            #(#checks)*
            __decoder.finish()?;
            #(#defaults)*
            __ks::Result::Ok(())
        }
    }
}

/// Whether a row is at or past the cut-over, from the cut-over field's
/// borrowed value (`value(field, type alias)`): its encoding compared with
/// the cut-over value's. Always true for a migration.
pub(super) fn past_cut_over(
    cut: &Cut,
    value: impl Fn(&syn::Ident, &syn::Ident) -> TokenStream,
) -> TokenStream {
    let Cut::Field { field, .. } = cut else {
        return quote!(true);
    };
    let ty = checked(field);
    let value = value(&field.ident, &ty);
    quote!(__ks::past_cut_over::<#ty>(#value, <Self as __ks::RowKey>::history()))
}
