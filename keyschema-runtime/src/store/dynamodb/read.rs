//! Reads: gets through BatchGetItem, and typed scans as one paged Query per
//! salt bucket (the write-sharding article's "query all N suffixes and
//! merge"), merged by the same core as every other store.

use super::gsi::Gsi;
use super::{request_error, DynamoError, DynamoStore};
use crate::key::OneLayout;
use crate::range::{prefix_successor, Direction, KeyRange};
use crate::record::ValueField;
use crate::schema::Schema;
use crate::store::{AsyncStore, BoxFuture, BoxRowStream, Cas, Mutation, Row, RowError, TypedRow};
use aws_sdk_dynamodb::types::{AttributeValue, KeysAndAttributes};
use futures_util::stream::{self, StreamExt};
use std::collections::{HashMap, VecDeque};

/// DynamoDB's limit on the keys of one BatchGetItem request: 100.
const MAX_BATCH_GET: usize = 100;

/// One Query: a partition, and the sort keys `lo <= sk < hi` in it.
#[derive(Debug, Clone)]
struct QueryPlan {
    partition: Vec<u8>,
    lo: Vec<u8>,
    hi: Option<Vec<u8>>,
    /// A native index's Query (its GSI's own attributes), instead.
    native: Option<super::native_keys::NativeQuery>,
}

impl DynamoStore {
    /// The value under `key`.
    pub async fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, DynamoError> {
        Ok(self
            .get_many(vec![key.to_vec()])
            .await?
            .into_iter()
            .next()
            .map(|(_, v)| v))
    }

    /// The rows stored under any of `keys` (absent keys are left out, a key
    /// given twice is read once), in key order, in BatchGetItem requests of
    /// at most 100 keys, unprocessed keys retried. A key DynamoDB could not
    /// hold is refused ([`DynamoError::ReadLimit`]) before any request.
    pub async fn get_many(&self, keys: Vec<Vec<u8>>) -> Result<Vec<Row>, DynamoError> {
        self.get_many_reading(None, keys).await
    }

