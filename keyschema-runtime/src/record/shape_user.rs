//! A struct or enum of the user's read by the document's `types`
//! ([`UserTypes`](super::UserTypes)) without the Rust type, through the deserializer the
//! typed read uses and asking what serde's derived `Deserialize` asks: a
//! struct's fields by name (members it does not name skipped, each
//! required field present, none twice), a tuple struct's exact length, an
//! enum's variant among its own. What that read refuses is refused here
//! with serde's words; what it reads prints as text (`{"city": "Oslo"}`,
//! `"Draft"`, `{"Paid": {"on": 7}}`).

use super::kind::quoted;
use super::shape_seed::ShapeSeed;
use super::shape_text::Shape;
use super::shape_users::{Fields, UserShape, VariantShape};
use serde::de::{
    self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, VariantAccess, Visitor,
};
use std::fmt;

/// A shape the struct and tuple readers are handed in place of their own
/// (they read by their fields).
static UNIT: Shape = Shape::Unit;

/// The shape of a value read as stored.
static ANY: Shape = Shape::Any;

/// Reads the user type `name` from `de` as serde's derive would.
pub(crate) fn read<'de, D: Deserializer<'de>>(
    mut seed: ShapeSeed<'_, '_>,
    name: &'static str,
    de: D,
) -> Result<(), D::Error> {
    let users = seed.context.users;
    let Some(shape) = users.types.get(name) else {
        return seed.child(&ANY).deserialize(de);
    };
    match shape {
        UserShape::Struct(fields) => de.deserialize_struct(
            name,
            fields.names,
            StructText {
                seed,
                fields,
                what: What::Struct(name),
            },
        ),
        UserShape::Tuple(items) => de.deserialize_tuple_struct(
            name,
            items.len(),
            TupleText {
                seed,
                items,
                what: What::TupleStruct(name),
            },
        ),
        UserShape::Newtype(inner) => {
            de.deserialize_newtype_struct(name, NewtypeText { seed, inner, name })
        }
        UserShape::Unit => de.deserialize_unit_struct(name, UnitText { seed, name }),
        UserShape::Enum {
            names,
            variants,
            other,
        } => de.deserialize_enum(
            name,
            names,
            EnumText {
                seed,
                name,
                names,
                variants,
                other: *other,
            },
        ),
    }
}

/// What a visitor reads, in serde's derive's words.
#[derive(Clone, Copy)]
enum What {
    Struct(&'static str),
    TupleStruct(&'static str),
    StructVariant(&'static str, &'static str),
    TupleVariant(&'static str, &'static str),
}

impl fmt::Display for What {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            What::Struct(n) => write!(f, "struct {n}"),
            What::TupleStruct(n) => write!(f, "tuple struct {n}"),
            What::StructVariant(e, v) => write!(f, "struct variant {e}::{v}"),
            What::TupleVariant(e, v) => write!(f, "tuple variant {e}::{v}"),
        }
    }
}

/// `what` with its element count: the words of a short sequence.
struct WithLen(What, usize);

impl de::Expected for WithLen {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} with {} element{}",
            self.0,
            self.1,
            if self.1 == 1 { "" } else { "s" }
        )
    }
}

/// A struct as `{"field": value}`.
struct StructText<'s, 'c, 'f> {
    seed: ShapeSeed<'s, 'c>,
    fields: &'f Fields,
    what: What,
}

/// A map key naming a field (by its own name or an alias): the field's
/// index, or `None` for a member the struct does not name (skipped, as
/// the derive skips it; refused by a closed struct, in serde's words).
struct FieldKey<'f>(&'f Fields);

impl FieldKey<'_> {
    fn found<E: de::Error>(&self, key: Option<usize>, shown: &str) -> Result<Option<usize>, E> {
        match key {
            Some(k) => Ok(self.0.key_field.get(k).copied()),
            None if self.0.closed => Err(E::unknown_field(shown, self.0.keys)),
            None => Ok(None),
        }
    }
}

impl<'de> DeserializeSeed<'de> for FieldKey<'_> {
    type Value = Option<usize>;

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<Option<usize>, D::Error> {
        de.deserialize_identifier(self)
    }
}

