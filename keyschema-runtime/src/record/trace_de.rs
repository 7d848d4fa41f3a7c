//! The deserializer a trace runs a type's `Deserialize` against
//! ([`super::trace`]): it holds no data, feeds each request a sample and
//! notes the type text of what was asked in [`State::last`].

use super::trace::State;
use super::user_types::{UserField, UserType, VariantForm};
use serde::de::{
    self, DeserializeSeed, Deserializer, EnumAccess, IntoDeserializer, MapAccess, SeqAccess,
    VariantAccess, Visitor,
};
use std::fmt;

/// Why a run stopped.
#[derive(Debug)]
pub(super) enum Traced {
    /// A struct met inside itself, at this depth of the stack.
    Recursion { name: &'static str, depth: usize },
    /// The type refused a sample (its `Deserialize` validates), in its
    /// words.
    Refused(String),
    /// The type asked for whatever the format holds, or something the
    /// trace does not follow.
    Untraceable,
}

impl fmt::Display for Traced {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self:?}")
    }
}

impl std::error::Error for Traced {}

impl de::Error for Traced {
    fn custom<T: fmt::Display>(message: T) -> Self {
        Traced::Refused(message.to_string())
    }
}

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

/// The deserializer of one value.
pub(super) struct Tracer<'s> {
    s: &'s mut State,
}

impl<'s> Tracer<'s> {
    pub(super) fn new(s: &'s mut State) -> Self {
        Tracer { s }
    }

    /// The sample for this site out of `samples`; a refusal of it moves
    /// the next run to the next one, and a site out of samples fails the
    /// trace.
    fn sample<T: Copy>(&mut self, samples: &[T]) -> Result<T, Traced> {
        let site = self.s.site();
        let i = self.s.sample.get(&site).copied().unwrap_or(0);
        self.s.last_site = Some(site);
        samples.get(i).copied().ok_or(Traced::Untraceable)
    }

    /// `visited`, noting a refusal at this site.
    fn refused<V>(&mut self, visited: Result<V, Traced>) -> Result<V, Traced> {
        if let Err(Traced::Refused(_)) = visited {
            self.s
                .refused_at
                .get_or_insert_with(|| self.s.path.join("/"));
        }
        visited
    }

    /// Traces one value under `segment` of the path; its type text is in
    /// `last` after.
    fn child<'de, T: DeserializeSeed<'de>>(
        s: &mut State,
        segment: &str,
        seed: T,
    ) -> Result<T::Value, Traced> {
        s.path.push(segment.to_string());
        let value = seed.deserialize(Tracer { s: &mut *s });
        s.path.pop();
        value
    }

    /// A recursion met directly inside the container at this depth: the
    /// content's type name.
    fn direct_recursion(&self, error: &Traced) -> Option<&'static str> {
        match error {
            Traced::Recursion { name, depth } if *depth == self.s.stack.len() => Some(name),
            _ => None,
        }
    }
}

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

/// Enters the container `name`: a struct met inside itself is a
/// recursion, told to the site that holds it.
fn enter(s: &mut State, name: &'static str) -> Result<(), Traced> {
    if s.stack.contains(&name) {
        return Err(Traced::Recursion {
            name,
            depth: s.stack.len(),
        });
    }
    s.stack.push(name);
    Ok(())
}

/// A tuple's `len` elements traced; their type texts.
fn tuple<'de, V: Visitor<'de>>(
    s: &mut State,
    len: usize,
    visitor: V,
) -> Result<(V::Value, Vec<String>), Traced> {
    let mut seq = Exact {
        s,
        len,
        items: Vec::new(),
    };
    let value = visitor.visit_seq(&mut seq)?;
    Ok((value, seq.items))
}

