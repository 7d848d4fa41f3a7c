//! Compare-and-set through a conditional PutItem or DeleteItem: DynamoDB
//! checks the condition and writes the item as one step.

use super::gsi::Gsi;
use super::{request_error, DynamoError, DynamoStore, VALUE};
use crate::store::Cas;
use aws_sdk_dynamodb::error::{ProvideErrorMetadata, SdkError};
use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue;
use std::collections::HashMap;

/// Compare-and-sets in flight at once.
const IN_FLIGHT: usize = 16;

impl DynamoStore {
    /// Applies each compare-and-set with one conditional PutItem or
    /// DeleteItem (up to 16 in flight); per entry, whether it applied.
    /// Keys and items are checked against DynamoDB's limits first.
    pub async fn compare_and_write(&self, batch: &[Cas]) -> Result<Vec<bool>, DynamoError> {
        self.learn_forms().await?;
        let mut applied = Vec::with_capacity(batch.len());
        for (n, chunk) in batch.chunks(IN_FLIGHT).enumerate() {
            let answers = futures_util::future::join_all(
                chunk
                    .iter()
                    .enumerate()
                    .map(|(i, cas)| self.conditional_reading_again(n * IN_FLIGHT + i, cas)),
            )
            .await;
            for answer in answers {
                applied.push(answer?);
            }
        }
        Ok(applied)
    }

    /// [`conditional`](Self::conditional), once more after the store reads
    /// the table again when the server refuses it for a GSI's key schema.
    async fn conditional_reading_again(
        &self,
        index: usize,
        cas: &Cas,
    ) -> Result<bool, DynamoError> {
        match self.conditional(index, cas).await {
            Err(e) if self.refused_for_key_schema(&e) => {
                self.read_forms().await?;
                self.conditional(index, cas).await
            }
            answer => answer,
        }
    }

    async fn conditional(&self, index: usize, cas: &Cas) -> Result<bool, DynamoError> {
        if cas.expect.is_some() && self.whole_rows() {
            return Err(DynamoError::Unsupported {
                operation: "a compare-and-set against a stored value",
                reason: format!(
                    "`{}` keeps its value fields as attributes, which one condition cannot compare whole; a write that must be absent (`Cas::put_if_absent`) works",
                    self.schema.name()
                ),
            });
        }
        // Every item keyschema writes has its partition attribute.
        let (condition, name, values) = match &cas.expect {
            None => (
                "attribute_not_exists(#a)",
                self.shape.partition_key.as_str(),
                None,
            ),
            Some(v) => (
                "#a = :v",
                VALUE,
                Some(HashMap::from([(
                    ":v".to_string(),
                    AttributeValue::B(Blob::new(v.clone())),
                )])),
            ),
        };
        let names = HashMap::from([("#a".to_string(), name.to_string())]);
        match &cas.set {
            Some(set) => {
                // Checked against DynamoDB's limits as a batch put is.
                let item = self.put_item(index, &cas.key, set)?;
                let sent = self
                    .client
                    .put_item()
                    .table_name(&self.table)
                    .set_item(Some(item))
                    .condition_expression(condition)
                    .set_expression_attribute_names(Some(names))
                    .set_expression_attribute_values(values)
                    .send()
                    .await;
                applied("PutItem", sent)
            }
            None => {
                let sent = self
                    .client
                    .delete_item()
                    .table_name(&self.table)
                    .set_key(Some(self.key_item(index, &cas.key)?))
                    .condition_expression(condition)
                    .set_expression_attribute_names(Some(names))
                    .set_expression_attribute_values(values)
                    .send()
                    .await;
                applied("DeleteItem", sent)
            }
        }
    }
}

/// Whether a conditional write applied: `false` when its condition failed.
fn applied<T, E, R>(
    operation: &'static str,
    sent: Result<T, SdkError<E, R>>,
) -> Result<bool, DynamoError>
where
    E: ProvideErrorMetadata + std::error::Error + 'static,
    R: std::fmt::Debug,
{
    match sent {
        Ok(_) => Ok(true),
        Err(e) if e.code() == Some("ConditionalCheckFailedException") => Ok(false),
        Err(e) => Err(request_error(operation, e)),
    }
}

/// An UpdateItem of one item: its key, the update expression, the
/// attribute names and values they use, and the conditions so far.
pub(super) struct ConditionalUpdate {
    pub(super) key: HashMap<String, AttributeValue>,
    pub(super) update: String,
    pub(super) names: HashMap<String, String>,
    pub(super) values: HashMap<String, AttributeValue>,
    pub(super) condition: Vec<String>,
}

impl DynamoStore {
    /// Sends `u` on the further condition that each of `gsi`'s value fields
    /// still holds what `held` gives (or is absent when it gives nothing):
    /// `false` when a condition failed (a newer write won).
    pub(super) async fn update_while_indexed_fields_hold<'a>(
        &self,
        gsi: &Gsi,
        mut u: ConditionalUpdate,
        held: impl Fn(&str) -> Option<&'a AttributeValue>,
    ) -> Result<bool, DynamoError> {
        let row_fields = self.schema.values();
        let indexed = gsi
            .schema
            .components()
            .iter()
            .map(|c| c.name())
            .filter(|name| row_fields.iter().any(|f| f.name == *name));
        for (n, name) in indexed.enumerate() {
            u.names.insert(format!("#v{n}"), name.to_string());
            match held(name) {
                Some(value) => {
                    u.condition.push(format!("#v{n} = :v{n}"));
                    u.values.insert(format!(":v{n}"), value.clone());
                }
                None => u.condition.push(format!("attribute_not_exists(#v{n})")),
            }
        }
        super::Counters::count(&self.counters.update_item);
        let answer = self
            .client
            .update_item()
            .table_name(&self.table)
            .set_key(Some(u.key))
            .update_expression(u.update)
            .condition_expression(u.condition.join(" AND "))
            .set_expression_attribute_names(Some(u.names))
            .set_expression_attribute_values((!u.values.is_empty()).then_some(u.values))
            .send()
            .await;
        match answer {
            Ok(_) => Ok(true),
            Err(SdkError::ServiceError(e))
                if e.err().code() == Some("ConditionalCheckFailedException") =>
            {
                Ok(false)
            }
            Err(e) => Err(request_error("UpdateItem", e)),
        }
    }
}
