//! Reading part of a row: a projection is a struct with some of a key
//! type's fields (`#[derive(Projection)]`), read through the key type's
//! scans and gets while the store fetches only its value fields (a
//! Bigtable column filter, a DynamoDB `ProjectionExpression`).

use super::{cells, msgpack, ValueError, ValueField, ValueReader};
use crate::key::RowKey;
use crate::schema::Schema;

/// Part of a key type's row: some of its key fields and some of its value
/// fields, by name and type. Derived:
///
/// ```
/// use keyschema::store::{MemoryStore, RecordStore};
/// use keyschema::{Projection, RowKey};
///
/// #[derive(RowKey, Debug, PartialEq)]
/// #[rowkey(then = (invoice_id), line_no)]
/// struct Line {
///     invoice_id: String,
///     line_no: u16,
///     #[rowkey(value)]
///     amount_cents: i64,
///     #[rowkey(value)]
///     memo: String,
/// }
///
/// /// The amounts alone: a scan fetches no memo.
/// #[derive(Projection, Debug, PartialEq)]
/// #[projection(of = Line)]
/// struct Amount {
///     line_no: u16, // a key field of `Line`, from the key
///     #[projection(value)]
///     amount_cents: i64, // a value field of `Line`, the only one read
/// }
///
/// let store = MemoryStore::new();
/// store.put_record(&Line { invoice_id: "INV-1".into(), line_no: 1, amount_cents: 500, memo: "rent".into() })?;
/// let amounts: Vec<Amount> = Line::scan().invoice_id("INV-1").project::<Amount>().run(&store).collect::<Result<_, _>>()?;
/// assert_eq!(amounts, [Amount { line_no: 1, amount_cents: 500 }]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// Each field is a key field of the key type (taken from the key), a
/// `#[projection(value)]` field that is one of its value fields, or
/// `#[projection(skip)]` (`Default`). The derive checks each name and type
/// against the key type at compile time. A projection is read, never
/// written: a write of part of a row would lose the rest.
pub trait Projection: Sized {
    /// The key type whose rows this reads part of.
    type Of: RowKey;

    /// The value fields read, in declaration order.
    const VALUES: &'static [ValueField];

    /// The key type's schema reading only [`VALUES`](Self::VALUES)
    /// ([`Schema::projection`]).
    fn schema() -> &'static Schema;

    /// The projection of a decoded key: its key fields moved over, its
    /// value fields `Default` until [`read_values`](Self::read_values).
    fn from_key(row: Self::Of) -> Self;

    /// Sets the value fields from `reader`, as
    /// [`Record::read_values`](super::Record::read_values).
    fn read_values<R: ValueReader>(&mut self, reader: &mut R) -> Result<(), ValueError>;
}

/// Sets `row`'s value fields from a stored value, as
/// [`decode_values`](super::decode_values) does for a whole row.
///
/// A value that names none of the key type's value fields is refused as
/// there. A projection reads some fields only, so a map that names none of
/// them is looked through again for the others; a cell map is refused only
/// when it holds no cell (a projected Bigtable read keeps one other cell,
/// whichever comes first, to say the row exists).
pub fn decode_projection<P: Projection>(row: &mut P, value: &[u8]) -> Result<(), ValueError> {
    let fields = P::schema().values();
    if value.first() == Some(&cells::CELL_MAP) {
        let mut reader = cells::CellReader::new(value)?;
        if reader.is_empty() {
            super::named_or_refused(false, fields)?;
        }
        return row.read_values(&mut reader);
    }
    let mut reader = msgpack::MapReader::new(value)?;
    row.read_values(&mut reader)?;
    if reader.named() {
        return Ok(());
    }
    super::named_or_refused(msgpack::names_one_of(value, fields)?, fields)
}

/// The schema of a projection of `base` onto `fields`: the generated
/// [`Projection::schema`].
#[doc(hidden)]
pub fn projected_schema(base: &'static Schema, fields: &'static [ValueField]) -> Schema {
    (*base).projected(fields)
}

/// Whether the value field `name` of `fields` is required (the generated
/// [`Projection::VALUES`] takes it from the key type's).
#[doc(hidden)]
pub const fn value_required(fields: &[ValueField], name: &str) -> bool {
    let mut i = 0;
    while i < fields.len() {
        if same(fields[i].name.as_bytes(), name.as_bytes()) {
            return fields[i].required;
        }
        i += 1;
    }
    true
}

const fn same(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// A key type's key field, named by the hash of its name: the check of a
/// projection's field without an option.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no key field of this name",
    label = "not a key field of `{Self}`",
    note = "a projection's field without an option is one of its key type's key fields, taken from the key: mark a value field `#[projection(value)]`, and a field of the projection's own `#[projection(skip)]`"
)]
pub trait HasKeyField<const NAME: u64> {}

/// A key type's value field, named by the hash of its name: the check of
/// a projection's `#[projection(value)]` field.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no value field of this name",
    label = "not a `#[rowkey(value)]` field of `{Self}`",
    note = "a `#[projection(value)]` field is one of its key type's value fields, by name; a key field is taken from the key (no option)"
)]
pub trait HasValueField<const NAME: u64> {}

/// Checks that `K` has the key field `NAME`.
#[doc(hidden)]
pub const fn key_field<K: HasKeyField<NAME>, const NAME: u64>() {}

/// Checks that `K` has the value field `NAME`.
#[doc(hidden)]
pub const fn value_field<K: HasValueField<NAME>, const NAME: u64>() {}
