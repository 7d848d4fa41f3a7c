//! A 128-bit integer nested in a value field (an element of a list, a
//! map's value), read by its sign: rmp-serde reads any MessagePack integer
//! into a `u128` through an `i128` cast, so a stored `-1` would read as
//! 2^128 - 1. MessagePack has no 128-bit integer: the library writes one as
//! a bin of its 16 big-endian bytes, which reads as written; another
//! program's integer of at most 64 bits reads when it fits the type.

use serde::de::{self, Unexpected, Visitor};

/// Reads an `i128` or `u128` from whatever the format holds, for `visitor`.
pub(crate) struct BySign<V> {
    visitor: V,
    signed: bool,
}

impl<V> BySign<V> {
    /// An `i128` (`signed`) or a `u128` for `visitor`.
    pub(crate) fn new(visitor: V, signed: bool) -> Self {
        BySign { visitor, signed }
    }
}

impl<'de, V: Visitor<'de>> Visitor<'de> for BySign<V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.signed { "an i128" } else { "a u128" })
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<V::Value, E> {
        if self.signed {
            self.visitor.visit_i128(i128::from(v))
        } else {
            self.visitor.visit_u128(u128::from(v))
        }
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<V::Value, E> {
        if self.signed {
            return self.visitor.visit_i128(i128::from(v));
        }
        match u128::try_from(v) {
            Ok(v) => self.visitor.visit_u128(v),
            Err(_) => Err(E::invalid_value(Unexpected::Signed(v), &self)),
        }
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<V::Value, E> {
        let Ok(bytes) = <[u8; 16]>::try_from(v) else {
            // Worded as rmp-serde words a field's own bin of another
            // width, so that nested or not it reads the same.
            return Err(E::custom("array had incorrect length, expected 16"));
        };
        if self.signed {
            self.visitor.visit_i128(i128::from_be_bytes(bytes))
        } else {
            self.visitor.visit_u128(u128::from_be_bytes(bytes))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::track::{Track, Trail};
    use serde::Deserialize;

    fn read<T: for<'a> Deserialize<'a>>(bytes: &[u8]) -> Result<T, String> {
        let trail = Trail::default();
        let mut de = rmp_serde::Deserializer::from_read_ref(bytes);
        T::deserialize(Track::new(&mut de, &trail)).map_err(|e| e.to_string())
    }

    #[test]
    fn a_nested_128_bit_integer_reads_by_its_sign() {
        assert_eq!(read::<Vec<u128>>(&[0x92, 0x01, 0x07]), Ok(vec![1, 7]));
        assert!(read::<Vec<u128>>(&[0x91, 0xff]).is_err(), "-1 is no u128");
        assert_eq!(read::<Vec<i128>>(&[0x91, 0xff]), Ok(vec![-1]));
        let mut bin = vec![0x91, 0xc4, 16];
        bin.extend([0xff; 16]);
        assert_eq!(read::<Vec<u128>>(&bin), Ok(vec![u128::MAX]));
        assert_eq!(read::<Vec<i128>>(&bin), Ok(vec![-1]));
        assert_eq!(
            read::<Vec<u128>>(&[0x91, 0xcf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]),
            Ok(vec![u128::from(u64::MAX)])
        );
        assert_eq!(
            read::<Vec<u128>>(&[0x91, 0xc4, 2, 0, 1]),
            read::<u128>(&[0xc4, 2, 0, 1]).map(|n| vec![n]),
            "worded as a field's own"
        );
        assert!(read::<Vec<u128>>(&[0x91, 0xa1, b'1']).is_err());
    }
}
