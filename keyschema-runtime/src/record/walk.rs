//! One MessagePack value at a time, without decoding what it holds: its
//! kind, its payload and where it ends. The stores that split a row's value
//! map into their own shape (Bigtable's cells) use it to cut the map into
//! fields and to keep a nested value's bytes as they are.

use super::ValueError;

/// Nesting deeper than this is refused (the walk recurses once per level):
/// [`MAX_NESTING`](crate::MAX_NESTING).
const MAX_DEPTH: usize = crate::limits::MAX_NESTING;

/// A MessagePack value's top level.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Item<'a> {
    /// nil.
    Nil,
    /// true or false.
    Bool(bool),
    /// A signed integer (negative fixint, int 8 to 64).
    Int(i64),
    /// An unsigned integer (positive fixint, uint 8 to 64).
    Uint(u64),
    /// float 32 or 64, widened.
    Float(f64),
    /// A str's bytes (UTF-8 by the format's rules, not checked here).
    Str(&'a [u8]),
    /// A bin's bytes.
    Bin(&'a [u8]),
    /// An array, a map or an ext: its whole encoding, marker included.
    Nested(&'a [u8]),
}

/// Whether `bytes` are one MessagePack array or map, whole (what a nested
/// value's Bigtable cell holds). Text can be too (U+0700 is `dc 80`, an
/// array header), so a self-describing field's text that is gets tagged.
pub(crate) fn is_whole_nested(bytes: &[u8]) -> bool {
    matches!(bytes.first(), Some(0x80..=0x9f | 0xdc..=0xdf)) && {
        let mut walker = Walker::new(bytes);
        walker.item().is_ok() && walker.is_empty()
    }
}

/// Reads values from the front of a buffer.
pub(crate) struct Walker<'a> {
    buf: &'a [u8],
    pos: usize,
}

#[cold]
#[inline(never)]
fn past_end(n: usize, at: usize) -> ValueError {
    bad(format_args!("{n} bytes wanted at byte {at}, past the end"))
}

#[cold]
#[inline(never)]
fn bad(what: impl std::fmt::Display) -> ValueError {
    ValueError::Format {
        message: format!("not MessagePack: {what}"),
    }
}

impl<'a> Walker<'a> {
    #[inline]
    pub(crate) fn new(buf: &'a [u8]) -> Self {
        Walker { buf, pos: 0 }
    }

    /// A walker of the same bytes at `pos` (a [`position`](Self::position)
    /// this one was at).
    pub(crate) fn at(&self, pos: usize) -> Walker<'a> {
        Walker {
            buf: self.buf,
            pos: pos.min(self.buf.len()),
        }
    }

    /// Whether every byte was read.
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.pos == self.buf.len()
    }

    #[inline]
    fn take(&mut self, n: usize) -> Result<&'a [u8], ValueError> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&end| end <= self.buf.len())
            .ok_or_else(|| past_end(n, self.pos))?;
        let bytes = &self.buf[self.pos..end];
        self.pos = end;
        Ok(bytes)
    }

    #[inline]
    fn uint(&mut self, width: usize) -> Result<u64, ValueError> {
        Ok(self
            .take(width)?
            .iter()
            .fold(0u64, |n, &b| (n << 8) | u64::from(b)))
    }

    #[inline]
    fn len(&mut self, width: usize) -> Result<usize, ValueError> {
        usize::try_from(self.uint(width)?).map_err(|_| bad("a length above the address space"))
    }

    /// A map's entry count, at the front.
    #[inline]
    pub(crate) fn map_len(&mut self) -> Result<usize, ValueError> {
        let at = self.pos;
        match self.take(1)?[0] {
            b @ 0x80..=0x8f => Ok(usize::from(b & 0x0f)),
            0xde => self.len(2),
            0xdf => self.len(4),
            b => Err(bad(format_args!(
                "expected a map at byte {at}, found marker {b:#04x}"
            ))),
        }
    }

    /// An array's element count, at the front.
    pub(crate) fn array_len(&mut self) -> Result<usize, ValueError> {
        let at = self.pos;
        match self.take(1)?[0] {
            b @ 0x90..=0x9f => Ok(usize::from(b & 0x0f)),
            0xdc => self.len(2),
            0xdd => self.len(4),
            b => Err(bad(format_args!(
                "expected an array at byte {at}, found marker {b:#04x}"
            ))),
        }
    }

    /// The text of a string at the front (fixstr or str8) and where it
    /// ends, without taking it; `None` for anything else.
    #[inline(always)]
    pub(crate) fn peek_str(&self) -> Option<(&'a [u8], usize)> {
        let pos = self.pos;
        let (start, len) = match *self.buf.get(pos)? {
            marker @ 0xa0..=0xbf => (pos + 1, usize::from(marker & 0x1f)),
            0xd9 => (pos + 2, usize::from(*self.buf.get(pos + 1)?)),
            _ => return None,
        };
        let end = start.checked_add(len)?;
        Some((self.buf.get(start..end)?, end))
    }

    /// Where the walker is: bytes read so far.
    #[inline(always)]
    pub(crate) fn position(&self) -> usize {
        self.pos
    }

    /// Moves to `end`, the end of a value [`peek_str`](Self::peek_str) saw.
    #[inline(always)]
    pub(crate) fn advance_to(&mut self, end: usize) {
        self.pos = end;
    }

    /// An integer at the front, taken: `Ok` unsigned, `Err` negative;
    /// `None` (nothing taken) for anything else.
    #[inline(always)]
    pub(crate) fn take_int(&mut self) -> Option<Result<u64, i64>> {
        let pos = self.pos;
        let marker = *self.buf.get(pos)?;
        let (width, signed) = match marker {
            0x00..=0x7f => {
                self.pos = pos + 1;
                return Some(Ok(u64::from(marker)));
            }
            0xe0..=0xff => {
                self.pos = pos + 1;
                return Some(Err(i64::from(marker as i8)));
            }
            0xcc..=0xcf => (1usize << (marker - 0xcc), false),
            0xd0..=0xd3 => (1usize << (marker - 0xd0), true),
            _ => return None,
        };
        let bytes = self.buf.get(pos + 1..pos + 1 + width)?;
        self.pos = pos + 1 + width;
        let raw = bytes.iter().fold(0u64, |n, &b| (n << 8) | u64::from(b));
        if !signed {
            return Some(Ok(raw));
        }
        let shift = 64 - 8 * width as u32;
        let n = ((raw << shift) as i64) >> shift;
        Some(if n < 0 { Err(n) } else { Ok(n as u64) })
    }

    /// Whether the front is nil, taking it if so.
    #[inline(always)]
    pub(crate) fn take_nil(&mut self) -> bool {
        let nil = self.buf.get(self.pos) == Some(&0xc0);
        if nil {
            self.pos += 1;
        }
        nil
    }

    /// The next value. The kinds value fields mostly hold (a short string,
    /// a small or unsigned integer) are read here, inline; the rest by
    /// [`item_slow`](Self::item_slow).
    #[inline(always)]
    pub(crate) fn item(&mut self) -> Result<Item<'a>, ValueError> {
        let pos = self.pos;
        if let Some(&marker) = self.buf.get(pos) {
            match marker {
                0x00..=0x7f => {
                    self.pos = pos + 1;
                    return Ok(Item::Uint(u64::from(marker)));
                }
                0xa0..=0xbf => {
                    let end = pos + 1 + usize::from(marker & 0x1f);
                    if let Some(text) = self.buf.get(pos + 1..end) {
                        self.pos = end;
                        return Ok(Item::Str(text));
                    }
                }
                0xcc..=0xcf => {
                    let end = pos + 1 + (1usize << (marker - 0xcc));
                    if let Some(bytes) = self.buf.get(pos + 1..end) {
                        self.pos = end;
                        let n = bytes.iter().fold(0u64, |n, &b| (n << 8) | u64::from(b));
                        return Ok(Item::Uint(n));
                    }
                }
                _ => {}
            }
        }
        self.item_slow()
    }

    /// [`item`](Self::item) for every marker, errors included.
    #[inline(never)]
    fn item_slow(&mut self) -> Result<Item<'a>, ValueError> {
        let start = self.pos;
        let marker = self.take(1)?[0];
        Ok(match marker {
            0x00..=0x7f => Item::Uint(u64::from(marker)),
            0xe0..=0xff => Item::Int(i64::from(marker as i8)),
            0xc0 => Item::Nil,
            0xc2 => Item::Bool(false),
            0xc3 => Item::Bool(true),
            0xa0..=0xbf => Item::Str(self.take(usize::from(marker & 0x1f))?),
            0xd9..=0xdb => {
                let n = self.len(1 << (marker - 0xd9))?;
                Item::Str(self.take(n)?)
            }
            0xc4..=0xc6 => {
                let n = self.len(1 << (marker - 0xc4))?;
                Item::Bin(self.take(n)?)
            }
            0xcc..=0xcf => Item::Uint(self.uint(1 << (marker - 0xcc))?),
            0xd0..=0xd3 => {
                let width = 1usize << (marker - 0xd0);
                let raw = self.uint(width)?;
                // Sign-extend from `width` bytes.
                let shift = 64 - 8 * width as u32;
                Item::Int(((raw << shift) as i64) >> shift)
            }
            0xca => Item::Float(f64::from(f32::from_bits(self.uint(4)? as u32))),
            0xcb => Item::Float(f64::from_bits(self.uint(8)?)),
            _ => {
                self.pos = start;
                self.skip(0)?;
                Item::Nested(&self.buf[start..self.pos])
            }
        })
    }

    /// The next value and its whole encoding, marker included.
    #[inline]
    pub(crate) fn item_and_bytes(&mut self) -> Result<(Item<'a>, &'a [u8]), ValueError> {
        let start = self.pos;
        let item = self.item()?;
        Ok((item, &self.buf[start..self.pos]))
    }

    /// Steps over one whole value.
    fn skip(&mut self, depth: usize) -> Result<(), ValueError> {
        let at = self.pos;
        let marker = self.take(1)?[0];
        // An array or a map at `depth` is level `depth + 1`.
        if depth >= MAX_DEPTH && matches!(marker, 0x80..=0x9f | 0xdc..=0xdf) {
            return Err(bad(format_args!("nested deeper than {MAX_DEPTH} levels")));
        }
        let (items, bytes) = match marker {
            0x00..=0x7f | 0xe0..=0xff | 0xc0 | 0xc2 | 0xc3 => (0, 0),
            0xa0..=0xbf => (0, usize::from(marker & 0x1f)),
            0xd9..=0xdb => (0, self.len(1 << (marker - 0xd9))?),
            0xc4..=0xc6 => (0, self.len(1 << (marker - 0xc4))?),
            0xcc..=0xcf => (0, 1 << (marker - 0xcc)),
            0xd0..=0xd3 => (0, 1 << (marker - 0xd0)),
            0xca => (0, 4),
            0xcb => (0, 8),
            0x90..=0x9f => (usize::from(marker & 0x0f), 0),
            0xdc => (self.len(2)?, 0),
            0xdd => (self.len(4)?, 0),
            0x80..=0x8f => (2 * usize::from(marker & 0x0f), 0),
            0xde => (2 * self.len(2)?, 0),
            0xdf => (self.len(4)?.saturating_mul(2), 0),
            // fixext 1, 2, 4, 8, 16: a type byte and the data.
            0xd4..=0xd8 => (0, 1 + (1 << (marker - 0xd4))),
            0xc7..=0xc9 => (0, 1 + self.len(1 << (marker - 0xc7))?),
            // 0xc1: never used.
            _ => {
                return Err(bad(format_args!(
                    "marker {marker:#04x} at byte {at} is never used"
                )))
            }
        };
        self.take(bytes)?;
        for _ in 0..items {
            self.skip(depth + 1)?;
        }
        Ok(())
    }
}

