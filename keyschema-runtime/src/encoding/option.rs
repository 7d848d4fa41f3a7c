//! `Option<T>`: `None` as 0x00; `Some(v)` as 0x01 followed by the encoding of `v`.

use super::{Encoding, KeyArg, KeyComponent, Reader};
use crate::error::DecodeError;

const NONE: u8 = 0x00;
const SOME: u8 = 0x01;

impl<T: KeyComponent> KeyComponent for Option<T> {
    type Ref<'a>
        = Option<T::Ref<'a>>
    where
        T: 'a;
    const FIXED_WIDTH: Option<usize> = None;
    const SIZE_HINT: usize = 1 + T::SIZE_HINT;
    const ENCODING: Option<Encoding> = match T::ENCODING {
        Some(inner) => Some(inner.optional()),
        None => None,
    };

    fn as_key_ref(&self) -> Option<T::Ref<'_>> {
        self.as_ref().map(T::as_key_ref)
    }
    fn encode_key(value: Option<T::Ref<'_>>, out: &mut Vec<u8>) {
        match value {
            None => out.push(NONE),
            Some(inner) => {
                out.push(SOME);
                T::encode_key(inner, out);
            }
        }
    }
    fn decode_key(input: &mut Reader<'_>) -> Result<Self, DecodeError> {
        let at = input.offset();
        match input.read_byte("an Option tag")? {
            NONE => Ok(None),
            SOME => T::decode_key(input).map(Some),
            other => Err(input.invalid_byte(at, other, "0x00 (None) or 0x01 (Some)")),
        }
    }
    fn render_key(input: &mut Reader<'_>, out: &mut String) -> Result<(), DecodeError> {
        let at = input.offset();
        match input.read_byte("an Option tag")? {
            NONE => {
                out.push_str("<none>");
                Ok(())
            }
            SOME => {
                // `Some(v)` shows as `v`, unless `v` itself reads like a
                // None (a nested `Option`, or the string "<none>"): then as
                // `<some v>`, so that no two values render alike.
                let start = out.len();
                T::render_key(input, out)?;
                if out[start..].starts_with("<none>") || out[start..].starts_with("<some ") {
                    out.insert_str(start, "<some ");
                    out.push('>');
                }
                Ok(())
            }
            other => Err(input.invalid_byte(at, other, "0x00 (None) or 0x01 (Some)")),
        }
    }
}

impl KeyArg<Option<String>> for Option<&str> {
    fn encode_arg(&self, out: &mut Vec<u8>) {
        <Option<String>>::encode_key(*self, out)
    }
}

impl KeyArg<Option<Vec<u8>>> for Option<&[u8]> {
    fn encode_arg(&self, out: &mut Vec<u8>) {
        <Option<Vec<u8>>>::encode_key(*self, out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render<T: KeyComponent>(value: T::Ref<'_>) -> String {
        let bytes = crate::encoding::encode_value::<T>(value);
        let mut out = String::new();
        T::render_key(&mut Reader::at(&bytes, 0, false, "x"), &mut out).expect("renders");
        out
    }

    #[test]
    fn nested_options_render_apart() {
        assert_eq!(render::<Option<Option<u8>>>(None), "<none>");
        assert_eq!(render::<Option<Option<u8>>>(Some(None)), "<some <none>>");
        assert_eq!(render::<Option<Option<u8>>>(Some(Some(5))), "5");
        assert_eq!(render::<Option<String>>(None), "<none>");
        assert_eq!(render::<Option<String>>(Some("<none>")), "<some <none>>");
        assert_eq!(render::<Option<String>>(Some("a")), "a");
    }
}
