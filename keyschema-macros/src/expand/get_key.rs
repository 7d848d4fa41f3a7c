//! The generated `get_key` and `get_key_into` functions and the typed gets
//! (`get`, `get_async`, and with a history `get_in`, `get_in_async`) that
//! take one argument per key field.

use super::checked;
use super::row_key::{encode_steps, encode_steps_in, past_cut_over};
use crate::model::{KeySpec, SaltSpec};
use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};

/// `get_key`, `get_key_into`, `get`, `get_async` and (random salts)
/// `get_keys`, taking borrowed field values in key order.
pub(super) fn get_key_fns(spec: &KeySpec) -> TokenStream {
    let KeySpec { ident, vis, .. } = spec;
    let params: Vec<TokenStream> = spec
        .parts
        .iter()
        .map(|part| {
            let (ident, ty) = (&part.field.ident, &checked(&part.field));
            quote_spanned!(ty.span()=> #ident: <#ty as __ks::KeyComponent>::Ref<'_>)
        })
        .collect();
    let order: Vec<String> = spec
        .parts
        .iter()
        .map(|part| format!("`{}`", part.field.name()))
        .collect();
    let random = matches!(spec.salt, Some(SaltSpec::Random { .. }));
    let random_note = if random {
        " The salt is `random % N`: each call picks a fresh bucket, so the key is for an insert (writing it for a row that exists stores a second copy); `get_keys` gives all N candidates, and `RowStore::replace_row` and `delete_row` cover them."
    } else {
        ""
    };
    let doc = format!(
        "The key of the row with these key fields, in key order ({}), without building a [`{ident}`]. Equal to `encode()` of such a row.{random_note}",
        order.join(", ")
    );
    let doc_get = format!(
        "Reads the row with these key fields from `store`: the decoded [`{ident}`] (skipped fields at their `Default`) and its value, or `None`. With a `random % N` salt every bucket is read, and copies with different values are an error (`RowError::Conflict`)."
    );
    let doc_get_async = format!(
        "Reads the row with these key fields from an async `store` (Cloud Bigtable), like `get`{}.",
        if random {
            "; every candidate bucket in one request"
        } else {
            ""
        }
    );
    // With a random salt, the runtime reads every candidate bucket of the key.
    let key = {
        let finish = if random {
            quote!(__encoder.finish_in(0);)
        } else {
            quote!(__encoder.finish();)
        };
        let steps = encode_steps(spec, finish);
        quote! {{
            let mut __key = __ks::Vec::with_capacity(<Self as __ks::RowKey>::SIZE_HINT);
            let __out = &mut __key;
            #steps
            __key
        }}
    };
    let encode = encode_steps(spec, quote!(__encoder.finish();));
    let get_in = get_in_fns(spec, &params, &key);
    // A key type with a history reads through `get_in` alone: its `get`
    // exists only to say so where it is called (the bound does not hold).
    let args: Vec<_> = spec.parts.iter().map(|part| &part.field.ident).collect();
    let plain_get = match &spec.was {
        Some(_) => quote! {
            #[doc(hidden)]
            #vis fn get<__S: __ks::Store + __ks::ScanWithoutPhase<Self>>(
                __store: &__S,
                #(#params),*
            ) -> __ks::Result<__ks::Option<__ks::TypedRow<Self>>, __ks::RowError<__S::Error>> {
                Self::get_in(__store, __ks::Phase::New, #(#args),*)
            }

            #[doc(hidden)]
            #vis fn get_async<'__s, __S: __ks::AsyncStore + __ks::ScanWithoutPhase<Self>>(
                __store: &'__s __S,
                #(#params),*
            ) -> __ks::BoxFuture<'__s, __ks::TypedGet<Self, __S::Error>> {
                Self::get_in_async(__store, __ks::Phase::New, #(#args),*)
            }
        },
        None => quote! {
            #[doc = #doc_get]
            #vis fn get<__S: __ks::Store>(
                __store: &__S,
                #(#params),*
            ) -> __ks::Result<__ks::Option<__ks::TypedRow<Self>>, __ks::RowError<__S::Error>> {
                __ks::RowStore::get_row::<Self>(__store, &#key)
            }

            #[doc = #doc_get_async]
            #vis fn get_async<'__s, __S: __ks::AsyncStore>(
                __store: &'__s __S,
                #(#params),*
            ) -> __ks::BoxFuture<'__s, __ks::TypedGet<Self, __S::Error>> {
                __ks::AsyncStore::get_row::<Self>(__store, &#key)
            }
        },
    };
    let get_keys = if random {
        let encode_in_bucket = encode_steps(spec, quote!(__encoder.finish_in(__bucket);));
        let doc = "The key in every bucket (`random % N` salt), bucket 0 first: a get or a delete must cover them all (`get`, `get_row` and `delete_row` do). `get_key` picks one bucket at random, for inserts.";
        quote! {
            #[doc = #doc]
            #[must_use]
            #vis fn get_keys(#(#params),*) -> __ks::Vec<__ks::Vec<u8>> {
                (0..<Self as __ks::RowKey>::BUCKETS)
                    .map(|__bucket| {
                        let mut __key = __ks::Vec::with_capacity(<Self as __ks::RowKey>::SIZE_HINT);
                        let __out = &mut __key;
                        #encode_in_bucket
                        __key
                    })
                    .collect()
            }
        }
    } else {
        TokenStream::new()
    };
    let doc_into =
        "Appends the key to `__out`, like `get_key`; allocates nothing when `__out` has room.";
    quote! {
        impl #ident {
            #[doc = #doc]
            #[must_use]
            #vis fn get_key(#(#params),*) -> __ks::Vec<u8> {
                let mut __key = __ks::Vec::with_capacity(<Self as __ks::RowKey>::SIZE_HINT);
                let __out = &mut __key;
                #encode
                __key
            }

            #plain_get

            #[doc = #doc_into]
            #[inline]
            #vis fn get_key_into(__out: &mut __ks::Vec<u8>, #(#params),*) {
                #encode
            }

            #get_keys

            #get_in
        }
    }
}

