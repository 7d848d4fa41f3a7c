//! The encoder and decoder that generated code drives, one component at a time.

use crate::encoding::{BucketKey, KeyComponent, Reader, ReversibleKey, TextComponent};
use crate::error::DecodeError;
use crate::salt;
use crate::schema::{Order, Schema};

/// Writes a key: prefix, a salt placeholder, then each component; `finish`
/// fills in the salt from the hashed components.
#[doc(hidden)]
pub struct KeyEncoder<'a, const N: usize> {
    schema: &'static Schema,
    out: &'a mut Vec<u8>,
    salt_at: usize,
    body: usize,
    ends: [usize; N],
    next: usize,
    /// Text keys: the components' plain binary encodings, which the salt hashes.
    shadow: Vec<u8>,
}

impl<'a, const N: usize> KeyEncoder<'a, N> {
    #[inline]
    pub fn new(schema: &'static Schema, out: &'a mut Vec<u8>, size_hint: usize) -> Self {
        out.reserve(size_hint);
        let start = out.len();
        schema.push_header(None, out);
        KeyEncoder {
            schema,
            salt_at: start + schema.salt_at(),
            body: out.len(),
            out,
            ends: [0; N],
            next: 0,
            shadow: Vec::new(),
        }
    }

    /// Appends an ascending component.
    #[inline]
    pub fn asc<T: KeyComponent>(&mut self, value: T::Ref<'_>) {
        T::encode_key(value, self.out);
        self.end_component();
    }

    /// Appends a descending (`rev`) component: its encoding, inverted.
    #[inline]
    pub fn desc<T: KeyComponent>(&mut self, value: T::Ref<'_>) {
        T::encode_key_desc(value, self.out);
        self.end_component();
    }

    /// Appends a `reverse(...)` component: its encoding, bytes in reverse order.
    #[inline]
    pub fn reversed<T: ReversibleKey>(&mut self, value: T::Ref<'_>) {
        let start = self.out.len();
        T::encode_key(value, self.out);
        self.out[start..].reverse();
        self.end_component();
    }

    /// Appends a component of a text key (`format = text(...)`), as the
    /// schema declares it: separator, text form, `rev` digit complement or
    /// `reverse` digit reversal, and a closing separator when it is last and
    /// variable-width.
    #[inline]
    pub fn text<T: TextComponent>(&mut self, value: T::Ref<'_>) {
        let sep = self.schema.sep().unwrap_or(b'#');
        let component = &self.schema.components()[self.next];
        if self.next > 0 {
            self.out.push(sep);
        }
        let start = self.out.len();
        T::encode_text(value, self.out, sep);
        component.transform_text(&mut self.out[start..]);
        if self.next + 1 == N && T::TEXT_WIDTH.is_none() {
            self.out.push(sep);
        }
        if self.schema.salt().is_some_and(|s| !s.is_random()) {
            T::encode_key(value, &mut self.shadow);
        }
        self.ends[self.next] = self.shadow.len();
        self.next += 1;
    }

    #[inline]
    fn end_component(&mut self) {
        self.ends[self.next] = self.out.len() - self.body;
        self.next += 1;
    }

    /// Computes and writes the salt.
    #[inline(always)]
    pub fn finish(&mut self) {
        debug_assert_eq!(self.next, N, "every component is encoded");
        if let Some(s) = self.schema.salt() {
            self.write_bucket(s);
        }
    }

    fn write_bucket(&mut self, s: &crate::schema::Salt) {
        let bucket = if s.is_random() {
            salt::choose(s.buckets())
        } else if self.schema.sep().is_some() {
            self.schema.bucket_of_plain(s, &self.shadow, &self.ends)
        } else {
            self.schema
                .bucket_of_body(s, &self.out[self.body..], &self.ends)
        };
        let end = self.salt_at + self.schema.salt_len();
        self.schema
            .write_salt(bucket, &mut self.out[self.salt_at..end]);
    }

    /// Writes the key into a given bucket (random salt: one of the N
    /// candidate keys of a get).
    #[inline]
    pub fn finish_in(&mut self, bucket: u32) {
        if let Some(s) = self.schema.salt() {
            let end = self.salt_at + self.schema.salt_len();
            self.schema
                .write_salt(bucket % s.buckets(), &mut self.out[self.salt_at..end]);
        }
    }
}

