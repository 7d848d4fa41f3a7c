//! Resumable scan positions.

use crate::error::CursorError;
use crate::range::Direction;
use crate::schema::Schema;

/// Where a typed scan stopped: resuming from it restarts every bucket just
/// after the last row it returned, so paging through a salted table never
/// repeats or skips a row. Merged into key order, one position stands for
/// every bucket (each resumes after the last row returned, and a bucket
/// after that row's at it: two rows with the same key after the salt, one
/// written under another salt by another program, are both returned,
/// whichever page boundary falls between them); unordered, the
/// cursor names the bucket being read and its position (the buckets before
/// it are done). Either way its size is that of one key, whatever the
/// number of buckets.
///
/// Opaque; [`to_bytes`](Self::to_bytes) and [`from_bytes`](Self::from_bytes)
/// carry it across requests (a page token), and [`Display`](std::fmt::Display)
/// / [`FromStr`](std::str::FromStr) give the same bytes as hex.
///
/// A cursor belongs to the request that made it: it carries a fingerprint
/// of the key type's declaration, the bound fields and range (the scanned
/// key ranges), the direction and the order mode. Resuming any other
/// request fails with [`CursorError::OtherRequest`] on the first row, so a
/// page token from one user's scan can never page through another's.
///
/// # What a token reveals
///
/// The cursor holds the key bytes (after the salt) of the last row
/// returned, unencrypted: whoever holds the token can read that key
/// (for `Event`, the user id, site and timestamp of the last event on the
/// page). The fingerprint stops a token from resuming another request, but
/// it is not a signature. If page tokens go to clients who must not see
/// keys, or could forge positions inside their own request, seal the bytes
/// of [`to_bytes`](Self::to_bytes) with your own authenticated encryption
/// (AES-GCM, or a server-side token table) before they leave the server.
///
/// ```
/// use keyschema::store::{MemoryStore, RowError, RowStore};
/// use keyschema::{CursorError, RowKey};
///
/// #[derive(RowKey, Debug, Clone, PartialEq)]
/// #[rowkey(salt = hash(user_id) % 4, then = user_id, rev(ts))]
/// struct Visit { user_id: String, ts: u64 }
///
/// let store = MemoryStore::new();
/// for ts in 0..5 {
///     store.put_row(&Visit { user_id: "u".into(), ts }, b"")?;
///     store.put_row(&Visit { user_id: "v".into(), ts }, b"")?;
/// }
/// let mut page = Visit::scan().user_id("u").limit(2).run(&store);
/// assert_eq!(page.by_ref().count(), 2);
/// let token = page.cursor().to_string();
///
/// // The same request resumes; another user's request refuses the token.
/// let rest = Visit::scan().user_id("u").after(token.parse()?).run(&store).count();
/// assert_eq!(rest, 3);
/// let mut other = Visit::scan().user_id("v").after(token.parse()?).run(&store);
/// assert!(matches!(other.next(), Some(Err(RowError::Cursor(CursorError::OtherRequest { .. })))));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Cursor {
    pub(crate) direction: Direction,
    /// Of the request that made the cursor; see [`fingerprint`].
    pub(crate) fingerprint: [u8; 8],
    /// Merged into key order: every bucket resumes at `position`.
    /// Unordered: the buckets before `source` are done, `source` resumes
    /// at `position`, and those after it start from their beginning.
    pub(crate) ordered: bool,
    /// Unordered: the source (the request's range, in the order of its
    /// ranges) being read. Merged: the source of the last row returned;
    /// rows of other sources with the same key after the salt (a key
    /// another program wrote under another salt) are merged by source, so
    /// the sources after it resume at that key and the others after it.
    pub(crate) source: u32,
    pub(crate) position: Position,
}

/// How far a scan (merged) or its current bucket (unordered) has been read.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum Position {
    /// Nothing returned yet.
    Start,
    /// Rows up to and including the key with this part after the salt were returned.
    After(Vec<u8>),
    /// Every row was returned.
    Done,
}

