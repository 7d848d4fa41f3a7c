//! Expand: small pieces that each produce tokens. Generated code is
//! straight-line and calls the runtime through `__private`.

use crate::model::{Component, KeySpec, Order};
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

pub fn expand(spec: &KeySpec) -> TokenStream {
    let KeySpec {
        ident, vis, krate, ..
    } = spec;
    let scan_ident = format_ident!("{}Scan", ident);
    let aliases = aliases(spec);
    let schema = schema(spec);
    let row_key = row_key_impl(spec);
    let get_key = get_key_fns(spec);
    let scan = scan_builder(spec, &scan_ident);
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
            #get_key
            #scan
        };
    }
}

/// The alias through which generated code names a component's field type:
/// `<T as KeyComponentCheck>::Checked`, so that a type that is not a key
/// component gives one error, at the field, instead of one per use.
fn checked(c: &Component) -> syn::Ident {
    format_ident!("__KsT_{}", c.field.ident, span = c.field.ty.span())
}

/// One alias per key field; see [`checked`].
fn aliases(spec: &KeySpec) -> TokenStream {
    let mut seen = std::collections::HashSet::new();
    let defs = spec
        .components
        .iter()
        .filter(|c| seen.insert(c.field.ident.clone()))
        .map(|c| {
            let (alias, ty) = (checked(c), &c.field.ty);
            quote_spanned!(ty.span()=> type #alias = <#ty as __ks::KeyComponentCheck>::Checked;)
        });
    quote!(#(#defs)*)
}

/// The static `Schema`.
fn schema(spec: &KeySpec) -> TokenStream {
    let name = spec.ident.to_string();
    let prefix = Literal::byte_string(&spec.prefix);
    let salt = match &spec.salt {
        None => quote!(None),
        Some(s) if s.random => {
            let buckets = s.buckets;
            quote!(Some(__ks::random_salt(#buckets)))
        }
        Some(s) => {
            let buckets = s.buckets;
            let hashed = &s.hashed;
            quote!(Some(__ks::hash_salt(#buckets, &[#(#hashed),*])))
        }
    };
    let text = spec.text_sep.is_some();
    let components = spec.components.iter().map(|c| {
        let base = component(c);
        if !text {
            return base;
        }
        let ty = &checked(c);
        // rev, reverse and bucket work on a number's digits in text keys.
        let digits = c.order == Order::Descending || c.reversed.is_some() || c.bucket.is_some();
        let with = syn::Ident::new(
            if digits {
                "with_text_digits"
            } else {
                "with_text"
            },
            ty.span(),
        );
        quote_spanned!(ty.span()=> __ks::#with::<#ty>(#base))
    });
    let format = match spec.text_sep {
        None => quote!(__ks::Format::Binary),
        Some(sep) => quote!(__ks::Format::Text { sep: #sep }),
    };
    let ident = &spec.ident;
    quote! {
        static __KEYSCHEMA: __ks::Schema = __ks::schema(
            #name, #prefix, #salt, &[#(#components),*], #format, __keyschema_check,
        );

        fn __keyschema_check(__key: &[u8]) -> __ks::Result<(), __ks::DecodeError> {
            <#ident as __ks::RowKey>::decode(__key).map(|_| ())
        }
    }
}

/// One component's `Component` constructor.
fn component(c: &Component) -> TokenStream {
    let real = &c.field.ty;
    let type_name = quote!(#real).to_string().replace(' ', "");
    let ty = &checked(c);
    let name = c.field.name();
    if let Some((width, span)) = c.bucket {
        let ctor = syn::Ident::new("bucket_component", span);
        let order = order_tokens(c.order);
        return quote_spanned!(span=> __ks::#ctor::<#ty>(#name, #type_name, #order, #width));
    }
    if let Some(span) = c.reversed {
        // The ReversibleKey bound fails at `reverse` for a type that cannot take it.
        let ctor = syn::Ident::new("reversed_component", span);
        return quote_spanned!(span=> __ks::#ctor::<#ty>(#name, #type_name));
    }
    let order = order_tokens(c.order);
    quote_spanned!(ty.span()=> __ks::component::<#ty>(#name, #type_name, #order))
}

fn order_tokens(order: Order) -> TokenStream {
    match order {
        Order::Ascending => quote!(__ks::Order::Ascending),
        Order::Descending => quote!(__ks::Order::Descending),
    }
}

fn size_hint(spec: &KeySpec) -> TokenStream {
    let fixed = spec.prefix.len()
        + match &spec.salt {
            Some(s) if s.buckets > 256 => 2,
            Some(_) => 1,
            None => 0,
        };
    let parts = spec.components.iter().map(|c| {
        let ty = &checked(c);
        quote_spanned!(ty.span()=> <#ty as __ks::KeyComponent>::SIZE_HINT)
    });
    quote!(#fixed #(+ #parts)*)
}

/// The straight-line encoding of a key into `__out` from locals named like
/// the fields (the encoder's steps), then `finish`. Every public function
/// inlines it rather than calling another generated function: a call would
/// re-check the parameter types at the derive, so a field type that is not a
/// key component would be reported twice.
fn encode_steps(spec: &KeySpec, finish: TokenStream) -> TokenStream {
    let n = spec.components.len();
    let writes = spec.components.iter().map(|c| {
        let (ident, ty) = (&c.field.ident, &checked(c));
        let method = step(c, ty.span(), spec.text_sep.is_some());
        if let Some((width, _)) = c.bucket {
            return quote_spanned!(ty.span()=> __encoder.#method::<#ty>(<#ty as __ks::BucketKey>::bucket_of(#ident, #width));)
        }
        quote_spanned!(ty.span()=> __encoder.#method::<#ty>(#ident);)
    });
    quote! {
        let mut __encoder = __ks::KeyEncoder::<#n>::new(
            &__KEYSCHEMA, __out, <Self as __ks::RowKey>::SIZE_HINT,
        );
        #(#writes)*
        #finish
    }
}

/// `impl RowKey`: encode through the encoder's steps, decode component by component.
fn row_key_impl(spec: &KeySpec) -> TokenStream {
    let ident = &spec.ident;
    let buckets = spec.salt.as_ref().map_or(1, |s| s.buckets);
    let size_hint = size_hint(spec);
    let n = spec.components.len();
    let refs = spec
        .components
        .iter()
        .filter(|c| c.bucket.is_none())
        .map(|c| {
            let (field, ty) = (&c.field.ident, &checked(c));
            quote_spanned!(ty.span()=> let #field = <#ty as __ks::KeyComponent>::as_key_ref(&self.#field);)
        });
    let encode = encode_steps(spec, quote!(__encoder.finish();));
    let reads = spec.components.iter().enumerate().map(|(i, c)| {
        let (ident, ty) = (&c.field.ident, &checked(c));
        let method = step(c, ty.span(), spec.text_sep.is_some());
        if c.bucket.is_some() {
            let bucket = format_ident!("__bucket_{}", i);
            return quote_spanned!(ty.span()=> let #bucket = __decoder.#method::<#ty>()?;);
        }
        quote_spanned!(ty.span()=> let #ident = __decoder.#method::<#ty>()?;)
    });
    let checks = spec.components.iter().enumerate().filter_map(|(i, c)| {
        let (width, _) = c.bucket?;
        let (ident, ty) = (&c.field.ident, &checked(c));
        let bucket = format_ident!("__bucket_{}", i);
        Some(quote!(__decoder.check_bucket::<#ty>(#i, &#bucket, &#ident, #width)?;))
    });
    let fields = spec
        .components
        .iter()
        .filter(|c| c.bucket.is_none())
        .map(|c| &c.field.ident);
    let skipped = spec.skipped.iter().map(|f| {
        let ident = &f.ident;
        quote_spanned!(f.ty.span()=> #ident: __ks::Default::default())
    });
    quote! {
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

            fn decode(__bytes: &[u8]) -> __ks::Result<Self, __ks::DecodeError> {
                let mut __decoder = __ks::KeyDecoder::<#n>::new(&__KEYSCHEMA, __bytes)?;
                #(#reads)*
                #(#checks)*
                __decoder.finish()?;
                __ks::Result::Ok(#ident { #(#fields,)* #(#skipped,)* })
            }
        }
    }
}

/// The encoder or decoder method for a component: `asc`, `desc`,
/// `reversed`, or `text` in text keys (the schema says how to transform).
fn step(c: &Component, span: proc_macro2::Span, text: bool) -> syn::Ident {
    if text {
        return syn::Ident::new("text", span);
    }
    match (c.reversed, c.order) {
        (Some(_), _) => syn::Ident::new("reversed", span),
        (None, Order::Ascending) => syn::Ident::new("asc", span),
        (None, Order::Descending) => syn::Ident::new("desc", span),
    }
}

/// `get_key` and `get_key_into`, taking borrowed field values in key order.
fn get_key_fns(spec: &KeySpec) -> TokenStream {
    let KeySpec { ident, vis, .. } = spec;
    let params: Vec<TokenStream> = spec
        .components
        .iter()
        .filter(|c| c.bucket.is_none())
        .map(|c| {
            let (ident, ty) = (&c.field.ident, &checked(c));
            quote_spanned!(ty.span()=> #ident: <#ty as __ks::KeyComponent>::Ref<'_>)
        })
        .collect();
    let order: Vec<String> = spec
        .components
        .iter()
        .filter(|c| c.bucket.is_none())
        .map(|c| format!("`{}`", c.field.name()))
        .collect();
    let random_note = if spec.salt.as_ref().is_some_and(|s| s.random) {
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
    let random = spec.salt.as_ref().is_some_and(|s| s.random);
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
    let encode_in_bucket = encode_steps(spec, quote!(__encoder.finish_in(__bucket);));
    let doc_get_async =
        format!(
        "Reads the row with these key fields from an async `store` (Cloud Bigtable), like `get`{}.",
        if random { "; every candidate bucket in one request" } else { "" }
    );
    let get_keys = if random {
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

            #[doc = #doc_into]
            #[inline]
            #vis fn get_key_into(__out: &mut __ks::Vec<u8>, #(#params),*) {
                #encode
            }

            #get_keys
        }
    }
}

/// `scan()` and the builder stages: stage `i` has one method, for component `i`.
fn scan_builder(spec: &KeySpec, scan_ident: &syn::Ident) -> TokenStream {
    let KeySpec { ident, vis, .. } = spec;
    let stages = spec.components.iter().enumerate().map(|(i, c)| {
        let (field, ty) = (&c.field.ident, &c.field.ty);
        let next = i + 1;
        let doc = format!(
            "Binds `{}`: a value (equality; the scan can go on to the next component) or a range (`a..b`, `a..=b`, `a..`, `..b`; the scan ends){}.",
            c.field.name(),
            if c.order == Order::Descending {
                ". The component is stored descending (`rev`); give the range in value order and the key bounds are flipped for you"
            } else {
                ""
            }
        );
        if let Some((width, _)) = c.bucket {
            let after = i + 2;
            let doc = format!(
                "Binds `{}` (and its bucket, `{} / {width}`): a value (equality on both; the scan goes on), or a range (the scan ends; with a hashed bucket, one range per bucket value, at most {} of them, else an error).",
                c.field.name(),
                c.field.name(),
                "4,096"
            );
            return quote! {
                impl #scan_ident<#i> {
                    #[doc = #doc]
                    #vis fn #field<__A, __M>(self, value: __A) -> <__A as __ks::BucketArg<#ty, __M>>::Output<#scan_ident<#after>>
                    where
                        __A: __ks::BucketArg<#ty, __M>,
                    {
                        __ks::BucketArg::<#ty, __M>::apply::<#scan_ident<#after>>(value, self.state, #width)
                    }
                }
            };
        }
        if i > 0 && spec.components[i - 1].bucket.is_some() {
            // Bound together with its bucket, one stage earlier.
            return TokenStream::new();
        }
        if c.reversed.is_some() {
            let doc = format!(
                "Binds `{}` by equality. It is stored byte-reversed (`reverse`), so its byte order is not value order and only equality makes sense.",
                c.field.name()
            );
            return quote! {
                impl #scan_ident<#i> {
                    #[doc = #doc]
                    #vis fn #field<__A: __ks::KeyArg<#ty>>(self, value: __A) -> #scan_ident<#next> {
                        #scan_ident { state: self.state.equal::<#ty>(&value) }
                    }
                }
            };
        }
        let bound = quote_spanned!(ty.span()=> __ks::ScanArg<#ty, __M>);
        // Text keys: a range only on components whose text order is value order.
        let text_bound = spec
            .text_sep
            .map(|_| quote_spanned!(ty.span()=> __M: __ks::TextScan<#ty>,));
        quote! {
            impl #scan_ident<#i> {
                #[doc = #doc]
                #vis fn #field<__A, __M>(self, value: __A) -> <__A as #bound>::Output<#scan_ident<#next>>
                where
                    __A: #bound,
                    #text_bound
                {
                    __ks::ScanArg::<#ty, __M>::apply::<#scan_ident<#next>>(value, self.state)
                }
            }
        }
    });
    let out_of_order = out_of_order_stubs(spec, scan_ident);
    let doc = format!("Starts a typed scan over [`{ident}`] keys; bind components in key order, then call `ranges()`.");
    quote! {
        impl #ident {
            #[doc = #doc]
            #vis fn scan() -> #scan_ident<0> {
                #scan_ident { state: __ks::ScanState::new(&__KEYSCHEMA) }
            }
        }

        impl<const STAGE: usize> __ks::ScanStage for #scan_ident<STAGE> {
            type Key = #ident;
            fn from_state(state: __ks::ScanState) -> Self {
                #scan_ident { state }
            }
        }

        impl<const STAGE: usize> #scan_ident<STAGE> {
            /// The key ranges holding exactly the keys that match the components bound so far.
            #vis fn ranges(&self) -> __ks::ScanRangeSet {
                self.state.ranges()
            }

            /// Ends the scan here: the rows matching the components bound so far.
            #vis fn request(self) -> __ks::ScanRequest<#ident> {
                __ks::request(self.state)
            }

            /// Returns at most `n` rows; see [`ScanRequest::limit`](::keyschema::ScanRequest::limit).
            #vis fn limit(self, n: usize) -> __ks::ScanRequest<#ident> {
                self.request().limit(n)
            }

            /// Descending key order; see [`ScanRequest::reverse`](::keyschema::ScanRequest::reverse).
            #vis fn reverse(self) -> __ks::ScanRequest<#ident> {
                self.request().reverse()
            }

            /// Rows as they come; see [`ScanRequest::unordered`](::keyschema::ScanRequest::unordered).
            #vis fn unordered(self) -> __ks::ScanRequest<#ident> {
                self.request().unordered()
            }

            /// Resumes after a cursor; see [`ScanRequest::after`](::keyschema::ScanRequest::after).
            #vis fn after(self, cursor: __ks::Cursor) -> __ks::ScanRequest<#ident> {
                self.request().after(cursor)
            }

            /// Runs the scan on an async store (Cloud Bigtable); see [`ScanRequest::stream`](::keyschema::ScanRequest::stream).
            #vis fn stream<__S: __ks::AsyncStore>(&self, store: &__S) -> __ks::AsyncTypedRows<#ident, __S::Error> {
                __ks::request::<#ident>(self.state.clone()).stream(store)
            }

            /// Runs the scan on `store`; see [`ScanRequest::run`](::keyschema::ScanRequest::run).
            #vis fn run<'__s, __S: __ks::Store>(&self, store: &'__s __S) -> __ks::TypedRows<'__s, #ident, __S> {
                __ks::request::<#ident>(self.state.clone()).run(store)
            }
        }

        #(#stages)*

        #out_of_order
    }
}

/// For each builder stage, a hidden method for every field bound later,
/// whose call fails with "bind `a` then `b` before `c`": binding out of
/// order gets an error that says what to bind first, instead of "no method
/// named `c` found for `EventScan<0>`".
fn out_of_order_stubs(spec: &KeySpec, scan_ident: &syn::Ident) -> TokenStream {
    let vis = &spec.vis;
    let components = &spec.components;
    // Components that have a scan method (the field after a bucket is bound with it).
    let methods: Vec<usize> = (0..components.len())
        .filter(|&i| i == 0 || components[i - 1].bucket.is_none())
        .collect();
    let mut out = TokenStream::new();
    for (k, &stage) in methods.iter().enumerate() {
        for (m, &later) in methods.iter().enumerate().skip(k + 1) {
            let first: Vec<String> = methods[k..m]
                .iter()
                .map(|&i| components[i].field.name())
                .collect();
            let field = &components[later].field.ident;
            let marker = format_ident!(
                "bind_{}_before_{}",
                first.join("_then_"),
                components[later].field.name()
            );
            out.extend(quote! {
                #[doc(hidden)]
                #[derive(Debug)]
                pub struct #marker;

                #[allow(private_bounds)]
                impl #scan_ident<#stage> {
                    #[doc(hidden)]
                    #vis fn #field<__A>(self, _value: __A) -> Self
                    where
                        __A: __ks::BindInKeyOrder<#marker>,
                    {
                        self
                    }
                }
            });
        }
    }
    out
}

/// What is emitted beside the errors, so that uses of the trait do not
/// drown the real errors in follow-on ones.
pub fn dummy(input: &syn::DeriveInput) -> TokenStream {
    let ident = &input.ident;
    let krate: syn::Path = syn::parse_quote!(::keyschema);
    if !input.generics.params.is_empty() {
        return TokenStream::new();
    }
    quote! {
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
        };
    }
}
