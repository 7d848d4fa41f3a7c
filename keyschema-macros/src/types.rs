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

/// Types serde writes as their content (`Box<T>` as `T`) or element by
/// element (`Vec<T>`, maps, sets), so an `Option` inside them is written
/// as one alone is.
const TRANSPARENT: &[&str] = &[
    "Option",
    "Box",
    "Rc",
    "Arc",
    "Cow",
    "Vec",
    "VecDeque",
    "LinkedList",
    "BinaryHeap",
    "BTreeMap",
    "HashMap",
    "BTreeSet",
    "HashSet",
    "IndexMap",
    "IndexSet",
];

/// What an `Option` holds that serde also writes as nil, so that `Some` of
/// it is stored as `None` is: the `Some(...)` that is lost.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NilInside {
    /// `Option<Option<T>>`: `Some(None)`.
    Option,
    /// `Option<()>`: `Some(())`.
    Unit,
    /// `Option<PhantomData<T>>`: `Some(PhantomData)`.
    Phantom,
}

/// The first `Option<X>` written in `ty` (itself, or inside a tuple, an
/// array or a standard container, [`TRANSPARENT`]) whose `X` serde writes
/// as nil (`Option<..>`, `()`, `PhantomData<..>`, through `Box`, `Rc`
/// and `Arc`), with what its `X` is. A type alias, a struct of the
/// user's or another generic type is not looked into.
pub fn nil_in_option(ty: &Type) -> Option<(&Type, NilInside)> {
    match ty {
        Type::Group(g) => nil_in_option(&g.elem),
        Type::Paren(p) => nil_in_option(&p.elem),
        Type::Reference(r) => nil_in_option(&r.elem),
        Type::Array(a) => nil_in_option(&a.elem),
        Type::Slice(s) => nil_in_option(&s.elem),
        Type::Tuple(t) => t.elems.iter().find_map(nil_in_option),
        Type::Path(p) if p.qself.is_none() => {
            let last = p.path.segments.last()?;
            let args = type_args(last);
            if last.ident == "Option" {
                if let Some(inside) = args.first().and_then(|t| nil_type(t)) {
                    return Some((ty, inside));
                }
            }
            if TRANSPARENT.iter().any(|t| last.ident == t) {
                return args.into_iter().find_map(nil_in_option);
            }
            None
        }
        _ => None,
    }
}

/// The type arguments of a path segment (`Vec<T>`: `T`; `HashMap<K, V>`:
/// both).
fn type_args(segment: &syn::PathSegment) -> Vec<&Type> {
    match &segment.arguments {
        syn::PathArguments::AngleBracketed(a) => a
            .args
            .iter()
            .filter_map(|arg| match arg {
                syn::GenericArgument::Type(t) => Some(t),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// What `ty` is when serde writes it as nil, looking through `Box`, `Rc`
/// and `Arc`.
fn nil_type(ty: &Type) -> Option<NilInside> {
    match ty {
        Type::Group(g) => nil_type(&g.elem),
        Type::Paren(p) => nil_type(&p.elem),
        Type::Tuple(t) if t.elems.is_empty() => Some(NilInside::Unit),
        Type::Path(p) if p.qself.is_none() => {
            let last = p.path.segments.last()?;
            match last.ident.to_string().as_str() {
                "Option" => Some(NilInside::Option),
                "PhantomData" => Some(NilInside::Phantom),
                "Box" | "Rc" | "Arc" => type_args(last).first().and_then(|t| nil_type(t)),
                _ => None,
            }
        }
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

    fn nil(ty: &str) -> Option<(String, NilInside)> {
        let ty: Type = syn::parse_str(ty).expect("a type");
        nil_in_option(&ty).map(|(t, what)| (name(t), what))
    }

    #[test]
    fn finds_an_option_of_what_serde_writes_as_nil() {
        let found = |t: &str, what| Some((t.to_string(), what));
        assert_eq!(
            nil("Option<Option<u8>>"),
            found("Option<Option<u8>>", NilInside::Option)
        );
        assert_eq!(
            nil("std::option::Option<()>"),
            found("std::option::Option<()>", NilInside::Unit)
        );
        assert_eq!(
            nil("Option<Box<Option<String>>>"),
            found("Option<Box<Option<String>>>", NilInside::Option)
        );
        assert_eq!(
            nil("Option<PhantomData<u8>>"),
            found("Option<PhantomData<u8>>", NilInside::Phantom)
        );
        // Inside the standard containers, tuples and arrays.
        assert_eq!(
            nil("Vec<Option<Option<u8>>>"),
            found("Option<Option<u8>>", NilInside::Option)
        );
        assert_eq!(
            nil("BTreeMap<String, Option<()>>"),
            found("Option<()>", NilInside::Unit)
        );
        assert_eq!(
            nil("(u8, [Option<()>; 2])"),
            found("Option<()>", NilInside::Unit)
        );
        assert_eq!(
            nil("Option<Vec<Option<Option<u8>>>>"),
            found("Option<Option<u8>>", NilInside::Option)
        );
        // What keeps `Some` apart, and what the syntax cannot see into.
        assert_eq!(nil("Option<u8>"), None);
        assert_eq!(nil("Option<Vec<Option<u8>>>"), None);
        assert_eq!(nil("Option<((), u8)>"), None);
        assert_eq!(nil("Result<Option<u8>, String>"), None);
        assert_eq!(nil("Option<MaybeAlias>"), None);
        assert_eq!(nil("Wrapper<Option<Option<u8>>>"), None);
    }
}
