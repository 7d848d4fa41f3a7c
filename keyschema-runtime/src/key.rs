//! The [`RowKey`] trait: what `#[derive(RowKey)]` implements.

use crate::error::DecodeError;
use crate::schema::Schema;

/// A struct that is a row key: derived with `#[derive(RowKey)]`.
///
/// The derive also generates, as inherent functions, `get_key` and
/// `get_key_into` (the key from borrowed field values, in key order) and
/// `scan()` (a typed scan builder).
///
/// ```
/// use keyschema::RowKey;
///
/// #[derive(RowKey, Debug, Clone, PartialEq)]
/// #[rowkey(salt = hash(user_id, site) % 8, then = user_id, site, rev(timestamp))]
/// pub struct Event {
///     pub user_id: String,
///     pub site: String,
///     pub timestamp: u64,
///     #[rowkey(skip)]
///     pub payload: Vec<u8>,
/// }
///
/// let event = Event { user_id: "u1".into(), site: "s".into(), timestamp: 1_700_000_000, payload: vec![] };
/// let key = event.encode();
/// assert_eq!(key, Event::get_key("u1", "s", 1_700_000_000));
/// assert_eq!(Event::decode(&key), Ok(event));
/// assert_eq!(Event::BUCKETS, 8);
/// ```
pub trait RowKey: Sized {
    /// The number of salt buckets (1 when the key is unsalted).
    const BUCKETS: u32;

    /// The usual size of an encoded key, used to reserve space.
    const SIZE_HINT: usize;

    /// The layout of the key.
    fn schema() -> &'static Schema;

    /// Appends the key's bytes to `out`. Allocates nothing when `out` has room.
    fn encode_into(&self, out: &mut Vec<u8>);

    /// The key's bytes, salt included.
    fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(Self::SIZE_HINT);
        self.encode_into(&mut out);
        out
    }

    /// Reads a key back. Fields marked `#[rowkey(skip)]` get their `Default`.
    ///
    /// Checks everything: the prefix, the salt's range and its agreement with
    /// the hashed fields, each component's bytes, and that nothing trails.
    /// Never panics, whatever the bytes.
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError>;

    /// A human-readable rendering of an encoded key of this type, such as
    /// `6|u1|s|~1700000000`; see [`Schema::render`].
    fn render(key: &[u8]) -> String {
        Self::schema().render(key)
    }
}