/// Version 2 added the request fingerprint; version 3 keeps one position
/// whatever the number of buckets; version 4 names the source of a merged
/// scan's last row (two rows with the same key after the salt are both
/// returned across a page boundary).
const VERSION: u8 = 4;

/// The fingerprint of a typed scan request: the first 8 bytes of SHA-256
/// over the key type's declaration, what identifies the request (its bound
/// values, range and phase: the ranges follow from them), the direction
/// and the order mode.
pub(crate) fn fingerprint(
    schema: &Schema,
    request: &[u8],
    direction: Direction,
    ordered: bool,
) -> [u8; 8] {
    use sha2::{Digest, Sha256};
    let mut hasher = Sha256::new();
    let mut field = |bytes: &[u8]| {
        hasher.update((bytes.len() as u64).to_be_bytes());
        hasher.update(bytes);
    };
    field(b"keyschema cursor 4");
    field(schema.to_string().as_bytes());
    field(request);
    field(&[u8::from(direction == Direction::Reverse), u8::from(ordered)]);
    let digest = hasher.finalize();
    let mut out = [0u8; 8];
    out.copy_from_slice(&digest[..8]);
    out
}

impl Cursor {
    /// Whether every bucket has been read to its end: resuming returns nothing.
    pub fn is_finished(&self) -> bool {
        self.position == Position::Done
    }

    /// The cursor as bytes: a version, the direction, the request's
    /// fingerprint (8 bytes), the order mode, the bucket being read
    /// (unordered), then the position: the key bytes after the salt of the
    /// last row returned (see "What a token reveals" above). Its size does
    /// not grow with the number of buckets: 20 bytes and the part of one key
    /// after its salt.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = vec![VERSION, u8::from(self.direction == Direction::Reverse)];
        out.extend_from_slice(&self.fingerprint);
        out.push(u8::from(self.ordered));
        out.extend_from_slice(&self.source.to_be_bytes());
        match &self.position {
            Position::Start => out.push(0),
            Position::After(body) => {
                out.push(1);
                out.extend_from_slice(&(body.len() as u32).to_be_bytes());
                out.extend_from_slice(body);
            }
            Position::Done => out.push(2),
        }
        out
    }

    /// Reads a cursor written by [`to_bytes`](Self::to_bytes). Never panics.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, CursorError> {
        let mut r = Bytes { bytes, pos: 0 };
        if r.u8()? != VERSION {
            return Err(r.error("unknown version (a cursor from another keyschema version)"));
        }
        let direction = match r.u8()? {
            0 => Direction::Forward,
            1 => Direction::Reverse,
            _ => return Err(r.error("direction must be 0 or 1")),
        };
        let mut fingerprint = [0u8; 8];
        fingerprint.copy_from_slice(r.take(8)?);
        let ordered = match r.u8()? {
            0 => false,
            1 => true,
            _ => return Err(r.error("order mode must be 0 or 1")),
        };
        let source = r.u32()?;
        let position = match r.u8()? {
            0 => Position::Start,
            1 => {
                let len = r.u32()? as usize;
                if len > crate::limits::MAX_KEY_LEN {
                    return Err(r.error("a position longer than any key"));
                }
                Position::After(r.take(len)?.to_vec())
            }
            2 => Position::Done,
            _ => return Err(r.error("unknown position tag")),
        };
        if r.pos != bytes.len() {
            return Err(r.error("trailing bytes"));
        }
        Ok(Cursor {
            direction,
            fingerprint,
            ordered,
            source,
            position,
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
        if !hex.len().is_multiple_of(2) {
            return Err(CursorError::Invalid {
                offset: hex.len(),
                reason: "odd number of hex digits",
            });
        }
        let digit = |i: usize| {
            (hex[i] as char)
                .to_digit(16)
                .map(|d| d as u8)
                .ok_or(CursorError::Invalid {
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
        CursorError::Invalid {
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
