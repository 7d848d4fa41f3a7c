//! The table: its creation (on-demand billing, waiting until ACTIVE) and
//! the check that an existing table has the key attributes, key types and
//! attribute types of the store's key type.

use super::gsi::Gsi;
use super::{request_error, DynamoError, DynamoStore};
use crate::key::RowKey;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, KeySchemaElement, KeyType, ScalarAttributeType,
};

/// How long a new table may stay CREATING.
const TABLE_WAIT: std::time::Duration = std::time::Duration::from_secs(300);

impl DynamoStore {
    /// Creates the table unless it exists (on-demand billing); `true` when
    /// it was created. An existing table must have this store's key schema.
    pub async fn create_table(&self) -> Result<bool, DynamoError> {
        use aws_sdk_dynamodb::types::BillingMode;
        let scalar = if self.text() {
            ScalarAttributeType::S
        } else {
            ScalarAttributeType::B
        };
        let mut request = self
            .client
            .create_table()
            .table_name(&self.table)
            .billing_mode(BillingMode::PayPerRequest);
        let mut attributes = vec![(self.shape.partition_key.as_str(), KeyType::Hash)];
        if self.has_sort_key() {
            attributes.push((self.shape.sort_key.as_str(), KeyType::Range));
        }
        for (name, key_type) in &attributes {
            let definition = AttributeDefinition::builder()
                .attribute_name(*name)
                .attribute_type(scalar.clone())
                .build()
                .map_err(|e| request_error("CreateTable", e))?;
            let element = KeySchemaElement::builder()
                .attribute_name(*name)
                .key_type(key_type.clone())
                .build()
                .map_err(|e| request_error("CreateTable", e))?;
            request = request
                .attribute_definitions(definition)
                .key_schema(element);
        }
        for gsi in self.gsis() {
            let mut index = aws_sdk_dynamodb::types::GlobalSecondaryIndex::builder()
                .index_name(gsi.name)
                .projection(
                    aws_sdk_dynamodb::types::Projection::builder()
                        .projection_type(aws_sdk_dynamodb::types::ProjectionType::All)
                        .build(),
                );
            for (definition, element) in self.gsi_keys(gsi, "CreateTable")? {
                request = request.attribute_definitions(definition);
                index = index.key_schema(element);
            }
            request = request.global_secondary_indexes(
                index.build().map_err(|e| request_error("CreateTable", e))?,
            );
        }
        let created = match request.send().await {
            Ok(_) => true,
            Err(e)
                if e.as_service_error()
                    .is_some_and(|s| s.is_resource_in_use_exception()) =>
            {
                self.check_table().await?;
                false
            }
            Err(e) => return Err(request_error("CreateTable", e)),
        };
        self.wait_until_active(TABLE_WAIT).await?;
        Ok(created)
    }

    /// The attribute definitions and key schema of a GSI's keys, for
    /// `operation`.
    pub(super) fn gsi_keys(
        &self,
        gsi: &Gsi,
        operation: &'static str,
    ) -> Result<Vec<(AttributeDefinition, KeySchemaElement)>, DynamoError> {
        let scalar = if self.text() {
            ScalarAttributeType::S
        } else {
            ScalarAttributeType::B
        };
        let mut keys = vec![(gsi.pk.as_str(), KeyType::Hash)];
        if let Some(sk) = &gsi.sk {
            keys.push((sk.as_str(), KeyType::Range));
        }
        keys.into_iter()
            .map(|(name, key_type)| {
                let definition = AttributeDefinition::builder()
                    .attribute_name(name)
                    .attribute_type(scalar.clone())
                    .build()
                    .map_err(|e| request_error(operation, e))?;
                let element = KeySchemaElement::builder()
                    .attribute_name(name)
                    .key_type(key_type)
                    .build()
                    .map_err(|e| request_error(operation, e))?;
                Ok((definition, element))
            })
            .collect()
    }

    /// [`create_table`](Self::create_table), for key type `K`, which must
    /// be the store's (as `BigtableStore::create_table_for` reads).
    pub async fn create_table_for<K: RowKey>(&self) -> Result<bool, DynamoError> {
        self.check_schema(K::schema())?;
        self.create_table().await
    }

