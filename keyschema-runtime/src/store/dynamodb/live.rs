//! An index added to a live DynamoDB table: [`DynamoStore::add_indexes`]
//! creates the missing GSIs (UpdateTable, one GSI per call as DynamoDB
//! requires, each waited on until ACTIVE), and the store's
//! [`TablePass`] lets [`IndexBackfill`](crate::index::IndexBackfill) give
//! the items written before the index their index attributes: a Scan of
//! the table (consistent reads), then one conditional UpdateItem per item
//! that lacks them (or carries wrong ones), applied only while the item
//! still holds what the Scan read.

use super::gsi::Gsi;
use super::native::KeySource;
use super::{item, request_error, DynamoError, DynamoStore};
use crate::schema::Schema;
use crate::store::{BoxFuture, BoxTableStream, EntryChange, TablePass, TableRow};
use aws_sdk_dynamodb::types::AttributeValue;
use futures_util::{stream, StreamExt};
use std::collections::{HashMap, VecDeque};

/// UpdateItem calls in flight at once.
const IN_FLIGHT: usize = 16;

/// How long [`DynamoStore::add_indexes`] waits for one GSI: DynamoDB
/// fills a new GSI from every item of the table first.
const GSI_WAIT: std::time::Duration = std::time::Duration::from_secs(3600);

