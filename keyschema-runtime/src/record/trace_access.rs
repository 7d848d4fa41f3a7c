//! The deserializer a trace runs a type's `Deserialize` against, and the
//! sequences, maps and enum accesses it hands the type's visitors
//! ([`super::trace`]): no data, a sample for each request, and the type
//! text of what was asked noted in [`State::last`]. Its `Deserializer`
//! methods are in `trace_de.rs`.

use super::trace_state::{State, Traced, FOREIGN};
use super::user_types::{UserField, VariantForm};
use serde::de::{
    DeserializeSeed, EnumAccess, IntoDeserializer, MapAccess, SeqAccess, VariantAccess, Visitor,
};

/// The deserializer of one value.
pub(super) struct Tracer<'s> {
    pub(super) s: &'s mut State,
}

impl<'s> Tracer<'s> {
    pub(super) fn new(s: &'s mut State) -> Self {
        Tracer { s }
    }

    /// The sample for this site out of `samples`; a refusal of it moves
    /// the next run to the next one, and a site out of samples fails the
    /// trace.
    pub(super) fn sample<T: Copy>(&mut self, samples: &[T]) -> Result<T, Traced> {
        let site = self.s.site();
        let i = self.s.sample.get(&site).copied().unwrap_or(0);
        self.s.last_site = Some(site);
        samples.get(i).copied().ok_or(Traced::Untraceable)
    }

    /// `visited`, noting a refusal at this site.
    pub(super) fn refused<V>(&mut self, visited: Result<V, Traced>) -> Result<V, Traced> {
        if let Err(Traced::Refused(_)) = visited {
            self.s
                .refused_at
                .get_or_insert_with(|| self.s.path.join("/"));
        }
        visited
    }

    /// Traces one value under `segment` of the path; its type text is in
    /// `last` after.
    pub(super) fn child<'de, T: DeserializeSeed<'de>>(
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
    pub(super) fn direct_recursion(&self, error: &Traced) -> Option<&'static str> {
        match error {
            Traced::Recursion { name, depth } if *depth == self.s.stack.len() => Some(name),
            _ => None,
        }
    }
}

/// Enters the container `name`: a struct met inside itself is a
/// recursion, told to the site that holds it.
pub(super) fn enter(s: &mut State, name: &'static str) -> Result<(), Traced> {
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
pub(super) fn tuple<'de, V: Visitor<'de>>(
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
pub(super) fn fields_map<'de, V: Visitor<'de>>(
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
pub(super) struct OneSeq<'a> {
    pub(super) s: &'a mut State,
    pub(super) site: String,
    pub(super) item: Option<String>,
    pub(super) given: bool,
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
pub(super) struct Exact<'a> {
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
pub(super) struct OneMap<'a> {
    pub(super) s: &'a mut State,
    pub(super) site: String,
    pub(super) given: bool,
    pub(super) key: Option<String>,
    pub(super) value: Option<String>,
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
pub(super) struct Fields<'a> {
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
pub(super) struct OneVariant<'a> {
    pub(super) s: &'a mut State,
    pub(super) name: &'static str,
    pub(super) variant: &'static str,
    pub(super) index: usize,
    /// Whether this run feeds the enum a tag it has no variant for.
    pub(super) foreign: bool,
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
