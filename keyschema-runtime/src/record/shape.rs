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

use super::kind::{float_text, quoted, Kind};
pub(crate) use super::shape_seed::{Context, ShapeSeed};
pub(crate) use super::shape_text::Shape;
use super::track::Trail;
use super::{ValueError, ValueField};
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use std::fmt;

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
        users: super::shape_users::user_shapes(field.user_types.get()),
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
