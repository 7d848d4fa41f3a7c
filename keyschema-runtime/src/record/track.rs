//! A serde `Deserializer` around a store's own that reads every value
//! alike at every depth, and remembers where a read failed.
//!
//! Every typed read of a value field goes through [`Track`]: around the
//! MessagePack reader of the ordered stores and DynamoDB, and around a
//! Bigtable cell's. It passes each request on, and on the way
//!
//! - refuses what serde's own visitors would bend: a finite number beyond
//!   an `f32`'s range (which `as f32` makes an infinity), bytes read as a
//!   string (a DynamoDB `B` into a `String` field), a string or a
//!   sequence read as bytes (an `S` or an `L` into a `serde_bytes` field);
//! - keeps the path it is at (each array element and map entry it steps
//!   into) and, when a read fails, the path and what was asked there
//!   ([`Trail::failure`]), so that the message can show the value as it is
//!   stored, and where ([`super::misfit`]).
//!
//! A good value pays a push and a pop per nested element, nothing more.

use super::probe::Asks;
use super::wide::BySign;
use serde::de::{
    self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, Unexpected,
    VariantAccess, Visitor,
};
use std::cell::RefCell;

/// One step into a nested value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    /// The element at this index of an array.
    Elem(usize),
    /// The value of the entry at this index (in stored order) of a map;
    /// an enum variant's content is entry 0 of its one-entry map.
    Entry(usize),
}

/// Where a read is, and where it first failed.
#[derive(Debug, Default)]
pub(crate) struct Trail {
    path: RefCell<Vec<Step>>,
    failed: RefCell<Option<(Vec<Step>, Asks)>>,
}

impl Trail {
    /// The path at the deepest request that failed, and what it asked.
    pub(crate) fn failure(&self) -> Option<(Vec<Step>, Asks)> {
        self.failed.borrow().clone()
    }

    /// The path where the read now is.
    pub(crate) fn path(&self) -> Vec<Step> {
        self.path.borrow().clone()
    }

    /// `result`, noting the failure at the current path when it is one
    /// and none deeper was noted.
    #[inline]
    fn note<T, E>(&self, asked: Asks, result: Result<T, E>) -> Result<T, E> {
        if result.is_err() {
            let mut failed = self.failed.borrow_mut();
            if failed.is_none() {
                *failed = Some((self.path.borrow().clone(), asked));
            }
        }
        result
    }

    /// `read` one step in, at `step`.
    #[inline]
    fn within<T>(&self, step: Step, read: impl FnOnce() -> T) -> T {
        self.path.borrow_mut().push(step);
        let out = read();
        self.path.borrow_mut().pop();
        out
    }
}

/// The largest magnitude an `f32` holds, as text.
pub(crate) const F32_MAX: &str = "3.4028235e38";

/// A number as text: plain for magnitudes from 1e-7 up to 1e21, in
/// exponent form outside (`1e39`), its shortest form either way.
pub(crate) fn number_shown(v: f64) -> String {
    if v == 0.0 || (1e-7..1e21).contains(&v.abs()) || !v.is_finite() {
        v.to_string()
    } else {
        format!("{v:e}")
    }
}

/// Whether `v` is finite and rounds to an infinity as an `f32`: beyond its
/// range, where `as f32` would bend it.
pub(crate) fn beyond_f32(v: f64) -> bool {
    v.is_finite() && (v as f32).is_infinite()
}

/// The refusal of `shown` (a number as stored) for an `f32`.
pub(crate) fn not_an_f32(shown: &str) -> String {
    format!(
        "the number {shown} does not fit an f32 (whose largest magnitude is {F32_MAX}): declare the field f64"
    )
}

/// A `Deserializer` `de` whose reads are tracked on `trail`.
pub(crate) struct Track<'t, D> {
    de: D,
    trail: &'t Trail,
    /// Whether `de` reads a value nested in a field (MessagePack), not the
    /// field itself (whose store's deserializer reads it).
    nested: bool,
}

impl<'t, D> Track<'t, D> {
    /// `de`, a field's, tracked on `trail`.
    #[inline]
    pub(crate) fn new(de: D, trail: &'t Trail) -> Self {
        Track {
            de,
            trail,
            nested: false,
        }
    }
}