    /// Checks that the table has a GSI for each index of the key type, over
    /// its `_pk` and `_sk` attributes; an index declared `building` may
    /// have none yet ([`add_indexes`](Self::add_indexes) makes it).
    pub(super) fn check_gsis(
        &self,
        table: &aws_sdk_dynamodb::types::TableDescription,
    ) -> Result<(), DynamoError> {
        for gsi in self.gsis() {
            let found = table
                .global_secondary_indexes()
                .iter()
                .find(|g| g.index_name() == Some(gsi.name));
            if found.is_none() && gsi.schema.is_building() {
                continue;
            }
            let keys: Vec<String> = found
                .map(|g| {
                    g.key_schema()
                        .iter()
                        .map(|k| format!("{} {}", k.attribute_name(), k.key_type().as_str()))
                        .collect()
                })
                .unwrap_or_default();
            let mut wanted = vec![format!("{} HASH", gsi.pk)];
            if let Some(sk) = &gsi.sk {
                wanted.push(format!("{sk} RANGE"));
            }
            if keys != wanted {
                return Err(DynamoError::TableMismatch {
                    table: self.table.clone(),
                    reason: format!(
                        "`{}` has the index `{}`, and the table has {} where it needs a GSI `{}` over [{}]: add it with `add_indexes` (UpdateTable), then give the items written before it their index attributes with `IndexBackfill::build_async`, the index declared `building` meanwhile (README, \"Indexes\", \"An index added to a live table\")",
                        self.schema.name(),
                        gsi.name,
                        if found.is_some() { format!("a GSI `{}` over [{}]", gsi.name, keys.join(", ")) } else { "no such GSI".to_string() },
                        gsi.name,
                        wanted.join(", "),
                    ),
                });
            }
        }
        Ok(())
    }

    /// Polls DescribeTable until the table and its GSIs are ACTIVE (a new table is
    /// CREATING for seconds on DynamoDB, and writes to it fail until then;
    /// a new GSI is CREATING while DynamoDB fills it); at most `wait`.
    pub(super) async fn wait_until_active(
        &self,
        wait: std::time::Duration,
    ) -> Result<(), DynamoError> {
        use aws_sdk_dynamodb::types::TableStatus;
        let deadline = std::time::Instant::now() + wait;
        let mut pause = std::time::Duration::from_millis(20);
        loop {
            let described = self.describe().await?;
            let status = described.table().and_then(|t| t.table_status());
            // The GSIs too: an index scan of a CREATING GSI fails.
            let indexes_active = described.table().is_none_or(|t| {
                t.global_secondary_indexes().iter().all(|g| {
                    g.index_status()
                        .is_none_or(|s| *s == aws_sdk_dynamodb::types::IndexStatus::Active)
                })
            });
            if status == Some(&TableStatus::Active) && indexes_active {
                return Ok(());
            }
            if std::time::Instant::now() > deadline {
                return Err(DynamoError::Request {
                    operation: "DescribeTable",
                    message: format!(
                        "table {} (or a GSI of it) is still {status:?} after {} s",
                        self.table,
                        wait.as_secs()
                    ),
                });
            }
            tokio::time::sleep(pause).await;
            pause = (pause * 2).min(std::time::Duration::from_secs(2));
        }
    }

    pub(super) async fn describe(
        &self,
    ) -> Result<aws_sdk_dynamodb::operation::describe_table::DescribeTableOutput, DynamoError> {
        self.client
            .describe_table()
            .table_name(&self.table)
            .send()
            .await
            .map_err(|e| request_error("DescribeTable", e))
    }

    /// Checks an existing table against the store's key type: its key
    /// schema (the [`ItemShape`](super::ItemShape)'s partition-key attribute
    /// as HASH, its sort-key attribute as RANGE when keys have a sort part) and those attributes' types (`B`, or `S` for
    /// `format = text` keys); a [`DynamoError::TableMismatch`] names what
    /// differs. `false` when there is no such table yet.
    /// [`connect`](Self::connect) and [`create_table`](Self::create_table)
    /// run it; call it after [`connect_local`](Self::connect_local) or
    /// [`from_client`](Self::from_client) to check before the first write.
    pub async fn check_table(&self) -> Result<bool, DynamoError> {
        let described = match self
            .client
            .describe_table()
            .table_name(&self.table)
            .send()
            .await
        {
            Ok(d) => d,
            Err(e)
                if e.as_service_error()
                    .is_some_and(|s| s.is_resource_not_found_exception()) =>
            {
                return Ok(false)
            }
            Err(e) => return Err(request_error("DescribeTable", e)),
        };
        let Some(table) = described.table() else {
            return Ok(false);
        };
        // Each key attribute as `name KEYTYPE TYPE` (`pk HASH B`).
        let found: Vec<String> = table
            .key_schema()
            .iter()
            .map(|k| {
                let name = k.attribute_name();
                let scalar = table
                    .attribute_definitions()
                    .iter()
                    .find(|d| d.attribute_name() == name)
                    .map_or("?", |d| d.attribute_type().as_str());
                format!("{name} {} {scalar}", k.key_type().as_str())
            })
            .collect();
        let scalar = if self.text() { "S" } else { "B" };
        let mut wanted = vec![format!("{} HASH {scalar}", self.shape.partition_key)];
        if self.has_sort_key() {
            wanted.push(format!("{} RANGE {scalar}", self.shape.sort_key));
        }
        if found == wanted {
            return self.check_gsis(table).map(|()| true);
        }
        Err(DynamoError::TableMismatch {
            table: self.table.clone(),
            reason: format!(
                "its key is [{}] and `{}` needs [{}] (attribute, key type, attribute type): use another table name, the key type the table was made for, or an ItemShape with the table's key attribute names",
                found.join(", "),
                self.schema.name(),
                wanted.join(", "),
            ),
        })
    }
}