/// A struct's (or struct variant's) fields traced as a map of them, the
/// field this run leaves out left out (`owner` names it).
fn fields_map<'de, V: Visitor<'de>>(
    s: &mut State,
    owner: &'static str,
    fields: &'static [&'static str],
    visitor: V,
) -> Result<(V::Value, Vec<UserField>), Traced> {
    s.reached.entry(owner).or_insert_with(|| s.choice.clone());
    let mut map = Fields {
        s,
        owner,
        fields,
        at: 0,
        fed: Vec::new(),
        extra: false,
        traced: Vec::new(),
    };
    match visitor.visit_map(&mut map) {
        Ok(value) => Ok((value, map.traced)),
        Err(Traced::Refused(message)) => {
            // `duplicate field `P``: the name fed last and the one fed
            // before it are names of one field, `P` (serde lists each
            // field's names together); the next run leaves the last out.
            if let (Some(primary), [.., first, last]) = (duplicate(&message), map.fed.as_slice()) {
                let (first, last) = (*first, *last);
                map.s.aliases.push((owner, last, first));
                map.s.primaries.push((owner, first, primary));
                map.s.retry = true;
            }
            Err(Traced::Refused(message))
        }
        Err(e) => Err(e),
    }
}

/// A sequence of one element (none where its element is a struct met
/// inside itself).
struct OneSeq<'a> {
    s: &'a mut State,
    site: String,
    item: Option<String>,
    given: bool,
}

impl<'de> SeqAccess<'de> for OneSeq<'_> {
    type Error = Traced;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Traced> {
        if self.given {
            return Ok(None);
        }
        self.given = true;
        let depth = self.s.stack.len();
        match Tracer::child(self.s, "[]", seed) {
            Ok(v) => {
                self.item = Some(std::mem::take(&mut self.s.last));
                Ok(Some(v))
            }
            Err(Traced::Recursion { name, depth: at }) if at == depth => {
                // An empty sequence of it.
                self.s.recursive.insert(self.site.clone(), name.to_string());
                self.item = Some(name.to_string());
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }
}

/// A tuple's elements, exactly `len`.
struct Exact<'a> {
    s: &'a mut State,
    len: usize,
    items: Vec<String>,
}

impl<'de> SeqAccess<'de> for Exact<'_> {
    type Error = Traced;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Traced> {
        if self.items.len() == self.len {
            return Ok(None);
        }
        let value = Tracer::child(self.s, &format!(".{}", self.items.len()), seed)?;
        self.items.push(std::mem::take(&mut self.s.last));
        Ok(Some(value))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.len - self.items.len())
    }
}

/// A map of one entry (none where its value is a struct met inside
/// itself).
struct OneMap<'a> {
    s: &'a mut State,
    site: String,
    given: bool,
    key: Option<String>,
    value: Option<String>,
}

impl<'de> MapAccess<'de> for OneMap<'_> {
    type Error = Traced;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Traced> {
        if self.given {
            return Ok(None);
        }
        self.given = true;
        let key = Tracer::child(self.s, "{key}", seed)?;
        self.key = Some(std::mem::take(&mut self.s.last));
        Ok(Some(key))
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, Traced> {
        let depth = self.s.stack.len();
        match Tracer::child(self.s, "{}", seed) {
            Ok(v) => {
                self.value = Some(std::mem::take(&mut self.s.last));
                Ok(v)
            }
            Err(e) => {
                if let Traced::Recursion { name, depth: at } = e {
                    if at == depth {
                        // The next run takes an empty map here.
                        let key = self.key.clone().unwrap_or_else(|| "String".into());
                        self.s
                            .recursive
                            .insert(self.site.clone(), format!("{key}, {name}"));
                        self.s.recursed_at = true;
                    }
                }
                Err(e)
            }
        }
    }
}

/// A struct's fields as a map, each key its name: a name found to be
/// another name of a field fed before it (`#[serde(alias)]`, which serde
/// lists among the fields) left out, and the key no field has fed last in
/// a run that asks whether the struct refuses one.
struct Fields<'a> {
    s: &'a mut State,
    owner: &'static str,
    fields: &'static [&'static str],
    at: usize,
    /// The names fed, in order.
    fed: Vec<&'static str>,
    /// Whether the extra key was fed.
    extra: bool,
    traced: Vec<UserField>,
}

/// The key a run feeds a struct that names no such field, and the tag it
/// feeds an enum that has no such variant.
pub(super) const FOREIGN: &str = "\u{1}keyschema-probe";