/// An integer type's [`Asks`].
macro_rules! int {
    ($t:ty) => {
        Asks::Int {
            name: stringify!($t),
            min: i128::from(<$t>::MIN),
            max: i128::from(<$t>::MAX),
        }
    };
}

/// Methods passed on with the visitor wrapped, noting what they asked.
macro_rules! pass {
    ($($method:ident => $asks:expr, $want:expr);* $(;)?) => {$(
        #[inline]
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
            let visitor = Wrap { visitor, trail: self.trail, want: $want, nested: self.nested };
            self.trail.note($asks, self.de.$method(visitor))
        }
    )*};
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Track<'_, D> {
    type Error = D::Error;

    pass! {
        deserialize_any => Asks::Any, Want::Any;
        deserialize_bool => Asks::Bool, Want::Any;
        deserialize_i8 => int!(i8), Want::Any;
        deserialize_i16 => int!(i16), Want::Any;
        deserialize_i32 => int!(i32), Want::Any;
        deserialize_i64 => int!(i64), Want::Any;
        deserialize_u8 => int!(u8), Want::Any;
        deserialize_u16 => int!(u16), Want::Any;
        deserialize_u32 => int!(u32), Want::Any;
        deserialize_u64 => int!(u64), Want::Any;
        deserialize_f32 => Asks::F32, Want::F32;
        deserialize_f64 => Asks::Float, Want::Any;
        deserialize_char => Asks::Char, Want::Text;
        deserialize_str => Asks::Str, Want::Text;
        deserialize_string => Asks::Str, Want::Text;
        deserialize_bytes => Asks::Bytes, Want::Bytes;
        deserialize_byte_buf => Asks::Bytes, Want::Bytes;
        deserialize_option => Asks::Other, Want::Any;
        deserialize_unit => Asks::Unit, Want::Any;
        deserialize_seq => Asks::Seq, Want::Any;
        deserialize_map => Asks::Map, Want::Any;
        deserialize_identifier => Asks::Other, Want::Any;
        deserialize_ignored_any => Asks::Other, Want::Any;
    }

    /// A nested 128-bit integer is read by its sign (rmp-serde would read
    /// a stored `-1` into a `u128` as 2^128 - 1), or from its own 16
    /// bytes; a field's own by its store's deserializer.
    fn deserialize_i128<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        let visitor = Wrap::new(visitor, self.trail, self.nested);
        let read = if self.nested {
            self.de.deserialize_any(BySign::new(visitor, true))
        } else {
            self.de.deserialize_i128(visitor)
        };
        self.trail.note(Asks::Wide { signed: true }, read)
    }

    /// As `deserialize_i128`, unsigned.
    fn deserialize_u128<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        let visitor = Wrap::new(visitor, self.trail, self.nested);
        let read = if self.nested {
            self.de.deserialize_any(BySign::new(visitor, false))
        } else {
            self.de.deserialize_u128(visitor)
        };
        self.trail.note(Asks::Wide { signed: false }, read)
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        let visitor = Wrap::new(visitor, self.trail, self.nested);
        let read = self.de.deserialize_unit_struct(name, visitor);
        self.trail.note(Asks::Unit, read)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        let visitor = Wrap::new(visitor, self.trail, self.nested);
        let read = self.de.deserialize_newtype_struct(name, visitor);
        self.trail.note(Asks::Other, read)
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        let visitor = Wrap::new(visitor, self.trail, self.nested);
        let read = self.de.deserialize_tuple(len, visitor);
        self.trail.note(Asks::Seq, read)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        let visitor = Wrap::new(visitor, self.trail, self.nested);
        let read = self.de.deserialize_tuple_struct(name, len, visitor);
        self.trail.note(Asks::Seq, read)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        let visitor = Wrap::new(visitor, self.trail, self.nested);
        let read = self.de.deserialize_struct(name, fields, visitor);
        self.trail.note(Asks::Map, read)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        let visitor = Wrap::new(visitor, self.trail, self.nested);
        let read = self.de.deserialize_enum(name, variants, visitor);
        self.trail.note(Asks::Enum, read)
    }

    fn is_human_readable(&self) -> bool {
        self.de.is_human_readable()
    }
}

/// What a request refuses that serde's visitors would take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Want {
    /// Nothing more than the visitor refuses.
    Any,
    /// An `f32`: no finite number beyond its range.
    F32,
    /// Text (a string or char): no bytes.
    Text,
    /// Bytes: no string, no sequence.
    Bytes,
}

