//! The table decides the form of an index that is native by default (no
//! `dynamodb = ...` in its declaration): a table whose GSI `Name` is
//! already in the encoded form (keyed on `Name_pk`, made before indexes
//! were native by default) keeps it, and the store writes and reads that
//! index encoded there. The store learns this from DescribeTable before
//! its first index write or read (and from the description `check_table`
//! and `add_indexes` read anyway); a table that does not exist yet gets
//! the declared forms.
//!
//! A reading in which an index's GSI is absent is provisional: another
//! binary may add the GSI in either form. The store reads the table again
//! before an index write or read once [`REREAD`] has passed since, and at
//! once when the server refuses a Query or a write for its key schema
//! (retrying it once with the forms read, or refusing it as a
//! [`DynamoError::TableMismatch`]). A reading in which every GSI was there
//! stands for the store's life: a GSI's key attributes cannot change.

use super::gsi::Gsi;
use super::{request_error, DynamoError, DynamoStore, IndexForm};
use aws_sdk_dynamodb::types::TableDescription;
use futures_util::stream::{self, BoxStream, StreamExt};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long a provisional reading of the table's GSIs (one without some
/// index's GSI) stands before an index write or read reads the table
/// again: DescribeTable is rate-limited, so not before every write.
pub const REREAD: Duration = Duration::from_secs(10);

/// What a store read of the table's GSIs, shared by its clones.
#[derive(Debug, Clone)]
pub(super) struct Reading {
    /// Each index's GSI in the form the table decides.
    pub(super) forms: Arc<[Gsi]>,
    /// Whether some index's GSI was absent (`forms.rs`).
    pub(super) provisional: bool,
    /// When the table was read.
    pub(super) at: Instant,
}

/// The store's reading, shared by its clones (`None` before one).
pub(super) type Learned = Arc<Mutex<Option<Reading>>>;

/// Refusals of a server whose GSI is not what the request was made for:
/// a Query's key condition on attributes the GSI is not keyed on, a GSI
/// the table does not have, an item attribute of another type than a
/// GSI's key.
const KEY_SCHEMA_REFUSALS: [&str; 4] = [
    "key schema element",
    "does not have the specified index",
    "Type mismatch for Index Key",
    "Type mismatch for attribute to update",
];

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

    /// The forms `table` decides: read afresh each time the store reads
    /// the table (a provisional reading may be out of date, and a settled
    /// one agrees with the table or is refused).
    pub(super) fn forms_for(&self, table: &TableDescription) -> Arc<[Gsi]> {
        self.forms_of(table)
    }

    /// The store's reading of the table, if it has one.
    pub(super) fn reading(&self) -> Option<Reading> {
        self.learned
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }

    /// Keeps `forms`, read from a table that matched them, for the store
    /// and its clones; `None` forgets the reading (the table did not
    /// match: the next index write or read reads it again).
    pub(super) fn keep_forms(&self, forms: Option<Arc<[Gsi]>>, table: &TableDescription) {
        let reading = forms.map(|forms| Reading {
            provisional: forms.iter().any(|g| {
                !table
                    .global_secondary_indexes()
                    .iter()
                    .any(|d| d.index_name() == Some(g.name))
            }),
            forms,
            at: Instant::now(),
        });
        *self
            .learned
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = reading;
    }

    /// Whether the store reads the table before its next index write or
    /// read: it has indexes, and no reading of the table, or a
    /// provisional one older than [`REREAD`].
    pub(super) fn needs_reading(&self) -> bool {
        if self.gsis.is_empty() {
            return false;
        }
        match self.reading() {
            None => true,
            Some(r) => r.provisional && r.at.elapsed() >= REREAD,
        }
    }

    /// Whether the store has read the table, where the table decides the
    /// form of one of its indexes (an index native by default): the item
    /// a put writes depends on it.
    pub(super) fn forms_decided(&self) -> Result<(), DynamoError> {
        let Some(gsi) = self.gsis.iter().find(|g| g.by_default) else {
            return Ok(());
        };
        if self.assume_declared || self.reading().is_some() {
            return Ok(());
        }
        Err(DynamoError::TableUnread {
            table: self.table.clone(),
            index: gsi.name,
        })
    }

    /// Reads the table's GSIs (DescribeTable) when the store
    /// [needs to](Self::needs_reading): before its first index write or
    /// read, and after a provisional reading grew old. A GSI whose key
    /// attributes or projection differ from its index's declaration is
    /// refused ([`DynamoError::TableMismatch`]), as
    /// [`check_table`](Self::check_table) refuses it: writing or reading
    /// through it would put rows in another order or leave them out. A
    /// GSI the table does not have yet is left to the server, which
    /// refuses a read of it by name. A table that does not exist yet
    /// leaves the forms unknown (the declared forms meanwhile).
    pub(super) async fn learn_forms(&self) -> Result<(), DynamoError> {
        if !self.needs_reading() {
            return Ok(());
        }
        self.read_forms().await
    }

    /// Reads the table's GSIs now (see [`learn_forms`](Self::learn_forms)).
    pub(super) async fn read_forms(&self) -> Result<(), DynamoError> {
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

    /// Whether the server refused a request of this store for a GSI's key
    /// schema (the store's reading of the table may be out of date).
    pub(super) fn refused_for_key_schema(&self, error: &DynamoError) -> bool {
        let refused = |message: &str| KEY_SCHEMA_REFUSALS.iter().any(|r| message.contains(r));
        !self.gsis.is_empty()
            && match error {
                DynamoError::Request { message, .. } => refused(message),
                DynamoError::PartialBatch { failed, .. } => {
                    failed.iter().any(|f| refused(&f.message))
                }
                _ => false,
            }
    }

    /// The stream `make` gives once the store knows its forms, made once
    /// more with the forms the table has when the server refuses it for a
    /// GSI's key schema before its first item (a refusal after rows came
    /// is given as it is, after the store read the table); a table that
    /// no longer matches the declaration is a
    /// [`DynamoError::TableMismatch`].
    pub(super) fn reading_again<T: Send + 'static>(
        &self,
        make: impl Fn(&DynamoStore) -> BoxStream<'static, Result<T, DynamoError>> + Send + 'static,
    ) -> BoxStream<'static, Result<T, DynamoError>> {
        struct State<T, F> {
            store: DynamoStore,
            make: F,
            rows: Option<BoxStream<'static, Result<T, DynamoError>>>,
            yielded: bool,
            retried: bool,
            done: bool,
        }
        let state = State {
            store: self.clone(),
            make,
            rows: None,
            yielded: false,
            retried: false,
            done: false,
        };
        stream::unfold(state, |mut st| async move {
            loop {
                if st.done {
                    return None;
                }
                let rows = match &mut st.rows {
                    Some(rows) => rows,
                    None => {
                        if let Err(e) = st.store.learn_forms().await {
                            st.done = true;
                            return Some((Err(e), st));
                        }
                        st.rows.insert((st.make)(&st.store))
                    }
                };
                match rows.next().await? {
                    Ok(row) => {
                        st.yielded = true;
                        return Some((Ok(row), st));
                    }
                    Err(e) if !st.retried && st.store.refused_for_key_schema(&e) => {
                        st.retried = true;
                        if let Err(mismatch) = st.store.read_forms().await {
                            st.done = true;
                            return Some((Err(mismatch), st));
                        }
                        if st.yielded {
                            st.done = true;
                            return Some((Err(e), st));
                        }
                        st.rows = Some((st.make)(&st.store));
                    }
                    Err(e) => return Some((Err(e), st)),
                }
            }
        })
        .boxed()
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
