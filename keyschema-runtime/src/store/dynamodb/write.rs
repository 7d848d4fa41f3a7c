//! Writes: BatchWriteItem in batches of 25, unprocessed items retried with
//! backoff, every item that still fails reported with its index and key.

use super::{request_error, DynamoError, DynamoStore, FailedItem, MAX_ITEM, VALUE};
use crate::key::OneLayout;
use crate::store::{delete_batch, put_batch, replace_batch, Mutation};
use aws_sdk_dynamodb::types::{AttributeValue, DeleteRequest, PutRequest, WriteRequest};
use std::collections::HashMap;

/// DynamoDB's limit on the items of one BatchWriteItem request: 25.
pub const MAX_BATCH_ITEMS: usize = 25;

impl DynamoStore {
    /// Applies a batch through BatchWriteItem, 25 items per request (a key
    /// written twice in one batch starts a new request: DynamoDB refuses
    /// duplicate keys in one). Keys and items are checked against
    /// DynamoDB's limits first ([`DynamoError::Limit`]; nothing is sent).
    /// Unprocessed items are retried with backoff; those that still fail,
    /// and the items of requests not sent after a failed one, are reported
    /// in [`DynamoError::PartialBatch`] by index. Puts and deletes are
    /// idempotent, so writing the reported items again is safe.
    ///
    /// A batch the server refuses for a GSI's key schema (the table's GSI
    /// changed since the store read it) is written once more after the
    /// store reads the table again, or refused as a
    /// [`DynamoError::TableMismatch`].
    pub async fn write_batch(&self, batch: &[Mutation]) -> Result<(), DynamoError> {
        self.learn_forms().await?;
        match self.write_batch_once(batch).await {
            Err(e) if self.refused_for_key_schema(&e) => {
                self.read_forms().await?;
                self.write_batch_once(batch).await
            }
            answer => answer,
        }
    }

    /// [`write_batch`](Self::write_batch) in the forms the store has.
    async fn write_batch_once(&self, batch: &[Mutation]) -> Result<(), DynamoError> {
        let requests = batch
            .iter()
            .enumerate()
            .map(|(index, m)| self.write_request(index, m))
            .collect::<Result<Vec<_>, _>>()?;
        let mut failed = Vec::new();
        let pieces = pieces(batch);
        for (n, piece) in pieces.iter().enumerate() {
            if let Err(message) = self.write_piece(batch, &requests, piece, &mut failed).await {
                let message = format!(
                    "not sent: BatchWriteItem request {} of {} failed first ({message})",
                    n + 1,
                    pieces.len()
                );
                failed.extend(pieces[n + 1..].iter().flatten().map(|&index| FailedItem {
                    index,
                    key: key_of(&batch[index]).to_vec(),
                    message: message.clone(),
                }));
                break;
            }
        }
        if failed.is_empty() {
            return Ok(());
        }
        failed.sort_by_key(|f| f.index);
        Err(DynamoError::PartialBatch {
            failed,
            total: batch.len(),
        })
    }

    /// Refuses a put through a store of a schema document that lists
    /// indexes: their entries need the key type's code, so the item would
    /// lack its index attributes and the row its GSI entries.
    fn check_writable(&self) -> Result<(), DynamoError> {
        let unkept = self.schema.unkept_indexes();
        if unkept.is_empty() {
            return Ok(());
        }
        let names: Vec<String> = unkept.iter().map(|n| format!("`{n}`")).collect();
        Err(DynamoError::Unsupported {
            operation: "a put through a store of a schema document",
            reason: format!(
                "the document of `{}` lists the indexes {}, whose entries a schema read from a document cannot compute (they need the key type's code), so the row would be missing from their GSIs: write through a store of the key type (`DynamoStore::connect::<K>`), and use this one to read",
                self.schema.name(),
                names.join(", ")
            ),
        })
    }

    /// The WriteRequest of one mutation, checked against the limits.
    fn write_request(&self, index: usize, m: &Mutation) -> Result<WriteRequest, DynamoError> {
        let request = match m {
            Mutation::Put { key, value } => {
                let put = PutRequest::builder()
                    .set_item(Some(self.put_item(index, key, value)?))
                    .build()
                    .map_err(|e| request_error("BatchWriteItem", e))?;
                WriteRequest::builder().put_request(put).build()
            }
            Mutation::Delete { key } => {
                let delete = DeleteRequest::builder()
                    .set_key(Some(self.key_item(index, key)?))
                    .build()
                    .map_err(|e| request_error("BatchWriteItem", e))?;
                WriteRequest::builder().delete_request(delete).build()
            }
        };
        Ok(request)
    }