/// The longest string shown in a message, in characters.
const SHOWN: usize = 60;

/// A string's text, quoted and escaped, cut at [`SHOWN`] characters.
pub(crate) fn shown(bytes: &[u8]) -> String {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return format!("of {} bytes that are not UTF-8", bytes.len());
    };
    match text.char_indices().nth(SHOWN) {
        Some((end, _)) => format!(
            "{:?}... ({} characters)",
            &text[..end],
            text.chars().count()
        ),
        None => format!("{text:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items(buf: &[u8]) -> Vec<Item<'_>> {
        let mut w = Walker::new(buf);
        let mut out = Vec::new();
        while !w.is_empty() {
            out.push(w.item().unwrap());
        }
        out
    }

    #[test]
    fn each_kind_reads_with_its_extent() {
        let nested = [0x92, 0x01, 0x81, 0xa1, b'a', 0xc0];
        let mut buf = vec![0x07, 0xff, 0xd1, 0xff, 0x38, 0xcf];
        buf.extend(u64::MAX.to_be_bytes());
        buf.extend([0xa2, b'h', b'i', 0xc4, 0x01, 0x00, 0xc3, 0xc0, 0xcb]);
        buf.extend(0.5f64.to_be_bytes());
        buf.extend(nested);
        assert_eq!(
            items(&buf),
            [
                Item::Uint(7),
                Item::Int(-1),
                Item::Int(-200),
                Item::Uint(u64::MAX),
                Item::Str(b"hi"),
                Item::Bin(&[0]),
                Item::Bool(true),
                Item::Nil,
                Item::Float(0.5),
                Item::Nested(&nested),
            ]
        );
    }

    #[test]
    fn truncated_and_unused_markers_are_errors() {
        for buf in [&[0xa3, b'a'][..], &[0xc1], &[0x92, 0x01], &[0xcd, 0x01]] {
            assert!(Walker::new(buf).item().is_err(), "{buf:x?}");
        }
        let deep = vec![0x91; MAX_DEPTH + 2];
        assert!(Walker::new(&deep).item().is_err());
    }
}
