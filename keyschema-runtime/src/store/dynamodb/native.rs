//! The form of each index on DynamoDB (`crate::schema::native`, which the
//! schema document uses too), for the items of an [`ItemShape`].

use super::ItemShape;
use crate::schema::Schema;

pub(super) use crate::schema::native::negated;
pub use crate::schema::native::{
    IndexForm, KeyKind, KeySource, NativeAttribute, MAX_KEY_ATTRIBUTES,
};

/// The form the index whose entries `index` lays out has on DynamoDB, for
/// the rows of `row` in items of `shape`: native when every component can
/// be one of the GSI's typed key attributes, unless it is declared
/// `dynamodb = encoded`; else encoded, with why (the declaration, or the
/// first component that cannot be native, and the reason).
///
/// A store refuses to open when an index declared `dynamodb = native`
/// cannot be ([`DynamoError::Shape`](super::DynamoError::Shape), naming
/// the component and the reason). An index native by default is encoded
/// on a table whose GSI of its name is (the table decides:
/// [`DynamoStore::index_forms`](super::DynamoStore::index_forms) says so).
pub fn index_form(index: &Schema, row: &Schema, shape: &ItemShape) -> IndexForm {
    crate::schema::native::index_form(index, row, shape.key_fields)
}

/// The key attributes of `index` as a native GSI in items of `shape`, or
/// why it cannot be one.
pub(super) fn native_parts(
    index: &Schema,
    row: &Schema,
    shape: &ItemShape,
) -> Result<(Vec<NativeAttribute>, Vec<NativeAttribute>), String> {
    crate::schema::native::native_parts(index, row, shape.key_fields)
}