    /// The item a put of `value` under `key` writes (item `index` of its
    /// batch), checked against DynamoDB's key and item limits: the key
    /// attributes, the key fields' own attributes, the index key
    /// attributes, and the value fields (a field map, for whole rows) or
    /// the raw value.
    pub(super) fn put_item(
        &self,
        index: usize,
        key: &[u8],
        value: &[u8],
    ) -> Result<HashMap<String, AttributeValue>, DynamoError> {
        self.check_writable()?;
        let mut item = self.key_item(index, key)?;
        let cut = || key[..key.len().min(64)].to_vec();
        if let Some(layout) = &self.key_fields {
            for (name, attribute) in super::item::key_field_attributes(layout, key) {
                item.insert(name, attribute);
            }
        }
        if self.whole_rows() {
            // A map of other names (the empty map, another program's) is
            // no row of this type: it would read back as one of defaults.
            let fields = self.schema.values();
            if let Ok(false) = crate::record::msgpack::names_one_of(value, fields) {
                return Err(DynamoError::NotFields {
                    index,
                    key: cut(),
                    schema: self.schema.name(),
                    message: crate::record::not_fields(fields).to_string(),
                });
            }
            let fields = super::item::to_attributes(value).map_err(|(field, message)| {
                if field.is_empty() {
                    DynamoError::NotFields {
                        index,
                        key: cut(),
                        schema: self.schema.name(),
                        message,
                    }
                } else {
                    DynamoError::Attribute {
                        index,
                        key: cut(),
                        field,
                        message,
                    }
                }
            })?;
            // The index key attributes, from the fields as DynamoDB gives
            // them back (a `-0.0` is read as `0`): a read checks an entry
            // against the row it reads, so the entry is the read row's.
            if self.schema.has_indexes() {
                let entries: Vec<(&str, &AttributeValue)> =
                    fields.iter().map(|(name, v)| (name.as_str(), v)).collect();
                let stored = super::field_map::field_map(&entries);
                item.extend(fields);
                let attributes = self.index_attributes(index, key, &stored, &item)?;
                item.extend(attributes);
            } else {
                item.extend(fields);
            }
        } else {
            // The index key attributes: DynamoDB keeps each index's GSI.
            let attributes = self.index_attributes(index, key, value, &item)?;
            item.extend(attributes);
            item.insert(
                VALUE.to_string(),
                AttributeValue::B(aws_sdk_dynamodb::primitives::Blob::new(value.to_vec())),
            );
        }
        let size = item
            .iter()
            .map(|(name, v)| name.len() + attr_len(v))
            .sum::<usize>();
        if size > MAX_ITEM {
            return Err(DynamoError::Limit {
                index,
                key: cut(),
                what: "item",
                len: size,
                max: MAX_ITEM,
            });
        }
        Ok(item)
    }

    /// One piece of at most 25 items, its unprocessed items retried. Items
    /// that still fail go to `failed`; a request error ends the piece (its
    /// unconfirmed items in `failed`) and is returned.
    async fn write_piece(
        &self,
        batch: &[Mutation],
        requests: &[WriteRequest],
        piece: &[usize],
        failed: &mut Vec<FailedItem>,
    ) -> Result<(), String> {
        let mut pending: Vec<usize> = piece.to_vec();
        let mut attempt = 0;
        while !pending.is_empty() {
            attempt += 1;
            let items: Vec<WriteRequest> = pending.iter().map(|&i| requests[i].clone()).collect();
            super::Counters::count(&self.counters.batch_write_item);
            let response = self
                .client
                .batch_write_item()
                .request_items(&self.table, items)
                .send()
                .await;
            let response = match response {
                Ok(r) => r,
                Err(e) => {
                    let message = request_error("BatchWriteItem", e).to_string();
                    failed.extend(pending.iter().map(|&index| FailedItem {
                        index,
                        key: key_of(&batch[index]).to_vec(),
                        message: format!("not confirmed: {message}"),
                    }));
                    return Err(message);
                }
            };
            let unprocessed: Vec<WriteRequest> = response
                .unprocessed_items()
                .and_then(|u| u.get(&self.table))
                .cloned()
                .unwrap_or_default();
            if unprocessed.is_empty() {
                return Ok(());
            }
            // Back to batch indexes, by key (keys are distinct within a piece).
            let by_key: HashMap<Vec<u8>, usize> = pending
                .iter()
                .map(|&i| (key_of(&batch[i]).to_vec(), i))
                .collect();
            pending = unprocessed
                .iter()
                .filter_map(|w| {
                    let item = w
                        .put_request()
                        .map(|p| p.item())
                        .or_else(|| w.delete_request().map(|d| d.key()))?;
                    let key = self.key_of(item).ok()?;
                    by_key.get(&key).copied()
                })
                .collect();
            pending.sort_unstable();
            if attempt >= self.retry.attempts {
                failed.extend(pending.iter().map(|&index| FailedItem {
                    index,
                    key: key_of(&batch[index]).to_vec(),
                    message: format!(
                        "still unprocessed after {attempt} attempts (throughput exceeded)"
                    ),
                }));
                return Ok(());
            }
            self.retry.pause(attempt).await;
        }
        Ok(())
    }

