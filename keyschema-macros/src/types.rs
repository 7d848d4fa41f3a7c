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

/// Why a key component of this type, stored ascending and first in an
/// unsalted, unprefixed key, usually begins with a byte below `buckets`
/// (a salt byte's range), or `None` when it rarely does or the type is
/// not known: unsigned integers, `bool`, `char` and `Option` (whose tag is
/// 0 or 1) begin with a small byte; signed integers and floats with 0x7f
/// or 0x80 near zero; byte strings and arrays with any byte.
pub fn small_first_byte(ty: &Type, buckets: u32) -> Option<&'static str> {
    match ty {
        Type::Group(g) => return small_first_byte(&g.elem, buckets),
        Type::Paren(p) => return small_first_byte(&p.elem, buckets),
        Type::Array(_) => return Some("a byte array begins with any byte"),
        Type::Path(p) if p.qself.is_none() => {}
        _ => return None,
    }
    let named = name(ty);
    let last = named.rsplit("::").next().unwrap_or(&named);
    match last {
        "u8" | "u16" | "u32" | "u64" | "u128" | "usize" => {
            Some("an unsigned integer below 2^56 begins with byte 0")
        }
        "bool" => Some("a bool is byte 0 or 1"),
        "char" => Some("a char begins with byte 0"),
        "i8" | "i16" | "i32" | "i64" | "i128" | "isize" | "f32" | "f64" if buckets > 0x7f => {
            Some("a number near zero begins with byte 0x7f or 0x80")
        }
        "Vec<u8>" => Some("a byte string begins with any byte"),
        _ if last.starts_with("Option<") => Some("an `Option` begins with its tag, 0 or 1"),
        _ => None,
    }
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