    /// [`get_many`](Self::get_many), the items' attributes limited to the
    /// keys and `projection`'s value fields when given.
    async fn get_many_reading(
        &self,
        projection: Option<&'static [ValueField]>,
        mut keys: Vec<Vec<u8>>,
    ) -> Result<Vec<Row>, DynamoError> {
        let projection = projection.map(|fields| self.projection_expression(fields));
        // DynamoDB refuses a request that names one key twice.
        keys.sort_unstable();
        keys.dedup();
        let items = keys
            .iter()
            .enumerate()
            .map(|(i, key)| self.key_item(i, key))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| e.for_read("BatchGetItem"))?;
        let mut rows = Vec::new();
        for chunk in items.chunks(MAX_BATCH_GET) {
            let mut pending = chunk.to_vec();
            let mut attempt = 0;
            while !pending.is_empty() {
                attempt += 1;
                let mut request = KeysAndAttributes::builder()
                    .set_keys(Some(std::mem::take(&mut pending)))
                    .consistent_read(true);
                if let Some((expression, names)) = &projection {
                    request = request
                        .projection_expression(expression)
                        .set_expression_attribute_names(Some(names.clone()));
                }
                let request = request
                    .build()
                    .map_err(|e| request_error("BatchGetItem", e))?;
                super::Counters::count(&self.counters.batch_get_item);
                let response = self
                    .client
                    .batch_get_item()
                    .request_items(&self.table, request)
                    .send()
                    .await
                    .map_err(|e| request_error("BatchGetItem", e))?;
                for item in response
                    .responses()
                    .and_then(|r| r.get(&self.table))
                    .into_iter()
                    .flatten()
                {
                    let key = self.key_of(item)?;
                    let value = self.value_of(&key, item)?;
                    rows.push((key, value));
                }
                pending = response
                    .unprocessed_keys()
                    .and_then(|u| u.get(&self.table))
                    .map(|k| k.keys().to_vec())
                    .unwrap_or_default();
                if !pending.is_empty() {
                    if attempt >= self.retry.attempts {
                        return Err(DynamoError::Request {
                            operation: "BatchGetItem",
                            message: format!(
                                "{} keys still unprocessed after {attempt} attempts",
                                pending.len()
                            ),
                        });
                    }
                    self.retry.pause(attempt).await;
                }
            }
        }
        rows.sort();
        Ok(rows)
    }

    /// The row under `key`, decoded; with a `random % N` salt every
    /// candidate bucket is read, in one BatchGetItem.
    pub async fn get_row<K: OneLayout>(
        &self,
        key: &[u8],
    ) -> Result<Option<TypedRow<K>>, RowError<DynamoError>> {
        AsyncStore::get_row::<K>(self, key).await
    }

    /// The Query for a key range: the range must lie in one partition.
    fn plan(&self, range: &KeyRange) -> Result<QueryPlan, DynamoError> {
        self.plan_in(None, range)
    }

    /// [`plan`](Self::plan) for the table, or for an index's GSI.
    fn plan_in(&self, gsi: Option<&Gsi>, range: &KeyRange) -> Result<QueryPlan, DynamoError> {
        let schema = gsi.map_or(self.schema, |g| g.schema);
        let unbound = || DynamoError::UnboundPartition {
            fields: schema
                .components()
                .iter()
                .take(schema.partition_components().unwrap_or(0))
                .filter(|c| c.bucket_width().is_none())
                .map(|c| c.name())
                .collect(),
        };
        let start = range.start();
        // A range a scan reads in a type's older layout is split by it.
        let layout = match schema.history() {
            Some(h) if range.bucket() & crate::range::OLDER_LAYOUT != 0 => h.older(),
            _ => schema,
        };
        let at = layout.partition_end(start).map_err(|_| unbound())?;
        let partition = &start[..at];
        let native = match gsi.and_then(|g| g.native.as_ref().map(|n| (g, n))) {
            Some((g, n)) => Some(self.native_query(g, n, start, range.end())?),
            None => None,
        };
        if native.is_none() && partition.len() > super::MAX_PARTITION_KEY {
            return Err(DynamoError::ReadLimit {
                operation: "Query",
                key: start[..start.len().min(64)].to_vec(),
                what: "partition key",
                len: partition.len(),
                max: super::MAX_PARTITION_KEY,
            });
        }
        let hi = match range.end() {
            Some(end) if end.len() > at && end.starts_with(partition) => Some(end[at..].to_vec()),
            end if end.map(<[u8]>::to_vec) == prefix_successor(partition) => None,
            _ => return Err(unbound()),
        };
        Ok(QueryPlan {
            partition: partition.to_vec(),
            lo: start[at..].to_vec(),
            hi,
            native,
        })
    }

    /// What a read of `fields` asks DynamoDB for: a `ProjectionExpression`
    /// naming the key attributes and the fields (every name through
    /// `ExpressionAttributeNames`, so reserved words and dots are safe).
    pub(super) fn projection_expression(
        &self,
        fields: &[ValueField],
    ) -> (String, HashMap<String, String>) {
        let mut names = vec![self.shape.partition_key.as_str()];
        if self.has_sort_key() {
            names.push(self.shape.sort_key.as_str());
        }
        names.extend(fields.iter().map(|f| f.name));
        let mut expression = String::new();
        let mut map = HashMap::with_capacity(names.len());
        for (i, name) in names.into_iter().enumerate() {
            if i > 0 {
                expression.push_str(", ");
            }
            let placeholder = format!("#n{i}");
            expression.push_str(&placeholder);
            map.insert(placeholder, name.to_string());
        }
        (expression, map)
    }

    /// The rows of one range, streamed: one Query, paged.
    pub fn scan(
        &self,
        range: &KeyRange,
        direction: Direction,
        limit: Option<usize>,
    ) -> BoxRowStream<DynamoError> {
        self.scan_reading(None, None, range, direction, limit)
    }

    /// [`scan`](Self::scan), the items' attributes limited to the keys and
    /// `projection`'s value fields when given.
    fn scan_reading(
        &self,
        gsi: Option<Gsi>,
        projection: Option<&'static [ValueField]>,
        range: &KeyRange,
        direction: Direction,
        limit: Option<usize>,
    ) -> BoxRowStream<DynamoError> {
        let plan = self.plan_in(gsi.as_ref(), range);
        let mut state = QueryState {
            store: self.clone(),
            // A GSI's entries are read for their keys alone.
            projection: match &gsi {
                // A native GSI's items: its keys and the projected fields.
                Some(g) if g.native.is_some() => None,
                Some(g) => Some(gsi_keys(g)),
                None => projection.map(|fields| self.projection_expression(fields)),
            },
            gsi,
            plan: None,
            error: None,
            direction,
            limit,
            returned: 0,
            start_key: None,
            ready: VecDeque::new(),
            last_entry: None,
            done: false,
        };
        match plan {
            Ok(plan) => state.plan = Some(plan),
            Err(e) => state.error = Some(e),
        }
        stream::unfold(state, |mut st| async move {
            let item = st.next_row().await?;
            Some((item, st))
        })
        .boxed()
    }
}