    /// Sets `key` to `value`.
    pub async fn put(&self, key: &[u8], value: &[u8]) -> Result<(), DynamoError> {
        self.write_batch(&[Mutation::Put {
            key: key.to_vec(),
            value: value.to_vec(),
        }])
        .await
    }

    /// Removes `key`.
    pub async fn delete(&self, key: &[u8]) -> Result<(), DynamoError> {
        self.write_batch(&[Mutation::Delete { key: key.to_vec() }])
            .await
    }

    /// Stores `value` under `row`'s key; with a `random % N` salt an insert
    /// (see [`RowStore`](crate::store::RowStore) for what that means).
    pub async fn put_row<K: OneLayout>(&self, row: &K, value: &[u8]) -> Result<(), DynamoError> {
        self.check_schema(K::schema())?;
        self.put(&row.encode(), value).await
    }

    /// Stores `value` under `row`'s key, deleting it from every other
    /// bucket of a `random % N` salt (one batch; DynamoDB applies each item
    /// on its own).
    pub async fn replace_row<K: OneLayout>(
        &self,
        row: &K,
        value: &[u8],
    ) -> Result<(), DynamoError> {
        self.check_schema(K::schema())?;
        self.write_batch(&replace_batch::<K>(&row.encode(), value))
            .await
    }

    /// Removes `row`, from every candidate bucket of a `random % N` salt.
    pub async fn delete_row<K: OneLayout>(&self, row: &K) -> Result<(), DynamoError> {
        self.check_schema(K::schema())?;
        self.write_batch(&delete_batch::<K>(&row.encode())).await
    }

    /// Stores many typed rows (each inserted, for a `random % N` salt).
    pub async fn put_rows<'r, K: OneLayout + 'r, V: AsRef<[u8]> + 'r>(
        &self,
        rows: impl IntoIterator<Item = (&'r K, V)>,
    ) -> Result<(), DynamoError> {
        self.check_schema(K::schema())?;
        self.write_batch(&put_batch(rows)).await
    }
}

/// The batch in consecutive pieces of at most 25 items with distinct keys.
fn pieces(batch: &[Mutation]) -> Vec<Vec<usize>> {
    let mut pieces: Vec<Vec<usize>> = Vec::new();
    let mut keys = std::collections::HashSet::new();
    for (index, m) in batch.iter().enumerate() {
        let full = pieces
            .last()
            .is_none_or(|p| p.len() >= MAX_BATCH_ITEMS || keys.contains(key_of(m)));
        if full {
            pieces.push(Vec::new());
            keys.clear();
        }
        keys.insert(key_of(m));
        if let Some(piece) = pieces.last_mut() {
            piece.push(index);
        }
    }
    pieces
}

fn key_of(m: &Mutation) -> &[u8] {
    match m {
        Mutation::Put { key, .. } | Mutation::Delete { key } => key,
    }
}

