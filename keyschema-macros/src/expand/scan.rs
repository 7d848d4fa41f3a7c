//! The typed scan builder: one stage per key component, each binding the
//! next component by equality or by a range, and the out-of-order stubs
//! that say why a field cannot be bound yet.

use crate::limits::MAX_BUCKET_EXPANSION;
use crate::model::{KeySpec, Layout, Order, Part};
use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

/// The method of one scan stage: the part starting at encoded component
/// `stage` binds its field.
pub(super) fn stage_method(
    spec: &KeySpec,
    scan_ident: &syn::Ident,
    stage: usize,
    part: &Part,
) -> TokenStream {
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
pub(super) fn thousands(n: usize) -> String {
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
pub(super) fn scan_builder(spec: &KeySpec, scan_ident: &syn::Ident) -> TokenStream {
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

            /// Requests in flight at most on an async store; see [`ScanRequest::concurrency`](::keyschema::ScanRequest::concurrency).
            #vis fn concurrency(self, n: usize) -> __ks::ScanRequest<#ident> {
                self.request().concurrency(n)
            }

            /// Resumes after a cursor; see [`ScanRequest::after`](::keyschema::ScanRequest::after).
            #vis fn after(self, cursor: __ks::Cursor) -> __ks::ScanRequest<#ident> {
                self.request().after(cursor)
            }

            /// Reads the rows as a projection (part of each row); see [`ScanRequest::project`](::keyschema::ScanRequest::project).
            #vis fn project<__V: __ks::Projection<Of = #ident>>(self) -> __ks::ProjectedScan<#ident, __V> {
                self.request().project()
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
pub(super) fn out_of_order_stubs(spec: &KeySpec, scan_ident: &syn::Ident) -> TokenStream {
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
