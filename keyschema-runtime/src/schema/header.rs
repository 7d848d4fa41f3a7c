//! The bytes before the first component: the prefix and the salt, with
//! their separators in text keys. Derived and dynamic schemas share them.

use crate::encoding::bytes::{encode_escaped, ESCAPE, TERMINATOR};
use crate::error::DecodeError;
use crate::salt;

/// The prefix and salt of a layout.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Header<'a> {
    /// The schema's name, for errors.
    pub(crate) name: &'static str,
    pub(crate) prefix: &'a [u8],
    /// The separator of a text key.
    pub(crate) sep: Option<u8>,
    /// `(N, random)` of the salt, when the key has one.
    pub(crate) salt: Option<(u32, bool)>,
}

impl Header<'_> {
    /// Where the salt starts: after the prefix as written (see
    /// [`push_prefix`](Self::push_prefix)).
    pub(crate) const fn salt_at(&self) -> usize {
        if self.prefix.is_empty() {
            return 0;
        }
        // A text key's prefix is not escaped; a binary key's escapes each
        // byte up to `ESCAPE` (a loop: `const` has no iterators).
        let mut escapes = 0;
        let mut i = 0;
        while i < self.prefix.len() && self.sep.is_none() {
            if self.prefix[i] <= ESCAPE {
                escapes += 1;
            }
            i += 1;
        }
        self.prefix.len() + escapes + 1
    }

    /// Appends the prefix as a key holds it: in a binary key escaped and
    /// terminated like a string component, in a text key followed by the
    /// separator (which a prefix cannot hold). Either way no schema's
    /// prefix is a byte prefix of another's keys: `"ev"` and `"evx"` never
    /// meet.
    fn push_prefix(&self, out: &mut Vec<u8>) {
        if self.prefix.is_empty() {
            return;
        }
        match self.sep {
            None => encode_escaped(self.prefix, out),
            Some(sep) => {
                out.extend_from_slice(self.prefix);
                out.push(sep);
            }
        }
    }

    /// The salt's length: 1 or 2 bytes, or the decimal digits of `N - 1`.
    pub(crate) const fn salt_len(&self) -> usize {
        match (self.salt, self.sep) {
            (None, _) => 0,
            (Some((n, _)), None) => salt::width(n),
            (Some((n, _)), Some(_)) => salt::decimal_width(n),
        }
    }

    /// The length of the prefix and the salt: where the first component starts.
    pub(crate) const fn len(&self) -> usize {
        let sep = (self.sep.is_some() && self.salt.is_some()) as usize;
        self.salt_at() + self.salt_len() + sep
    }

    /// Appends the prefix and the salt of `bucket` (zeros when `None`, to be
    /// filled in later), with their separators in text keys.
    #[inline]
    pub(crate) fn push(&self, bucket: Option<u32>, out: &mut Vec<u8>) {
        if let (None, true, Some((n, _))) = (self.sep, self.prefix.is_empty(), self.salt) {
            // The common binary case: just the salt.
            let b = bucket.unwrap_or(0);
            match salt::width(n) {
                1 => out.push(b as u8),
                _ => out.extend_from_slice(&(b as u16).to_be_bytes()),
            }
            return;
        }
        self.push_prefix(out);
        if self.salt.is_some() {
            let at = out.len();
            out.resize(at + self.salt_len(), 0);
            self.write_salt(bucket.unwrap_or(0), &mut out[at..]);
            if let Some(sep) = self.sep {
                out.push(sep);
            }
        }
    }

    /// Writes `bucket` into the salt field.
    pub(crate) fn write_salt(&self, bucket: u32, field: &mut [u8]) {
        match self.sep {
            None => salt::write(bucket, field),
            Some(_) => salt::write_decimal(bucket, field),
        }
    }

    /// The salt bucket of an encoded key, read from its bytes.
    pub(crate) fn bucket_of(&self, key: &[u8]) -> Result<u32, DecodeError> {
        self.check_prefix(key)?;
        let Some((buckets, _)) = self.salt else {
            return Ok(0);
        };
        let start = self.salt_at();
        let end = start + self.salt_len();
        let Some(bytes) = key.get(start..end) else {
            return Err(DecodeError::Truncated {
                component: "salt",
                offset: start,
                expected: "the salt",
            });
        };
        let found = match self.sep {
            None => salt::read(bytes),
            Some(sep) => {
                let parsed = salt::read_decimal(bytes).ok_or(DecodeError::InvalidValue {
                    component: "salt",
                    offset: start,
                    reason: "the salt of a text key is decimal digits",
                })?;
                match key.get(end) {
                    Some(&b) if b == sep => {}
                    Some(&b) => {
                        return Err(DecodeError::InvalidByte {
                            component: "salt",
                            offset: end,
                            found: b,
                            expected: "the separator after the salt",
                        })
                    }
                    None => {
                        return Err(DecodeError::Truncated {
                            component: "salt",
                            offset: start,
                            expected: "the separator after the salt",
                        })
                    }
                }
                parsed
            }
        };
        if found >= buckets {
            return Err(DecodeError::SaltOutOfRange {
                schema: self.name,
                offset: start,
                found,
                buckets,
            });
        }
        Ok(found)
    }

    /// Every key a row can have: `key` in each bucket of a random salt.
    pub(crate) fn candidates(&self, key: &[u8]) -> Vec<Vec<u8>> {
        let (at, len) = (self.salt_at(), self.salt_len());
        match self.salt {
            Some((buckets, true)) if key.len() >= at + len => (0..buckets)
                .map(|bucket| {
                    let mut candidate = key.to_vec();
                    self.write_salt(bucket, &mut candidate[at..at + len]);
                    candidate
                })
                .collect(),
            _ => vec![key.to_vec()],
        }
    }

    pub(crate) fn check_prefix(&self, key: &[u8]) -> Result<(), DecodeError> {
        if self.prefix.is_empty() {
            return Ok(());
        }
        // The prefix as written, byte by byte, without building it.
        let escaped = self.prefix.iter().flat_map(|&b| {
            let escape = (self.sep.is_none() && b <= ESCAPE).then_some(ESCAPE);
            escape.into_iter().chain(std::iter::once(b))
        });
        let end = self.sep.unwrap_or(TERMINATOR);
        for (offset, expected) in escaped.chain(std::iter::once(end)).enumerate() {
            if key.get(offset) != Some(&expected) {
                return Err(DecodeError::ForeignPrefix {
                    schema: self.name,
                    expected: self.prefix.escape_ascii().to_string(),
                    offset,
                });
            }
        }
        Ok(())
    }
}
