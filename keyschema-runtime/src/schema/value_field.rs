//! A value field of a key type (`#[rowkey(value)]`) as the schema lists
//! it: its name, type and how a missing one reads. Defined here, below the
//! record module that reads and writes the fields, so that the schema
//! describing a row type does not reach up into it.

/// A value field of a key type, as declared.
#[derive(Debug, Clone, Copy)]
pub struct ValueField {
    /// The field's name: the MessagePack map key, DynamoDB attribute or
    /// Bigtable column qualifier.
    pub name: &'static str,
    /// Its Rust type, as written.
    pub type_name: &'static str,
    /// Whether it is declared required: `false` for an `Option` and for
    /// `#[rowkey(value, default)]`, which take their `Default` when missing.
    /// A required field whose type [reads nil](Self::reads_nil) is read as
    /// nil when missing ([`refused_if_missing`](Self::refused_if_missing)).
    pub required: bool,
    /// Whether its type reads whatever the format holds
    /// ([`is_self_describing`](crate::record::is_self_describing): `serde_json::Value`, untagged enums), so a
    /// store must keep its value in a form that says its own type.
    pub self_describing: fn() -> bool,
    /// Whether its type reads nil ([`reads_nil`](crate::record::reads_nil): `Option`, `()`, a unit
    /// struct, `serde_json::Value`, an untagged enum with a unit variant,
    /// a newtype of one of them): Bigtable and DynamoDB keep no cell or
    /// attribute for a nil value, and a missing field reads as nil.
    pub reads_nil: fn() -> bool,
    /// The user types (structs, enums, newtypes) its type holds, by which
    /// a reader without the Rust type reads a nested value
    /// ([`UserTypes`](crate::record::UserTypes)): traced from the type, or
    /// read from a schema document's `types`.
    pub user_types: crate::record::UserTypesOf,
}

impl ValueField {
    /// Whether a row without this field is refused ([`ValueError::Missing`](crate::record::ValueError::Missing)):
    /// it is [`required`](Self::required) and its type does not
    /// [read nil](Self::reads_nil). What the schema document writes as the
    /// field's `required`.
    pub fn refused_if_missing(&self) -> bool {
        self.required && !(self.reads_nil)()
    }
}

/// Fields are equal by name, type, whether a row without them is refused
/// and whether they read nil: what the schema document says of them (the
/// self-describing probe follows from the type).
impl PartialEq for ValueField {
    fn eq(&self, other: &Self) -> bool {
        let said = |f: &Self| (f.name, f.type_name, f.refused_if_missing(), (f.reads_nil)());
        said(self) == said(other)
    }
}

impl Eq for ValueField {}
