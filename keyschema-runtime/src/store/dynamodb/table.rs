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
        // An attribute two GSIs are keyed on is defined once.
        let mut defined: Vec<String> = attributes.iter().map(|(n, _)| n.to_string()).collect();
        for gsi in self.gsis().iter() {
            let mut index = aws_sdk_dynamodb::types::GlobalSecondaryIndex::builder()
                .index_name(gsi.name)
                .projection(projection(gsi));
            for (definition, element) in self.gsi_keys(gsi, "CreateTable")? {
                if !defined.iter().any(|d| d == definition.attribute_name()) {
                    defined.push(definition.attribute_name().to_string());
                    request = request.attribute_definitions(definition);
                }
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
            Err(e) => return Err(self.multi_attribute_refused(request_error("CreateTable", e))),
        };
        self.wait_until_active(TABLE_WAIT).await?;
        Ok(created)
    }

    /// A server's refusal of a GSI key schema (dynalite, DynamoDB Local
    /// before 3.3: two key attributes at most) where a native index needs
    /// several partition or sort attributes, as what to do; other errors
    /// as they are.
    fn multi_attribute_refused(&self, error: DynamoError) -> DynamoError {
        let DynamoError::Request { message, .. } = &error else {
            return error;
        };
        let gsis = self.gsis();
        let multi = gsis.iter().find(|g| {
            g.native
                .as_ref()
                .is_some_and(|n| n.hash.len() > 1 || n.range.len() > 1)
        });
        let Some(gsi) = multi.filter(|_| message.contains("eySchema")) else {
            return error;
        };
        let form = super::index_form(gsi.schema, self.schema, &self.shape);
        DynamoError::Unsupported {
            operation: "a GSI keyed on several attributes",
            reason: format!(
                "the server refused the table's GSIs ({message}), and the index `{}` is {form}: DynamoDB and DynamoDB Local 3.3 and later take such keys, dynalite and older DynamoDB Local do not; on such a server declare the index `dynamodb = encoded` (a GSI over `{}_pk` and `{}_sk`)",
                gsi.name, gsi.name, gsi.name
            ),
        }
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
        let mut keys = Vec::new();
        match &gsi.native {
            None => {
                keys.push((gsi.pk.as_str(), KeyType::Hash, scalar.clone()));
                if let Some(sk) = &gsi.sk {
                    keys.push((sk.as_str(), KeyType::Range, scalar));
                }
            }
            Some(native) => {
                for (attributes, key_type) in [
                    (&native.hash, KeyType::Hash),
                    (&native.range, KeyType::Range),
                ] {
                    for a in attributes {
                        let kind = ScalarAttributeType::from(a.kind.as_str());
                        keys.push((a.name.as_str(), key_type.clone(), kind));
                    }
                }
            }
        }
        keys.into_iter()
            .map(|(name, key_type, scalar)| {
                let definition = AttributeDefinition::builder()
                    .attribute_name(name)
                    .attribute_type(scalar)
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

    /// Checks that the table has a GSI for each index of the key type in
    /// the index's form: an encoded index's over its `_pk` and `_sk`
    /// attributes, a native index's over its typed attributes (and
    /// projecting the value fields a read rebuilds its entries from); an
    /// index declared `building` may have none yet
    /// ([`add_indexes`](Self::add_indexes) makes it). A GSI of the other
    /// form is refused, with the form each has and what to do.
    pub(super) fn check_gsis(
        &self,
        table: &aws_sdk_dynamodb::types::TableDescription,
        missing: Missing,
    ) -> Result<(), DynamoError> {
        let typed = |name: &str| {
            table
                .attribute_definitions()
                .iter()
                .find(|d| d.attribute_name() == name)
                .map_or("?", |d| d.attribute_type().as_str())
                .to_string()
        };
        // The table decides a default-native index's form.
        let forms = self.forms_for(table);
        for gsi in forms.iter() {
            let found = table
                .global_secondary_indexes()
                .iter()
                .find(|g| g.index_name() == Some(gsi.name));
            if found.is_none() && (gsi.schema.is_building() || missing == Missing::Allowed) {
                continue;
            }
            // Each key attribute as `name KEYTYPE TYPE` (`site HASH S`).
            let keys: Option<Vec<String>> = found.map(|g| {
                g.key_schema()
                    .iter()
                    .map(|k| {
                        let name = k.attribute_name();
                        format!("{name} {} {}", k.key_type().as_str(), typed(name))
                    })
                    .collect()
            });
            let wanted = gsi_wanted(gsi, self.text());
            let reason = match keys {
                Some(keys) if keys == wanted => match found.and_then(|g| unprojected(gsi, g)) {
                    None => continue,
                    Some(missing) => format!(
                        "its GSI `{}` does not project `{missing}`, which a read of the native index `{}` rebuilds its entries from: recreate the GSI with `add_indexes` (DeleteTable's GSI first, UpdateTable), or project ALL",
                        gsi.name, gsi.name
                    ),
                },
                keys => self.gsi_mismatch(gsi, keys.as_deref(), &wanted),
            };
            self.keep_forms(None, table);
            return Err(DynamoError::TableMismatch {
                table: self.table.clone(),
                reason,
            });
        }
        self.keep_forms(Some(forms), table);
        Ok(())
    }

    /// Why the table's GSI for `gsi` (its key attributes `keys`, or none)
    /// is not the one `wanted`: one sentence of what the table has, what
    /// the declaration needs, and what to do.
    fn gsi_mismatch(&self, gsi: &Gsi, keys: Option<&[String]>, wanted: &[String]) -> String {
        let (name, row) = (gsi.name, self.schema.name());
        let needs = format!(
            "`{row}`'s index `{name}` is {}, so it needs a GSI over [{}]",
            self.declaration(gsi),
            wanted.join(", ")
        );
        let Some(keys) = keys else {
            return format!("it has no GSI `{name}`, and {needs}: add it with `add_indexes` (UpdateTable), then give the items written before it their index attributes with `IndexBackfill::build_async`, the index declared `building` meanwhile (docs/guide/indexes.md, \"An index added to a live table\")");
        };
        let has = keys.join(", ");
        let encoded = gsi_wanted(
            &Gsi {
                native: None,
                ..gsi.clone()
            },
            self.text(),
        );
        // The index's native form's key attributes, with key-field
        // attributes on (whether this store has them or not).
        let native = crate::schema::native::native_parts(gsi.schema, self.schema, true)
            .ok()
            .map(|(hash, range)| {
                let list = |a: &[super::NativeAttribute], t: &str| -> Vec<String> {
                    a.iter()
                        .map(|a| format!("{} {t} {}", a.name, a.kind.as_str()))
                        .collect()
                };
                [list(&hash, "HASH"), list(&range, "RANGE")].concat()
            });
        if gsi.native.is_some() && keys == encoded.as_slice() {
            return format!("its GSI `{name}` is in the encoded form, over [{has}], and {needs}: leave `dynamodb` out of the index's declaration (the table then decides: encoded here) or declare it `dynamodb = encoded`; to move it to the native form, declare the native index under a new name, add its GSI with `add_indexes`, then drop the encoded one (docs/guide/indexes.md, \"The table decides\")");
        }
        if gsi.native.is_none() && native.as_deref() == Some(keys) {
            return match self.shape.key_fields {
                true => format!("its GSI `{name}` is the index's native form, over [{has}], and {needs}: leave `dynamodb` out of the index's declaration (the table then decides: native here) or declare it `dynamodb = native`, to read and write through this GSI"),
                false => format!("its GSI `{name}` is the index's native form, over [{has}], keyed on the row's key-field attributes, and {needs}: open the store with key-field attributes on (`ItemShape::key_fields(true)`, the default) to read and write through this GSI"),
            };
        }
        format!("its GSI `{name}` is over [{has}], and {needs}: a GSI's key attributes cannot change, so declare the index as the table has it, or declare the new one under a new name, add its GSI with `add_indexes` and fill it with `IndexBackfill::build_async`, then drop the old GSI (docs/guide/indexes.md, \"An index added to a live table\")")
    }

    /// How the index of `gsi` came to its form on this store, in the
    /// user's terms: its declaration, the default, or the table.
    fn declaration(&self, gsi: &Gsi) -> String {
        use crate::schema::DynamoForm;
        match (&gsi.native, gsi.schema.dynamodb_form()) {
            (Some(_), DynamoForm::Native) => "declared `dynamodb = native`".to_string(),
            (Some(_), _) => "native by default".to_string(),
            (None, DynamoForm::Encoded) => "declared `dynamodb = encoded`".to_string(),
            (None, _) if gsi.table_encoded => {
                "encoded, as the table's GSI was when this store read it".to_string()
            }
            (None, _) if !self.shape.key_fields => "encoded on this store, whose items have no key-field attributes (`ItemShape::key_fields(false)`)".to_string(),
            (None, _) => match super::native::native_parts(gsi.schema, self.schema, &self.shape) {
                Err(why) => format!("encoded, as it cannot be native ({why})"),
                Ok(_) => "encoded".to_string(),
            },
        }
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
            return self.check_gsis(table, Missing::Refused).map(|()| true);
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

/// Whether [`DynamoStore::check_gsis`] refuses a table without a GSI an
/// index that is not `building` needs.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Missing {
    /// `check_table`: the table must have every GSI.
    Refused,
    /// Before an index write or read, and while `add_indexes` adds them:
    /// the server refuses a read of a GSI the table lacks by name.
    Allowed,
}

/// The key schema `gsi` needs, each attribute as `name KEYTYPE TYPE`.
fn gsi_wanted(gsi: &Gsi, text: bool) -> Vec<String> {
    let scalar = if text { "S" } else { "B" };
    match &gsi.native {
        None => {
            let mut wanted = vec![format!("{} HASH {scalar}", gsi.pk)];
            if let Some(sk) = &gsi.sk {
                wanted.push(format!("{sk} RANGE {scalar}"));
            }
            wanted
        }
        Some(native) => native
            .hash
            .iter()
            .map(|a| format!("{} HASH {}", a.name, a.kind.as_str()))
            .chain(
                native
                    .range
                    .iter()
                    .map(|a| format!("{} RANGE {}", a.name, a.kind.as_str())),
            )
            .collect(),
    }
}

/// A value field a native index's reads need that the GSI `found` does
/// not project, if any.
fn unprojected(
    gsi: &Gsi,
    found: &aws_sdk_dynamodb::types::GlobalSecondaryIndexDescription,
) -> Option<&'static str> {
    use aws_sdk_dynamodb::types::ProjectionType;
    let native = gsi.native.as_ref()?;
    let projection = found.projection()?;
    let projected: &[String] = match projection.projection_type() {
        Some(ProjectionType::All) | None => return None,
        Some(ProjectionType::Include) => projection.non_key_attributes(),
        Some(_) => &[],
    };
    native
        .include
        .iter()
        .find(|f| !projected.iter().any(|p| p == *f))
        .copied()
}

/// The projection of `gsi`: an encoded index's every attribute (as
/// before); a native index's the value fields among its components that
/// are no key attribute of it (a read rebuilds its entries from them),
/// or its keys only.
pub(super) fn projection(gsi: &Gsi) -> aws_sdk_dynamodb::types::Projection {
    use aws_sdk_dynamodb::types::{Projection, ProjectionType};
    match &gsi.native {
        None => Projection::builder()
            .projection_type(ProjectionType::All)
            .build(),
        Some(native) if native.include.is_empty() => Projection::builder()
            .projection_type(ProjectionType::KeysOnly)
            .build(),
        Some(native) => Projection::builder()
            .projection_type(ProjectionType::Include)
            .set_non_key_attributes(Some(native.include.iter().map(|f| f.to_string()).collect()))
            .build(),
    }
}
