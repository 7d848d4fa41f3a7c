//! A row's value fields as DynamoDB attributes, and back: each value field
//! (`#[rowkey(value)]`) its own attribute in DynamoDB's own types, so that a
//! console, boto3, a filter expression or a GSI reads it; and each key
//! field, by default, its own attribute too.
//!
//! Whole rows cross the store boundary as the ordered stores' value, one
//! MessagePack map from field name to value ([`crate::record::msgpack`]);
//! this file turns that map into attributes on a write (the item's
//! attributes are turned back into such a map on a read by
//! [`super::field_map`]). The mapping (specified in
//! `docs/ENCODING.md`, "Value fields on DynamoDB"):
//!
//! | serde / MessagePack | DynamoDB |
//! |---|---|
//! | integer, float | `N` (decimal text; a float must be finite and within DynamoDB's range) |
//! | string | `S` |
//! | bytes (`serde_bytes`) | `B` |
//! | bool | `BOOL` |
//! | nil (`None`, unit) | no attribute (`NULL` inside a list or map) |
//! | sequence | `L` |
//! | map, struct | `M` (keys must be strings) |
//!
//! Read back, `N` is an integer when it is one and fits 64 bits, a float
//! otherwise; string, number and binary sets written by other programs read
//! as sequences. The map ends with the item's notes (the empty name): the
//! text of such a float's `N` and the type of such a set, at any depth, so
//! that a field that does not read is reported as DynamoDB holds it
//! ([`crate::record::dynamo_words`]).

use crate::dynamic::{DynSchema, Value};
use crate::record::ValueError;
use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue;
use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use std::collections::HashMap;
use std::fmt;

/// DynamoDB's limit on nested lists and maps: 32 levels.
pub const MAX_DEPTH: usize = 32;

/// The smallest magnitude DynamoDB's `N` holds, other than zero.
const MIN_NUMBER: f64 = 1e-130;
/// The first magnitude above DynamoDB's `N` range, whose largest number is
/// 9.9999999999999999999999999999999999999E+125 (38 nines): no `f64` lies
/// between the two, so the largest float below this one is held.
const MAX_NUMBER: f64 = 1e126;
/// DynamoDB's number range, in its documentation's words ("Data types").
const RANGE: &str = "positive 1E-130 to 9.9999999999999999999999999999999999999E+125, negative -9.9999999999999999999999999999999999999E+125 to -1E-130, and zero";

/// The attributes of a row's value fields, from the field map `value`; an
/// error names the field DynamoDB cannot hold, and why.
pub(super) fn to_attributes(
    value: &[u8],
) -> Result<Vec<(String, AttributeValue)>, (String, String)> {
    let not_fields = |e: ValueError| (String::new(), e.to_string());
    let mut reader = crate::record::msgpack::MapReader::new(value).map_err(not_fields)?;
    let mut out = Vec::new();
    while let Some(name) = reader.next_name().map_err(not_fields)? {
        let attribute = reader
            .value_seed(Level(1))
            .map_err(|e| (name.to_string(), e.to_string()))?;
        // A nil field (`None`, unit) has no attribute, as a `None` key
        // field: a GSI over it is then sparse (DynamoDB refuses `NULL`
        // for an index key), and a read takes the missing field as nil.
        if matches!(attribute, AttributeValue::Null(_)) {
            continue;
        }
        out.push((name.to_string(), attribute));
    }
    Ok(out)
}

/// The readable attributes of a key's fields: each field of `key` under
/// its own name, in DynamoDB's type for it (`N`, `S`, `B`, `BOOL`). A
/// `None` field has no attribute (a GSI over it is sparse), nor has a
/// float `N` cannot hold (NaN, infinities, a nonzero magnitude outside
/// 1E-130 to 9.9999999999999999999999999999999999999E+125) or an integer
/// of more than 38 digits.
pub(super) fn key_field_attributes(
    schema: &DynSchema,
    key: &[u8],
) -> Vec<(String, AttributeValue)> {
    let Ok((values, _)) = schema.decode_stored(key) else {
        return Vec::new();
    };
    schema
        .fields()
        .iter()
        .zip(values)
        .filter_map(|(field, value)| Some((field.name().to_string(), key_attribute(value)?)))
        .collect()
}