impl DynamoStore {
    /// Creates, on an existing table, the GSI of each index of the key type
    /// the table does not have yet (UpdateTable, one per call, each waited
    /// on until ACTIVE: DynamoDB fills it from the items first, up to an
    /// hour here); returns the names of the GSIs it created. A GSI of that
    /// name over other attributes is refused.
    ///
    /// The GSI holds only the items that carry its attributes: the items
    /// written before the index have none until
    /// [`IndexBackfill::build_async`](crate::index::IndexBackfill::build_async)
    /// gives them theirs. A provisioned table's GSI gets the table's
    /// throughput.
    pub async fn add_indexes(&self) -> Result<Vec<&'static str>, DynamoError> {
        let mut created = Vec::new();
        self.learn_forms().await?;
        for gsi in self.gsis().to_vec() {
            let described = self.describe().await?;
            let Some(table) = described.table() else {
                return Err(DynamoError::TableMismatch {
                    table: self.table.clone(),
                    reason: "there is no such table: create it with `create_table`".to_string(),
                });
            };
            if table
                .global_secondary_indexes()
                .iter()
                .any(|g| g.index_name() == Some(gsi.name))
            {
                self.check_gsis(table, super::table::Missing::Allowed)?;
                continue;
            }
            self.create_gsi(&gsi, table).await?;
            self.wait_until_active(GSI_WAIT).await?;
            let described = self.describe().await?;
            let made = described.table().is_some_and(|t| {
                t.global_secondary_indexes()
                    .iter()
                    .any(|g| g.index_name() == Some(gsi.name))
            });
            if !made {
                return Err(DynamoError::Unsupported {
                    operation: "adding a GSI to an existing table",
                    reason: format!(
                        "the server took the UpdateTable that creates `{}` on table {} and made no such GSI (dynalite ignores GSI creation on an existing table): use DynamoDB or DynamoDB Local, or a table created with the GSI",
                        gsi.name, self.table
                    ),
                });
            }
            if let Some(table) = described.table() {
                self.check_gsis(table, super::table::Missing::Allowed)?;
            }
            created.push(gsi.name);
        }
        Ok(created)
    }

    /// One UpdateTable creating `gsi`. An on-demand table's GSI takes no
    /// throughput (DynamoDB refuses one); a provisioned table's takes the
    /// table's. A server that wants one all the same (dynalite) is asked
    /// again with the table's.
    async fn create_gsi(
        &self,
        gsi: &Gsi,
        table: &aws_sdk_dynamodb::types::TableDescription,
    ) -> Result<(), DynamoError> {
        use aws_sdk_dynamodb::types::BillingMode;
        let on_demand = table
            .billing_mode_summary()
            .and_then(|b| b.billing_mode())
            .is_some_and(|m| *m == BillingMode::PayPerRequest);
        match self.update_table(gsi, table, !on_demand).await {
            Err(DynamoError::Request { message, .. })
                if on_demand && message.contains("provisionedThroughput") =>
            {
                self.update_table(gsi, table, true).await
            }
            answer => answer,
        }
    }

    async fn update_table(
        &self,
        gsi: &Gsi,
        table: &aws_sdk_dynamodb::types::TableDescription,
        throughput: bool,
    ) -> Result<(), DynamoError> {
        use aws_sdk_dynamodb::types::{
            CreateGlobalSecondaryIndexAction, GlobalSecondaryIndexUpdate, ProvisionedThroughput,
        };
        let mut action = CreateGlobalSecondaryIndexAction::builder()
            .index_name(gsi.name)
            .projection(super::table::projection(gsi));
        let mut request = self.client.update_table().table_name(&self.table);
        for (definition, element) in self.gsi_keys(gsi, "UpdateTable")? {
            request = request.attribute_definitions(definition);
            action = action.key_schema(element);
        }
        if throughput {
            let t = table.provisioned_throughput();
            let units = |n: Option<i64>| n.unwrap_or(1).max(1);
            let throughput = ProvisionedThroughput::builder()
                .read_capacity_units(units(t.and_then(|t| t.read_capacity_units())))
                .write_capacity_units(units(t.and_then(|t| t.write_capacity_units())))
                .build()
                .map_err(|e| request_error("UpdateTable", e))?;
            action = action.provisioned_throughput(throughput);
        }
        let action = action
            .build()
            .map_err(|e| request_error("UpdateTable", e))?;
        request
            .global_secondary_index_updates(
                GlobalSecondaryIndexUpdate::builder().create(action).build(),
            )
            .send()
            .await
            .map_err(|e| request_error("UpdateTable", e))?;
        Ok(())
    }

    /// One page of a Scan of the table (or of `gsi`'s index) after
    /// `start`: its items and where the next page starts.
    async fn scan_page(
        &self,
        gsi: Option<&Gsi>,
        start: Option<HashMap<String, AttributeValue>>,
        page: usize,
    ) -> Result<ScanPage, DynamoError> {
        super::Counters::count(&self.counters.scan);
        let response = self
            .client
            .scan()
            .table_name(&self.table)
            .set_index_name(gsi.map(|g| g.name.to_string()))
            // A GSI has no consistent reads (DynamoDB refuses them).
            .consistent_read(gsi.is_none())
            .limit(i32::try_from(page.max(1)).unwrap_or(i32::MAX))
            .set_exclusive_start_key(start)
            .send()
            .await
            .map_err(|e| request_error("Scan", e))?;
        Ok((
            response.items().to_vec(),
            response.last_evaluated_key().cloned(),
        ))
    }

    /// An item of a pass as a row with the entry of `gsi` it carries;
    /// `None` for an item of another key type (a single-table design).
    fn table_row(
        &self,
        gsi: &Gsi,
        item: &HashMap<String, AttributeValue>,
    ) -> Result<Option<TableRow>, DynamoError> {
        let key = self.key_of(item)?;
        if self.schema.head().check_prefix(&key).is_err() {
            return Ok(None);
        }
        let value = self.value_of(&key, item)?;
        let carried = match (&gsi.native, item.contains_key(&gsi.pk)) {
            (Some(_), _) => self.native_carried(gsi, &key, &value, item),
            (None, true) => Some(self.entry_key_of(gsi, item)?),
            (None, false) => None,
        };
        Ok(Some(TableRow {
            key,
            value,
            carried,
        }))
    }

    /// One conditional UpdateItem: the entry `change.value` gives, set
    /// (or the carried one removed) while the item holds what was read.
    async fn set_entry(
        &self,
        gsi: &Gsi,
        index: usize,
        change: &EntryChange,
    ) -> Result<bool, DynamoError> {
        if gsi.native.is_some() {
            return self.set_native_entry(gsi, index, change).await;
        }
        let key = self.key_item(index, &change.key)?;
        let attributes: Vec<(String, AttributeValue)> = self
            .index_attributes(index, &change.key, &change.value, &HashMap::new())?
            .into_iter()
            .filter(|(name, _)| *name == gsi.pk || gsi.sk.as_deref() == Some(name.as_str()))
            .collect();
        let mut names = HashMap::from([
            ("#k".to_string(), self.shape.partition_key.clone()),
            ("#ip".to_string(), gsi.pk.clone()),
        ]);
        if let Some(sk) = &gsi.sk {
            names.insert("#is".to_string(), sk.clone());
        }
        let mut values = HashMap::new();
        let update = if attributes.is_empty() {
            format!("REMOVE {}", placeholders(gsi, "#").join(", "))
        } else {
            let mut sets = Vec::new();
            for ((_, value), p) in attributes.into_iter().zip(placeholders(gsi, "")) {
                sets.push(format!("#{p} = :n{p}"));
                values.insert(format!(":n{p}"), value);
            }
            format!("SET {}", sets.join(", "))
        };
        // Still there, still carrying what was read, and the index's value
        // fields still as read.
        let mut condition = vec!["attribute_exists(#k)".to_string()];
        match &change.was {
            None => condition.push("attribute_not_exists(#ip)".to_string()),
            Some(was) => {
                let (partition, sort) = gsi.split(was)?;
                condition.push("#ip = :oip".to_string());
                values.insert(":oip".to_string(), self.attr(partition));
                if gsi.sk.is_some() {
                    condition.push("#is = :ois".to_string());
                    values.insert(":ois".to_string(), self.attr(sort));
                }
            }
        }
        let read = match self.whole_rows() {
            true => item::to_attributes(&change.value).map_err(|(field, message)| {
                DynamoError::Attribute {
                    index,
                    key: change.key[..change.key.len().min(64)].to_vec(),
                    field,
                    message,
                }
            })?,
            false => Vec::new(),
        };
        let update = super::cas::ConditionalUpdate {
            key,
            update,
            names,
            values,
            condition,
        };
        self.update_while_indexed_fields_hold(gsi, update, |name| {
            read.iter().find(|(field, _)| field == name).map(|(_, v)| v)
        })
        .await
    }
}

