//! The user's own types a value field's type holds (its structs, enums,
//! newtypes and tuple structs), as the schema document's `types` member
//! describes them: each by its serde name, its fields or variants, and
//! each field's type text in the spelling value fields use (`i64`,
//! `Option<String>`, `Vec<Point>`, `BTreeMap<String, u32>`, `ByteBuf`,
//! `(u8, String)`, another user type's name). A reader without the Rust
//! types reads and checks a stored struct or enum by it as the typed read
//! would (docs/ENCODING.md, "User types").
//!
//! A derived key type's are traced from each value field's `Deserialize`
//! ([`super::trace`]); a document's are read from it.

use std::collections::BTreeMap;

/// The user types of a key type's value fields, by serde name.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct UserTypes {
    pub(crate) types: BTreeMap<String, UserType>,
}

/// One user type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UserType {
    /// A struct with named fields: stored as a map of its fields.
    Struct(Vec<UserField>),
    /// A tuple struct: stored as a sequence of exactly these.
    Tuple(Vec<String>),
    /// A newtype struct: stored as its one field.
    Newtype(String),
    /// A unit struct: stored as nil.
    Unit,
    /// An enum, externally tagged as serde writes it: a unit variant as its
    /// name, another as a one-entry map from its name to its content.
    Enum(Vec<UserVariant>),
}

/// A struct's (or struct variant's) field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserField {
    /// Its serde name (after `rename`).
    pub name: String,
    /// Its type text.
    pub type_name: String,
    /// Whether a stored value without it reads (as `None`, or the field's
    /// `#[serde(default)]`); else one without it is refused.
    pub optional: bool,
}

/// An enum's variant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserVariant {
    /// Its serde name.
    pub name: String,
    /// What it holds.
    pub form: VariantForm,
}

/// What an enum's variant holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VariantForm {
    /// Nothing.
    Unit,
    /// One value of this type.
    Newtype(String),
    /// A sequence of exactly these.
    Tuple(Vec<String>),
    /// Named fields.
    Struct(Vec<UserField>),
}

impl UserTypes {
    /// The type named `name`, if known.
    pub fn get(&self, name: &str) -> Option<&UserType> {
        self.types.get(name)
    }

    /// Every type, by name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &UserType)> {
        self.types.iter().map(|(n, t)| (n.as_str(), t))
    }

    /// Whether no user type is known.
    pub fn is_empty(&self) -> bool {
        self.types.is_empty()
    }

    /// `other`'s types added; a name both hold with different shapes (two
    /// types of one name in different modules) is dropped, so that a
    /// reader reads it as stored rather than by the wrong shape.
    pub(crate) fn merge(&mut self, other: &UserTypes, clashes: &mut Vec<String>) {
        for (name, t) in &other.types {
            if clashes.contains(name) {
                continue;
            }
            match self.types.get(name) {
                Some(known) if known != t => {
                    self.types.remove(name);
                    clashes.push(name.clone());
                }
                Some(_) => {}
                None => {
                    self.types.insert(name.clone(), t.clone());
                }
            }
        }
    }
}

/// Where a value field's user types come from.
#[derive(Debug, Clone, Copy)]
pub enum UserTypesOf {
    /// Traced from the field's Rust type on first use
    /// ([`traced`](super::traced)).
    Traced(fn() -> &'static UserTypes),
    /// Read from a schema document: every field of it shares them.
    Read(&'static UserTypes),
}

impl UserTypesOf {
    /// The user types.
    pub fn get(self) -> &'static UserTypes {
        match self {
            UserTypesOf::Traced(trace) => trace(),
            UserTypesOf::Read(types) => types,
        }
    }
}

/// No user types: for a field whose document has none.
pub fn no_user_types() -> &'static UserTypes {
    static NONE: UserTypes = UserTypes {
        types: BTreeMap::new(),
    };
    &NONE
}
