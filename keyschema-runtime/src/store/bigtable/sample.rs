//! What a table holds, sampled: its tablet boundaries (SampleRowKeys) and a
//! random sample of its row keys (a row-sample filter), for the tools that
//! plan splits and find hot keys on a live table. One attempt each, no
//! retry: diagnostics.

use super::{rpc_error, BigtableError, BigtableStore};
use googleapis_tonic_google_bigtable_v2::google::bigtable::v2 as data;

impl BigtableStore {
    /// The table's own split points: the row keys SampleRowKeys returns,
    /// which end the table's tablets (Bigtable's regions), in key order,
    /// without the empty key that ends the table. Empty for a table of one
    /// tablet (and from the emulator, which keeps one).
    pub async fn sample_row_keys(&self) -> Result<Vec<Vec<u8>>, BigtableError> {
        let message = data::SampleRowKeysRequest {
            table_name: self.table_name.clone(),
            ..data::SampleRowKeysRequest::default()
        };
        let mut stream = self
            .data
            .clone()
            .sample_row_keys(self.request(message).await?)
            .await
            .map_err(|s| rpc_error("SampleRowKeys", 1, &s))?
            .into_inner();
        let mut keys = Vec::new();
        while let Some(response) = stream
            .message()
            .await
            .map_err(|s| rpc_error("SampleRowKeys", 1, &s))?
        {
            if !response.row_key.is_empty() {
                keys.push(response.row_key);
            }
        }
        Ok(keys)
    }

    /// Row keys of the whole table, each row taken with probability
    /// `probability` (Bigtable's row-sample filter, so the sample spreads
    /// over every tablet), at most `limit` of them, in key order. Only the
    /// keys travel: each row's first cell, its value stripped. A
    /// `probability` outside (0, 1] reads every row.
    pub async fn sample_keys(
        &self,
        probability: f64,
        limit: usize,
    ) -> Result<Vec<Vec<u8>>, BigtableError> {
        use data::row_filter::{Chain, Filter};
        let one = |f| data::RowFilter { filter: Some(f) };
        let mut filters = vec![
            one(Filter::CellsPerRowLimitFilter(1)),
            one(Filter::StripValueTransformer(true)),
        ];
        if probability > 0.0 && probability < 1.0 {
            filters.insert(0, one(Filter::RowSampleFilter(probability)));
        }
        let message = data::ReadRowsRequest {
            table_name: self.table_name.clone(),
            filter: Some(one(Filter::Chain(Chain { filters }))),
            rows_limit: i64::try_from(limit).unwrap_or(i64::MAX),
            ..data::ReadRowsRequest::default()
        };
        let mut keys = Vec::new();
        self.read_once(message, |row| {
            keys.push(row.key);
            true
        })
        .await?;
        keys.truncate(limit);
        Ok(keys)
    }
}
