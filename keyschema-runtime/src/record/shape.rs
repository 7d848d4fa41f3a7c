//! A nested value field read by its declared type without the Rust type:
//! the *shape* its type text spells (`Vec<i64>`, `(u8, String)`,
//! `[f32; 3]`, `BTreeMap<String, Vec<u32>>`, `Option<..>` around any of
//! them), and a serde seed that reads a stored value as that shape through
//! the deserializer a typed read uses, asking for what the Rust type would
//! ask at every level, so that what the typed read refuses is refused here
//! with its words and path (`at `scores[1]`: expected an integer, ...`), and
//! what it reads prints as text (numbers as stored, an `f32` by its own
//! shortest text). A struct or enum of the user's reads by the document's
//! `types` ([`super::shape_user`]); a type neither describes
//! (`serde_json::Value`, a user type not listed) reads as whatever is
//! stored.

use super::dynamo_words::nested_note;
use super::kind::{float_text, kind_of, quoted, Kind};
use super::misfit::locate;
use super::shape_user::{user_shapes, UserShapes};
use super::track::Trail;
use super::{UserTypes, ValueError, ValueField};
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use std::fmt;

/// The deepest type text parsed; deeper types read as stored.
const MAX_DEPTH: usize = 32;

/// The largest fixed array (`[T; N]`) read by its length; larger ones
/// read as stored.
const MAX_ARRAY: usize = 4096;

/// What a type text spells.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Shape {
    /// An integer, float, `bool`, `char` or string.
    Scalar(Kind),
    /// `serde_bytes::ByteBuf` and the like.
    Bytes,
    /// `()`.
    Unit,
    /// `Option<T>`.
    Option(Box<Shape>),
    /// A sequence of any length: `Vec`, `VecDeque`, the sets.
    Seq(Box<Shape>),
    /// A tuple, or a fixed array (`array`), of exactly these elements.
    Tuple { items: Vec<Shape>, array: bool },
    /// A map: `HashMap`, `BTreeMap`, `IndexMap`.
    Map(Box<Shape>, Box<Shape>),
    /// A struct or enum of the user's, by its name in the document's
    /// `types`.
    User(&'static str),
    /// A type the text does not describe: read as stored.
    Any,
}

