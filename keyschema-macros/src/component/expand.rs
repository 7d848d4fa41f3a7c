//! The impls of `#[derive(KeyComponent)]`, inside `const _: () = { ... }`,
//! calling the runtime through `::keyschema::__private`.

use super::check::Shape;
use proc_macro2::TokenStream;
use quote::quote;

pub fn expand(shape: &Shape<'_>) -> TokenStream {
    let body = match shape {
        Shape::Newtype { ident, member, ty } => newtype(ident, member, ty),
        Shape::Enum {
            ident,
            repr,
            variants,
        } => fieldless_enum(ident, repr, variants),
    };
    quote! {
        #[doc(hidden)]
        #[allow(non_upper_case_globals, unused_qualifications, clippy::all)]
        const _: () = {
            use ::keyschema::__private as __ks;
            #body
        };
    }
}

/// Every item delegated to the wrapped type, so the newtype's bytes, schema
/// document and rendering are the wrapped type's. The text form and the
/// markers are delegated under `for<'__k> T: Trait` bounds: a bound that
/// holds for no `T` leaves the impl unusable instead of failing to compile,
/// so a newtype of a type without a text form still derives.
fn newtype(ident: &syn::Ident, member: &syn::Member, ty: &syn::Type) -> TokenStream {
    let construct = match member {
        syn::Member::Named(name) => quote!(#ident { #name: inner }),
        syn::Member::Unnamed(_) => quote!(#ident(inner)),
    };
    quote! {
        impl __ks::KeyComponent for #ident {
            type Ref<'__k> = <#ty as __ks::KeyComponent>::Ref<'__k> where Self: '__k;
            const FIXED_WIDTH: __ks::Option<usize> = <#ty as __ks::KeyComponent>::FIXED_WIDTH;
            const ENCODING: __ks::Option<__ks::Encoding> = <#ty as __ks::KeyComponent>::ENCODING;
            const SIZE_HINT: usize = <#ty as __ks::KeyComponent>::SIZE_HINT;

            #[inline]
            fn as_key_ref(&self) -> Self::Ref<'_> {
                <#ty as __ks::KeyComponent>::as_key_ref(&self.#member)
            }
            #[inline]
            fn encode_key(value: Self::Ref<'_>, out: &mut __ks::Vec<u8>) {
                <#ty as __ks::KeyComponent>::encode_key(value, out)
            }
            #[inline]
            fn encode_key_desc(value: Self::Ref<'_>, out: &mut __ks::Vec<u8>) {
                <#ty as __ks::KeyComponent>::encode_key_desc(value, out)
            }
            #[inline]
            fn decode_key(input: &mut __ks::Reader<'_>) -> __ks::Result<Self, __ks::DecodeError> {
                <#ty as __ks::KeyComponent>::decode_key(input).map(|inner| #construct)
            }
            fn render_key(input: &mut __ks::Reader<'_>, out: &mut ::std::string::String) -> __ks::Result<(), __ks::DecodeError> {
                <#ty as __ks::KeyComponent>::render_key(input, out)
            }
        }

        impl __ks::TextComponent for #ident where for<'__k> #ty: __ks::TextComponent {
            const TEXT_WIDTH: __ks::Option<usize> = <#ty as __ks::TextComponent>::TEXT_WIDTH;
            fn encode_text(value: Self::Ref<'_>, out: &mut __ks::Vec<u8>, sep: u8) {
                <#ty as __ks::TextComponent>::encode_text(value, out, sep)
            }
            fn decode_text(text: &[u8], sep: u8) -> __ks::Result<Self, __ks::TextError> {
                <#ty as __ks::TextComponent>::decode_text(text, sep).map(|inner| #construct)
            }
        }
        impl __ks::KeyArg<#ident> for &#ident {
            fn encode_arg(&self, out: &mut __ks::Vec<u8>) {
                <#ident as __ks::KeyComponent>::encode_key(__ks::KeyComponent::as_key_ref(*self), out)
            }
        }
        impl __ks::TextOrdered for #ident where for<'__k> #ty: __ks::TextOrdered {}
        impl __ks::TextDigits for #ident where for<'__k> #ty: __ks::TextDigits {}
        impl __ks::ReversibleKey for #ident where for<'__k> #ty: __ks::ReversibleKey {}
    }
}

