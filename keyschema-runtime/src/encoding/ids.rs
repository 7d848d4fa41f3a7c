//! UUIDs (`uuid`): the 16 bytes as they are, so keys sort as the bytes do
//! (`uuid::Uuid`'s own order; for version 7, creation time). Rendered and
//! written in text keys hyphenated, lowercase.

use super::TextError;

/// Writes the 36-character hyphenated lowercase form.
pub(crate) fn render(bytes: &[u8; 16], out: &mut String) {
    for (i, &b) in bytes.iter().enumerate() {
        if matches!(i, 4 | 6 | 8 | 10) {
            out.push('-');
        }
        super::push_hex(out, b);
    }
}

/// The hyphenated form as bytes (the text form).
pub(crate) fn text(bytes: &[u8; 16], out: &mut Vec<u8>) {
    let mut s = String::with_capacity(36);
    render(bytes, &mut s);
    out.extend_from_slice(s.as_bytes());
}

/// Reads exactly the hyphenated lowercase form.
pub(crate) fn parse(text: &[u8]) -> Result<[u8; 16], TextError> {
    if text.len() != 36 {
        return Err("expected a UUID: 36 characters, 8-4-4-4-12 lowercase hex digits");
    }
    let mut out = [0u8; 16];
    let mut digits = text
        .iter()
        .enumerate()
        .filter(|(i, _)| !matches!(i, 8 | 13 | 18 | 23))
        .map(|(_, &c)| c);
    if [8, 13, 18, 23].iter().any(|&i| text[i] != b'-') {
        return Err("expected a UUID's hyphens at 8, 13, 18 and 23");
    }
    for byte in &mut out {
        let mut nibble = || match digits.next() {
            Some(c @ b'0'..=b'9') => Ok(c - b'0'),
            Some(c @ b'a'..=b'f') => Ok(c - b'a' + 10),
            _ => Err("expected lowercase hex digits in a UUID"),
        };
        *byte = nibble()? << 4 | nibble()?;
    }
    Ok(out)
}

#[cfg(feature = "uuid")]
mod impls {
    use crate::encoding::TextOrdered;
    use crate::encoding::{Base, Encoding, KeyComponent, Reader, TextComponent, TextError};
    use crate::error::DecodeError;
    use uuid::Uuid;

    /// `uuid::Uuid` (feature `uuid`): encoding `uuid`, its 16 bytes.
    ///
    /// ```
    /// use keyschema::{decode_value, encode_value};
    /// use uuid::Uuid;
    ///
    /// let id = Uuid::from_u128(0x0192_d4e8_7c3a_7b1e_9f00_1234_5678_9abc);
    /// assert_eq!(encode_value::<Uuid>(id), id.as_bytes());
    /// assert_eq!(decode_value::<Uuid>(id.as_bytes()), Ok(id));
    /// ```
    impl KeyComponent for Uuid {
        type Ref<'a> = Uuid;
        const FIXED_WIDTH: Option<usize> = Some(16);
        const ENCODING: Option<Encoding> = Some(Encoding::of(Base::Uuid));

        fn as_key_ref(&self) -> Uuid {
            *self
        }
        #[inline]
        fn encode_key(value: Uuid, out: &mut Vec<u8>) {
            out.extend_from_slice(value.as_bytes());
        }
        #[inline]
        fn decode_key(input: &mut Reader<'_>) -> Result<Self, DecodeError> {
            input.read_array("16 bytes of uuid").map(Uuid::from_bytes)
        }
        fn render_key(input: &mut Reader<'_>, out: &mut String) -> Result<(), DecodeError> {
            super::render(Self::decode_key(input)?.as_bytes(), out);
            Ok(())
        }
    }

    impl TextComponent for Uuid {
        const TEXT_WIDTH: Option<usize> = Some(36);
        fn encode_text(value: Uuid, out: &mut Vec<u8>, _sep: u8) {
            super::text(value.as_bytes(), out);
        }
        fn decode_text(text: &[u8], _sep: u8) -> Result<Self, TextError> {
            super::parse(text).map(Uuid::from_bytes)
        }
    }

    /// The hyphenated form has its hyphens at fixed places and lowercase
    /// hex, so it sorts as the bytes do.
    impl TextOrdered for Uuid {}

    impl crate::encoding::KeyArg<Uuid> for &Uuid {
        fn encode_arg(&self, out: &mut Vec<u8>) {
            Uuid::encode_key(**self, out)
        }
    }
}
