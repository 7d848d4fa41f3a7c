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

    /// The forms `table` decides, kept for the store and its clones unless
    /// known already; the forms the store uses.
    pub(super) fn adopt_forms(&self, table: &TableDescription) -> Arc<[Gsi]> {
        match self.learned.get() {
            Some(known) => known.clone(),
            None => {
                let forms = self.forms_of(table);
                let _ = self.learned.set(forms.clone());
                self.learned.get().cloned().unwrap_or(forms)
            }
        }
    }

    /// Whether the store knows each index's form: it has no index the
    /// table decides, or has read the table.
    pub(super) fn forms_known(&self) -> bool {
        self.learned.get().is_some() || !self.gsis.iter().any(|g| g.by_default)
    }

    /// Reads the table's GSIs (DescribeTable) unless the forms are known:
    /// before an index write or read. A table that does not exist yet
    /// leaves them unknown (the declared forms meanwhile).
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
            Ok(described) => {
                if let Some(table) = described.table() {
                    self.adopt_forms(table);
                }
                Ok(())
            }
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
