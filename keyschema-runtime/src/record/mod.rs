//! Whole rows: the value fields of a key type (`#[rowkey(value)]`), written
//! beside its key and read back typed.
//!
//! `#[derive(RowKey)]` implements [`Record`] for every key type: it lists
//! the value fields ([`Record::VALUES`]), hands each to a [`ValueWriter`],
//! and fills them from a [`ValueReader`]. Each store has its own writer and
//! reader, so a row is stored in the store's own shape; the ordered stores
//! (memory, redb) keep a row's value fields as one MessagePack map from
//! field name to value ([`msgpack`], specified in `docs/ENCODING.md`).
//!
//! Fields are found by name, so a struct may add a field (with a default),
//! drop one or reorder them and still read the rows written before:
//! unknown fields are skipped, a missing `Option` or
//! `#[rowkey(value, default)]` field takes its `Default`, and any other
//! missing field is a [`ValueError::Missing`] naming it.

mod cell_de;
pub mod cells;
pub(crate) mod dynamo_words;
mod item_de;
mod kind;
pub(crate) mod misfit;
pub mod msgpack;
mod probe;
pub(crate) mod projection;
mod render;
mod shape;
mod shape_seed;
mod shape_text;
mod shape_user;
mod shape_users;
mod some;
mod trace;
mod trace_access;
mod trace_de;
mod trace_state;
#[cfg(test)]
mod trace_tests;
mod track;
mod user_types;
mod walk;
mod wide;

pub use cell_de::{CellDeserializer, CellError};
#[doc(hidden)]
pub use probe::from_nil;
pub use probe::{is_self_describing, reads_nil};
pub use projection::{decode_projection, Projection};
#[doc(hidden)]
pub use projection::{
    key_field, projected_schema, value_field, value_required, HasKeyField, HasValueField,
};
pub use render::render_values;
pub(crate) use some::read_some;
#[doc(hidden)]
pub use some::{read_stored, StoredValues};
pub use trace::traced;
pub(crate) use user_types::shape_text;
pub use user_types::{
    no_user_types, UserField, UserType, UserTypes, UserTypesOf, UserVariant, VariantForm,
};

/// A value field as declared: defined with the schema that lists them.
pub use crate::schema::ValueField;

use crate::key::RowKey;

/// A key type whose whole row is typed: its key fields (in the key) and its
/// value fields (stored beside it). Derived with `RowKey`; a key type
/// without `#[rowkey(value)]` fields is a record of its key alone.
pub trait Record: RowKey {
    /// The value fields, in declaration order.
    const VALUES: &'static [ValueField];

    /// Hands every value field to `writer`, in declaration order.
    fn write_values<W: ValueWriter>(&self, writer: &mut W) -> Result<(), W::Error>;

    /// Sets the value fields from `reader` (the key fields are already
    /// decoded); unknown fields are skipped, and a missing one keeps its
    /// `Default` when it is not [`required`](ValueField::required).
    fn read_values<R: ValueReader>(&mut self, reader: &mut R) -> Result<(), ValueError>;

    /// Sets from `reader` the value fields the type's index number `index`
    /// (in declaration order) is over, stepping over the others; a
    /// required one not stored is [`ValueError::Missing`]. What
    /// [`Index::read_indexed`](crate::index::Index::read_indexed) reads;
    /// nothing for a type without indexes.
    #[doc(hidden)]
    fn read_index_fields<R: ValueReader>(
        &mut self,
        index: usize,
        reader: &mut R,
    ) -> Result<(), ValueError> {
        let _ = (index, reader);
        Ok(())
    }
}

/// Where a row's value fields are written: one call per field.
pub trait ValueWriter {
    /// What can go wrong.
    type Error;

    /// Writes the field `name`.
    fn field<T: serde::Serialize + ?Sized>(
        &mut self,
        name: &'static str,
        value: &T,
    ) -> Result<(), Self::Error>;
}

/// Where a row's value fields are read from, in the order they are stored.
pub trait ValueReader {
    /// The next stored field that is one of `names`, as its index there;
    /// fields not in `names` are skipped. `None` after the last.
    fn next_field(&mut self, names: &[&str]) -> Result<Option<usize>, ValueError>;

    /// The value of the field [`next_field`](Self::next_field) returned.
    fn value<T: serde::de::DeserializeOwned>(
        &mut self,
        field: &'static str,
    ) -> Result<T, ValueError>;
}

/// The generated `read_values`' last step: the first
/// [`required`](ValueField::required) field of `fields` that was not
/// `seen` is [`ValueError::Missing`].
#[doc(hidden)]
#[inline]
pub fn check_required(fields: &[ValueField], seen: &[bool]) -> Result<(), ValueError> {
    match fields
        .iter()
        .zip(seen)
        .find(|(f, seen)| f.required && !**seen)
    {
        Some((f, _)) => Err(ValueError::Missing { field: f.name }),
        None => Ok(()),
    }
}

