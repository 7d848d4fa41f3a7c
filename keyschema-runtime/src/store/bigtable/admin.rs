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
        let family = admin::ColumnFamily {
            gc_rule: Some(admin::GcRule {
                rule: Some(admin::gc_rule::Rule::MaxNumVersions(1)),
            }),
            ..admin::ColumnFamily::default()
        };
        let table = admin::Table {
            column_families: HashMap::from([(FAMILY.to_string(), family)]),
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

    /// Creates the table unless it exists; `true` when it was created. An
    /// existing table must have the value family [`FAMILY`]
    /// ([`BigtableError::NotAKeyschemaTable`] otherwise); its splits and
    /// garbage-collection rules are left as they are.
    pub async fn create_table_if_missing(&self, splits: &[Vec<u8>]) -> Result<bool, BigtableError> {
        match self.create_table(splits).await {
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
                if table.column_families.contains_key(FAMILY) {
                    Ok(false)
                } else {
                    Err(BigtableError::NotAKeyschemaTable {
                        table: self.table_name.clone(),
                    })
                }
            }
            Err(e) => Err(e),
        }
    }

    /// Creates the table for key type `K` unless it exists, split at every
    /// salt bucket boundary (see [`salt_splits`](crate::Schema::salt_splits));
    /// `true` when it was created. Safe to call on every start.
    pub async fn create_table_for<K: crate::key::RowKey>(&self) -> Result<bool, BigtableError> {
        self.create_table_if_missing(&K::schema().salt_splits())
            .await
    }
}