/// `text` cut at its top-level commas (those outside `<>`, `()`, `[]`).
fn top_level(text: &str) -> Vec<&str> {
    let (mut depth, mut start, mut parts) = (0i32, 0, Vec::new());
    for (i, c) in text.char_indices() {
        match c {
            '<' | '(' | '[' => depth += 1,
            '>' | ')' | ']' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts.retain(|p| !p.is_empty());
    parts
}

impl Shape {
    /// The shape of the Rust type `type_name` (as the schema document
    /// writes it).
    #[cfg(test)]
    pub(crate) fn of(type_name: &str) -> Shape {
        Self::of_in(type_name, super::no_user_types())
    }

    /// The shape of `type_name`, naming the user types of `users`.
    pub(crate) fn of_in(type_name: &str, users: &UserTypes) -> Shape {
        let text: String = type_name.chars().filter(|c| !c.is_whitespace()).collect();
        Self::parse(&text, 0, users)
    }

    /// [`of_in`](Self::of_in) a value field's type and user types, parsed
    /// once per thread: a scan renders the same few fields for every row.
    pub(crate) fn of_field(field: &ValueField) -> std::rc::Rc<Shape> {
        type Shapes = std::collections::HashMap<(&'static str, usize), std::rc::Rc<Shape>>;
        thread_local! {
            static SHAPES: std::cell::RefCell<Shapes> = std::cell::RefCell::default();
        }
        let users = field.user_types.get();
        let key = (field.type_name, users as *const UserTypes as usize);
        SHAPES.with(|shapes| {
            shapes
                .borrow_mut()
                .entry(key)
                .or_insert_with(|| {
                    let text = field.user_types.reading_text(field.type_name);
                    std::rc::Rc::new(Shape::of_in(&text, users))
                })
                .clone()
        })
    }

    fn parse(t: &str, depth: usize, users: &UserTypes) -> Shape {
        if depth > MAX_DEPTH {
            return Shape::Any;
        }
        let inner = |t: &str| Box::new(Self::parse(t, depth + 1, users));
        if t == "()" {
            return Shape::Unit;
        }
        if let Some(body) = t.strip_prefix('(').and_then(|t| t.strip_suffix(')')) {
            let items = top_level(body)
                .into_iter()
                .map(|t| Self::parse(t, depth + 1, users))
                .collect();
            return Shape::Tuple {
                items,
                array: false,
            };
        }
        if let Some(body) = t.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
            return match body.rsplit_once(';') {
                Some((item, n)) => match n.parse::<usize>() {
                    Ok(n) if n <= MAX_ARRAY => Shape::Tuple {
                        items: vec![Self::parse(item, depth + 1, users); n],
                        array: true,
                    },
                    _ => Shape::Any,
                },
                None => Shape::Any,
            };
        }
        let user = |name: &str| match users.get(name) {
            Some(_) => Shape::User(crate::dynamic::intern(name)),
            None => Shape::Any,
        };
        let Some((head, args)) = t.split_once('<') else {
            return match kind_of(t).0 {
                Kind::Bytes => Shape::Bytes,
                Kind::Nested | Kind::Auto => user(t.rsplit("::").next().unwrap_or(t)),
                scalar => Shape::Scalar(scalar),
            };
        };
        let Some(args) = args.strip_suffix('>') else {
            return Shape::Any;
        };
        // Lifetimes are no part of what is stored.
        let args: Vec<&str> = top_level(args)
            .into_iter()
            .filter(|a| !a.starts_with('\''))
            .collect();
        let name = head.rsplit("::").next().unwrap_or(head);
        match (name, args.as_slice()) {
            ("Option", [t]) => Shape::Option(inner(t)),
            ("Box" | "Rc" | "Arc", [t]) => Self::parse(t, depth + 1, users),
            (
                "Vec" | "VecDeque" | "LinkedList" | "BinaryHeap" | "HashSet" | "BTreeSet"
                | "IndexSet",
                [t, ..],
            ) => Shape::Seq(inner(t)),
            ("HashMap" | "BTreeMap" | "IndexMap", [k, v, ..]) => Shape::Map(inner(k), inner(v)),
            // A generic type of the user's, listed by its serde name.
            _ => user(name),
        }
    }

    /// Whether the shape is `Vec<u8>` (or an `Option` of it), which a
    /// field marked `#[serde(with = "serde_bytes")]` stores as bytes
    /// under the same type text.
    pub(crate) fn is_bytes_like(&self) -> bool {
        match self {
            Shape::Option(inner) => inner.is_bytes_like(),
            Shape::Seq(item) => **item == Shape::Scalar(Kind::U8),
            _ => false,
        }
    }

    /// Whether the shape describes more than "whatever is stored".
    pub(crate) fn is_known(&self) -> bool {
        *self != Shape::Any
    }
}

/// What every level of one field's read shares: the trail the typed read
/// leaves (for the path of a DynamoDB number's note), the field's stored
/// MessagePack (where the path is found) and the item's notes.
pub(crate) struct Context<'c> {
    pub(crate) field: &'c str,
    pub(crate) trail: &'c Trail,
    pub(crate) raw: &'c [u8],
    pub(crate) notes: Option<&'c [u8]>,
    /// The shapes of the document's user types.
    pub(crate) users: &'static UserShapes,
}

impl Context<'_> {
    /// The DynamoDB number's text where the read now is, when the item's
    /// notes keep one (a number nested in a list or map that is not an
    /// integer of 64 bits, as DynamoDB stores it).
    fn number_note(&self) -> Option<String> {
        let notes = self.notes?;
        let (_, path) = locate(self.raw, &self.trail.path())?;
        nested_note(notes, &format!("{}{path}", self.field)).map(str::to_string)
    }
}

/// Reads one value as `shape`, appending its text to `out`.
pub(crate) struct ShapeSeed<'s, 'c> {
    pub(crate) shape: &'s Shape,
    pub(crate) out: &'s mut String,
    pub(crate) context: &'s Context<'c>,
}

impl<'c> ShapeSeed<'_, 'c> {
    pub(crate) fn child<'s>(&'s mut self, shape: &'s Shape) -> ShapeSeed<'s, 'c> {
        ShapeSeed {
            shape,
            out: self.out,
            context: self.context,
        }
    }

    /// A float's text: a number nested in a DynamoDB item as the item
    /// holds it, except an `f32` (`f32`), by its own shortest text
    /// (DynamoDB keeps `3.4028235e38` as 39 digits).
    fn float(&mut self, text: String, f32: bool) {
        let text = match f32 {
            true => text,
            false => self.context.number_note().unwrap_or(text),
        };
        self.out.push_str(&text);
    }
}