/// Names a value field's type in generated code: one error at the field
/// when it is not a value type.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a value field: it must implement serde's `Serialize` and `Deserialize`, and `Default`",
    label = "a `#[rowkey(value)]` field of this type",
    note = "derive them (`#[derive(Serialize, Deserialize, Default)]`; for an enum, mark the default variant `#[default]`): a key decoded alone fills value fields with `Default`"
)]
pub trait ValueFieldCheck {
    /// The type itself.
    type Checked: serde::Serialize + serde::de::DeserializeOwned + Default;
}

impl<T: serde::Serialize + serde::de::DeserializeOwned + Default> ValueFieldCheck for T {
    type Checked = T;
}

/// Why a row's stored value fields do not read as its type.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ValueError {
    /// A required value field is not stored.
    #[error("value field `{field}` is missing: the row was written without it (by an older version of the struct, or by another program); make the field an `Option` or mark it `#[rowkey(value, default)]` to read such rows")]
    Missing {
        /// The field.
        field: &'static str,
    },
    /// A stored field does not read as its declared type.
    #[error("value field `{field}` does not read as its declared type: {message}")]
    Field {
        /// The field.
        field: &'static str,
        /// What the format's reader said.
        message: String,
    },
    /// The stored value is not in the store's value format at all.
    #[error("the stored value is not a row's value fields: {message}")]
    Format {
        /// What is wrong.
        message: String,
    },
}

/// The value fields of `row` in the ordered stores' format: a MessagePack
/// map from field name to value ([`msgpack`]). An error names a field whose
/// `Serialize` failed.
pub fn encode_values<K: Record>(row: &K) -> Result<Vec<u8>, ValueError> {
    let mut out = Vec::new();
    msgpack::write_values(row, &mut out)?;
    Ok(out)
}

/// Sets `row`'s value fields from `value` (the inverse of
/// [`encode_values`]; `row` is its key decoded, as a raw scan or
/// [`RowStore::get_row`](crate::store::RowStore::get_row) gives it): the
/// ordered stores' map, or the cell map a store of cells (Bigtable) reads
/// ([`cells`]; its first byte, `c1`, never begins a MessagePack value).
///
/// A value that names none of `K`'s value fields is not its row, when `K`
/// has value fields: every row keyschema writes names each field its type
/// had (a `None` one as nil), and a store whose rows may name none (a
/// Bigtable row or DynamoDB item whose fields are all `None`) adds the
/// presence mark, an entry with the empty name. So the empty map `80`, or
/// another program's map of other names, is a [`ValueError::Format`],
/// never a row of defaults.
#[inline]
pub fn decode_values<K: Record>(row: &mut K, value: &[u8]) -> Result<(), ValueError> {
    if value.first() == Some(&cells::CELL_MAP) {
        let mut reader = cells::CellReader::new(value)?;
        row.read_values(&mut reader)?;
        return named_or_refused(reader.named(), K::VALUES);
    }
    let mut reader = msgpack::MapReader::new(value)?;
    row.read_values(&mut reader)?;
    named_or_refused(reader.named(), K::VALUES)
}

/// `Ok` when the value read named one of `fields` (or had none to name).
#[inline]
pub(crate) fn named_or_refused(named: bool, fields: &[ValueField]) -> Result<(), ValueError> {
    if named || fields.is_empty() {
        return Ok(());
    }
    Err(not_a_row(fields))
}

/// The refusal of a stored value that names none of `fields`.
#[cold]
pub(crate) fn not_a_row(fields: &[ValueField]) -> ValueError {
    ValueError::Format {
        message: format!(
            "it names none of the key type's value fields ({}), and every row keyschema writes names them: it is a raw value (put_row) or another program's. A row written before the type had any of these fields holds none of them: rewrite it with put_record (docs/guide/rows.md, \"Upgrading from raw values\")",
            field_names(fields)
        ),
    }
}

/// The refusal of a value to write that names none of `fields`: it would
/// read back as no row of them.
#[cold]
pub(crate) fn not_fields(fields: &[ValueField]) -> ValueError {
    ValueError::Format {
        message: format!(
            "it names none of the key type's value fields ({}): write whole rows with put_record",
            field_names(fields)
        ),
    }
}

/// `` `a`, `b` ``.
fn field_names(fields: &[ValueField]) -> String {
    let names: Vec<String> = fields.iter().map(|f| format!("`{}`", f.name)).collect();
    names.join(", ")
}
