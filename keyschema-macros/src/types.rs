//! What the derive can tell about a field's type from its syntax alone:
//! enough to refuse, with one error at the field, a transform that a
//! well-known type can never take (`bucket(name, 30)` on a `String`). Types
//! it cannot name (aliases, newtypes) are left to the trait bounds.

use syn::Type;

/// The integer types `bucket(...)` takes (`BucketKey` in the runtime).
const BUCKETABLE: &[&str] = &["u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64"];

/// Types that are certainly not integers a bucket can take: the standard
/// scalars and containers, by their last path segment.
const NOT_BUCKETABLE: &[&str] = &[
    "String", "str", "bool", "char", "f32", "f64", "u128", "i128", "Vec", "Option", "Box", "Cow",
    "Uuid", "Ulid",
];

/// The type's name when it is certainly not an integer `bucket(...)` takes.
pub fn not_bucketable(ty: &Type) -> Option<String> {
    let named = match ty {
        Type::Reference(r) => return Some(format!("&{}", name(&r.elem))),
        Type::Array(_) | Type::Slice(_) | Type::Tuple(_) => return Some(name(ty)),
        Type::Path(p) if p.qself.is_none() => p.path.segments.last()?.ident.to_string(),
        Type::Group(g) => return not_bucketable(&g.elem),
        Type::Paren(p) => return not_bucketable(&p.elem),
        _ => return None,
    };
    if BUCKETABLE.contains(&named.as_str()) || !NOT_BUCKETABLE.contains(&named.as_str()) {
        return None;
    }
    Some(name(ty))
}

/// Whether the type is written as an `Option` (`Option<T>`,
/// `std::option::Option<T>`): a value field that may be missing.
pub fn is_option(ty: &Type) -> bool {
    match ty {
        Type::Path(p) if p.qself.is_none() => {
            p.path.segments.last().is_some_and(|s| s.ident == "Option")
        }
        Type::Group(g) => is_option(&g.elem),
        Type::Paren(p) => is_option(&p.elem),
        _ => false,
    }
}

/// The type as written, without the spaces token printing adds.
pub fn name(ty: &Type) -> String {
    quote::quote!(#ty)
        .to_string()
        .replace(" < ", "<")
        .replace(" <", "<")
        .replace("< ", "<")
        .replace(" >", ">")
        .replace(" ,", ",")
        .replace(" ; ", "; ")
        .replace("& ", "&")
        .replace(" :: ", "::")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(ty: &str) -> Option<String> {
        not_bucketable(&syn::parse_str(ty).expect("a type"))
    }

    #[test]
    fn names_only_types_that_are_certainly_not_integers() {
        assert_eq!(check("String").as_deref(), Some("String"));
        assert_eq!(
            check("std::string::String").as_deref(),
            Some("std::string::String")
        );
        assert_eq!(check("Option<u32>").as_deref(), Some("Option<u32>"));
        assert_eq!(check("[u8; 16]").as_deref(), Some("[u8; 16]"));
        assert_eq!(check("&str").as_deref(), Some("&str"));
        assert_eq!(check("u64"), None);
        assert_eq!(check("i32"), None);
        assert_eq!(check("Day"), None, "a newtype is left to the trait bound");
    }
}
