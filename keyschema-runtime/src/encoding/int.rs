//! Integers: big-endian, fixed width; signed ones with the sign bit flipped.

use super::{render_display, Base, Encoding, KeyComponent, Reader};
use crate::error::DecodeError;

macro_rules! unsigned {
    ($($t:ty => $what:literal, $base:ident),* $(,)?) => {$(
        impl KeyComponent for $t {
            type Ref<'a> = $t;
            const FIXED_WIDTH: Option<usize> = Some(std::mem::size_of::<$t>());
            const ENCODING: Option<Encoding> = Some(Encoding::of(Base::$base));

            fn as_key_ref(&self) -> $t {
                *self
            }
            #[inline]
            fn encode_key(value: $t, out: &mut Vec<u8>) {
                out.extend_from_slice(&value.to_be_bytes());
            }
            #[inline]
            fn encode_key_desc(value: $t, out: &mut Vec<u8>) {
                out.extend_from_slice(&(!value).to_be_bytes());
            }
            #[inline]
            fn decode_key(input: &mut Reader<'_>) -> Result<Self, DecodeError> {
                input.read_array($what).map(<$t>::from_be_bytes)
            }
            fn render_key(input: &mut Reader<'_>, out: &mut String) -> Result<(), DecodeError> {
                render_display::<$t>(input, out)
            }
        }
    )*};
}

macro_rules! signed {
    ($($t:ty : $u:ty => $what:literal, $base:ident),* $(,)?) => {$(
        impl KeyComponent for $t {
            type Ref<'a> = $t;
            const FIXED_WIDTH: Option<usize> = Some(std::mem::size_of::<$t>());
            const ENCODING: Option<Encoding> = Some(Encoding::of(Base::$base));

            fn as_key_ref(&self) -> $t {
                *self
            }
            #[inline]
            fn encode_key(value: $t, out: &mut Vec<u8>) {
                // Flipping the sign bit maps MIN..=MAX onto 0..=MAX of the unsigned type, in order.
                let flipped = (value as $u) ^ (1 << (<$u>::BITS - 1));
                out.extend_from_slice(&flipped.to_be_bytes());
            }
            #[inline]
            fn encode_key_desc(value: $t, out: &mut Vec<u8>) {
                let flipped = (value as $u) ^ (1 << (<$u>::BITS - 1));
                out.extend_from_slice(&(!flipped).to_be_bytes());
            }
            #[inline]
            fn decode_key(input: &mut Reader<'_>) -> Result<Self, DecodeError> {
                let flipped = <$u>::from_be_bytes(input.read_array($what)?);
                Ok((flipped ^ (1 << (<$u>::BITS - 1))) as $t)
            }
            fn render_key(input: &mut Reader<'_>, out: &mut String) -> Result<(), DecodeError> {
                render_display::<$t>(input, out)
            }
        }
    )*};
}

unsigned! {
    u8 => "1 byte of u8", U8,
    u16 => "2 bytes of u16", U16,
    u32 => "4 bytes of u32", U32,
    u64 => "8 bytes of u64", U64,
    u128 => "16 bytes of u128", U128,
}

signed! {
    i8: u8 => "1 byte of i8", I8,
    i16: u16 => "2 bytes of i16", I16,
    i32: u32 => "4 bytes of i32", I32,
    i64: u64 => "8 bytes of i64", I64,
    i128: u128 => "16 bytes of i128", I128,
}

arg_by_ref!(u8, u16, u32, u64, u128, i8, i16, i32, i64, i128);
