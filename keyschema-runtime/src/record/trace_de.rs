//! The `Deserializer` methods of a trace's [`Tracer`]: each request fed a
//! sample, its type text noted ([`super::trace`]).

use super::trace_access::{enter, fields_map, tuple, OneMap, OneSeq, OneVariant, Tracer};
use super::trace_state::Traced;
use super::user_types::UserType;
use serde::de::{self, Deserializer, Visitor};

/// The strings a site is fed, in turn, when the type refuses one.
const STRINGS: [&str; 6] = [
    "",
    "0",
    "00000000-0000-0000-0000-000000000000",
    "1970-01-01T00:00:00Z",
    "1970-01-01",
    "00:00:00",
];

/// The byte strings a site is fed, in turn.
const BYTES: [&[u8]; 2] = [&[], &[0; 16]];

macro_rules! scalar {
    ($($method:ident => $visit:ident($sample:expr), $text:literal;)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Traced> {
            self.s.last = $text.to_string();
            visitor.$visit($sample)
        }
    )*};
}

/// Integers, fed 0 and then 1 where the type refuses 0 (`NonZeroU32`).
macro_rules! int {
    ($($method:ident => $visit:ident, $t:ident;)*) => {$(
        fn $method<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value, Traced> {
            self.s.last = stringify!($t).to_string();
            let sample: $t = self.sample(&[0, 1])?;
            let visited = visitor.$visit(sample);
            self.refused(visited)
        }
    )*};
}