impl Fields<'_> {
    /// The next name to feed, past the names left out.
    fn next_name(&mut self) -> Option<&'static str> {
        loop {
            let name = self.fields.get(self.at).copied()?;
            let alias = self
                .s
                .aliases
                .iter()
                .any(|(o, n, _)| *o == self.owner && *n == name);
            if alias {
                self.at += 1;
                continue;
            }
            if self.s.omit == Some((self.owner, name)) {
                self.s.omitted = true;
                self.at += 1;
                continue;
            }
            return Some(name);
        }
    }
}

impl<'de> MapAccess<'de> for Fields<'_> {
    type Error = Traced;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Traced> {
        let Some(name) = self.next_name() else {
            if self.s.extra == Some(self.owner) && !self.extra {
                self.extra = true;
                self.s.extra_fed = true;
                return seed.deserialize(FOREIGN.into_deserializer()).map(Some);
            }
            return Ok(None);
        };
        self.fed.push(name);
        seed.deserialize(name.into_deserializer()).map(Some)
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, Traced> {
        if self.extra {
            return seed.deserialize(Tracer::new(&mut *self.s));
        }
        let name = self
            .fields
            .get(self.at)
            .copied()
            .ok_or(Traced::Untraceable)?;
        self.at += 1;
        let value = Tracer::child(self.s, name, seed)?;
        self.traced.push(UserField {
            name: name.to_string(),
            type_name: std::mem::take(&mut self.s.last),
            optional: false,
            aliases: Vec::new(),
        });
        Ok(value)
    }
}

/// The field a serde `duplicate field `P`` message names.
fn duplicate(message: &str) -> Option<String> {
    let rest = message.strip_prefix("duplicate field `")?;
    rest.strip_suffix('`').map(str::to_string)
}

/// The variant a run takes of an enum.
struct OneVariant<'a> {
    s: &'a mut State,
    name: &'static str,
    variant: &'static str,
    index: usize,
    /// Whether this run feeds the enum a tag it has no variant for.
    foreign: bool,
}

impl<'de, 'a> EnumAccess<'de> for OneVariant<'a> {
    type Error = Traced;
    type Variant = Self;

    fn variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<(T::Value, Self), Traced> {
        if self.foreign {
            self.s.foreign_fed = true;
            let tag = seed.deserialize(FOREIGN.into_deserializer())?;
            return Ok((tag, self));
        }
        let tag = seed.deserialize(self.variant.into_deserializer())?;
        Ok((tag, self))
    }
}

impl OneVariant<'_> {
    /// Notes the variant's form (not of the tag it has no variant for).
    fn seen(&mut self, form: VariantForm) {
        if self.foreign {
            return;
        }
        if let Some(slot) = self
            .s
            .enums
            .get_mut(self.name)
            .and_then(|(_, forms)| forms.get_mut(self.index))
        {
            slot.get_or_insert(form);
        }
    }
}

impl<'de> VariantAccess<'de> for OneVariant<'_> {
    type Error = Traced;

    fn unit_variant(mut self) -> Result<(), Traced> {
        self.seen(VariantForm::Unit);
        Ok(())
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(
        mut self,
        seed: T,
    ) -> Result<T::Value, Traced> {
        let value = Tracer::child(self.s, "0", seed)?;
        let inner = std::mem::take(&mut self.s.last);
        self.seen(VariantForm::Newtype(inner));
        Ok(value)
    }

    fn tuple_variant<V: Visitor<'de>>(
        mut self,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, Traced> {
        let (value, items) = tuple(self.s, len, visitor)?;
        self.seen(VariantForm::Tuple(items));
        Ok(value)
    }

    fn struct_variant<V: Visitor<'de>>(
        mut self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Traced> {
        let owner = crate::dynamic::intern(&format!("{}::{}", self.name, self.variant));
        let (value, traced) = fields_map(self.s, owner, fields, visitor)?;
        self.seen(VariantForm::Struct(traced));
        Ok(value)
    }
}
