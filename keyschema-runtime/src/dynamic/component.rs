//! One component's encodings when its type is known only by its
//! [`Encoding`]: each base type dispatches to the built-in implementation,
//! so a dynamic schema writes exactly the bytes the derived code does.

use super::value::Value;
use crate::encoding::{clock, ids};
use crate::encoding::{Base, Encoding, KeyComponent, Reader, TextComponent, TextError};
use crate::error::DecodeError;

const NONE: u8 = 0x00;
const SOME: u8 = 0x01;

macro_rules! dispatch {
    ($($v:ident $t:ty),* $(,)?) => {
        /// Appends the ascending binary encoding of `value`; `false` when
        /// the value is not of the encoding.
        pub(crate) fn encode_plain(encoding: Encoding, value: &Value, out: &mut Vec<u8>) -> bool {
            match (encoding.inner(), value) {
                (Some(_), Value::Option(None)) => {
                    out.push(NONE);
                    return true;
                }
                (Some(inner), Value::Option(Some(v))) => {
                    out.push(SOME);
                    return encode_plain(inner, v, out);
                }
                (Some(_), _) | (None, Value::Option(_)) => return false,
                (None, _) => {}
            }
            match (encoding.base(), value) {
                $((Base::$v, Value::$v(x)) => <$t>::encode_key(*x, out),)*
                (Base::String, Value::String(s)) => String::encode_key(s, out),
                (Base::Bytes, Value::Bytes(b)) => <Vec<u8>>::encode_key(b, out),
                (Base::Array(n), Value::Bytes(b)) if b.len() == n => out.extend_from_slice(b),
                (Base::Uuid, Value::Uuid(b)) => out.extend_from_slice(b),
                (Base::Timestamp, Value::Timestamp(s, n)) | (Base::DateTime, Value::DateTime(s, n))
                    if clock::check_seconds(*s, *n).is_ok() => clock::encode_seconds(*s, *n, out),
                (Base::Date, Value::Date(d)) => clock::encode_days(*d, out),
                (Base::Enum(def), Value::Enum(name)) => match def.discriminant_of(name) {
                    Some(d) => def.write(d, out),
                    None => return false,
                },
                _ => return false,
            }
            true
        }

        /// Reads one ascending (or, through the reader, inverted) encoding.
        pub(crate) fn decode_plain(encoding: Encoding, input: &mut Reader<'_>) -> Result<Value, DecodeError> {
            if let Some(inner) = encoding.inner() {
                let at = input.offset();
                return match input.read_byte("an Option tag")? {
                    NONE => Ok(Value::Option(None)),
                    SOME => decode_plain(inner, input).map(|v| Value::Option(Some(Box::new(v)))),
                    other => Err(input.invalid_byte(at, other, "0x00 (None) or 0x01 (Some)")),
                };
            }
            Ok(match encoding.base() {
                $(Base::$v => Value::$v(<$t>::decode_key(input)?),)*
                Base::String => Value::String(String::decode_key(input)?),
                Base::Bytes => Value::Bytes(<Vec<u8>>::decode_key(input)?),
                Base::Array(n) => Value::Bytes(input.read_vec(n, "a fixed-size byte array")?),
                Base::Uuid => Value::Uuid(input.read_array("16 bytes of uuid")?),
                Base::Timestamp => {
                    let (s, n) = clock::decode_seconds(input, "12 bytes of timestamp")?;
                    Value::Timestamp(s, n)
                }
                Base::DateTime => {
                    let (s, n) = clock::decode_seconds(input, "12 bytes of datetime")?;
                    Value::DateTime(s, n)
                }
                Base::Date => Value::Date(clock::decode_days(input)?),
                Base::Enum(def) => Value::Enum(def.read(input)?.0.to_string()),
            })
        }

        /// Appends the text form of `value`, which is of the encoding.
        pub(crate) fn encode_text(encoding: Encoding, value: &Value, out: &mut Vec<u8>, sep: u8) {
            match (encoding.inner(), value) {
                (Some(_), Value::Option(None)) => return out.push(b'-'),
                (Some(inner), Value::Option(Some(v))) => {
                    out.push(b'=');
                    return encode_text(inner, v, out, sep);
                }
                _ => {}
            }
            match value {
                $(Value::$v(x) => <$t>::encode_text(*x, out, sep),)*
                Value::String(s) => String::encode_text(s, out, sep),
                Value::Bytes(b) => <Vec<u8>>::encode_text(b, out, sep),
                Value::Uuid(b) => ids::text(b, out),
                Value::Timestamp(s, n) | Value::DateTime(s, n) => clock::seconds_text(*s, *n, out),
                Value::Date(d) => clock::days_text(*d, out),
                Value::Enum(name) => {
                    if let Base::Enum(def) = encoding.base() {
                        if let Some(d) = def.discriminant_of(name) {
                            def.write_text(d, out);
                        }
                    }
                }
                Value::Option(_) => {}
            }
        }

        /// Reads a value back from exactly its text form.
        pub(crate) fn decode_text(encoding: Encoding, text: &[u8], sep: u8) -> Result<Value, TextError> {
            if let Some(inner) = encoding.inner() {
                return match text.split_first() {
                    Some((b'-', [])) => Ok(Value::Option(None)),
                    Some((b'=', rest)) => decode_text(inner, rest, sep).map(|v| Value::Option(Some(Box::new(v)))),
                    _ => Err("expected - (None) or = (Some)"),
                };
            }
            Ok(match encoding.base() {
                $(Base::$v => Value::$v(<$t>::decode_text(text, sep)?),)*
                Base::String => Value::String(String::decode_text(text, sep)?),
                Base::Bytes => Value::Bytes(<Vec<u8>>::decode_text(text, sep)?),
                Base::Array(n) => {
                    let bytes = <Vec<u8>>::decode_text(text, sep)?;
                    if bytes.len() != n {
                        return Err("wrong length");
                    }
                    Value::Bytes(bytes)
                }
                Base::Uuid => Value::Uuid(ids::parse(text)?),
                Base::Timestamp => {
                    let (s, n) = clock::seconds_from_text(text)?;
                    Value::Timestamp(s, n)
                }
                Base::DateTime => {
                    let (s, n) = clock::seconds_from_text(text)?;
                    Value::DateTime(s, n)
                }
                Base::Date => Value::Date(clock::days_from_text(text)?),
                Base::Enum(def) => Value::Enum(def.read_text(text)?.0.to_string()),
            })
        }
    };
}

dispatch!(
    U8 u8, U16 u16, U32 u32, U64 u64, U128 u128,
    I8 i8, I16 i16, I32 i32, I64 i64, I128 i128,
    Bool bool, Char char, F32 f32, F64 f64,
);