/// The size DynamoDB counts for an attribute value, never less than the
/// service's own count: a string's UTF-8 bytes, a binary's bytes, a
/// number by [`number_len`], a list or map 3 bytes plus one per element
/// (with the names of a map's), a boolean or null 1.
pub(super) fn attr_len(value: &AttributeValue) -> usize {
    match value {
        AttributeValue::B(b) => b.as_ref().len(),
        AttributeValue::S(s) => s.len(),
        AttributeValue::N(n) => number_len(n),
        AttributeValue::L(list) => 3 + list.iter().map(|v| 1 + attr_len(v)).sum::<usize>(),
        AttributeValue::M(map) => {
            3 + map
                .iter()
                .map(|(k, v)| 1 + k.len() + attr_len(v))
                .sum::<usize>()
        }
        AttributeValue::Ss(set) => set.iter().map(String::len).sum(),
        AttributeValue::Ns(set) => set.iter().map(|n| number_len(n)).sum(),
        AttributeValue::Bs(set) => set.iter().map(|b| b.as_ref().len()).sum(),
        _ => 1,
    }
}

/// The bytes DynamoDB stores a number in: the significant digits packed
/// two to a byte, aligned on the decimal exponent's parity (so an even
/// count of digits starting at an even exponent takes one byte more), one
/// byte for the exponent, and one more for a negative number; a zero is 1
/// byte. `-1` is 3 bytes, `1.5` 3, `100` 2, `12345678901234567890` 11.
/// Text that does not read as a number counts its length plus 2, more than
/// any number of that text.
pub(super) fn number_len(n: &str) -> usize {
    let over = n.len() + 2;
    let (negative, rest) = match n.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, n.strip_prefix('+').unwrap_or(n)),
    };
    let (mantissa, exponent) = match rest.find(['e', 'E']) {
        Some(at) => match rest[at + 1..].parse::<i64>() {
            Ok(e) => (&rest[..at], e),
            Err(_) => return over,
        },
        None => (rest, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if int.is_empty() && frac.is_empty()
        || !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit())
    {
        return over;
    }
    let Some(first) = int.bytes().chain(frac.bytes()).position(|b| b != b'0') else {
        return 1;
    };
    let trailing = frac
        .bytes()
        .rev()
        .chain(int.bytes().rev())
        .position(|b| b != b'0')
        .unwrap_or(0);
    let significant = int.len() + frac.len() - trailing - first;
    // The decimal exponent of the first significant digit.
    let Ok(int_len) = i64::try_from(int.len()) else {
        return over;
    };
    let Ok(first_at) = i64::try_from(first) else {
        return over;
    };
    let point = int_len - 1 - first_at + exponent;
    1 + significant.div_ceil(2)
        + usize::from(significant % 2 == 0 && point % 2 == 0)
        + usize::from(negative)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_hold_25_distinct_keys() {
        let put = |k: u8| Mutation::Put {
            key: vec![k],
            value: vec![],
        };
        let batch: Vec<Mutation> = (0..60).map(put).collect();
        let sizes: Vec<usize> = pieces(&batch).iter().map(Vec::len).collect();
        assert_eq!(sizes, [25, 25, 10]);
        let batch = vec![put(1), put(2), put(1), put(3)];
        assert_eq!(pieces(&batch), [vec![0, 1], vec![2, 3]]);
    }

    #[test]
    fn numbers_count_as_dynamodb_stores_them() {
        for (n, len) in [
            ("0", 1),
            ("-0", 1),
            ("0.000", 1),
            ("1", 2),
            ("-1", 3),
            ("10", 2),
            ("100", 2),
            ("12", 2),
            ("1.5", 3),
            ("-1.5", 4),
            ("0.25", 2),
            ("123", 3),
            ("1234", 3),
            ("12345678901234567890", 11),
            ("1e125", 2),
            ("1E+125", 2),
            ("1.5e-9", 2),
            ("-1e-130", 3),
            ("0.0015", 2),
            ("015.50", 3),
        ] {
            assert_eq!(number_len(n), len, "{n}");
        }
        // Not a number: more than any number of that text.
        for n in ["", "-", "1e", "abc", "1.2.3"] {
            assert_eq!(number_len(n), n.len() + 2, "{n:?}");
        }
    }
}

/// How unprocessed batch items are retried.
#[derive(Debug, Clone, Copy)]
pub struct RetryPolicy {
    /// Attempts per batch of 25, the first included.
    pub attempts: u32,
    /// The pause before the first retry; doubled each time.
    pub backoff: std::time::Duration,
}

impl RetryPolicy {
    /// Sleeps before retry number `attempt` (1 for the first retry).
    pub(super) async fn pause(&self, attempt: u32) {
        let factor = 1u32 << attempt.saturating_sub(1).min(10);
        tokio::time::sleep(self.backoff.saturating_mul(factor)).await;
    }
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            attempts: 8,
            backoff: std::time::Duration::from_millis(25),
        }
    }
}
