//! The parts of a [`DynSchema`](super::DynSchema): its components (what
//! each stores of its field, and how) and the key's fields a writer gives.

use super::value::Value;
use super::{component, ValueError};
use crate::encoding::{invert, Encoding, Reader};
use crate::error::DecodeError;
use crate::schema::{Order, RenderPart};

/// What a component stores of its field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transform {
    /// The field (inverted when descending).
    Plain,
    /// `reverse(field)`: the bytes (or text digits) in reverse order.
    Reverse,
    /// `bucket(field, W)`: `field.div_euclid(W)`.
    Bucket(u64),
}

/// One component of a [`DynSchema`](super::DynSchema).
#[derive(Debug, Clone)]
pub struct DynComponent {
    pub(super) name: &'static str,
    pub(super) type_name: String,
    pub(super) encoding: Encoding,
    pub(super) order: Order,
    pub(super) transform: Transform,
}

/// One field of the key: a value to give [`DynSchema::encode`](super::DynSchema::encode). A bucketed
/// field has two components (the bucket, then itself).
#[derive(Debug, Clone)]
pub struct DynField {
    pub(super) name: &'static str,
    pub(super) encoding: Encoding,
    /// The field's own component.
    pub(super) component: usize,
    /// The `bucket(field, W)` component before it, and W.
    pub(super) bucket: Option<(usize, u64)>,
}

impl RenderPart for DynComponent {
    fn part_name(&self) -> &'static str {
        self.name
    }
    fn descending(&self) -> bool {
        self.order == Order::Descending
    }
    fn reversed_width(&self) -> Option<usize> {
        (self.transform == Transform::Reverse).then(|| self.encoding.fixed_width().unwrap_or(0))
    }
    fn render_part(&self, input: &mut Reader<'_>, out: &mut String) -> Result<(), DecodeError> {
        self.encoding.render(input, out)
    }
}

impl DynComponent {
    /// The field name.
    pub fn name(&self) -> &str {
        self.name
    }

    /// The field type as written in the struct.
    pub fn type_name(&self) -> &str {
        &self.type_name
    }

    /// The encoding of the component's bytes.
    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// Ascending, or descending (`rev`).
    pub fn order(&self) -> Order {
        self.order
    }

    /// Plain, `reverse` or `bucket`.
    pub fn transform(&self) -> Transform {
        self.transform
    }

    /// Binary keys: inverted for `rev`, reversed for `reverse`. Its own inverse.
    pub(super) fn transform_binary(&self, bytes: &mut [u8]) {
        if self.transform == Transform::Reverse {
            bytes.reverse();
        } else if self.order == Order::Descending {
            invert(bytes);
        }
    }

    /// Text keys: digits reversed for `reverse`, 9-complemented for `rev`.
    pub(super) fn transform_text(&self, text: &mut [u8]) {
        if self.transform == Transform::Reverse {
            text.reverse();
        } else if self.order == Order::Descending {
            crate::encoding::text::complement_digits(text);
        }
    }

    /// Reads the component's text at `pos` (not its separators).
    pub(super) fn read_text(
        &self,
        key: &[u8],
        pos: &mut usize,
        sep: u8,
    ) -> Result<Value, DecodeError> {
        let start = *pos;
        let end = match self.encoding.text_width() {
            Some(width) => start.checked_add(width).filter(|&e| e <= key.len()),
            None => key[start.min(key.len())..]
                .iter()
                .position(|&b| b == sep)
                .map(|n| start + n),
        };
        let Some(end) = end else {
            return Err(DecodeError::Truncated {
                component: self.name,
                offset: start,
                expected: "the component's text",
            });
        };
        let mut text = key[start..end].to_vec();
        self.transform_text(&mut text);
        let value = component::decode_text(self.encoding, &text, sep).map_err(|reason| {
            DecodeError::InvalidValue {
                component: self.name,
                offset: start,
                reason,
            }
        })?;
        *pos = end;
        Ok(value)
    }

    /// The component's bytes in the key for `value` (checked), as a scan
    /// bound: transformed, and in text keys the text followed by the
    /// separator when it is variable-width.
    pub(super) fn key_form(&self, value: &Value, sep: Option<u8>, out: &mut Vec<u8>) {
        let start = out.len();
        match sep {
            None => {
                component::encode_plain(self.encoding, value, out);
                self.transform_binary(&mut out[start..]);
            }
            Some(sep) => {
                component::encode_text(self.encoding, value, out, sep);
                self.transform_text(&mut out[start..]);
                if self.encoding.text_width().is_none() {
                    out.push(sep);
                }
            }
        }
    }
}

impl DynField {
    /// The field name.
    pub fn name(&self) -> &str {
        self.name
    }

    /// The field's encoding.
    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// `Some(W)` for a field stored after its `bucket(field, W)`.
    pub fn bucket_width(&self) -> Option<u64> {
        self.bucket.map(|(_, w)| w)
    }

    /// Reads a value of the field from text ([`Value::parse`]).
    pub fn parse(&self, text: &str) -> Result<Value, ValueError> {
        Value::parse(self.encoding, text).map_err(|reason| ValueError::Parse {
            field: self.name.to_string(),
            expected: self.encoding.to_string(),
            text: text.to_string(),
            reason,
        })
    }

    pub(super) fn check(&self, value: &Value) -> Result<(), ValueError> {
        if component::encode_plain(self.encoding, value, &mut Vec::new()) {
            return Ok(());
        }
        Err(ValueError::Mismatch {
            field: self.name.to_string(),
            expected: self.encoding.to_string(),
            found: value.describe(),
        })
    }

    /// The bucket `value.div_euclid(width)`, as the field's type.
    pub(super) fn bucket_value(&self, value: &Value, width: u64) -> Value {
        let v = value.as_i128().unwrap_or(0);
        let bucket = v.div_euclid(i128::from(width.max(1)));
        Value::clamped_int(self.encoding.base(), bucket).unwrap_or_else(|| value.clone())
    }
}
