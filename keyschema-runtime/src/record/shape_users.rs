//! The user types of a schema document with their type texts parsed
//! into shapes, once per set of types ([`super::shape_user`] reads values
//! by them).

use super::shape_text::Shape;
use super::user_types::{UserField, UserType, UserTypes, VariantForm};
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

/// The user types of one document (or one traced type), their type texts
/// parsed.
#[derive(Debug, Default)]
pub(crate) struct UserShapes {
    pub(crate) types: HashMap<&'static str, UserShape>,
}

#[derive(Debug)]
pub(crate) enum UserShape {
    Struct(Fields),
    Tuple(Vec<Shape>),
    Newtype(Shape),
    Unit,
    Enum {
        names: &'static [&'static str],
        variants: Vec<VariantShape>,
        /// Whether a tag none of the variants has reads (`#[serde(other)]`).
        other: bool,
    },
}

#[derive(Debug)]
pub(crate) enum VariantShape {
    Unit,
    Newtype(Shape),
    Tuple(Vec<Shape>),
    Struct(Fields),
}

/// A struct's (or struct variant's) fields.
#[derive(Debug)]
pub(crate) struct Fields {
    pub(crate) names: &'static [&'static str],
    pub(crate) shapes: Vec<Shape>,
    pub(crate) optional: Vec<bool>,
    /// Every name a member may have, each with its field's index: each
    /// field's own name and its aliases, sorted together (serde's list).
    pub(crate) keys: &'static [&'static str],
    pub(crate) key_field: Vec<usize>,
    /// Whether a member no field names is refused (`deny_unknown_fields`).
    pub(crate) closed: bool,
}

fn leak(names: Vec<&'static str>) -> &'static [&'static str] {
    Box::leak(names.into_boxed_slice())
}

fn fields(list: &[UserField], users: &UserTypes, owner: &str) -> Fields {
    let mut keys = Vec::new();
    let mut key_field = Vec::new();
    for (i, f) in list.iter().enumerate() {
        let mut names: Vec<&str> = std::iter::once(f.name.as_str())
            .chain(f.aliases.iter().map(String::as_str))
            .collect();
        names.sort_unstable();
        names.dedup();
        for n in names {
            keys.push(crate::dynamic::intern(n));
            key_field.push(i);
        }
    }
    Fields {
        names: leak(
            list.iter()
                .map(|f| crate::dynamic::intern(&f.name))
                .collect(),
        ),
        shapes: list
            .iter()
            .map(|f| Shape::of_in(&f.type_name, users))
            .collect(),
        optional: list.iter().map(|f| f.optional).collect(),
        keys: leak(keys),
        key_field,
        closed: users.is_closed(owner),
    }
}

/// `users`' shapes, parsed once per set of user types and kept (a
/// document's or a traced type's types live as long as the program).
pub(crate) fn user_shapes(users: &'static UserTypes) -> &'static UserShapes {
    static SHAPES: OnceLock<Mutex<HashMap<usize, &'static UserShapes>>> = OnceLock::new();
    let key = users as *const UserTypes as usize;
    let cache = SHAPES.get_or_init(Mutex::default);
    if let Some(known) = cache.lock().ok().and_then(|c| c.get(&key).copied()) {
        return known;
    }
    let texts = |items: &[String]| items.iter().map(|t| Shape::of_in(t, users)).collect();
    let mut types = HashMap::new();
    for (name, t) in users.iter() {
        let shape = match t {
            UserType::Struct(list) => UserShape::Struct(fields(list, users, name)),
            UserType::Tuple(items) => UserShape::Tuple(texts(items)),
            UserType::Newtype(inner) => UserShape::Newtype(Shape::of_in(inner, users)),
            UserType::Unit => UserShape::Unit,
            UserType::Enum(variants) => UserShape::Enum {
                other: users.has_other(name),
                names: leak(
                    variants
                        .iter()
                        .map(|v| crate::dynamic::intern(&v.name))
                        .collect(),
                ),
                variants: variants
                    .iter()
                    .map(|v| match &v.form {
                        VariantForm::Unit => VariantShape::Unit,
                        VariantForm::Newtype(inner) => {
                            VariantShape::Newtype(Shape::of_in(inner, users))
                        }
                        VariantForm::Tuple(items) => VariantShape::Tuple(texts(items)),
                        VariantForm::Struct(list) => VariantShape::Struct(fields(
                            list,
                            users,
                            &format!("{name}::{}", v.name),
                        )),
                    })
                    .collect(),
            },
        };
        types.insert(crate::dynamic::intern(name), shape);
    }
    let shapes: &'static UserShapes = Box::leak(Box::new(UserShapes { types }));
    match cache.lock() {
        Ok(mut c) => c.entry(key).or_insert(shapes),
        Err(_) => shapes,
    }
}