pub(super) fn key_attribute(value: Value) -> Option<AttributeValue> {
    let number = |text: String| {
        let digits = text.bytes().filter(u8::is_ascii_digit).count();
        (digits <= 38).then_some(AttributeValue::N(text))
    };
    match value {
        Value::U8(v) => number(v.to_string()),
        Value::U16(v) => number(v.to_string()),
        Value::U32(v) => number(v.to_string()),
        Value::U64(v) => number(v.to_string()),
        Value::U128(v) => number(v.to_string()),
        Value::I8(v) => number(v.to_string()),
        Value::I16(v) => number(v.to_string()),
        Value::I32(v) => number(v.to_string()),
        Value::I64(v) => number(v.to_string()),
        Value::I128(v) => number(v.to_string()),
        Value::F32(v) => float32(v).ok().map(AttributeValue::N),
        Value::F64(v) => float(v).ok().map(AttributeValue::N),
        Value::Bool(v) => Some(AttributeValue::Bool(v)),
        Value::Char(v) => Some(AttributeValue::S(v.to_string())),
        Value::String(v) => Some(AttributeValue::S(v)),
        Value::Bytes(v) => Some(AttributeValue::B(Blob::new(v))),
        Value::Option(v) => key_attribute(*v?),
        // As they render: a UUID hyphenated, an instant in RFC 3339 (which
        // sorts as a string for years 0000..=9999), a date, a variant's name.
        v @ (Value::Uuid(_)
        | Value::Timestamp(..)
        | Value::DateTime(..)
        | Value::Date(_)
        | Value::Enum(_)) => Some(AttributeValue::S(v.to_text())),
    }
}

/// A float as DynamoDB's `N`, or why it cannot be one.
fn float(v: f64) -> Result<String, String> {
    check_float(v)?;
    Ok(number_text(v, v))
}

/// An `f32` as DynamoDB's `N` (its own shortest form: `0.1`, not
/// `0.10000000149011612`), or why it cannot be one.
fn float32(v: f32) -> Result<String, String> {
    check_float(f64::from(v))?;
    Ok(number_text(v, f64::from(v)))
}

/// Refuses a float DynamoDB's `N` cannot hold: NaN, an infinity, a
/// nonzero magnitude outside 1E-130 to 9.9999999999999999999999999999999999999E+125.
fn check_float(v: f64) -> Result<(), String> {
    if !v.is_finite() {
        return Err(format!("{v} is not a number DynamoDB holds (N is finite)"));
    }
    let magnitude = v.abs();
    if magnitude != 0.0 && !(MIN_NUMBER..MAX_NUMBER).contains(&magnitude) {
        return Err(format!(
            "{v:e} is outside DynamoDB's number range ({RANGE}); keep it in a string field (or as text) to store it"
        ));
    }
    Ok(())
}

/// The magnitudes written plain: from 1e-7 up to 1e21, as JavaScript prints
/// numbers; outside, the exponent form.
const PLAIN: std::ops::Range<f64> = 1e-7..1e21;

/// A finite float's `N` text: the shortest decimal that reads back as the
/// same value of its width, plain for magnitudes in [`PLAIN`] (`0.25`,
/// `1500`) and in exponent form outside (`1e125`, `-1.5e-9`), so that it
/// never has more than 38 digits (boto3's resource API reads an `N` into a
/// 38-digit `Decimal` and raises on more, and `1e38` written plain has 39);
/// a zero of either sign as `0`, since DynamoDB has no negative zero (it
/// gives `-0` back as `0`).
fn number_text<F: fmt::Display + fmt::LowerExp>(v: F, as_f64: f64) -> String {
    if as_f64 == 0.0 {
        "0".to_string()
    } else if PLAIN.contains(&as_f64.abs()) {
        v.to_string()
    } else {
        format!("{v:e}")
    }
}

/// A value at nesting level `.0` (1 for a field), read into an attribute.
struct Level(usize);