/// A visitor whose nested values are tracked too.
struct Wrap<'t, V> {
    visitor: V,
    trail: &'t Trail,
    want: Want,
    /// The [`Track`]'s `nested`, for the deserializers it visits with.
    nested: bool,
}

impl<'t, V> Wrap<'t, V> {
    #[inline]
    fn new(visitor: V, trail: &'t Trail, nested: bool) -> Self {
        Wrap {
            visitor,
            trail,
            want: Want::Any,
            nested,
        }
    }
}

/// Visits passed on as they are.
macro_rules! plain {
    ($($method:ident($t:ty)),* $(,)?) => {$(
        #[inline]
        fn $method<E: de::Error>(self, v: $t) -> Result<V::Value, E> {
            self.visitor.$method(v)
        }
    )*};
}

impl<'de, V: Visitor<'de>> Visitor<'de> for Wrap<'_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.visitor.expecting(f)
    }

    plain! {
        visit_bool(bool), visit_i8(i8), visit_i16(i16), visit_i32(i32), visit_i64(i64),
        visit_i128(i128), visit_u8(u8), visit_u16(u16), visit_u32(u32), visit_u64(u64),
        visit_u128(u128), visit_f32(f32), visit_char(char),
    }

    #[inline]
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<V::Value, E> {
        if self.want == Want::F32 && beyond_f32(v) {
            return Err(E::custom(not_an_f32(&number_shown(v))));
        }
        self.visitor.visit_f64(v)
    }

    #[inline]
    fn visit_str<E: de::Error>(self, v: &str) -> Result<V::Value, E> {
        if self.want == Want::Bytes {
            return Err(E::invalid_type(Unexpected::Str(v), &self.visitor));
        }
        self.visitor.visit_str(v)
    }

    #[inline]
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<V::Value, E> {
        if self.want == Want::Bytes {
            return Err(E::invalid_type(Unexpected::Str(v), &self.visitor));
        }
        self.visitor.visit_borrowed_str(v)
    }

    #[inline]
    fn visit_string<E: de::Error>(self, v: String) -> Result<V::Value, E> {
        if self.want == Want::Bytes {
            return Err(E::invalid_type(Unexpected::Str(&v), &self.visitor));
        }
        self.visitor.visit_string(v)
    }

    #[inline]
    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<V::Value, E> {
        if self.want == Want::Text {
            return Err(E::invalid_type(Unexpected::Bytes(v), &self.visitor));
        }
        self.visitor.visit_bytes(v)
    }

    #[inline]
    fn visit_borrowed_bytes<E: de::Error>(self, v: &'de [u8]) -> Result<V::Value, E> {
        if self.want == Want::Text {
            return Err(E::invalid_type(Unexpected::Bytes(v), &self.visitor));
        }
        self.visitor.visit_borrowed_bytes(v)
    }

    #[inline]
    fn visit_byte_buf<E: de::Error>(self, v: Vec<u8>) -> Result<V::Value, E> {
        if self.want == Want::Text {
            return Err(E::invalid_type(Unexpected::Bytes(&v), &self.visitor));
        }
        self.visitor.visit_byte_buf(v)
    }

    #[inline]
    fn visit_none<E: de::Error>(self) -> Result<V::Value, E> {
        self.visitor.visit_none()
    }

    #[inline]
    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        self.visitor.visit_unit()
    }

    #[inline]
    fn visit_some<D: Deserializer<'de>>(self, de: D) -> Result<V::Value, D::Error> {
        self.visitor.visit_some(Track {
            de,
            trail: self.trail,
            nested: self.nested,
        })
    }

    #[inline]
    fn visit_newtype_struct<D: Deserializer<'de>>(self, de: D) -> Result<V::Value, D::Error> {
        self.visitor.visit_newtype_struct(Track {
            de,
            trail: self.trail,
            nested: self.nested,
        })
    }

    #[inline]
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        // serde_bytes reads a sequence of integers as bytes: not here.
        if self.want == Want::Bytes {
            return Err(de::Error::invalid_type(Unexpected::Seq, &self.visitor));
        }
        self.visitor.visit_seq(Seq {
            seq,
            trail: self.trail,
            at: 0,
        })
    }

    #[inline]
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.visitor.visit_map(Map {
            map,
            trail: self.trail,
            at: 0,
        })
    }

    #[inline]
    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<V::Value, A::Error> {
        self.visitor.visit_enum(Enum {
            data,
            trail: self.trail,
        })
    }
}

