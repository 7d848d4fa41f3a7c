//! Table administration: creating the table, with its value family and
//! split points, unless it exists.

use super::{is_retryable, rpc_error, BigtableError, BigtableStore, FAMILY};
use googleapis_tonic_google_bigtable_admin_v2::google::bigtable::admin::v2 as admin;
use std::collections::HashMap;
use tonic::transport::Channel;

type AdminClient = admin::bigtable_table_admin_client::BigtableTableAdminClient<Channel>;

impl BigtableStore {
    /// Creates the table with the value family (one version per cell) and
    /// initial split points. Fails with `AlreadyExists` when the table is
    /// there; [`create_table_if_missing`](Self::create_table_if_missing) does not.
    pub async fn create_table(&self, splits: &[Vec<u8>]) -> Result<(), BigtableError> {
        self.create_table_with(&[FAMILY], splits).await
    }

    /// [`create_table`](Self::create_table) with these column families.
    async fn create_table_with(
        &self,
        families: &[&str],
        splits: &[Vec<u8>],
    ) -> Result<(), BigtableError> {
        let table = admin::Table {
            column_families: families
                .iter()
                .map(|f| (f.to_string(), one_version()))
                .collect::<HashMap<_, _>>(),
            ..admin::Table::default()
        };
        let message = admin::CreateTableRequest {
            parent: self.instance_name.clone(),
            table_id: self.table_id.clone(),
            table: Some(table),
            initial_splits: splits
                .iter()
                .map(|key| admin::create_table_request::Split { key: key.clone() })
                .collect(),
        };
        self.admin_call("CreateTable", message, |mut admin, request| async move {
            admin.create_table(request).await
        })
        .await?;
        Ok(())
    }

    /// An admin RPC, retried like the data RPCs while its failure is
    /// transient (a broken connection, `UNAVAILABLE`). A retried
    /// CreateTable whose first attempt landed answers `AlreadyExists`, which
    /// [`create_table_if_missing`](Self::create_table_if_missing) accepts.
    async fn admin_call<M, T, F, Fut>(
        &self,
        operation: &'static str,
        message: M,
        call: F,
    ) -> Result<T, BigtableError>
    where
        M: Clone,
        F: Fn(AdminClient, tonic::Request<M>) -> Fut,
        Fut: std::future::Future<Output = Result<tonic::Response<T>, tonic::Status>>,
    {
        let mut attempt = 0;
        loop {
            attempt += 1;
            let request = self.request(message.clone()).await?;
            match call(self.admin.clone(), request).await {
                Ok(response) => return Ok(response.into_inner()),
                Err(s) if is_retryable(&s) && attempt < self.retry.attempts => {
                    self.pause(attempt).await
                }
                Err(s) => return Err(rpc_error(operation, attempt, &s)),
            }
        }
    }

    /// The names of the table's column families, sorted (GetTable's schema
    /// view): what a tool checks a schema document's `family` against
    /// before it trusts an empty read.
    pub async fn column_families(&self) -> Result<Vec<String>, BigtableError> {
        let message = admin::GetTableRequest {
            name: self.table_name.clone(),
            view: admin::table::View::SchemaView as i32,
        };
        let table = self
            .admin_call("GetTable", message, |mut admin, request| async move {
                admin.get_table(request).await
            })
            .await?;
        let mut families: Vec<String> = table.column_families.into_keys().collect();
        families.sort();
        Ok(families)
    }

    /// Creates the table unless it exists; `true` when it was created. An
    /// existing table must have the value family [`FAMILY`]
    /// ([`BigtableError::NotAKeyschemaTable`] otherwise); its splits and
    /// garbage-collection rules are left as they are.
    pub async fn create_table_if_missing(&self, splits: &[Vec<u8>]) -> Result<bool, BigtableError> {
        self.create_table_if_missing_with(None, splits).await
    }

    /// [`create_table_if_missing`](Self::create_table_if_missing), with the
    /// family of a key type's value fields too (added to an existing table
    /// that lacks it).
    async fn create_table_if_missing_with(
        &self,
        fields: Option<&str>,
        splits: &[Vec<u8>],
    ) -> Result<bool, BigtableError> {
        let families: Vec<&str> = std::iter::once(FAMILY).chain(fields).collect();
        match self.create_table_with(&families, splits).await {
            Ok(()) => Ok(true),
            Err(BigtableError::Rpc {
                code: tonic::Code::AlreadyExists,
                ..
            }) => {
                let message = admin::GetTableRequest {
                    name: self.table_name.clone(),
                    view: admin::table::View::SchemaView as i32,
                };
                let table = self
                    .admin_call("GetTable", message, |mut admin, request| async move {
                        admin.get_table(request).await
                    })
                    .await?;
                if !table.column_families.contains_key(FAMILY) {
                    return Err(BigtableError::NotAKeyschemaTable {
                        table: self.table_name.clone(),
                    });
                }
                match fields {
                    Some(family) if !table.column_families.contains_key(family) => {
                        self.add_family(family).await?;
                    }
                    _ => {}
                }
                Ok(false)
            }
            Err(e) => Err(e),
        }
    }

    /// Adds the column family `family` (one version per cell) to the table.
    async fn add_family(&self, family: &str) -> Result<(), BigtableError> {
        use admin::modify_column_families_request::{modification::Mod, Modification};
        let message = admin::ModifyColumnFamiliesRequest {
            name: self.table_name.clone(),
            modifications: vec![Modification {
                id: family.to_string(),
                r#mod: Some(Mod::Create(one_version())),
                ..Modification::default()
            }],
            ..admin::ModifyColumnFamiliesRequest::default()
        };
        self.admin_call(
            "ModifyColumnFamilies",
            message,
            |mut admin, request| async move { admin.modify_column_families(request).await },
        )
        .await?;
        Ok(())
    }

    /// Creates the table for key type `K` unless it exists, split at every
    /// salt bucket boundary (see [`salt_splits`](crate::Schema::salt_splits)),
    /// and at its indexes' (their entries share the table),
    /// with the family of `K`'s value fields when it has any
    /// ([`Schema::family`](crate::Schema::family); added to an existing
    /// table that lacks it); `true` when the table was created. Safe to
    /// call on every start.
    pub async fn create_table_for<K: crate::key::RowKey>(&self) -> Result<bool, BigtableError> {
        let schema = K::schema();
        // The index entries share the table: split at their buckets too.
        let mut splits = schema.salt_splits();
        for index in schema.indexes() {
            splits.extend(index.salt_splits());
        }
        splits.sort();
        splits.dedup();
        self.create_table_if_missing_with(super::rows::family_of(schema), &splits)
            .await
    }
}

/// A column family that keeps one version of each cell.
fn one_version() -> admin::ColumnFamily {
    admin::ColumnFamily {
        gc_rule: Some(admin::GcRule {
            rule: Some(admin::gc_rule::Rule::MaxNumVersions(1)),
        }),
        ..admin::ColumnFamily::default()
    }
}
