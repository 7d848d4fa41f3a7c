//! Model: the checked description of a key, one struct per idea.

use proc_macro2::Span;
use syn::{Ident, Path, Type, Visibility};

/// A key layout that passed every check.
pub struct KeySpec {
    pub ident: Ident,
    pub vis: Visibility,
    /// How generated code reaches the runtime (`::keyschema` unless overridden).
    pub krate: Path,
    pub prefix: Vec<u8>,
    /// `None`: binary; `Some(sep)`: text keys with that separator.
    pub text_sep: Option<u8>,
    pub salt: Option<SaltSpec>,
    pub components: Vec<Component>,
    /// Fields outside the key, filled with `Default` on decode.
    pub skipped: Vec<Field>,
}

/// `hash(...) % buckets`, or `random % buckets`.
pub struct SaltSpec {
    pub buckets: u32,
    /// Indexes into `KeySpec::components`, in hash order (empty when random).
    pub hashed: Vec<usize>,
    pub random: bool,
}

/// One key component.
pub struct Component {
    pub field: Field,
    pub order: Order,
    /// `reverse(field)`: stored byte-reversed; the span of `reverse`.
    pub reversed: Option<Span>,
    /// `bucket(field, WIDTH)`: the width and the span of `bucket`. Always
    /// followed by the field itself.
    pub bucket: Option<(u64, Span)>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Order {
    Ascending,
    Descending,
}

#[derive(Clone)]
pub struct Field {
    pub ident: Ident,
    pub ty: Type,
}

impl Field {
    /// The field's name without `r#`, as users read it.
    pub fn name(&self) -> String {
        use syn::ext::IdentExt;
        self.ident.unraw().to_string()
    }

    pub fn span(&self) -> Span {
        self.ident.span()
    }
}