impl AsyncStore for DynamoStore {
    type Error = DynamoError;

    /// `dynamodb:` and the table name.
    fn identity(&self) -> Option<String> {
        Some(format!("dynamodb:{}", self.table))
    }

    fn scan_stream(
        &self,
        range: &KeyRange,
        direction: Direction,
        limit: Option<usize>,
    ) -> BoxRowStream<DynamoError> {
        self.scan(range, direction, limit)
    }

    /// A projection's scan reads its value fields' attributes only; an
    /// index's scan reads its GSI (eventually consistent), each entry's
    /// key with an empty value.
    fn scan_for(
        &self,
        schema: &'static Schema,
        range: &KeyRange,
        direction: Direction,
        limit: Option<usize>,
    ) -> BoxRowStream<DynamoError> {
        if self.gsi_of(schema).is_some() {
            // The table decides the index's form: read it first (and
            // again if the server refuses the Query for its key schema).
            let range = range.clone();
            return self.reading_again(move |store| {
                let gsi = store.gsi_of(schema);
                let projection = store.projection_of(schema);
                store.scan_reading(gsi, projection, &range, direction, limit)
            });
        }
        let gsi = self.gsi_of(schema);
        self.scan_reading(gsi, self.projection_of(schema), range, direction, limit)
    }

    /// Each index is a GSI DynamoDB keeps with the item.
    fn keeps_indexes(&self) -> bool {
        true
    }

    /// A Scan of the table and conditional UpdateItems (an index added to
    /// a live table).
    fn table_pass(&self) -> Option<&dyn crate::store::TablePass<Error = DynamoError>> {
        Some(self)
    }

    /// A projection's get reads its value fields' attributes only.
    fn get_many_for(
        &self,
        schema: &'static Schema,
        keys: Vec<Vec<u8>>,
    ) -> BoxFuture<'_, Result<Vec<Row>, DynamoError>> {
        Box::pin(self.get_many_reading(self.projection_of(schema), keys))
    }

    fn write(&self, batch: Vec<Mutation>) -> BoxFuture<'_, Result<(), DynamoError>> {
        Box::pin(async move { self.write_batch(&batch).await })
    }

    fn get_many(&self, keys: Vec<Vec<u8>>) -> BoxFuture<'_, Result<Vec<Row>, DynamoError>> {
        Box::pin(DynamoStore::get_many(self, keys))
    }

    fn compare_and_write(&self, batch: Vec<Cas>) -> BoxFuture<'_, Result<Vec<bool>, DynamoError>> {
        Box::pin(async move { DynamoStore::compare_and_write(self, &batch).await })
    }

    fn check_key_type(&self, schema: &'static Schema) -> Result<(), DynamoError> {
        self.check_schema(schema)
    }

    fn check_range(&self, range: &KeyRange) -> Result<(), DynamoError> {
        self.plan(range).map(|_| ())
    }

    fn item_error(error: &DynamoError) -> bool {
        matches!(
            error,
            DynamoError::NoValue { .. } | DynamoError::RawValue { .. }
        )
    }
}

