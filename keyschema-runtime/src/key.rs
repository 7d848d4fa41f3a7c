//! The [`RowKey`] trait: what `#[derive(RowKey)]` implements.

use crate::error::DecodeError;
use crate::history::History;
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

    /// Reads back a key that a typed scan read from the range of its salt
    /// bucket. Checks all that [`decode`](Self::decode) does except the
    /// header (the prefix and the salt, which the scan's range pinned) and
    /// that the salt agrees with the hashed fields (deriving it again costs
    /// a SHA-256 per row). Only for keys read from such a range. A key
    /// whose salt disagrees (written by another program with another hash)
    /// is returned by such a scan as the row it spells; a get of that row
    /// looks in its own bucket and does not find it, and
    /// [`decode`](Self::decode) refuses the key. The derive implements it.
    #[doc(hidden)]
    fn decode_scanned(bytes: &[u8]) -> Result<Self, DecodeError> {
        Self::decode(bytes)
    }

    /// [`decode_scanned`](Self::decode_scanned) into an existing row,
    /// reusing what its fields own (a `String` keeps its capacity): what
    /// [`TypedRows::next_ref`](crate::TypedRows::next_ref) decodes each row
    /// with. Skipped and value fields are set to their `Default`. After an
    /// error the row holds valid but unspecified values. The derive
    /// implements it; the default decodes a new row and assigns it.
    #[doc(hidden)]
    fn decode_scanned_into(&mut self, bytes: &[u8]) -> Result<(), DecodeError> {
        *self = Self::decode_scanned(bytes)?;
        Ok(())
    }

    /// A human-readable rendering of an encoded key of this type, such as
    /// `6|u1|s|~1700000000`; see [`Schema::render`].
    fn render(key: &[u8]) -> String {
        Self::schema().render(key)
    }

    /// Appends to `out` the keys of the index entries of the row stored
    /// under `key` with `value` (its value fields as stored), one per index
    /// the row has an entry in; nothing for a type without indexes, or when
    /// the key does not decode. Only the value fields the indexes read are
    /// read, each on its own, so a row another version of the struct wrote
    /// (without a field this one requires, or with one of another type)
    /// still gives its entries; an index over a required field the row
    /// lacks, or one that does not read as its type, gives none. What a
    /// write uses to find the entries to put and the ones to remove.
    #[doc(hidden)]
    fn stored_index_keys(key: &[u8], value: &[u8], out: &mut Vec<Vec<u8>>) {
        let _ = (key, value, out);
    }

    /// The layout of the table's older rows and the cut-over, when the type
    /// declares one with `#[rowkey_was(...)]`: its schema's
    /// ([`Schema::history`](crate::Schema::history)).
    fn history() -> Option<&'static History> {
        Self::schema().history()
    }

    /// Reads a key of the older layout (see [`history`](Self::history)),
    /// with the checks of [`decode`](Self::decode).
    fn decode_older(bytes: &[u8]) -> Result<Self, DecodeError> {
        let _ = bytes;
        Err(DecodeError::NoHistory {
            schema: Self::schema().name(),
        })
    }

    /// The row's key in the older layout; `None` without a history.
    fn encode_older(&self) -> Option<Vec<u8>> {
        None
    }

    /// Whether the row is at or past the cut-over (a cut-over by field):
    /// in the declared layout. Always `true` without a history or for a
    /// cut-over by migration.
    fn past_cut_over(&self) -> bool {
        true
    }

    /// Reads a stored key of either layout. A key that reads under one
    /// layout only is that layout's; one that reads under both as the same
    /// components is the same row in both (declared); one that reads as two
    /// different rows is decided by the cut-over field (the declared layout
    /// holds the rows at or past it); one still undecided (a backfilled copy
    /// of a row before the cut-over reads as an older row of another id) is
    /// [`DecodeError::AmbiguousLayout`]. The flag is `true` for the declared
    /// layout.
    fn decode_stored(bytes: &[u8]) -> Result<(Self, bool), DecodeError> {
        let Some(history) = Self::history() else {
            return Self::decode(bytes).map(|row| (row, true));
        };
        let declared = Self::decode(bytes);
        let older = Self::decode_older(bytes);
        match (declared, older) {
            (Ok(row), Err(_)) => Ok((row, true)),
            (Err(_), Ok(row)) => Ok((row, false)),
            (Err(e), Err(_)) => Err(e),
            (Ok(new), Ok(_)) if history.same_components(Self::schema()) => Ok((new, true)),
            // Two different rows: a row past the cut-over cannot be an
            // older row (nor, then, can the other reading, whose field has
            // the same bytes); two rows before it are undecided (a
            // backfilled copy reads as an older row of another id).
            (Ok(new), Ok(old)) => {
                if new.past_cut_over() || old.past_cut_over() {
                    Ok((new, true))
                } else {
                    Err(DecodeError::AmbiguousLayout {
                        schema: Self::schema().name(),
                    })
                }
            }
        }
    }
}

/// A key type without a layout history: every row has one key, so the
/// plain typed reads and writes ([`RowStore::put_row`](crate::store::RowStore::put_row),
/// `get_row`, `delete_row`, the generated `get`, a scan without a phase)
/// know where it is. `#[derive(RowKey)]` implements it for every type
/// without `#[rowkey_was(...)]`.
///
/// A type with a history keeps a row in one layout or both depending on the
/// [`Phase`](crate::history::Phase) of its migration, so those forms do not
/// compile for it: a plain `delete_row` in `Dual` would delete one of two
/// copies, and the backfill would copy the other back. Its reads and writes
/// name the phase: `put_row_in`, `replace_row_in`, `put_rows_in`,
/// `delete_row_in`, `get_row_in`, `K::get_in`, and `.phase(p)` on a scan.
///
/// Code generic over key types (`fn count<I: Index>(..)`) states the bound
/// itself (`I: Index + OneLayout`) to use those forms.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not known to have one layout: a key type with a layout history (`#[rowkey_was]`), or a type parameter without the bound `OneLayout`; this read or write does not say which layouts it touches",
    label = "not known to have one layout",
    note = "if `{Self}` is a type parameter, add the bound `{Self}: keyschema::OneLayout` (every key type without `#[rowkey_was]` has it; `RowKey`, `Record` and `Index` do not imply it)",
    note = "if `{Self}` has a layout history, name the migration's phase: `put_row_in(phase, ..)`, `replace_row_in`, `put_rows_in`, `delete_row_in`, `get_row_in`, `{Self}::get_in(&store, phase, ..)`, or `.phase(phase)` on a scan; a phase-blind write would miss the other layout and the backfill would copy the stale row back"
)]
pub trait OneLayout: RowKey {}