impl DynamoStore {
    /// The entry a native index's GSI holds `item` under: the row's entry,
    /// when the item carries every attribute of the index's own as a write
    /// of its row puts them (its fields are the item's already); `None`
    /// when it lacks one or one differs (a pass gives it them).
    fn native_carried(
        &self,
        gsi: &Gsi,
        key: &[u8],
        value: &[u8],
        item: &HashMap<String, AttributeValue>,
    ) -> Option<Vec<u8>> {
        let wanted = self.put_item(0, key, value).ok()?;
        let native = gsi.native.as_ref()?;
        let own = |name: &str| {
            native
                .keys()
                .any(|a| a.name == name && !matches!(a.source, KeySource::Field(_)))
        };
        let all_there = native
            .keys()
            .all(|a| wanted.contains_key(&a.name) && item.get(&a.name) == wanted.get(&a.name));
        let extra = item.keys().any(|n| own(n) && !wanted.contains_key(n));
        let entries = self.schema.stored_entries(key, value);
        let entry = entries
            .into_iter()
            .find(|e| gsi.schema.bucket_of(e).is_ok())?;
        (all_there && !extra).then_some(entry)
    }

    /// The entries a page of a native GSI's items stand for, each with its
    /// row as the table holds it now (a consistent BatchGetItem: the GSI
    /// projects the index's fields only). An entry whose item is not where
    /// its entry sorts, or whose row is gone, carries none (it is stale).
    async fn native_entries(
        &self,
        gsi: &Gsi,
        items: &[HashMap<String, AttributeValue>],
    ) -> Result<Vec<TableRow>, DynamoError> {
        let Some(native) = &gsi.native else {
            return Ok(Vec::new());
        };
        let mut found = Vec::with_capacity(items.len());
        for item in items {
            let key = self.key_of(item)?;
            if self.schema.head().check_prefix(&key).is_err() {
                continue;
            }
            let carried = self.native_entry_of(gsi, native, item)?;
            found.push((key, carried));
        }
        let rows: HashMap<Vec<u8>, Vec<u8>> = self
            .get_many(found.iter().map(|(key, _)| key.clone()).collect())
            .await?
            .into_iter()
            .collect();
        Ok(found
            .into_iter()
            .map(|(key, carried)| match rows.get(&key) {
                Some(value) => TableRow {
                    value: value.clone(),
                    key,
                    carried,
                },
                None => TableRow {
                    key,
                    value: Vec::new(),
                    carried: None,
                },
            })
            .collect())
    }