/// The `ProjectionExpression` of a GSI's entries: its key attributes.
fn gsi_keys(gsi: &Gsi) -> (String, HashMap<String, String>) {
    let mut names = HashMap::from([("#k0".to_string(), gsi.pk.clone())]);
    let mut expression = "#k0".to_string();
    if let Some(sk) = &gsi.sk {
        names.insert("#k1".to_string(), sk.clone());
        expression.push_str(", #k1");
    }
    (expression, names)
}

struct QueryState {
    store: DynamoStore,
    /// The index whose GSI is read, if any (else the table).
    gsi: Option<Gsi>,
    /// A projection's `ProjectionExpression` and its attribute names: the
    /// keys and the projected value fields, the only attributes read.
    projection: Option<(String, HashMap<String, String>)>,
    plan: Option<QueryPlan>,
    /// A range that is not one partition: returned as the only item.
    error: Option<DynamoError>,
    direction: Direction,
    limit: Option<usize>,
    returned: usize,
    start_key: Option<HashMap<String, AttributeValue>>,
    /// Rows read and not yet returned, and items that are not keyschema's.
    ready: VecDeque<Result<Row, DynamoError>>,
    /// The last entry key an encoded GSI gave: items that carry the same
    /// one (copies of an item another program made, attributes and all)
    /// sort together and name one row, which is returned once.
    last_entry: Option<Vec<u8>>,
    done: bool,
}

impl QueryState {
    async fn next_row(&mut self) -> Option<Result<Row, DynamoError>> {
        loop {
            if self.limit.is_some_and(|n| self.returned >= n) {
                return None;
            }
            if let Some(row) = self.ready.pop_front() {
                self.returned += usize::from(row.is_ok());
                return Some(row);
            }
            if self.done {
                return None;
            }
            if let Some(e) = self.error.take() {
                self.done = true;
                return Some(Err(e));
            }
            let plan = self.plan.clone()?;
            if let Err(e) = self.page(&plan).await {
                self.done = true;
                return Some(Err(e));
            }
        }
    }

