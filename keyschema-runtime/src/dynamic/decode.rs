//! A [`DynSchema`] reading keys: decoding them with every check the derived
//! `decode` makes, and rendering them as `Schema::render` does.

use super::{component, DynSchema, Plains, Transform, Value};
use crate::encoding::Reader;
use crate::error::DecodeError;
use crate::limits;
use crate::schema::{try_render, Attempt, Order};

impl DynSchema {
    /// Decodes a key into its fields' values, in key order, with every
    /// check the derived `decode` makes and the same errors: prefix, salt
    /// range, each component, buckets against their fields, trailing bytes,
    /// and the salt against the hashed fields.
    pub fn decode(&self, key: &[u8]) -> Result<Vec<Value>, DecodeError> {
        let values = self.decode_components(key)?;
        Ok(self
            .fields
            .iter()
            .map(|f| values[f.component].clone())
            .collect())
    }

    /// The components a binary key's leading bytes hold whole, in key
    /// order, from the first: a scan bound's (a native DynamoDB index reads
    /// its Query's conditions from them). It stops at the first component
    /// that does not decode (a bound ends inside it, or past the bound's
    /// last); nothing for text keys, or bytes without the prefix and salt.
    #[cfg_attr(not(feature = "dynamodb"), allow(dead_code))]
    pub(crate) fn decode_leading(&self, key: &[u8]) -> Vec<Value> {
        let head = self.head();
        let mut out = Vec::new();
        if self.sep().is_some() || head.bucket_of(key).is_err() {
            return out;
        }
        let mut pos = head.len();
        for c in &self.components {
            if c.transform == Transform::Reverse {
                break;
            }
            let mut reader = Reader::at(key, pos, c.order == Order::Descending, c.name);
            match component::decode_plain(c.encoding, &mut reader) {
                Ok(value) => {
                    pos = reader.offset();
                    out.push(value);
                }
                Err(_) => break,
            }
        }
        out
    }

    /// Each component's value (a bucket's, then its field's), in key
    /// order, with [`decode`](Self::decode)'s checks.
    pub(crate) fn decode_components(&self, key: &[u8]) -> Result<Vec<Value>, DecodeError> {
        if key.len() > limits::MAX_KEY_LEN {
            return Err(DecodeError::TooLong {
                len: key.len(),
                max: limits::MAX_KEY_LEN,
            });
        }
        let head = self.head();
        let found = head.bucket_of(key)?;
        let body = head.len();
        let mut pos = body;
        let mut values = Vec::with_capacity(self.components.len());
        // The salt's input, when it hashes fields.
        let hashed = self.salt.as_ref().is_some_and(|s| !s.random);
        let mut plains = Plains::default();
        // Where each component begins, from the body (in a text key, after
        // its separator): a bucket mismatch's offset.
        let mut starts = Vec::with_capacity(self.components.len());
        let last = self.components.len().saturating_sub(1);
        for (i, c) in self.components.iter().enumerate() {
            if self.sep().is_none() {
                starts.push(pos - body);
            }
            let value = match self.sep() {
                Some(sep) => {
                    if i > 0 {
                        expect_sep(key, &mut pos, sep, c.name)?;
                    }
                    starts.push(pos - body);
                    let value = c.read_text(key, &mut pos, sep)?;
                    if i == last && c.encoding.text_width().is_none() {
                        expect_sep(key, &mut pos, sep, c.name)?;
                    }
                    value
                }
                None if c.transform == Transform::Reverse => {
                    let width = c.encoding.fixed_width().unwrap_or(0);
                    let Some(bytes) = pos.checked_add(width).and_then(|end| key.get(pos..end))
                    else {
                        return Err(DecodeError::Truncated {
                            component: c.name,
                            offset: pos,
                            expected: "a reversed fixed-width integer",
                        });
                    };
                    let ordered: Vec<u8> = bytes.iter().rev().copied().collect();
                    let value = component::decode_plain(
                        c.encoding,
                        &mut Reader::at(&ordered, 0, false, c.name),
                    )?;
                    pos += width;
                    value
                }
                None => {
                    let descending = c.order == Order::Descending;
                    let mut reader = Reader::at(key, pos, descending, c.name);
                    let value = component::decode_plain(c.encoding, &mut reader)?;
                    pos = reader.offset();
                    value
                }
            };
            if hashed {
                plains.push(c.encoding, &value);
            }
            values.push(value);
        }
        for field in &self.fields {
            if let Some((b, width)) = field.bucket {
                if values[b] != field.bucket_value(&values[field.component], width) {
                    return Err(DecodeError::InvalidValue {
                        component: self.components[b].name,
                        offset: body + starts[b],
                        reason: "the bucket does not match the field it is derived from",
                    });
                }
            }
        }
        if pos < key.len() {
            return Err(DecodeError::TrailingBytes {
                offset: pos,
                count: key.len() - pos,
            });
        }
        if let Some(s) = self.salt.as_ref().filter(|s| !s.random) {
            let expected = s.bucket_of(&plains);
            if expected != found {
                return Err(DecodeError::SaltMismatch {
                    offset: head.salt_at(),
                    found,
                    expected,
                });
            }
        }
        Ok(values)
    }

    /// Renders a key as `Schema::render` does: the same text for the same
    /// bytes, including for keys that do not decode.
    pub fn render(&self, key: &[u8]) -> String {
        crate::schema::rendered(key, self.try_render(key), || self.decode(key).map(|_| ()))
    }

    /// Renders like [`render`](Self::render), but fails exactly when
    /// [`decode`](Self::decode) does.
    pub fn render_strict(&self, key: &[u8]) -> Result<String, DecodeError> {
        self.decode(key)?;
        self.try_render(key).map_err(|(_, _, err)| err)
    }

    /// Renders a key prefix (a split point, a scan bound) as
    /// `Schema::render_prefix` does: `…` where it ends inside a component.
    pub fn render_prefix(&self, key: &[u8]) -> String {
        crate::schema::rendered_prefix(self.try_render(key), || self.render(key))
    }

    fn try_render(&self, key: &[u8]) -> Attempt {
        try_render(self.head(), &self.components, key)
    }
}

fn expect_sep(
    key: &[u8],
    pos: &mut usize,
    sep: u8,
    component: &'static str,
) -> Result<(), DecodeError> {
    match key.get(*pos) {
        Some(&b) if b == sep => {
            *pos += 1;
            Ok(())
        }
        Some(&b) => Err(DecodeError::InvalidByte {
            component,
            offset: *pos,
            found: b,
            expected: "the separator",
        }),
        None => Err(DecodeError::Truncated {
            component,
            offset: *pos,
            expected: "the separator",
        }),
    }
}