    /// One conditional UpdateItem giving the item under `change.key` the
    /// attributes of its own the native index `gsi` needs (or removing
    /// them when the row has no entry), while the item is there with the
    /// index's value fields as read. They follow from the key and those
    /// fields alone, so whatever the item held before is overwritten.
    async fn set_native_entry(
        &self,
        gsi: &Gsi,
        index: usize,
        change: &EntryChange,
    ) -> Result<bool, DynamoError> {
        let Some(native) = &gsi.native else {
            return Ok(false);
        };
        let key = self.key_item(index, &change.key)?;
        let item = self.put_item(index, &change.key, &change.value)?;
        let own: Vec<&str> = native
            .keys()
            .filter(|a| !matches!(a.source, KeySource::Field(_)))
            .map(|a| a.name.as_str())
            .collect();
        let mut names = HashMap::from([("#k".to_string(), self.shape.partition_key.clone())]);
        let mut values = HashMap::new();
        let has_entry = own.iter().all(|n| item.contains_key(*n));
        let mut parts = Vec::new();
        for (n, name) in own.iter().enumerate() {
            names.insert(format!("#a{n}"), name.to_string());
            match item.get(*name) {
                Some(value) if has_entry => {
                    parts.push(format!("#a{n} = :a{n}"));
                    values.insert(format!(":a{n}"), value.clone());
                }
                _ => parts.push(format!("#a{n}")),
            }
        }
        if parts.is_empty() {
            // Keyed on the fields alone: DynamoDB keeps the GSI itself.
            return Ok(true);
        }
        let update = match has_entry {
            true => format!("SET {}", parts.join(", ")),
            false => format!("REMOVE {}", parts.join(", ")),
        };
        let condition = vec!["attribute_exists(#k)".to_string()];
        let update = super::cas::ConditionalUpdate {
            key,
            update,
            names,
            values,
            condition,
        };
        self.update_while_indexed_fields_hold(gsi, update, |name| item.get(name))
            .await
    }
}

/// The placeholders of a GSI's key attributes: `ip` and `is`.
fn placeholders(gsi: &Gsi, mark: &str) -> Vec<String> {
    let mut out = vec![format!("{mark}ip")];
    if gsi.sk.is_some() {
        out.push(format!("{mark}is"));
    }
    out
}

/// A Scan page: its items and the key the next one starts after.
type ScanPage = (
    Vec<HashMap<String, AttributeValue>>,
    Option<HashMap<String, AttributeValue>>,
);

/// Where a streamed pass stands.
struct PassState {
    store: DynamoStore,
    gsi: Gsi,
    from_index: bool,
    page: usize,
    start: Option<HashMap<String, AttributeValue>>,
    ready: VecDeque<HashMap<String, AttributeValue>>,
    /// A native GSI's entries with their rows, read whole from the table.
    rows: VecDeque<TableRow>,
    done: bool,
}