/// Reads a key: checks the prefix and salt range, reads each component, and
/// in `finish` rejects trailing bytes and checks the salt against the fields.
#[doc(hidden)]
pub struct KeyDecoder<'a, const N: usize> {
    schema: &'static Schema,
    input: &'a [u8],
    salt: u32,
    body: usize,
    pos: usize,
    ends: [usize; N],
    /// Text keys: where each component's text begins, from the body, for
    /// a bucket mismatch's offset.
    starts: [usize; N],
    next: usize,
    /// Text keys: the components' plain binary encodings, for the salt check.
    shadow: Vec<u8>,
    /// Whether `finish` derives the salt from the fields again.
    check_salt: bool,
}

impl<'a, const N: usize> KeyDecoder<'a, N> {
    /// A decoder for a key read from a scan of its salt bucket's range: it
    /// checks everything [`new`](Self::new) does but the header (the prefix
    /// and the salt bytes, which the range pinned) and the salt's agreement
    /// with the hashed fields; see
    /// [`RowKey::decode_scanned`](crate::RowKey::decode_scanned).
    #[inline]
    pub fn scanned(schema: &'static Schema, input: &'a [u8]) -> Result<Self, DecodeError> {
        let body = schema.header_len();
        if input.len() < body || input.len() > crate::limits::MAX_KEY_LEN {
            // Not a key of the range: the full checks say what is wrong.
            let mut decoder = Self::new(schema, input)?;
            decoder.check_salt = false;
            return Ok(decoder);
        }
        Ok(Self::at_body(schema, input, 0, false))
    }

    #[inline]
    pub fn new(schema: &'static Schema, input: &'a [u8]) -> Result<Self, DecodeError> {
        if input.len() > crate::limits::MAX_KEY_LEN {
            return Err(DecodeError::TooLong {
                len: input.len(),
                max: crate::limits::MAX_KEY_LEN,
            });
        }
        let salt = schema.bucket_of(input)?;
        Ok(Self::at_body(schema, input, salt, true))
    }

    /// A decoder positioned after the header of `input`, whose salt is
    /// `salt`.
    #[inline]
    fn at_body(schema: &'static Schema, input: &'a [u8], salt: u32, check_salt: bool) -> Self {
        let body = schema.header_len();
        KeyDecoder {
            schema,
            input,
            salt,
            body,
            pos: body,
            ends: [0; N],
            starts: [0; N],
            next: 0,
            shadow: Vec::new(),
            check_salt,
        }
    }

    /// Reads the next component, ascending.
    #[inline]
    pub fn asc<T: KeyComponent>(&mut self) -> Result<T, DecodeError> {
        self.read::<T>(false)
    }

    /// Reads the next component, descending (`rev`).
    #[inline]
    pub fn desc<T: KeyComponent>(&mut self) -> Result<T, DecodeError> {
        self.read::<T>(true)
    }

    /// Reads the next component, stored byte-reversed (`reverse`).
    #[inline]
    pub fn reversed<T: ReversibleKey>(&mut self) -> Result<T, DecodeError> {
        let component = &self.schema.components()[self.next];
        let width = T::FIXED_WIDTH.unwrap_or(0);
        let Some(bytes) = self.input.get(self.pos..self.pos + width) else {
            return Err(DecodeError::Truncated {
                component: component.name(),
                offset: self.pos,
                expected: "a reversed fixed-width integer",
            });
        };
        let mut ordered = [0u8; 16];
        let ordered = &mut ordered[..width.min(16)];
        for (dst, src) in ordered.iter_mut().zip(bytes.iter().rev()) {
            *dst = *src;
        }
        let value = T::decode_key(&mut Reader::at(ordered, 0, false, component.name()))?;
        self.pos += width;
        self.ends[self.next] = self.pos - self.body;
        self.next += 1;
        Ok(value)
    }

    /// Reads the next component of a text key.
    #[inline]
    pub fn text<T: TextComponent>(&mut self) -> Result<T, DecodeError> {
        let sep = self.schema.sep().unwrap_or(b'#');
        let component = &self.schema.components()[self.next];
        let name = component.name();
        if self.next > 0 {
            self.expect_sep(sep, name)?;
        }
        let start = self.pos;
        self.starts[self.next] = start - self.body;
        let end = match T::TEXT_WIDTH {
            Some(width) => start.checked_add(width).filter(|&e| e <= self.input.len()),
            None => self.input[start.min(self.input.len())..]
                .iter()
                .position(|&b| b == sep)
                .map(|n| start + n),
        };
        let Some(end) = end else {
            return Err(DecodeError::Truncated {
                component: name,
                offset: start,
                expected: "the component's text",
            });
        };
        let mut text = self.input[start..end].to_vec();
        component.transform_text(&mut text);
        let value = T::decode_text(&text, sep).map_err(|reason| DecodeError::InvalidValue {
            component: name,
            offset: start,
            reason,
        })?;
        self.pos = end;
        if self.next + 1 == N && T::TEXT_WIDTH.is_none() {
            self.expect_sep(sep, name)?;
        }
        if self.check_salt && self.schema.salt().is_some_and(|s| !s.is_random()) {
            T::encode_key(value.as_key_ref(), &mut self.shadow);
        }
        self.ends[self.next] = self.shadow.len();
        self.next += 1;
        Ok(value)
    }