/// A seed whose value is read tracked.
struct Seed<'t, S> {
    seed: S,
    trail: &'t Trail,
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for Seed<'_, S> {
    type Value = S::Value;

    #[inline]
    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<S::Value, D::Error> {
        self.seed.deserialize(Track {
            de,
            trail: self.trail,
            nested: true,
        })
    }
}

/// An array's elements, each at its index.
struct Seq<'t, A> {
    seq: A,
    trail: &'t Trail,
    at: usize,
}

impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for Seq<'_, A> {
    type Error = A::Error;

    #[inline]
    fn next_element_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, A::Error> {
        let (trail, at) = (self.trail, self.at);
        self.at += 1;
        let seed = Seed { seed, trail };
        trail.within(Step::Elem(at), || self.seq.next_element_seed(seed))
    }

    fn size_hint(&self) -> Option<usize> {
        self.seq.size_hint()
    }
}

/// A map's entries, each value at its entry's index (keys are read as
/// they are: a key that does not read fails the map).
struct Map<'t, A> {
    map: A,
    trail: &'t Trail,
    at: usize,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Map<'_, A> {
    type Error = A::Error;

    #[inline]
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        self.map.next_key_seed(seed)
    }

    #[inline]
    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, A::Error> {
        let (trail, at) = (self.trail, self.at);
        self.at += 1;
        let seed = Seed { seed, trail };
        trail.within(Step::Entry(at), || self.map.next_value_seed(seed))
    }

    fn size_hint(&self) -> Option<usize> {
        self.map.size_hint()
    }
}

/// An enum: its variant's content is the value of its one-entry map.
struct Enum<'t, A> {
    data: A,
    trail: &'t Trail,
}

impl<'de, 't, A: EnumAccess<'de>> EnumAccess<'de> for Enum<'t, A> {
    type Error = A::Error;
    type Variant = Variant<'t, A::Variant>;

    #[inline]
    fn variant_seed<S: DeserializeSeed<'de>>(
        self,
        seed: S,
    ) -> Result<(S::Value, Self::Variant), A::Error> {
        let (value, variant) = self.data.variant_seed(seed)?;
        Ok((
            value,
            Variant {
                variant,
                trail: self.trail,
            },
        ))
    }
}

/// A variant's content, tracked as entry 0.
struct Variant<'t, A> {
    variant: A,
    trail: &'t Trail,
}

impl<'de, A: VariantAccess<'de>> VariantAccess<'de> for Variant<'_, A> {
    type Error = A::Error;

    fn unit_variant(self) -> Result<(), A::Error> {
        self.variant.unit_variant()
    }

    fn newtype_variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<S::Value, A::Error> {
        let trail = self.trail;
        let seed = Seed { seed, trail };
        trail.within(Step::Entry(0), || self.variant.newtype_variant_seed(seed))
    }

    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, A::Error> {
        let trail = self.trail;
        let visitor = Wrap::new(visitor, trail, true);
        trail.within(Step::Entry(0), || {
            trail.note(Asks::Seq, self.variant.tuple_variant(len, visitor))
        })
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, A::Error> {
        let trail = self.trail;
        let visitor = Wrap::new(visitor, trail, true);
        trail.within(Step::Entry(0), || {
            trail.note(Asks::Map, self.variant.struct_variant(fields, visitor))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// IEEE 754 rounds to nearest, ties to even: `f32::MAX` (an odd
    /// significand) plus half its last place is a tie that rounds to an
    /// infinity, and anything below it rounds to `f32::MAX`.
    #[test]
    fn the_f32_range_ends_where_rounding_gives_an_infinity() {
        let tie = f64::from(f32::MAX) + 2f64.powi(103);
        assert!(beyond_f32(tie) && beyond_f32(-tie) && beyond_f32(f64::MAX));
        assert!(!beyond_f32(tie.next_down()) && !beyond_f32(f64::from(f32::MAX)));
        assert!(!beyond_f32(f64::INFINITY) && !beyond_f32(f64::NAN) && !beyond_f32(1e-300));
        assert_eq!(number_shown(1e39), "1e39");
        assert_eq!(number_shown(-3.5e38), "-3.5e38");
        assert_eq!(number_shown(0.25), "0.25");
    }
}
