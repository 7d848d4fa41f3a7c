//! Compare-and-set through CheckAndMutateRow: the check and the write are
//! one atomic step on the row.

use super::{is_retryable, rpc_error, BigtableError, BigtableStore, MAX_ROW_KEY, MAX_VALUE};
use crate::record::ValueField;
use crate::store::Cas;
use googleapis_tonic_google_bigtable_v2::google::bigtable::v2 as data;

/// Compare-and-sets in flight at once.
const IN_FLIGHT: usize = 32;

impl BigtableStore {
    /// Applies each compare-and-set with one CheckAndMutateRow (up to 32 in
    /// flight); per entry, whether it applied. A call retried after a lost
    /// answer may report `false` for a write that applied: read the row
    /// again to know.
    pub async fn compare_and_write(&self, batch: &[Cas]) -> Result<Vec<bool>, BigtableError> {
        self.compare_and_write_in(None, &[], batch).await
    }

    /// [`compare_and_write`](Self::compare_and_write) of whole rows kept in
    /// `family` (what each entry expects and sets is a cell map, or a
    /// row's value fields; `fields` the key type's value fields), or of raw
    /// values.
    pub(super) async fn compare_and_write_in(
        &self,
        family: Option<&'static str>,
        fields: &'static [ValueField],
        batch: &[Cas],
    ) -> Result<Vec<bool>, BigtableError> {
        for (index, cas) in batch.iter().enumerate() {
            check(index, cas)?;
        }
        let mut applied = Vec::with_capacity(batch.len());
        for chunk in batch.chunks(IN_FLIGHT) {
            let answers = futures_util::future::join_all(
                chunk
                    .iter()
                    .map(|cas| self.check_and_mutate(family, fields, cas)),
            )
            .await;
            for answer in answers {
                applied.push(answer?);
            }
        }
        Ok(applied)
    }

    async fn check_and_mutate(
        &self,
        family: Option<&str>,
        fields: &[ValueField],
        cas: &Cas,
    ) -> Result<bool, BigtableError> {
        let mutations = match (&cas.set, family) {
            (None, _) => vec![super::rows::delete_row()],
            (Some(value), Some(family)) => super::rows::set_cells(family, fields, &cas.key, value)?,
            (Some(value), None) => vec![data::Mutation {
                mutation: Some(data::mutation::Mutation::SetCell(data::mutation::SetCell {
                    family_name: super::FAMILY.to_string(),
                    column_qualifier: super::QUALIFIER.to_vec(),
                    // The server's time, as every put: see `BigtableStore`.
                    timestamp_micros: -1,
                    value: value.clone(),
                })),
            }],
        };
        // Without a filter the predicate matches a row that has any cell;
        // with one, a row whose newest value is exactly the one expected
        // (a whole row's cells: exactly those of the cell map).
        let expect = |value: &Vec<u8>| -> Result<data::RowFilter, BigtableError> {
            match family {
                Some(family) if value.first() == Some(&crate::record::cells::CELL_MAP) => {
                    let cells =
                        crate::record::cells::cells_of(value, fields).map_err(|source| {
                            BigtableError::Value {
                                key: cas.key.clone(),
                                source,
                            }
                        })?;
                    Ok(super::rows::holds_exactly(family, &cells))
                }
                _ => Ok(equals(value)),
            }
        };
        let (predicate_filter, true_mutations, false_mutations) = match &cas.expect {
            None => (None, Vec::new(), mutations),
            Some(value) => (Some(expect(value)?), mutations, Vec::new()),
        };
        let message = data::CheckAndMutateRowRequest {
            table_name: self.table_name.clone(),
            row_key: cas.key.clone(),
            predicate_filter,
            true_mutations,
            false_mutations,
            ..Default::default()
        };
        let mut attempt = 0;
        loop {
            attempt += 1;
            let request = self.request(message.clone()).await?;
            match self.data.clone().check_and_mutate_row(request).await {
                Ok(answer) => {
                    let matched = answer.into_inner().predicate_matched;
                    return Ok(matched == cas.expect.is_some());
                }
                Err(status) if is_retryable(&status) && attempt < self.retry.attempts => {
                    self.pause(attempt).await;
                }
                Err(status) => return Err(rpc_error("CheckAndMutateRow", attempt, &status)),
            }
        }
    }
}

/// A filter that passes a row whose newest value is `value`, byte for byte
/// (a closed value range from `value` to `value`: no regular expression).
fn equals(value: &[u8]) -> data::RowFilter {
    use data::row_filter::{Chain, Filter};
    use data::value_range::{EndValue, StartValue};
    data::RowFilter {
        filter: Some(Filter::Chain(Chain {
            filters: vec![
                data::RowFilter {
                    filter: Some(Filter::CellsPerColumnLimitFilter(1)),
                },
                data::RowFilter {
                    filter: Some(Filter::ValueRangeFilter(data::ValueRange {
                        start_value: Some(StartValue::StartValueClosed(value.to_vec())),
                        end_value: Some(EndValue::EndValueClosed(value.to_vec())),
                    })),
                },
            ],
        })),
    }
}

/// Cloud Bigtable's limits, checked before anything is sent.
fn check(index: usize, cas: &Cas) -> Result<(), BigtableError> {
    let value = cas.set.as_ref().map_or(0, Vec::len);
    for (what, len, max) in [
        ("row key", cas.key.len(), MAX_ROW_KEY),
        ("value", value, MAX_VALUE),
    ] {
        if len > max {
            return Err(BigtableError::TooLarge {
                index,
                key: cas.key[..cas.key.len().min(64)].to_vec(),
                what,
                len,
                max,
            });
        }
    }
    Ok(())
}
