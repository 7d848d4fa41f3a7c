//! One component's encodings when its type is known only by its
//! [`Encoding`]: each base type dispatches to the built-in implementation,
//! so a dynamic schema writes exactly the bytes the derived code does.

use super::value::Value;
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
            })
        }
    };
}

dispatch!(
    U8 u8, U16 u16, U32 u32, U64 u64, U128 u128,
    I8 i8, I16 i16, I32 i32, I64 i64, I128 i128,
    Bool bool, Char char, F32 f32, F64 f64,
);