    fn expect_sep(&mut self, sep: u8, component: &'static str) -> Result<(), DecodeError> {
        match self.input.get(self.pos) {
            Some(&b) if b == sep => {
                self.pos += 1;
                Ok(())
            }
            Some(&b) => Err(DecodeError::InvalidByte {
                component,
                offset: self.pos,
                found: b,
                expected: "the separator",
            }),
            None => Err(DecodeError::Truncated {
                component,
                offset: self.pos,
                expected: "the separator",
            }),
        }
    }

    /// Reads the next component, ascending, into `slot` (reusing what it
    /// owns: [`KeyComponent::decode_key_into`]).
    #[inline]
    pub fn asc_into<T: KeyComponent>(&mut self, slot: &mut T) -> Result<(), DecodeError> {
        self.read_into(slot, false)
    }

    /// Reads the next component, descending (`rev`), into `slot`.
    #[inline]
    pub fn desc_into<T: KeyComponent>(&mut self, slot: &mut T) -> Result<(), DecodeError> {
        self.read_into(slot, true)
    }

    #[inline(always)]
    fn read_into<T: KeyComponent>(
        &mut self,
        slot: &mut T,
        descending: bool,
    ) -> Result<(), DecodeError> {
        let component = &self.schema.components()[self.next];
        debug_assert_eq!(component.order() == Order::Descending, descending);
        let mut reader = Reader::at(self.input, self.pos, descending, component.name());
        T::decode_key_into(slot, &mut reader)?;
        self.pos = reader.offset();
        self.ends[self.next] = self.pos - self.body;
        self.next += 1;
        Ok(())
    }

    #[inline(always)]
    fn read<T: KeyComponent>(&mut self, descending: bool) -> Result<T, DecodeError> {
        // The steps of `read_into`, written out on the hot path: a closure
        // shared by both measured up to 5% slower on whole scans.
        let component = &self.schema.components()[self.next];
        debug_assert_eq!(component.order() == Order::Descending, descending);
        let mut reader = Reader::at(self.input, self.pos, descending, component.name());
        let value = T::decode_key(&mut reader)?;
        self.pos = reader.offset();
        self.ends[self.next] = self.pos - self.body;
        self.next += 1;
        Ok(value)
    }

    /// Checks a `bucket(field, WIDTH)` component against its field.
    #[inline]
    pub fn check_bucket<T: BucketKey>(
        &self,
        index: usize,
        bucket: &T,
        value: &T,
        width: u64,
    ) -> Result<(), DecodeError> {
        if T::bucket_of(*value, width) == *bucket {
            return Ok(());
        }
        // The bucket's own first byte: in a text key, where its text
        // begins (after the separator); in a binary key, where the
        // component before it ends.
        let start = if self.schema.sep().is_some() {
            self.starts[index]
        } else if index == 0 {
            0
        } else {
            self.ends[index - 1]
        };
        Err(DecodeError::InvalidValue {
            component: self.schema.components()[index].name(),
            offset: self.body + start,
            reason: "the bucket does not match the field it is derived from",
        })
    }

    /// Rejects trailing bytes, then checks the salt.
    #[inline(always)]
    pub fn finish(&self) -> Result<(), DecodeError> {
        if self.pos < self.input.len() {
            return Err(DecodeError::TrailingBytes {
                offset: self.pos,
                count: self.input.len() - self.pos,
            });
        }
        if let Some(s) = self
            .schema
            .salt()
            .filter(|s| self.check_salt && !s.is_random())
        {
            let expected = if self.schema.sep().is_some() {
                self.schema.bucket_of_plain(s, &self.shadow, &self.ends)
            } else {
                self.schema
                    .bucket_of_body(s, &self.input[self.body..], &self.ends)
            };
            if expected != self.salt {
                return Err(DecodeError::SaltMismatch {
                    offset: self.schema.salt_at(),
                    found: self.salt,
                    expected,
                });
            }
        }
        Ok(())
    }
}