impl<'de> Visitor<'de> for FieldKey<'_> {
    type Value = Option<usize>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("field identifier")
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Option<usize>, E> {
        Ok(usize::try_from(v).ok().filter(|&i| i < self.0.names.len()))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Option<usize>, E> {
        self.found(self.0.keys.iter().position(|n| *n == v), v)
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Option<usize>, E> {
        let key = self.0.keys.iter().position(|n| n.as_bytes() == v);
        self.found(key, &String::from_utf8_lossy(v))
    }
}

impl<'de> Visitor<'de> for StructText<'_, '_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.what)
    }

    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<(), A::Error> {
        let names = self.fields.names;
        // Each field's text, printed in the struct's field order whatever
        // order the store keeps them in (a DynamoDB `M` sorts them).
        let mut texts: Vec<Option<String>> = vec![None; names.len()];
        let start = self.seed.out.len();
        while let Some(key) = map.next_key_seed(FieldKey(self.fields))? {
            let Some(i) = key else {
                map.next_value::<de::IgnoredAny>()?;
                continue;
            };
            if texts[i].is_some() {
                return Err(de::Error::duplicate_field(names[i]));
            }
            map.next_value_seed(self.seed.child(&self.fields.shapes[i]))?;
            texts[i] = Some(self.seed.out.split_off(start));
        }
        if let Some(i) = (0..names.len()).find(|&i| texts[i].is_none() && !self.fields.optional[i])
        {
            return Err(de::Error::missing_field(names[i]));
        }
        self.seed.out.push('{');
        let mut first = true;
        for (name, text) in names.iter().zip(texts) {
            let Some(text) = text else { continue };
            if !first {
                self.seed.out.push_str(", ");
            }
            first = false;
            self.seed.out.push_str(&quoted(name));
            self.seed.out.push_str(": ");
            self.seed.out.push_str(&text);
        }
        self.seed.out.push('}');
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<(), A::Error> {
        let names = self.fields.names;
        self.seed.out.push('{');
        for (i, shape) in self.fields.shapes.iter().enumerate() {
            let mark = self.seed.out.len();
            if i > 0 {
                self.seed.out.push_str(", ");
            }
            self.seed.out.push_str(&quoted(names[i]));
            self.seed.out.push_str(": ");
            if seq.next_element_seed(self.seed.child(shape))?.is_none() {
                // A struct read with its defaults (`#[serde(default)]`)
                // takes a short sequence.
                if self.fields.optional[i..].iter().all(|o| *o) {
                    self.seed.out.truncate(mark);
                    break;
                }
                return Err(de::Error::invalid_length(
                    i,
                    &WithLen(self.what, names.len()),
                ));
            }
        }
        self.seed.out.push('}');
        Ok(())
    }
}

/// A tuple struct or tuple variant as `[a, b]`: exactly its length.
struct TupleText<'s, 'c, 'f> {
    seed: ShapeSeed<'s, 'c>,
    items: &'f [Shape],
    what: What,
}

impl<'de> Visitor<'de> for TupleText<'_, '_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.what)
    }

    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<(), A::Error> {
        self.seed.out.push('[');
        for (i, shape) in self.items.iter().enumerate() {
            if i > 0 {
                self.seed.out.push_str(", ");
            }
            if seq.next_element_seed(self.seed.child(shape))?.is_none() {
                return Err(de::Error::invalid_length(
                    i,
                    &WithLen(self.what, self.items.len()),
                ));
            }
        }
        self.seed.out.push(']');
        Ok(())
    }
}

/// A newtype struct as its one value.
struct NewtypeText<'s, 'c, 'f> {
    seed: ShapeSeed<'s, 'c>,
    inner: &'f Shape,
    name: &'static str,
}

impl<'de> Visitor<'de> for NewtypeText<'_, '_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "tuple struct {}", self.name)
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(mut self, de: D) -> Result<(), D::Error> {
        self.seed.child(self.inner).deserialize(de)
    }

    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<(), A::Error> {
        match seq.next_element_seed(self.seed.child(self.inner))? {
            Some(()) => Ok(()),
            None => Err(de::Error::invalid_length(
                0,
                &WithLen(What::TupleStruct(self.name), 1),
            )),
        }
    }
}

/// A unit struct as `null`.
struct UnitText<'s, 'c> {
    seed: ShapeSeed<'s, 'c>,
    name: &'static str,
}

