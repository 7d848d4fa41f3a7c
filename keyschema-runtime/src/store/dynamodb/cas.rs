//! Compare-and-set through a conditional PutItem or DeleteItem: DynamoDB
//! checks the condition and writes the item as one step.

use super::{request_error, DynamoError, DynamoStore, PARTITION_KEY, VALUE};
use crate::store::{Cas, Mutation};
use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue;

/// Compare-and-sets in flight at once.
const IN_FLIGHT: usize = 16;

impl DynamoStore {
    /// Applies each compare-and-set with one conditional PutItem or
    /// DeleteItem (up to 16 in flight); per entry, whether it applied.
    /// Keys and items are checked against DynamoDB's limits first.
    pub async fn compare_and_write(&self, batch: &[Cas]) -> Result<Vec<bool>, DynamoError> {
        let mut applied = Vec::with_capacity(batch.len());
        for (n, chunk) in batch.chunks(IN_FLIGHT).enumerate() {
            let answers = futures_util::future::join_all(
                chunk
                    .iter()
                    .enumerate()
                    .map(|(i, cas)| self.conditional(n * IN_FLIGHT + i, cas)),
            )
            .await;
            for answer in answers {
                applied.push(answer?);
            }
        }
        Ok(applied)
    }

    async fn conditional(&self, index: usize, cas: &Cas) -> Result<bool, DynamoError> {
        let (condition, value) = match &cas.expect {
            // Every item keyscheme writes has its partition attribute.
            None => ("attribute_not_exists(#k)", None),
            Some(v) => ("#v = :v", Some(AttributeValue::B(Blob::new(v.clone())))),
        };
        let names = |mut names: std::collections::HashMap<String, String>| {
            match value {
                None => names.insert("#k".to_string(), PARTITION_KEY.to_string()),
                Some(_) => names.insert("#v".to_string(), VALUE.to_string()),
            };
            names
        };
        let names = names(Default::default());
        let values = value.map(|v| std::collections::HashMap::from([(":v".to_string(), v)]));
        let outcome = match &cas.set {
            Some(set) => {
                let request = self.write_request(
                    index,
                    &Mutation::Put {
                        key: cas.key.clone(),
                        value: set.clone(),
                    },
                )?;
                let item = request
                    .put_request()
                    .map(|p| p.item().clone())
                    .unwrap_or_default();
                self.client
                    .put_item()
                    .table_name(&self.table)
                    .set_item(Some(item))
                    .condition_expression(condition)
                    .set_expression_attribute_names(Some(names))
                    .set_expression_attribute_values(values)
                    .send()
                    .await
                    .map(|_| true)
                    .or_else(|e| match e.as_service_error() {
                        Some(s) if s.is_conditional_check_failed_exception() => Ok(false),
                        _ => Err(request_error("PutItem", e)),
                    })
            }
            None => self
                .client
                .delete_item()
                .table_name(&self.table)
                .set_key(Some(self.key_item(index, &cas.key)?))
                .condition_expression(condition)
                .set_expression_attribute_names(Some(names))
                .set_expression_attribute_values(values)
                .send()
                .await
                .map(|_| true)
                .or_else(|e| match e.as_service_error() {
                    Some(s) if s.is_conditional_check_failed_exception() => Ok(false),
                    _ => Err(request_error("DeleteItem", e)),
                }),
        };
        outcome
    }
}
