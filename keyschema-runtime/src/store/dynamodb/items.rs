//! A row's item without the service: what a put writes and what a read
//! makes of an item, for a program that reads or writes the table with
//! another client (a Lambda, boto3) and for the value vectors of
//! `docs/ENCODING.md` ("Vectors for whole rows").

use super::{DynamoError, DynamoStore};
use aws_sdk_dynamodb::types::AttributeValue;
use std::collections::HashMap;

impl DynamoStore {
    /// The item a put of `value` under `key` writes, attribute by attribute,
    /// with every check a put makes (DynamoDB's limits, a float `N` cannot
    /// hold, a map key that is not a string, nesting past 32 levels), but
    /// nothing sent: `value` is what `put_row` takes (for a key type with
    /// value fields, the ordered stores' map, `keyschema::record::encode_values`).
    ///
    /// The item depends on the form of each index, and the table decides
    /// the form of an index native by default (encoded where the table's
    /// GSI is): until the store has read the table (call
    /// [`check_table`](Self::check_table) first, or open it with
    /// [`connect`](Self::connect)), such a store refuses
    /// ([`DynamoError::TableUnread`]). A program without a table takes
    /// the declared forms with [`with_declared_forms`](Self::with_declared_forms).
    /// A store of a schema document that lists indexes refuses, as its
    /// puts do ([`DynamoError::Unsupported`]).
    ///
    /// ```
    /// use keyschema::store::dynamodb::{sdk::types::AttributeValue, DynamoStore};
    /// use keyschema::{record::encode_values, RowKey};
    ///
    /// #[derive(RowKey)]
    /// #[rowkey(prefix = "c", then = (id))]
    /// struct Counter { id: u32, #[rowkey(value)] n: i64 }
    ///
    /// let store = DynamoStore::connect_local::<Counter>("http://127.0.0.1:1", "t")?;
    /// let row = Counter { id: 7, n: -3 };
    /// let item = store.item_for(&row.encode(), &encode_values(&row)?)?;
    /// assert_eq!(item["n"], AttributeValue::N("-3".into()));
    /// assert_eq!(item["id"], AttributeValue::N("7".into()));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn item_for(
        &self,
        key: &[u8],
        value: &[u8],
    ) -> Result<HashMap<String, AttributeValue>, DynamoError> {
        self.forms_decided()?;
        self.put_item(0, key, value)
    }

    /// The value a read gives for the item `item` stored under `key`: for
    /// a key type with value fields, the field map that
    /// `keyschema::record::decode_values` reads (the attributes other than
    /// the key's, then the item's notes); else the raw value attribute.
    pub fn value_of_item(
        &self,
        key: &[u8],
        item: &HashMap<String, AttributeValue>,
    ) -> Result<Vec<u8>, DynamoError> {
        self.value_of(key, item)
    }

    /// What a read of `schema` asks DynamoDB for, when `schema` is a
    /// projection's (`P::schema()` of a `#[derive(Projection)]`): the
    /// `ProjectionExpression` and its `ExpressionAttributeNames`, the
    /// table's partition key attribute, its sort key attribute (when the
    /// key has a sort part), then the projected value fields in
    /// declaration order, each through a placeholder `#n0`, `#n1`, ...
    /// (so reserved words and dots are safe). The Query, GetItem and
    /// BatchGetItem of a projected scan or get carry exactly these; DynamoDB
    /// returns only those attributes, and a projected field the item lacks
    /// reads as absent. `None` for a schema that reads whole items (a key
    /// type's own). `docs/ENCODING.md`'s `projections` vectors hold it.
    ///
    /// ```
    /// use keyschema::store::dynamodb::DynamoStore;
    /// use keyschema::{Projection, RowKey};
    ///
    /// #[derive(RowKey)]
    /// #[rowkey(then = (invoice_id), line_no)]
    /// struct Line { invoice_id: String, line_no: u16, #[rowkey(value)] amount: i64, #[rowkey(value)] memo: String }
    ///
    /// #[derive(Projection)]
    /// #[projection(of = Line)]
    /// struct Amount { #[projection(value)] amount: i64 }
    ///
    /// let store = DynamoStore::connect_local::<Line>("http://127.0.0.1:1", "lines")?;
    /// let (expression, names) = store.projection_request(Amount::schema()).expect("a projection");
    /// assert_eq!(expression, "#n0, #n1, #n2");
    /// assert_eq!((&names["#n0"], &names["#n1"], &names["#n2"]), (&"pk".to_string(), &"sk".to_string(), &"amount".to_string()));
    /// assert!(store.projection_request(Line::schema()).is_none());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn projection_request(
        &self,
        schema: &crate::schema::Schema,
    ) -> Option<(String, HashMap<String, String>)> {
        schema
            .projection()
            .map(|fields| self.projection_expression(fields))
    }
}