impl PassState {
    async fn next(&mut self) -> Option<Result<TableRow, DynamoError>> {
        loop {
            if let Some(row) = self.rows.pop_front() {
                return Some(Ok(row));
            }
            if self.from_index && self.gsi.native.is_some() && !self.ready.is_empty() {
                let items: Vec<_> = self.ready.drain(..).collect();
                match self.store.native_entries(&self.gsi, &items).await {
                    Ok(rows) => self.rows.extend(rows),
                    Err(e) => return Some(Err(e)),
                }
                continue;
            }
            if let Some(item) = self.ready.pop_front() {
                match self.store.table_row(&self.gsi, &item) {
                    Ok(Some(row)) => return Some(Ok(row)),
                    Ok(None) => continue,
                    Err(e) => return Some(Err(e)),
                }
            }
            if self.done {
                return None;
            }
            let gsi = self.from_index.then_some(&self.gsi);
            match self
                .store
                .scan_page(gsi, self.start.take(), self.page)
                .await
            {
                Ok((items, next)) => {
                    self.done = next.is_none();
                    self.start = next;
                    self.ready.extend(items);
                }
                Err(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
            }
        }
    }
}

impl TablePass for DynamoStore {
    type Error = DynamoError;

    fn rows(
        &self,
        index: &'static Schema,
        from_index: bool,
        after: Option<Vec<u8>>,
        page: usize,
    ) -> BoxTableStream<DynamoError> {
        if self.needs_reading() {
            // The table decides the index's form: read it first.
            let store = self.clone();
            return stream::once(async move { store.learn_forms().await.map(|()| store) })
                .flat_map(move |learned| match learned {
                    Ok(store) => store.rows_in_form(index, from_index, after.clone(), page),
                    Err(e) => stream::once(async move { Err(e) }).boxed(),
                })
                .boxed();
        }
        self.rows_in_form(index, from_index, after, page)
    }

    /// One conditional UpdateItem per change, up to 16 in flight.
    fn set_entries(
        &self,
        index: &'static Schema,
        changes: Vec<EntryChange>,
    ) -> BoxFuture<'_, Result<Vec<bool>, DynamoError>> {
        Box::pin(async move {
            self.learn_forms().await?;
            let Some(gsi) = self.gsi_of(index) else {
                return Ok(vec![false; changes.len()]);
            };
            let mut applied = Vec::with_capacity(changes.len());
            for (n, chunk) in changes.chunks(IN_FLIGHT).enumerate() {
                let answers = futures_util::future::join_all(
                    chunk
                        .iter()
                        .enumerate()
                        .map(|(i, change)| self.set_entry(&gsi, n * IN_FLIGHT + i, change)),
                )
                .await;
                for answer in answers {
                    applied.push(answer?);
                }
            }
            Ok(applied)
        })
    }
}

impl DynamoStore {
    /// [`TablePass::rows`], the index's form known.
    fn rows_in_form(
        &self,
        index: &'static Schema,
        from_index: bool,
        after: Option<Vec<u8>>,
        page: usize,
    ) -> BoxTableStream<DynamoError> {
        let state = match (self.gsi_of(index), after) {
            (None, _) => Err(DynamoError::TableMismatch {
                table: self.table.clone(),
                reason: format!(
                    "`{}` is not an index of `{}`",
                    index.name(),
                    self.schema.name()
                ),
            }),
            (Some(gsi), after) => {
                after
                    .map(|key| self.key_item(0, &key))
                    .transpose()
                    .map(|start| PassState {
                        store: self.clone(),
                        gsi,
                        from_index,
                        page,
                        start: start.filter(|_| !from_index),
                        ready: VecDeque::new(),
                        rows: VecDeque::new(),
                        done: false,
                    })
            }
        };
        match state {
            Ok(state) => stream::unfold(state, |mut st| async move {
                let row = st.next().await?;
                Some((row, st))
            })
            .boxed(),
            Err(e) => stream::once(async move { Err(e) }).boxed(),
        }
    }
}
