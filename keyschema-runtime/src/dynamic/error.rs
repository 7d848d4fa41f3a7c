//! What a [`DynSchema`](super::DynSchema) says of values that do not fit it.

/// Values that do not fit the schema.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ValueError {
    /// A value of another type than its field's.
    #[error("field `{field}` is {expected}, but the value given is {found}")]
    Mismatch {
        /// The field.
        field: String,
        /// Its type.
        expected: String,
        /// What was given.
        found: String,
    },
    /// Too many or too few values.
    #[error("{given} values given for {expected} of the key's fields ({fields})")]
    Count {
        /// How many were given.
        given: usize,
        /// How many were wanted.
        expected: usize,
        /// The key's fields, in order.
        fields: String,
    },
    /// Text that does not read as the field's type.
    #[error("field `{field}` is {expected}: cannot read {text:?}: {reason}")]
    Parse {
        /// The field.
        field: String,
        /// Its type.
        expected: String,
        /// The text.
        text: String,
        /// Why.
        reason: &'static str,
    },
    /// A field name the key does not have.
    #[error("the key has no field `{name}`; its fields are {fields}")]
    UnknownField {
        /// The name given.
        name: String,
        /// The key's fields.
        fields: String,
    },
    /// A field given twice, or not given.
    #[error("field `{field}` is {what}")]
    Field {
        /// The field.
        field: String,
        /// `"given twice"`, `"missing"`.
        what: &'static str,
    },
    /// A field's JSON that is not its value's one form
    /// ([`DynSchema::fields_from_json`](super::DynSchema::fields_from_json)).
    #[error("field `{field}` is {expected}: {reason}")]
    Json {
        /// The field.
        field: String,
        /// Its type.
        expected: String,
        /// What was wrong.
        reason: String,
    },
    /// The fields' JSON is not an object of them, or not JSON.
    #[error("the key's fields as JSON: {reason}")]
    JsonText {
        /// What was wrong.
        reason: String,
    },
    /// A range where the key cannot have one.
    #[error("a range on `{field}` is not possible: {reason}")]
    Range {
        /// The field.
        field: String,
        /// Why.
        reason: &'static str,
    },
    /// A bucket for a salt that is not random, or above N.
    #[error("bucket {bucket}: {reason}")]
    Bucket {
        /// The bucket given.
        bucket: u32,
        /// Why it is refused.
        reason: &'static str,
    },
    /// A scan that cannot be planned (see [`ScanError`](crate::ScanError)).
    #[error(transparent)]
    Scan(#[from] crate::error::ScanError),
}