/// With a layout history: `get_in` and `get_in_async`, reading the layout
/// the phase keeps the row in.
fn get_in_fns(spec: &KeySpec, params: &[TokenStream], key: &TokenStream) -> TokenStream {
    let Some(was) = &spec.was else {
        return TokenStream::new();
    };
    let vis = &spec.vis;
    let older = encode_steps_in(
        spec,
        &format_ident!("__KEYSCHEMA_WAS"),
        quote!(__encoder.finish();),
    );
    let past = past_cut_over(&was.cut, |f, _| quote!(#f));
    // Only the key of the layout the phase reads is encoded.
    let keys = quote! {
        let __older = __ks::reads_older::<Self>(__phase, #past);
        let __key = if __older {
            let mut __key = __ks::Vec::with_capacity(<Self as __ks::RowKey>::SIZE_HINT);
            let __out = &mut __key;
            #older
            __key
        } else {
            #key
        };
    };
    let doc = "Reads the row with these key fields where `phase` of the layout change keeps it (see [`Phase`](::keyschema::history::Phase)): the declared layout's key or the older one's, decoded in its layout. A key type with a layout history has no plain `get`: every read names its phase.";
    quote! {
        #[doc = #doc]
        #vis fn get_in<__S: __ks::Store>(
            __store: &__S,
            __phase: __ks::Phase,
            #(#params),*
        ) -> __ks::Result<__ks::Option<__ks::TypedRow<Self>>, __ks::RowError<__S::Error>> {
            #keys
            __ks::get_in::<Self, __S>(__store, __phase, __key, __older)
        }

        /// The async [`get_in`](Self::get_in), on an async store (Cloud Bigtable).
        #vis fn get_in_async<'__s, __S: __ks::AsyncStore>(
            __store: &'__s __S,
            __phase: __ks::Phase,
            #(#params),*
        ) -> __ks::BoxFuture<'__s, __ks::TypedGet<Self, __S::Error>> {
            #keys
            __ks::get_in_async::<Self, __S>(__store, __phase, __key, __older)
        }
    }
}