    /// Reads one page of the Query into `ready`.
    async fn page(&mut self, plan: &QueryPlan) -> Result<(), DynamoError> {
        if let Some(query) = &plan.native {
            return self.native_page(query).await;
        }
        let store = &self.store;
        let (pk, sk) = match &self.gsi {
            Some(g) => (g.pk.as_str(), g.sk.as_deref()),
            None => (
                store.shape.partition_key.as_str(),
                store
                    .has_sort_key()
                    .then_some(store.shape.sort_key.as_str()),
            ),
        };
        let mut request = store
            .client
            .query()
            .table_name(&store.table)
            .set_index_name(self.gsi.as_ref().map(|g| g.name.to_string()))
            // A GSI has no consistent reads (DynamoDB refuses them).
            .consistent_read(self.gsi.is_none())
            .scan_index_forward(self.direction == Direction::Forward)
            .expression_attribute_names("#p", pk)
            .expression_attribute_values(":p", store.attr(&plan.partition))
            .set_exclusive_start_key(self.start_key.take());
        let mut condition = "#p = :p".to_string();
        if let Some(sk) = sk {
            let sort = match (plan.lo.is_empty(), &plan.hi) {
                (true, None) => None,
                (false, None) => Some(("#s >= :lo", Some(&plan.lo), None)),
                (true, Some(hi)) => Some(("#s < :hi", None, Some(hi))),
                (false, Some(hi)) => Some(("#s BETWEEN :lo AND :hi", Some(&plan.lo), Some(hi))),
            };
            if let Some((expression, lo, hi)) = sort {
                condition.push_str(" AND ");
                condition.push_str(expression);
                request = request.expression_attribute_names("#s", sk);
                if let Some(lo) = lo {
                    request = request.expression_attribute_values(":lo", store.attr(lo));
                }
                if let Some(hi) = hi {
                    request = request.expression_attribute_values(":hi", store.attr(hi));
                }
            }
        }
        if let Some((expression, names)) = &self.projection {
            request = request.projection_expression(expression);
            for (placeholder, name) in names {
                request = request.expression_attribute_names(placeholder, name);
            }
        }
        if let Some(n) = self.limit {
            // One more than needed: the exclusive end may be among them.
            let wanted = n.saturating_sub(self.returned).saturating_add(1);
            request = request.limit(i32::try_from(wanted).unwrap_or(i32::MAX));
        }
        super::Counters::count(&store.counters.query);
        let response = request
            .key_condition_expression(condition)
            .send()
            .await
            .map_err(|e| request_error("Query", e))?;
        for item in response.items() {
            let key = match &self.gsi {
                Some(g) => store.entry_key_of(g, item)?,
                None => store.key_of(item)?,
            };
            if plan
                .hi
                .as_deref()
                .is_some_and(|hi| key[plan.partition.len()..] == *hi)
            {
                continue; // BETWEEN is inclusive; the range's end is not
            }
            let value = match &self.gsi {
                Some(_) if self.last_entry.as_deref() == Some(&key[..]) => continue,
                Some(_) => {
                    self.last_entry = Some(key.clone());
                    Ok(Vec::new())
                }
                None => store.value_of(&key, item),
            };
            self.ready.push_back(value.map(|value| (key, value)));
        }
        self.start_key = response.last_evaluated_key().cloned();
        self.done = self.start_key.is_none();
        Ok(())
    }
}

impl QueryState {
    /// Reads one page of a native index's Query into `ready`: each item's
    /// entry rebuilt, those before the range dropped, and the Query ended
    /// at the first past it (the GSI returns them in entry order).
    async fn native_page(
        &mut self,
        query: &super::native_keys::NativeQuery,
    ) -> Result<(), DynamoError> {
        let store = &self.store;
        let Some((gsi, native)) = self
            .gsi
            .as_ref()
            .and_then(|g| g.native.as_ref().map(|n| (g, n)))
        else {
            return Ok(());
        };
        let mut request = store
            .client
            .query()
            .table_name(&store.table)
            .index_name(gsi.name)
            .scan_index_forward(self.direction == Direction::Forward)
            .key_condition_expression(&query.condition)
            .set_expression_attribute_names(Some(query.names.clone()))
            .set_expression_attribute_values(Some(query.values.clone()))
            .set_exclusive_start_key(self.start_key.take());
        if let Some(n) = self.limit {
            let wanted = n.saturating_sub(self.returned).saturating_add(1);
            request = request.limit(i32::try_from(wanted).unwrap_or(i32::MAX));
        }
        super::Counters::count(&store.counters.query);
        let response = request
            .send()
            .await
            .map_err(|e| request_error("Query", e))?;
        let forward = self.direction == Direction::Forward;
        for item in response.items() {
            let Some(entry) = store.native_entry_of(gsi, native, item)? else {
                continue;
            };
            let before = entry < query.start;
            let past = query.end.as_ref().is_some_and(|end| entry >= *end);
            match (forward, before, past) {
                (true, _, true) | (false, true, _) => {
                    self.done = true;
                    self.start_key = None;
                    return Ok(());
                }
                (true, true, _) | (false, _, true) => continue,
                _ => self.ready.push_back(Ok((entry, Vec::new()))),
            }
        }
        self.start_key = response.last_evaluated_key().cloned();
        self.done = self.start_key.is_none();
        Ok(())
    }
}
