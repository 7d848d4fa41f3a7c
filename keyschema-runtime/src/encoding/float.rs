//! Floats in IEEE 754 total order (`f64::total_cmp`): -NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN.

use super::{Base, Encoding, KeyComponent, Reader};
use crate::error::DecodeError;
use std::fmt::Write as _;

macro_rules! float {
    ($($t:ty : $u:ty => $what:literal, $base:ident),* $(,)?) => {$(
        impl KeyComponent for $t {
            type Ref<'a> = $t;
            const FIXED_WIDTH: Option<usize> = Some(std::mem::size_of::<$t>());
            const ENCODING: Option<Encoding> = Some(Encoding::of(Base::$base));

            fn as_key_ref(&self) -> $t {
                *self
            }
            fn encode_key(value: $t, out: &mut Vec<u8>) {
                let bits = value.to_bits();
                const SIGN: $u = 1 << (<$u>::BITS - 1);
                // Negative numbers: invert everything, so a larger magnitude sorts first.
                // Positive numbers: set the sign bit, so they sort after every negative.
                let ordered = if bits & SIGN != 0 { !bits } else { bits | SIGN };
                out.extend_from_slice(&ordered.to_be_bytes());
            }
            fn decode_key(input: &mut Reader<'_>) -> Result<Self, DecodeError> {
                let ordered = <$u>::from_be_bytes(input.read_array($what)?);
                const SIGN: $u = 1 << (<$u>::BITS - 1);
                let bits = if ordered & SIGN != 0 { ordered & !SIGN } else { !ordered };
                Ok(<$t>::from_bits(bits))
            }
            /// Rust's `{:?}`, and `-NaN` for a NaN with its sign bit set
            /// (which `{:?}` shows as `NaN`, like the positive one).
            fn render_key(input: &mut Reader<'_>, out: &mut String) -> Result<(), DecodeError> {
                let value = Self::decode_key(input)?;
                if value.is_nan() && value.is_sign_negative() {
                    out.push_str("-NaN");
                } else {
                    let _ = write!(out, "{value:?}");
                }
                Ok(())
            }
        }
    )*};
}

float! {
    f32: u32 => "4 bytes of f32", F32,
    f64: u64 => "8 bytes of f64", F64,
}

arg_by_ref!(f32, f64);
