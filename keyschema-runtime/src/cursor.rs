//! Resumable scan positions.

use crate::store::Direction;

/// Where a typed scan stopped, per salt bucket: resuming from it restarts
/// every bucket just after the last row it returned, so paging through a
/// salted table never repeats or skips a row.
///
/// Opaque; [`to_bytes`](Self::to_bytes) and [`from_bytes`](Self::from_bytes)
/// carry it across requests (a page token), and [`Display`](std::fmt::Display)
/// / [`FromStr`](std::str::FromStr) give the same bytes as hex.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Cursor {
    pub(crate) direction: Direction,
    /// Sorted by bucket.
    pub(crate) positions: Vec<(u32, Position)>,
}

/// How far one bucket has been read.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum Position {
    /// Nothing returned yet.
    Start,
    /// Rows up to and including the key with this part after the salt were returned.
    After(Vec<u8>),
    /// Every row was returned.
    Done,
}

/// A cursor's bytes are not a cursor.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid scan cursor at byte {offset}: {reason}")]
pub struct CursorError {
    offset: usize,
    reason: &'static str,
}

const VERSION: u8 = 1;

impl Cursor {
    /// Whether every bucket has been read to its end: resuming returns nothing.
    pub fn is_finished(&self) -> bool {
        self.positions.iter().all(|(_, p)| *p == Position::Done)
    }

    pub(crate) fn position(&self, bucket: u32) -> &Position {
        self.positions
            .binary_search_by_key(&bucket, |(b, _)| *b)
            .map_or(&Position::Start, |i| &self.positions[i].1)
    }

    /// The cursor as bytes: a version, the direction, then per bucket its
    /// number and position.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = vec![VERSION, u8::from(self.direction == Direction::Reverse)];
        out.extend_from_slice(&(self.positions.len() as u32).to_be_bytes());
        for (bucket, position) in &self.positions {
            out.extend_from_slice(&bucket.to_be_bytes());
            match position {
                Position::Start => out.push(0),
                Position::After(body) => {
                    out.push(1);
                    out.extend_from_slice(&(body.len() as u32).to_be_bytes());
                    out.extend_from_slice(body);
                }
                Position::Done => out.push(2),
            }
        }
        out
    }

    /// Reads a cursor written by [`to_bytes`](Self::to_bytes). Never panics.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, CursorError> {
        let mut r = Bytes { bytes, pos: 0 };
        if r.u8()? != VERSION {
            return Err(r.error("unknown version"));
        }
        let direction = match r.u8()? {
            0 => Direction::Forward,
            1 => Direction::Reverse,
            _ => return Err(r.error("direction must be 0 or 1")),
        };
        let count = r.u32()?;
        let mut positions = Vec::new();
        for _ in 0..count {
            let bucket = r.u32()?;
            if positions.last().is_some_and(|(b, _)| *b >= bucket) {
                return Err(r.error("buckets must be sorted and distinct"));
            }
            let position = match r.u8()? {
                0 => Position::Start,
                1 => {
                    let len = r.u32()? as usize;
                    Position::After(r.take(len)?.to_vec())
                }
                2 => Position::Done,
                _ => return Err(r.error("unknown position tag")),
            };
            positions.push((bucket, position));
        }
        if r.pos != bytes.len() {
            return Err(r.error("trailing bytes"));
        }
        Ok(Cursor {
            direction,
            positions,
        })
    }
}

impl std::fmt::Display for Cursor {
    /// The bytes of [`to_bytes`](Self::to_bytes) as lowercase hex.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.to_bytes()
            .iter()
            .try_for_each(|b| write!(f, "{b:02x}"))
    }
}

impl std::str::FromStr for Cursor {
    type Err = CursorError;

    fn from_str(s: &str) -> Result<Self, CursorError> {
        let hex = s.as_bytes();
        if hex.len() % 2 != 0 {
            return Err(CursorError {
                offset: hex.len(),
                reason: "odd number of hex digits",
            });
        }
        let digit = |i: usize| {
            (hex[i] as char)
                .to_digit(16)
                .map(|d| d as u8)
                .ok_or(CursorError {
                    offset: i / 2,
                    reason: "not a hex digit",
                })
        };
        let bytes = (0..hex.len() / 2)
            .map(|i| Ok(digit(2 * i)? << 4 | digit(2 * i + 1)?))
            .collect::<Result<Vec<u8>, CursorError>>()?;
        Cursor::from_bytes(&bytes)
    }
}

struct Bytes<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Bytes<'a> {
    fn error(&self, reason: &'static str) -> CursorError {
        CursorError {
            offset: self.pos,
            reason,
        }
    }
    fn take(&mut self, n: usize) -> Result<&'a [u8], CursorError> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len())
            .ok_or(self.error("truncated"))?;
        let out = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(out)
    }
    fn u8(&mut self) -> Result<u8, CursorError> {
        Ok(self.take(1)?[0])
    }
    fn u32(&mut self) -> Result<u32, CursorError> {
        let b = self.take(4)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }
}