impl<'de> Deserializer<'de> for Tracer<'_> {
    type Error = Traced;

    scalar! {
        deserialize_bool => visit_bool(false), "bool";
        deserialize_f32 => visit_f32(0.0), "f32";
        deserialize_f64 => visit_f64(0.0), "f64";
        deserialize_char => visit_char('a'), "char";
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Traced> {
        self.s.last = "()".to_string();
        visitor.visit_unit()
    }

    int! {
        deserialize_i8 => visit_i8, i8;
        deserialize_i16 => visit_i16, i16;
        deserialize_i32 => visit_i32, i32;
        deserialize_i64 => visit_i64, i64;
        deserialize_i128 => visit_i128, i128;
        deserialize_u8 => visit_u8, u8;
        deserialize_u16 => visit_u16, u16;
        deserialize_u32 => visit_u32, u32;
        deserialize_u64 => visit_u64, u64;
        deserialize_u128 => visit_u128, u128;
    }

    fn deserialize_str<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value, Traced> {
        self.s.last = "String".to_string();
        let sample = self.sample(&STRINGS)?;
        let visited = visitor.visit_str(sample);
        self.refused(visited)
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Traced> {
        self.deserialize_str(visitor)
    }

    fn deserialize_bytes<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value, Traced> {
        self.s.last = "ByteBuf".to_string();
        let sample = self.sample(&BYTES)?;
        let visited = visitor.visit_bytes(sample);
        self.refused(visited)
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Traced> {
        self.deserialize_bytes(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Traced> {
        let site = format!("{}?", self.s.site());
        if let Some(inner) = self.s.recursive.get(&site) {
            self.s.last = format!("Option<{inner}>");
            return visitor.visit_none();
        }
        self.s.path.push("?".to_string());
        let visited = visitor.visit_some(Tracer { s: &mut *self.s });
        self.s.path.pop();
        match visited {
            Ok(v) => {
                self.s.last = format!("Option<{}>", self.s.last);
                Ok(v)
            }
            Err(e) => {
                if let Some(name) = self.direct_recursion(&e) {
                    // The next run takes `None` here.
                    self.s.recursive.insert(site, name.to_string());
                    self.s.recursed_at = true;
                }
                Err(e)
            }
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Traced> {
        self.s.containers.insert(name, UserType::Unit);
        self.s.last = name.to_string();
        visitor.visit_unit()
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Traced> {
        enter(self.s, name)?;
        self.s.path.push(name.to_string());
        let visited = visitor.visit_newtype_struct(Tracer { s: &mut *self.s });
        self.s.path.pop();
        self.s.stack.pop();
        let value = visited?;
        let inner = std::mem::replace(&mut self.s.last, name.to_string());
        self.s
            .containers
            .entry(name)
            .or_insert(UserType::Newtype(inner));
        Ok(value)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Traced> {
        let site = format!("{}[]", self.s.site());
        let known = self.s.recursive.get(&site).cloned();
        let mut seq = OneSeq {
            s: &mut *self.s,
            site,
            item: known.clone(),
            given: known.is_some(),
        };
        let value = visitor.visit_seq(&mut seq)?;
        let item = seq.item.unwrap_or_else(|| "()".to_string());
        self.s.last = format!("Vec<{item}>");
        Ok(value)
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, Traced> {
        let (value, items) = tuple(self.s, len, visitor)?;
        self.s.last = match items.as_slice() {
            [one] => format!("({one},)"),
            _ => format!("({})", items.join(", ")),
        };
        Ok(value)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, Traced> {
        enter(self.s, name)?;
        let traced = tuple(self.s, len, visitor);
        self.s.stack.pop();
        let (value, items) = traced?;
        self.s
            .containers
            .entry(name)
            .or_insert(UserType::Tuple(items));
        self.s.last = name.to_string();
        Ok(value)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Traced> {
        let site = format!("{}{{}}", self.s.site());
        let known = self.s.recursive.get(&site).cloned();
        if let Some(entry) = known {
            self.s.last = format!("BTreeMap<{entry}>");
            return visitor.visit_map(de::value::MapDeserializer::<
                std::iter::Empty<((), ())>,
                Traced,
            >::new(std::iter::empty()));
        }
        let mut map = OneMap {
            s: &mut *self.s,
            site,
            given: false,
            key: None,
            value: None,
        };
        let value = visitor.visit_map(&mut map)?;
        let key = map.key.take().unwrap_or_else(|| "String".to_string());
        let item = map.value.take().unwrap_or_else(|| "()".to_string());
        self.s.last = format!("BTreeMap<{key}, {item}>");
        Ok(value)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Traced> {
        enter(self.s, name)?;
        let traced = fields_map(self.s, name, fields, visitor);
        self.s.stack.pop();
        let (value, traced) = traced?;
        self.s
            .containers
            .entry(name)
            .or_insert(UserType::Struct(traced));
        self.s.last = name.to_string();
        Ok(value)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Traced> {
        let entry = self
            .s
            .enums
            .entry(name)
            .or_insert_with(|| (variants.to_vec(), vec![None; variants.len()]));
        let seen: Vec<usize> = (0..entry.1.len())
            .filter(|&i| entry.1[i].is_some())
            .collect();
        if !self.s.enum_order.contains(&name) {
            self.s.enum_order.push(name);
        }
        let index = match self.s.stack.contains(&name) {
            // Inside itself: a variant seen already ends the value.
            true => *seen.first().ok_or(Traced::Recursion {
                name,
                depth: self.s.stack.len(),
            })?,
            false => self.s.choice.get(name).copied().unwrap_or(0),
        };
        let variant = *variants.get(index).ok_or(Traced::Untraceable)?;
        self.s
            .reached
            .entry(name)
            .or_insert_with(|| self.s.choice.clone());
        let foreign = self.s.foreign == Some(name);
        self.s.stack.push(name);
        self.s.path.push(format!("{name}::{variant}"));
        let visited = visitor.visit_enum(OneVariant {
            s: &mut *self.s,
            name,
            variant,
            index,
            foreign,
        });
        self.s.path.pop();
        self.s.stack.pop();
        self.s.last = name.to_string();
        visited
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Traced> {
        self.deserialize_str(visitor)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Traced> {
        self.s.last = "()".to_string();
        visitor.visit_unit()
    }

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Traced> {
        Err(Traced::Untraceable)
    }

    fn is_human_readable(&self) -> bool {
        false
    }
}