/// The discriminant as the `repr` integer; the variants' names in the
/// encoding, for renderings and schema documents.
fn fieldless_enum(ident: &syn::Ident, repr: &syn::Ident, variants: &[&syn::Ident]) -> TokenStream {
    let names = variants.iter().map(|v| {
        let name = v.to_string();
        let name = name.strip_prefix("r#").unwrap_or(&name).to_string();
        quote!((#name, (#ident::#v as #repr) as i128))
    });
    let base = match repr.to_string().as_str() {
        "u8" => quote!(U8),
        "u16" => quote!(U16),
        "u32" => quote!(U32),
        "u64" => quote!(U64),
        "i8" => quote!(I8),
        "i16" => quote!(I16),
        "i32" => quote!(I32),
        _ => quote!(I64),
    };
    let to_int = variants
        .iter()
        .map(|v| quote!(#ident::#v => #ident::#v as #repr));
    let from_int = variants
        .iter()
        .map(|v| quote!(if d == #ident::#v as #repr { return __ks::Option::Some(#ident::#v); }));
    // As the dynamic readers say it, so one rejection vector holds for all.
    let unknown = "not the discriminant of any variant of the enum";
    quote! {
        const __VARIANTS: &[(&str, i128)] = &[#(#names),*];
        const __DEF: __ks::EnumDef = __ks::EnumDef::new(__ks::Base::#base, __VARIANTS);

        fn __discriminant(value: &#ident) -> #repr {
            match value { #(#to_int,)* }
        }
        fn __variant(d: #repr) -> __ks::Option<#ident> {
            #(#from_int)*
            __ks::Option::None
        }

        impl __ks::KeyComponent for #ident {
            type Ref<'__k> = &'__k #ident;
            const FIXED_WIDTH: __ks::Option<usize> = <#repr as __ks::KeyComponent>::FIXED_WIDTH;
            const ENCODING: __ks::Option<__ks::Encoding> =
                __ks::Option::Some(__ks::Encoding::of(__ks::Base::Enum(&__DEF)));

            fn as_key_ref(&self) -> &Self {
                self
            }
            fn encode_key(value: &Self, out: &mut __ks::Vec<u8>) {
                <#repr as __ks::KeyComponent>::encode_key(__discriminant(value), out)
            }
            fn decode_key(input: &mut __ks::Reader<'_>) -> __ks::Result<Self, __ks::DecodeError> {
                let d = <#repr as __ks::KeyComponent>::decode_key(input)?;
                __variant(d).ok_or_else(|| input.invalid_value(#unknown))
            }
        }

        impl __ks::TextComponent for #ident {
            const TEXT_WIDTH: __ks::Option<usize> = <#repr as __ks::TextComponent>::TEXT_WIDTH;
            fn encode_text(value: &Self, out: &mut __ks::Vec<u8>, sep: u8) {
                <#repr as __ks::TextComponent>::encode_text(__discriminant(value), out, sep)
            }
            fn decode_text(text: &[u8], sep: u8) -> __ks::Result<Self, __ks::TextError> {
                let d = <#repr as __ks::TextComponent>::decode_text(text, sep)?;
                __variant(d).ok_or(#unknown)
            }
        }
        impl __ks::TextOrdered for #ident {}

        impl __ks::KeyArg<#ident> for &#ident {
            fn encode_arg(&self, out: &mut __ks::Vec<u8>) {
                <#ident as __ks::KeyComponent>::encode_key(self, out)
            }
        }
    }
}