impl<'de> Visitor<'de> for UnitText<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unit struct {}", self.name)
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.seed.out.push_str("null");
        Ok(())
    }
}

/// An enum as `"Unit"` or `{"Variant": content}`.
struct EnumText<'s, 'c, 'f> {
    seed: ShapeSeed<'s, 'c>,
    name: &'static str,
    names: &'static [&'static str],
    variants: &'f [VariantShape],
    /// Whether a tag none of the variants has reads, as the unit variant
    /// marked `#[serde(other)]`.
    other: bool,
}

/// An enum's tag: its variant's index; one not among them refused, or
/// (an enum with an `other` variant) `Err(tag)` to read as that.
struct VariantKey(&'static [&'static str], bool);

/// A tag read: a variant's index, or a tag none has (an enum with an
/// `other` variant reads it as that).
enum Tag {
    Known(usize),
    Other(String),
}

impl VariantKey {
    fn unknown<E: de::Error>(&self, tag: &str) -> Result<Tag, E> {
        match self.1 {
            true => Ok(Tag::Other(tag.to_string())),
            false => Err(E::unknown_variant(tag, self.0)),
        }
    }
}

impl<'de> DeserializeSeed<'de> for VariantKey {
    type Value = Tag;

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<Tag, D::Error> {
        de.deserialize_identifier(self)
    }
}

impl<'de> Visitor<'de> for VariantKey {
    type Value = Tag;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("variant identifier")
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Tag, E> {
        match usize::try_from(v).ok().filter(|&i| i < self.0.len()) {
            Some(i) => Ok(Tag::Known(i)),
            // An index past the last variant reads as `other`, as serde's
            // derive reads it.
            None if self.1 => Ok(Tag::Other(v.to_string())),
            None => Err(E::invalid_value(
                de::Unexpected::Unsigned(v),
                &format!("variant index 0 <= i < {}", self.0.len()).as_str(),
            )),
        }
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Tag, E> {
        match self.0.iter().position(|n| *n == v) {
            Some(i) => Ok(Tag::Known(i)),
            None => self.unknown(v),
        }
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Tag, E> {
        match self.0.iter().position(|n| n.as_bytes() == v) {
            Some(i) => Ok(Tag::Known(i)),
            None => self.unknown(&String::from_utf8_lossy(v)),
        }
    }
}

impl<'de> Visitor<'de> for EnumText<'_, '_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "enum {}", self.name)
    }

    fn visit_enum<A: EnumAccess<'de>>(mut self, data: A) -> Result<(), A::Error> {
        let (i, variant) = match data.variant_seed(VariantKey(self.names, self.other))? {
            (Tag::Known(i), variant) => (i, variant),
            // A tag the enum has no variant for, read as its `other`
            // (unit) variant: printed as stored.
            (Tag::Other(tag), variant) => {
                variant.unit_variant()?;
                self.seed.out.push_str(&quoted(&tag));
                return Ok(());
            }
        };
        let (Some(tag), Some(shape)) = (self.names.get(i), self.variants.get(i)) else {
            return Err(de::Error::custom("variant index out of range"));
        };
        if let VariantShape::Unit = shape {
            variant.unit_variant()?;
            self.seed.out.push_str(&quoted(tag));
            return Ok(());
        }
        self.seed.out.push('{');
        self.seed.out.push_str(&quoted(tag));
        self.seed.out.push_str(": ");
        match shape {
            VariantShape::Unit => {}
            VariantShape::Newtype(inner) => variant.newtype_variant_seed(self.seed.child(inner))?,
            VariantShape::Tuple(items) => variant.tuple_variant(
                items.len(),
                TupleText {
                    seed: self.seed.child(&UNIT),
                    items,
                    what: What::TupleVariant(self.name, tag),
                },
            )?,
            VariantShape::Struct(fields) => variant.struct_variant(
                fields.names,
                StructText {
                    seed: self.seed.child(&UNIT),
                    fields,
                    what: What::StructVariant(self.name, tag),
                },
            )?,
        }
        self.seed.out.push('}');
        Ok(())
    }
}

#[cfg(test)]
#[path = "shape_user_tests.rs"]
mod tests;