impl<'de> DeserializeSeed<'de> for ShapeSeed<'_, '_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(mut self, de: D) -> Result<(), D::Error> {
        fn text<'de, T: Deserialize<'de> + ToString, D: Deserializer<'de>>(
            de: D,
        ) -> Result<String, D::Error> {
            T::deserialize(de).map(|v| v.to_string())
        }
        let shape = self.shape;
        let written = match shape {
            Shape::Scalar(kind) => match kind {
                Kind::I8 => text::<i8, D>(de)?,
                Kind::I16 => text::<i16, D>(de)?,
                Kind::I32 => text::<i32, D>(de)?,
                Kind::I64 => text::<i64, D>(de)?,
                Kind::I128 => text::<i128, D>(de)?,
                Kind::U8 => text::<u8, D>(de)?,
                Kind::U16 => text::<u16, D>(de)?,
                Kind::U32 => text::<u32, D>(de)?,
                Kind::U64 => text::<u64, D>(de)?,
                Kind::U128 => text::<u128, D>(de)?,
                Kind::F32 => {
                    let v = f32::deserialize(de)?;
                    self.float(float_text(v, v.is_finite()), true);
                    return Ok(());
                }
                Kind::F64 => {
                    let v = f64::deserialize(de)?;
                    self.float(float_text(v, v.is_finite()), false);
                    return Ok(());
                }
                Kind::Bool => text::<bool, D>(de)?,
                Kind::Char => quoted(&char::deserialize(de)?.to_string()),
                Kind::Str => quoted(&String::deserialize(de)?),
                Kind::Bytes | Kind::Nested | Kind::Auto => return de.deserialize_any(Loose(self)),
            },
            Shape::Bytes => return de.deserialize_byte_buf(BytesText(self)),
            Shape::Unit => {
                <()>::deserialize(de)?;
                "null".to_string()
            }
            Shape::Option(_) => return de.deserialize_option(OptionText(self)),
            Shape::Seq(_) => return de.deserialize_seq(SeqText(self)),
            Shape::Tuple { items, .. } => return de.deserialize_tuple(items.len(), SeqText(self)),
            Shape::Map(..) => return de.deserialize_map(MapText(self)),
            Shape::User(name) => return super::shape_user::read(self, name, de),
            Shape::Any => return de.deserialize_any(Loose(self)),
        };
        self.out.push_str(&written);
        Ok(())
    }
}

/// Bytes as `0x` and hex.
struct BytesText<'s, 'c>(ShapeSeed<'s, 'c>);

impl<'de> Visitor<'de> for BytesText<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("bytes")
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<(), E> {
        self.0.out.push_str("0x");
        for &b in v {
            crate::encoding::push_hex(self.0.out, b);
        }
        Ok(())
    }
}

/// `Option<T>`: nil as `null`, else `T`'s text.
struct OptionText<'s, 'c>(ShapeSeed<'s, 'c>);

impl<'de> Visitor<'de> for OptionText<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("option")
    }

    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        self.0.out.push_str("null");
        Ok(())
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.visit_none()
    }

    fn visit_some<D: Deserializer<'de>>(mut self, de: D) -> Result<(), D::Error> {
        let Shape::Option(inner) = self.0.shape else {
            return Err(de::Error::custom("not an option"));
        };
        self.0.child(inner).deserialize(de)
    }
}

/// A sequence or tuple as `[a, b]`; a tuple or array needs exactly its
/// length, as serde's own impls do.
struct SeqText<'s, 'c>(ShapeSeed<'s, 'c>);

impl<'de> Visitor<'de> for SeqText<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.shape {
            Shape::Tuple { items, array: true } => write!(f, "an array of length {}", items.len()),
            Shape::Tuple { items, .. } => write!(f, "a tuple of size {}", items.len()),
            _ => f.write_str("a sequence"),
        }
    }

    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<(), A::Error> {
        self.0.out.push('[');
        match self.0.shape {
            Shape::Seq(item) => {
                let mut first = true;
                loop {
                    let at = self.0.out.len();
                    if !first {
                        self.0.out.push_str(", ");
                    }
                    if seq.next_element_seed(self.0.child(item))?.is_none() {
                        self.0.out.truncate(at);
                        break;
                    }
                    first = false;
                }
            }
            Shape::Tuple { items, .. } => {
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        self.0.out.push_str(", ");
                    }
                    if seq.next_element_seed(self.0.child(item))?.is_none() {
                        return Err(de::Error::invalid_length(i, &self));
                    }
                }
            }
            _ => return Err(de::Error::custom("not a sequence")),
        }
        self.0.out.push(']');
        Ok(())
    }
}

