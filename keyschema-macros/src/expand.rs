//! Expand: small pieces that each produce tokens. Generated code is
//! straight-line and calls the runtime through `__private`.

use crate::limits::MAX_BUCKET_EXPANSION;
use crate::model::{Cut, Encoded, Field, KeySpec, Layout, Order, Part, Role, SaltSpec};
use proc_macro2::{Literal, Span, TokenStream};
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

/// The alias through which generated code names a field's type:
/// `<T as KeyComponentCheck>::Checked`, so that a type that is not a key
/// component gives one error, at the field, instead of one per use.
fn checked(field: &Field) -> syn::Ident {
    format_ident!("__KsT_{}", field.ident, span = field.ty.span())
}

/// One alias per key field; see [`checked`].
fn aliases(spec: &KeySpec) -> TokenStream {
    let defs = spec.parts.iter().map(|part| {
        let (alias, ty) = (checked(&part.field), &part.field.ty);
        quote_spanned!(ty.span()=> type #alias = <#ty as __ks::KeyComponentCheck>::Checked;)
    });
    quote!(#(#defs)*)
}

/// The static `Schema`.
fn schema(spec: &KeySpec) -> TokenStream {
    let name = spec.ident.to_string();
    let prefix = Literal::byte_string(&spec.prefix);
    let salt = salt_tokens(spec.salt.as_ref());
    let components = spec.encoded().into_iter().map(|e| {
        let base = component(&e);
        if spec.text_sep.is_none() {
            return base;
        }
        let ty = &checked(e.field);
        // rev, reverse and bucket work on a number's digits in text keys.
        let digits = !matches!(e.role, Role::Value(Order::Ascending));
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
    let sort_not_empty = sort_not_empty(spec);
    let partition = match spec.partition_components() {
        Some(n) => quote!(Some(#n)),
        None => quote!(None),
    };
    let components: Vec<TokenStream> = components.collect();
    let was = was_schema(spec, &components, &format, &partition);
    let declared = quote!(__ks::schema(
        #name, #prefix, #salt, &[#(#components),*], #format, #partition, __keyschema_check,
    ));
    let declared = match &spec.was {
        None => declared,
        Some(_) => quote!(__ks::with_history(#declared, &__KEYSCHEMA_HISTORY)),
    };
    quote! {
        static __KEYSCHEMA: __ks::Schema = #declared;

        #was

        fn __keyschema_check(__key: &[u8]) -> __ks::Result<(), __ks::DecodeError> {
            <#ident as __ks::RowKey>::decode(__key).map(|_| ())
        }

        #sort_not_empty
    }
}

fn salt_tokens(salt: Option<&SaltSpec>) -> TokenStream {
    match salt {
        None => quote!(None),
        Some(SaltSpec::Random { buckets }) => quote!(Some(__ks::random_salt(#buckets))),
        Some(SaltSpec::Hash { buckets, hashed }) => {
            quote!(Some(__ks::hash_salt(#buckets, &[#(#hashed),*])))
        }
    }
}

/// `#[rowkey_was(...)]`: the older layout's static `Schema` (the same
/// components under its prefix and salt) and the `History`.
fn was_schema(
    spec: &KeySpec,
    components: &[TokenStream],
    format: &TokenStream,
    partition: &TokenStream,
) -> TokenStream {
    let Some(was) = &spec.was else {
        return TokenStream::new();
    };
    let ident = &spec.ident;
    let name = format!("{ident} (older layout)");
    let prefix = Literal::byte_string(&was.prefix);
    let salt = salt_tokens(was.salt.as_ref());
    let cut = match &was.cut {
        Cut::Migration => quote!(__ks::cut_by_migration()),
        Cut::Field {
            component,
            field,
            value,
        } => {
            let ty = checked(field);
            quote! {{
                fn __keyschema_cut() -> &'static [u8] {
                    static __AT: ::std::sync::OnceLock<__ks::Vec<u8>> = ::std::sync::OnceLock::new();
                    __AT.get_or_init(|| {
                        let __value: <#ty as __ks::KeyComponent>::Ref<'static> = #value;
                        __ks::encode_value::<#ty>(__value)
                    })
                }
                __ks::cut_at_field(#component, __keyschema_cut)
            }}
        }
    };
    quote! {
        static __KEYSCHEMA_WAS: __ks::Schema = __ks::schema(
            #name, #prefix, #salt, &[#(#components),*], #format, #partition, __keyschema_check_was,
        );

        fn __keyschema_check_was(__key: &[u8]) -> __ks::Result<(), __ks::DecodeError> {
            <#ident as __ks::RowKey>::decode_older(__key).map(|_| ())
        }

        static __KEYSCHEMA_HISTORY: __ks::History = __ks::history(&__KEYSCHEMA_WAS, #cut);
    }
}

/// A compile error when a declared partition leaves a sort part that always
/// encodes to zero bytes (only zero-width components, such as `[u8; 0]`):
/// DynamoDB refuses an empty binary sort key.
fn sort_not_empty(spec: &KeySpec) -> TokenStream {
    let Some(first) = spec.partition_components() else {
        return TokenStream::new();
    };
    let encoded = spec.encoded();
    if first >= encoded.len() || spec.text_sep.is_some() {
        return TokenStream::new();
    }
    let empty = encoded[first..].iter().map(|e| {
        let ty = checked(e.field);
        quote!(::core::matches!(<#ty as __ks::KeyComponent>::FIXED_WIDTH, ::core::option::Option::Some(0)))
    });
    let message = format!(
        "the sort key of `{}` (the components after the partition group) always encodes to zero bytes; DynamoDB refuses an empty sort key: add a component after the partition, or move the partition's closing parenthesis to the end",
        spec.ident
    );
    quote! {
        const _: () = ::core::assert!(!(true #(&& #empty)*), #message);
    }
}

/// One encoded component's `Component` constructor.
fn component(e: &Encoded) -> TokenStream {
    let real = &e.field.ty;
    let type_name = quote!(#real).to_string().replace(' ', "");
    let ty = &checked(e.field);
    let name = e.field.name();
    match e.role {
        Role::Bucket { width, span, order } => {
            let ctor = syn::Ident::new("bucket_component", span);
            let order = order_tokens(order);
            quote_spanned!(span=> __ks::#ctor::<#ty>(#name, #type_name, #order, #width))
        }
        Role::Reversed(span) => {
            // The ReversibleKey bound fails at `reverse` for a type that cannot take it.
            let ctor = syn::Ident::new("reversed_component", span);
            quote_spanned!(span=> __ks::#ctor::<#ty>(#name, #type_name))
        }
        Role::Value(order) => {
            let order = order_tokens(order);
            quote_spanned!(ty.span()=> __ks::component::<#ty>(#name, #type_name, #order))
        }
    }
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

/// The encoder or decoder method for an encoded component: `asc`, `desc`,
/// `reversed`, or `text` in text keys (the schema says how to transform).
fn step(role: Role, span: Span, text: bool) -> syn::Ident {
    let name = match (text, role) {
        (true, _) => "text",
        (false, Role::Reversed(_)) => "reversed",
        (false, role) if role.order() == Order::Descending => "desc",
        (false, _) => "asc",
    };
    syn::Ident::new(name, span)
}

/// The straight-line encoding of a key into `__out` from locals named like
/// the fields (the encoder's steps), then `finish`. Every public function
/// inlines it rather than calling another generated function: a call would
/// re-check the parameter types at the derive, so a field type that is not a
/// key component would be reported twice.
fn encode_steps(spec: &KeySpec, finish: TokenStream) -> TokenStream {
    encode_steps_in(spec, &format_ident!("__KEYSCHEMA"), finish)
}

/// [`encode_steps`] under the schema static `schema` (the older layout's).
fn encode_steps_in(spec: &KeySpec, schema: &syn::Ident, finish: TokenStream) -> TokenStream {
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
fn row_key_impl(spec: &KeySpec) -> TokenStream {
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
    let text = spec.text_sep.is_some();
    let reads = encoded.iter().enumerate().map(|(i, e)| {
        let (ident, ty) = (&e.field.ident, &checked(e.field));
        let method = step(e.role, ty.span(), text);
        match e.role {
            Role::Bucket { .. } => {
                let bucket = format_ident!("__bucket_{}", i);
                quote_spanned!(ty.span()=> let #bucket = __decoder.#method::<#ty>()?;)
            }
            _ => quote_spanned!(ty.span()=> let #ident = __decoder.#method::<#ty>()?;),
        }
    });
    let checks = encoded.iter().enumerate().filter_map(|(i, e)| {
        let Role::Bucket { width, .. } = e.role else {
            return None;
        };
        let (ident, ty) = (&e.field.ident, &checked(e.field));
        let bucket = format_ident!("__bucket_{}", i);
        Some(quote!(__decoder.check_bucket::<#ty>(#i, &#bucket, &#ident, #width)?;))
    });
    let fields: Vec<&syn::Ident> = spec.parts.iter().map(|part| &part.field.ident).collect();
    let skipped: Vec<TokenStream> = spec
        .skipped
        .iter()
        .map(|f| {
            let ident = &f.ident;
            quote_spanned!(f.ty.span()=> #ident: __ks::Default::default())
        })
        .collect();
    let reads: Vec<TokenStream> = reads.collect();
    let checks: Vec<TokenStream> = checks.collect();
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
    // Without a history a row has one key: the plain reads and writes apply.
    let one_layout = match &spec.was {
        None => quote!(impl __ks::OneLayout for #ident {}),
        Some(_) => TokenStream::new(),
    };
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

            #history
        }

        #one_layout
    }
}

/// Whether a row is at or past the cut-over, from the cut-over field's
/// borrowed value (`value(field, type alias)`): its encoding compared with
/// the cut-over value's. Always true for a migration.
fn past_cut_over(
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

/// `get_key`, `get_key_into`, `get`, `get_async` and (random salts)
/// `get_keys`, taking borrowed field values in key order.
fn get_key_fns(spec: &KeySpec) -> TokenStream {
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
    // A key type with a history reads through `get_in` alone.
    let plain_get = match &spec.was {
        Some(_) => TokenStream::new(),
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

/// The method of one scan stage: the part starting at encoded component
/// `stage` binds its field.
fn stage_method(spec: &KeySpec, scan_ident: &syn::Ident, stage: usize, part: &Part) -> TokenStream {
    let vis = &spec.vis;
    // The field's own type: through the checked alias, a bad type would
    // make the scan bounds fail too.
    let (field, ty) = (&part.field.ident, &part.field.ty);
    let name = part.field.name();
    match part.layout {
        Layout::Bucketed { width, .. } => {
            let after = stage + 2;
            let doc = format!(
                "Binds `{name}` (and its bucket, `{name} / {width}`): a value (equality on both; the scan goes on), or a range (the scan ends; with a hashed bucket, one range per bucket value, at most {} of them, else an error).",
                thousands(MAX_BUCKET_EXPANSION)
            );
            quote! {
                impl #scan_ident<#stage> {
                    #[doc = #doc]
                    #vis fn #field<__A, __M>(self, value: __A) -> <__A as __ks::BucketArg<#ty, __M>>::Output<#scan_ident<#after>>
                    where
                        __A: __ks::BucketArg<#ty, __M>,
                    {
                        __ks::BucketArg::<#ty, __M>::apply::<#scan_ident<#after>>(value, self.state, #width)
                    }
                }
            }
        }
        Layout::Reversed(_) => {
            let next = stage + 1;
            let doc = format!(
                "Binds `{name}` by equality. It is stored byte-reversed (`reverse`), so its byte order is not value order and only equality makes sense."
            );
            quote! {
                impl #scan_ident<#stage> {
                    #[doc = #doc]
                    #vis fn #field<__A: __ks::KeyArg<#ty>>(self, value: __A) -> #scan_ident<#next> {
                        #scan_ident { state: self.state.equal::<#ty>(&value) }
                    }
                }
            }
        }
        Layout::Plain(order) => {
            let next = stage + 1;
            let doc = format!(
                "Binds `{name}`: a value (equality; the scan can go on to the next component) or a range (`a..b`, `a..=b`, `a..`, `..b`; the scan ends){}.",
                if order == Order::Descending {
                    ". The component is stored descending (`rev`); give the range in value order and the key bounds are flipped for you"
                } else {
                    ""
                }
            );
            let bound = quote_spanned!(ty.span()=> __ks::ScanArg<#ty, __M>);
            // Text keys: a range only on components whose text order is value order.
            let text_bound = spec
                .text_sep
                .map(|_| quote_spanned!(ty.span()=> __M: __ks::TextScan<#ty>,));
            quote! {
                impl #scan_ident<#stage> {
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
        }
    }
}

/// `4096` as `4,096`.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `scan()`, the methods every stage has, and one method per stage.
fn scan_builder(spec: &KeySpec, scan_ident: &syn::Ident) -> TokenStream {
    let vis = &spec.vis;
    let ident = &spec.ident;
    // With a history the ranges depend on the phase: `.phase(p).ranges()`.
    let phase = match &spec.was {
        None => TokenStream::new(),
        Some(_) => quote! {
            /// Reads as in a phase of the layout change, which every scan of a key type
            /// with a layout history names; see [`ScanRequest::phase`](::keyschema::ScanRequest::phase).
            #vis fn phase(self, phase: __ks::Phase) -> __ks::ScanRequest<#ident, __ks::Phased> {
                self.request().phase(phase)
            }
        },
    };
    let stages = spec
        .stages()
        .into_iter()
        .map(|(stage, part)| stage_method(spec, scan_ident, stage, part));
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
            /// A key type with a layout history names the phase first (`.phase(p).ranges()`).
            #vis fn ranges(&self) -> __ks::ScanRangeSet
            where
                Self: __ks::StageWithoutPhase,
            {
                __ks::request::<#ident>(self.state.clone()).ranges_gated()
            }

            #phase

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
            #vis fn stream<__S: __ks::AsyncStore + __ks::ScanWithoutPhase<#ident>>(&self, store: &__S) -> __ks::AsyncTypedRows<#ident, __S::Error> {
                __ks::request::<#ident>(self.state.clone()).stream_gated(store)
            }

            /// Runs the scan on `store`; see [`ScanRequest::run`](::keyschema::ScanRequest::run).
            /// A key type with a layout history names the phase first (`.phase(p).run(store)`).
            #vis fn run<'__s, __S: __ks::Store + __ks::ScanWithoutPhase<#ident>>(&self, store: &'__s __S) -> __ks::TypedRows<'__s, #ident, __S> {
                __ks::request::<#ident>(self.state.clone()).run_gated(store)
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
    let stages = spec.stages();
    let mut out = TokenStream::new();
    for (k, &(stage, _)) in stages.iter().enumerate() {
        for (m, (_, later)) in stages.iter().enumerate().skip(k + 1) {
            let first: Vec<String> = stages[k..m]
                .iter()
                .map(|(_, part)| part.field.name())
                .collect();
            let field = &later.field.ident;
            let marker = format_ident!(
                "bind_{}_before_{}",
                first.join("_then_"),
                later.field.name()
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
        assert_eq!(super::thousands(4096), "4,096");
        assert_eq!(super::thousands(65_536), "65,536");
        assert_eq!(super::thousands(64), "64");
    }
}
