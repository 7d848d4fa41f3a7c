//! The table decides the form of an index that is native by default (no
//! `dynamodb = ...` in its declaration): a table whose GSI `Name` is
//! already in the encoded form (keyed on `Name_pk`, made before indexes
//! were native by default) keeps it, and the store writes and reads that
//! index encoded there. The store learns this from DescribeTable once per
//! store and its clones, before its first index write or read (and from
//! the description `check_table` and `add_indexes` read anyway); a table
//! that does not exist yet gets the declared forms.

use super::gsi::Gsi;
use super::{request_error, DynamoError, DynamoStore, IndexForm};
use aws_sdk_dynamodb::types::TableDescription;
use std::sync::Arc;

impl DynamoStore {
    /// The GSIs as `table` has them: a default-native index whose GSI on
    /// the table is keyed on `Name_pk` is encoded.
    fn forms_of(&self, table: &TableDescription) -> Arc<[Gsi]> {
        self.gsis
            .iter()
            .map(|g| {
                let encoded_there = g.by_default
                    && table
                        .global_secondary_indexes()
                        .iter()
                        .find(|d| d.index_name() == Some(g.name))
                        .is_some_and(|d| d.key_schema().iter().any(|k| k.attribute_name() == g.pk));
                match encoded_there {
                    true => Gsi {
                        native: None,
                        table_encoded: true,
                        ..g.clone()
                    },
                    false => g.clone(),
                }
            })
            .collect()
    }

    /// The forms the store uses on `table`: those it keeps, or those
    /// `table` decides.
    pub(super) fn forms_for(&self, table: &TableDescription) -> Arc<[Gsi]> {
        self.learned
            .get()
            .cloned()
            .unwrap_or_else(|| self.forms_of(table))
    }

    /// Keeps `forms` for the store and its clones once the table matched
    /// them.
    pub(super) fn keep_forms(&self, forms: Arc<[Gsi]>) {
        let _ = self.learned.set(forms);
    }

    /// Whether the store has checked its indexes against the table: it
    /// has no index, or has read the table.
    pub(super) fn forms_known(&self) -> bool {
        self.learned.get().is_some() || self.gsis.is_empty()
    }

    /// Reads the table's GSIs (DescribeTable) unless the store has: before
    /// its first index write or read. A GSI whose key attributes or
    /// projection differ from its index's declaration is refused
    /// ([`DynamoError::TableMismatch`]), as [`check_table`](Self::check_table)
    /// refuses it: writing or reading through it would put rows in
    /// another order or leave them out. A GSI the table does not have yet
    /// is left to the server, which refuses a read of it by name. A table
    /// that does not exist yet leaves the forms unknown (the declared
    /// forms meanwhile).
    pub(super) async fn learn_forms(&self) -> Result<(), DynamoError> {
        if self.forms_known() {
            return Ok(());
        }
        match self
            .client
            .describe_table()
            .table_name(&self.table)
            .send()
            .await
        {
            Ok(described) => match described.table() {
                Some(table) => self.check_gsis(table, super::table::Missing::Allowed),
                None => Ok(()),
            },
            Err(e)
                if e.as_service_error()
                    .is_some_and(|s| s.is_resource_not_found_exception()) =>
            {
                Ok(())
            }
            Err(e) => Err(request_error("DescribeTable", e)),
        }
    }

    /// The form of each index of the key type on this store, in
    /// declaration order: native (its GSI's key attributes) or encoded,
    /// and why ([`index_form`](super::index_form)); an index native by
    /// default is encoded where the table's GSI is (known once the store
    /// has read the table: after [`check_table`](Self::check_table),
    /// [`connect`](Self::connect), or its first index write or read).
    pub fn index_forms(&self) -> Vec<(&'static str, IndexForm)> {
        self.gsis()
            .iter()
            .map(|g| {
                let form = match g.table_encoded {
                    true => IndexForm::Encoded {
                        why: table_encoded(g.name),
                    },
                    false => super::index_form(g.schema, self.schema, &self.shape),
                };
                (g.name, form)
            })
            .collect()
    }
}

/// Why a default-native index is encoded on a table, and how to move it.
pub(super) fn table_encoded(name: &str) -> String {
    format!("the table's GSI `{name}` is encoded (over `{name}_pk` and `{name}_sk`, made before indexes were native by default), and the table decides; move with a native index under a new name and `add_indexes` (docs/guide/indexes.md, \"Moving an encoded index to the native form\"), or declare this one `dynamodb = encoded` to say so")
}
