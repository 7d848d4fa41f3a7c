//! The key type's static `Schema`: its prefix, salt, components, partition
//! and format, and the older layout's for a type with a history.

use super::checked;
use crate::model::{Cut, Encoded, KeySpec, Order, Role, SaltSpec};
use proc_macro2::{Literal, TokenStream};
use quote::{quote, quote_spanned};

/// The static `Schema`.
pub(super) fn schema(spec: &KeySpec) -> TokenStream {
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
    // The value fields, from the `Record` impl (one list, two readers).
    let declared = quote!(__ks::with_values(#declared, <#ident as __ks::Record>::VALUES));
    let declared = match &spec.family {
        None => declared,
        Some(family) => quote!(__ks::with_family(#declared, #family)),
    };
    let declared = match super::index::index_schemas(spec) {
        None => declared,
        Some(list) => quote!(__ks::with_indexes(
            #declared, #list, <#ident as __ks::RowKey>::stored_index_keys,
        )),
    };
    let declared = match spec.building {
        false => declared,
        true => quote!(__ks::building(#declared)),
    };
    let declared = match spec.dynamodb {
        None => declared,
        Some(crate::model::DynamoDecl::Encoded) => {
            quote!(__ks::dynamodb_form(#declared, __ks::DynamoForm::Encoded))
        }
        Some(crate::model::DynamoDecl::Native) => {
            quote!(__ks::dynamodb_form(#declared, __ks::DynamoForm::Native))
        }
    };
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

pub(super) fn salt_tokens(salt: Option<&SaltSpec>) -> TokenStream {
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
pub(super) fn was_schema(
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
pub(super) fn sort_not_empty(spec: &KeySpec) -> TokenStream {
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
pub(super) fn component(e: &Encoded) -> TokenStream {
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

pub(super) fn order_tokens(order: Order) -> TokenStream {
    match order {
        Order::Ascending => quote!(__ks::Order::Ascending),
        Order::Descending => quote!(__ks::Order::Descending),
    }
}
