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

use std::collections::{BTreeMap, BTreeSet};

/// The user types of a key type's value fields, by serde name.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct UserTypes {
    pub(crate) types: BTreeMap<String, UserType>,
    /// The structs (by name) and struct variants (`Enum::Variant`) that
    /// refuse a member they do not name (`#[serde(deny_unknown_fields)]`).
    pub(crate) closed: BTreeSet<String>,
    /// The enums that read a tag none of their variants has as their
    /// `#[serde(other)]` unit variant.
    pub(crate) other: BTreeSet<String>,
    /// The traced type itself, as a type text in these names (`u16` for a
    /// `#[serde(transparent)]` struct of one `u16`, `Vec<Addr>` for a
    /// `Vec<Address>` whose struct serde names `Addr`); `None` when read
    /// from a document or merged.
    pub(crate) root: Option<String>,
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
    /// Its other names (`#[serde(alias = "...")]`), under which a stored
    /// member reads as it.
    pub aliases: Vec<String>,
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

    /// Whether the struct `owner` (or struct variant `Enum::Variant`)
    /// refuses a member it does not name (`deny_unknown_fields`).
    pub fn is_closed(&self, owner: &str) -> bool {
        self.closed.contains(owner)
    }

    /// Whether the enum `name` reads an unknown tag as its
    /// `#[serde(other)]` variant.
    pub fn has_other(&self, name: &str) -> bool {
        self.other.contains(name)
    }

    /// The traced type as a type text in these types' names, when traced
    /// ([`traced`](super::traced)).
    pub fn root(&self) -> Option<&str> {
        self.root.as_deref()
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
        self.closed.extend(other.closed.iter().cloned());
        self.other.extend(other.other.iter().cloned());
    }
}

/// Where a value field's user types come from.
#[derive(Debug, Clone, Copy)]
pub enum UserTypesOf {
    /// Traced from the field's Rust type on first use
    /// ([`traced`](super::traced)).
    Traced(fn() -> &'static UserTypes),
    /// Read from a schema document: every field of it shares them; with
    /// the field's `shape`, when the document gives one.
    Read(&'static UserTypes, Option<&'static str>),
}

impl UserTypesOf {
    /// The user types.
    pub fn get(self) -> &'static UserTypes {
        match self {
            UserTypesOf::Traced(trace) => trace(),
            UserTypesOf::Read(types, _) => types,
        }
    }

    /// The type text a field of type `type_name` is read by: its `shape`
    /// (the traced type in the names of `types`, where it differs from the
    /// Rust text: a `#[serde(transparent)]` struct, a renamed type), else
    /// `type_name`.
    pub fn reading_text(self, type_name: &'static str) -> std::borrow::Cow<'static, str> {
        match self {
            UserTypesOf::Read(_, Some(shape)) => shape.into(),
            UserTypesOf::Read(_, None) => type_name.into(),
            UserTypesOf::Traced(trace) => match shape_text(type_name, trace()) {
                Some(shape) => shape.into(),
                None => type_name.into(),
            },
        }
    }
}

/// Types the readers know by name (their stored forms are the spec's):
/// never read by a traced shape.
const KNOWN: [&str; 9] = [
    "Uuid",
    "DateTime",
    "NaiveDate",
    "NaiveDateTime",
    "OffsetDateTime",
    "Date",
    "PrimitiveDateTime",
    "Value",
    "Decimal",
];

/// The `shape` a document writes for a field of type `type_name` whose
/// type traced to `types`: the traced text, where it differs from the Rust
/// text and the Rust text does not say it (a type of the user's that
/// `types` lists under another name, or that reads as another type).
pub(crate) fn shape_text(type_name: &str, types: &UserTypes) -> Option<String> {
    let root = types.root()?;
    let text: String = type_name.chars().filter(|c| !c.is_whitespace()).collect();
    if root
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        == text
    {
        return None;
    }
    if !types.is_empty() {
        return Some(root.to_string());
    }
    // The type an `Option` (of an `Option`) holds decides.
    let mut inner = text.as_str();
    while let Some(held) = inner
        .strip_prefix("Option<")
        .and_then(|t| t.strip_suffix('>'))
    {
        inner = held;
    }
    let head = inner.split('<').next().unwrap_or(inner);
    let name = head.rsplit("::").next().unwrap_or(head);
    let (kind, _) = super::kind::kind_of(&text);
    match kind == super::kind::Kind::Auto && !KNOWN.contains(&name) {
        true => Some(root.to_string()),
        false => None,
    }
}

/// No user types: for a field whose document has none.
pub fn no_user_types() -> &'static UserTypes {
    static NONE: UserTypes = UserTypes {
        types: BTreeMap::new(),
        closed: BTreeSet::new(),
        other: BTreeSet::new(),
        root: None,
    };
    &NONE
}