impl<'de> DeserializeSeed<'de> for Level {
    type Value = AttributeValue;

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<AttributeValue, D::Error> {
        de.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Level {
    type Value = AttributeValue;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a value DynamoDB can hold")
    }

    fn visit_bool<E>(self, v: bool) -> Result<AttributeValue, E> {
        Ok(AttributeValue::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<AttributeValue, E> {
        Ok(AttributeValue::N(v.to_string()))
    }
    fn visit_u64<E>(self, v: u64) -> Result<AttributeValue, E> {
        Ok(AttributeValue::N(v.to_string()))
    }
    fn visit_f32<E: serde::de::Error>(self, v: f32) -> Result<AttributeValue, E> {
        float32(v).map(AttributeValue::N).map_err(E::custom)
    }
    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<AttributeValue, E> {
        float(v).map(AttributeValue::N).map_err(E::custom)
    }
    fn visit_str<E>(self, v: &str) -> Result<AttributeValue, E> {
        Ok(AttributeValue::S(v.to_string()))
    }
    fn visit_bytes<E>(self, v: &[u8]) -> Result<AttributeValue, E> {
        Ok(AttributeValue::B(Blob::new(v.to_vec())))
    }
    fn visit_none<E>(self) -> Result<AttributeValue, E> {
        Ok(AttributeValue::Null(true))
    }
    fn visit_unit<E>(self) -> Result<AttributeValue, E> {
        Ok(AttributeValue::Null(true))
    }
    fn visit_some<D: Deserializer<'de>>(self, de: D) -> Result<AttributeValue, D::Error> {
        de.deserialize_any(self)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<AttributeValue, A::Error> {
        let inner = self.deeper()?;
        let mut list = Vec::new();
        while let Some(v) = seq.next_element_seed(Level(inner))? {
            list.push(v);
        }
        Ok(AttributeValue::L(list))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<AttributeValue, A::Error> {
        let inner = self.deeper()?;
        let mut out = HashMap::new();
        while let Some(key) = map.next_key::<MapKey>()? {
            let value = map.next_value_seed(Level(inner))?;
            out.insert(key.0, value);
        }
        Ok(AttributeValue::M(out))
    }
}

impl Level {
    /// The level of this list's or map's elements, or the error past
    /// DynamoDB's 32 levels.
    fn deeper<E: serde::de::Error>(&self) -> Result<usize, E> {
        if self.0 >= MAX_DEPTH {
            return Err(E::custom(format!(
                "lists and maps nest deeper than DynamoDB's {MAX_DEPTH} levels"
            )));
        }
        Ok(self.0 + 1)
    }
}

/// A map key: DynamoDB's `M` has string keys of at least one character.
struct MapKey(String);

impl<'de> serde::Deserialize<'de> for MapKey {
    fn deserialize<D: Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        struct Key;
        impl Visitor<'_> for Key {
            type Value = MapKey;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a non-empty string map key (DynamoDB's maps have string keys)")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<MapKey, E> {
                if v.is_empty() {
                    return Err(E::custom(
                        "an empty map key: DynamoDB's map keys are at least one character",
                    ));
                }
                Ok(MapKey(v.to_string()))
            }
        }
        de.deserialize_str(Key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_dynamodb_cannot_hold_are_refused() {
        for v in [f64::NAN, f64::INFINITY, 1e200, 1e-200] {
            assert!(float(v).is_err(), "{v}");
        }
        assert_eq!(float(0.0).as_deref(), Ok("0"));
        assert_eq!(float(-2.5).as_deref(), Ok("-2.5"));
    }

    #[test]
    fn floats_are_their_shortest_decimal_plain_or_in_exponent_form() {
        for (v, text) in [
            (-0.0, "0"),
            (0.25, "0.25"),
            (1500.0, "1500"),
            (1e20, "100000000000000000000"),
            (1e21, "1e21"),
            (1e38, "1e38"),
            (1e125, "1e125"),
            (-1e125, "-1e125"),
            (123456789012345678901234567890.0, "1.2345678901234568e29"),
            (1e-7, "0.0000001"),
            (1.5e-9, "1.5e-9"),
            (1e-130, "1e-130"),
        ] {
            assert_eq!(float(v).as_deref(), Ok(text), "{v:e}");
            assert_eq!(text.parse::<f64>(), Ok(v), "{text} reads back");
        }
        assert_eq!(float32(-0.0).as_deref(), Ok("0"));
        assert_eq!(float32(0.9).as_deref(), Ok("0.9"));
        assert_eq!(float32(f32::MAX).as_deref(), Ok("3.4028235e38"));
        assert_eq!(float32(1e-10).as_deref(), Ok("1e-10"));
    }
}
