//! `bool` (one byte, 0 or 1) and `char` (its scalar value as a big-endian `u32`).

use super::{Base, Encoding, KeyComponent, Reader};
use crate::error::DecodeError;

impl KeyComponent for bool {
    type Ref<'a> = bool;
    const FIXED_WIDTH: Option<usize> = Some(1);
    const ENCODING: Option<Encoding> = Some(Encoding::of(Base::Bool));

    fn as_key_ref(&self) -> bool {
        *self
    }
    fn encode_key(value: bool, out: &mut Vec<u8>) {
        out.push(u8::from(value));
    }
    fn decode_key(input: &mut Reader<'_>) -> Result<Self, DecodeError> {
        let at = input.offset();
        match input.read_byte("1 byte of bool")? {
            0 => Ok(false),
            1 => Ok(true),
            other => Err(input.invalid_byte(at, other, "0x00 (false) or 0x01 (true)")),
        }
    }
    fn render_key(input: &mut Reader<'_>, out: &mut String) -> Result<(), DecodeError> {
        out.push_str(if Self::decode_key(input)? {
            "true"
        } else {
            "false"
        });
        Ok(())
    }
}

impl KeyComponent for char {
    type Ref<'a> = char;
    const FIXED_WIDTH: Option<usize> = Some(4);
    const ENCODING: Option<Encoding> = Some(Encoding::of(Base::Char));

    fn as_key_ref(&self) -> char {
        *self
    }
    fn encode_key(value: char, out: &mut Vec<u8>) {
        out.extend_from_slice(&u32::from(value).to_be_bytes());
    }
    fn decode_key(input: &mut Reader<'_>) -> Result<Self, DecodeError> {
        let scalar = u32::from_be_bytes(input.read_array("4 bytes of char")?);
        char::from_u32(scalar).ok_or_else(|| {
            input.invalid_value("not a Unicode scalar value (surrogate or above 0x10FFFF)")
        })
    }
    fn render_key(input: &mut Reader<'_>, out: &mut String) -> Result<(), DecodeError> {
        let c = Self::decode_key(input)?;
        super::bytes::push_escaped_char(out, c);
        Ok(())
    }
}

arg_by_ref!(bool, char);