/// A map as `{k: v}`.
struct MapText<'s, 'c>(ShapeSeed<'s, 'c>);

impl<'de> Visitor<'de> for MapText<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a map")
    }

    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<(), A::Error> {
        let Shape::Map(key, value) = self.0.shape else {
            return Err(de::Error::custom("not a map"));
        };
        self.0.out.push('{');
        let mut first = true;
        loop {
            let at = self.0.out.len();
            if !first {
                self.0.out.push_str(", ");
            }
            if map.next_key_seed(self.0.child(key))?.is_none() {
                self.0.out.truncate(at);
                break;
            }
            self.0.out.push_str(": ");
            map.next_value_seed(self.0.child(value))?;
            first = false;
        }
        self.0.out.push('}');
        Ok(())
    }
}

/// Whatever is stored, as text (a type the text does not describe).
pub(crate) struct Loose<'s, 'c>(pub(crate) ShapeSeed<'s, 'c>);

impl Loose<'_, '_> {
    fn push(self, text: &str) {
        self.0.out.push_str(text);
    }
}

impl<'de> Visitor<'de> for Loose<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<(), E> {
        self.push(if v { "true" } else { "false" });
        Ok(())
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<(), E> {
        self.push(&v.to_string());
        Ok(())
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<(), E> {
        self.push(&v.to_string());
        Ok(())
    }
    fn visit_i128<E: de::Error>(self, v: i128) -> Result<(), E> {
        self.push(&v.to_string());
        Ok(())
    }
    fn visit_u128<E: de::Error>(self, v: u128) -> Result<(), E> {
        self.push(&v.to_string());
        Ok(())
    }
    fn visit_f32<E: de::Error>(mut self, v: f32) -> Result<(), E> {
        self.0.float(float_text(v, v.is_finite()), false);
        Ok(())
    }
    fn visit_f64<E: de::Error>(mut self, v: f64) -> Result<(), E> {
        self.0.float(float_text(v, v.is_finite()), false);
        Ok(())
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        self.push(&quoted(v));
        Ok(())
    }
    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<(), E> {
        BytesText(self.0).visit_bytes(v)
    }
    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        self.push("null");
        Ok(())
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.push("null");
        Ok(())
    }
    fn visit_some<D: Deserializer<'de>>(self, de: D) -> Result<(), D::Error> {
        de.deserialize_any(self)
    }
    fn visit_newtype_struct<D: Deserializer<'de>>(self, de: D) -> Result<(), D::Error> {
        de.deserialize_any(self)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
        let shape = Shape::Seq(Box::new(Shape::Any));
        let seed = ShapeSeed {
            shape: &shape,
            out: self.0.out,
            context: self.0.context,
        };
        SeqText(seed).visit_seq(seq)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<(), A::Error> {
        let shape = Shape::Map(Box::new(Shape::Any), Box::new(Shape::Any));
        let seed = ShapeSeed {
            shape: &shape,
            out: self.0.out,
            context: self.0.context,
        };
        MapText(seed).visit_map(map)
    }
}

/// A nested field's value read as `shape` by `read` (which hands the seed
/// the typed read's deserializer, tracked on `trail`, and words its
/// error): its text, or the field's error.
pub(crate) fn shaped(
    field: &ValueField,
    shape: &Shape,
    trail: &Trail,
    raw: &[u8],
    notes: Option<&[u8]>,
    read: impl FnOnce(ShapeSeed<'_, '_>) -> Result<(), String>,
) -> Result<String, ValueError> {
    let mut out = String::new();
    let context = Context {
        field: field.name,
        trail,
        raw,
        notes,
        users: user_shapes(field.user_types.get()),
    };
    let seed = ShapeSeed {
        shape,
        out: &mut out,
        context: &context,
    };
    read(seed).map_err(|e| ValueError::Field {
        field: field.name,
        message: format!("({}) {e}", field.type_name),
    })?;
    Ok(out)
}

#[cfg(test)]
#[path = "shape_tests.rs"]
mod tests;
