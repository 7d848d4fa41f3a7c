//! Whole rows as a model (issue 19) on the Bigtable emulator and a
//! DynamoDB-API server (dynalite here; DynamoDB Local in `.ci/run`):
//! random interleavings of the async record operations against a plain map
//! (`common::rows_model`). A restart is a new client on the same table and
//! every scan page after the first is read by one (a reader resumed in a
//! fresh process). A crash in a batch drops the `put_records` future after
//! a random number of microseconds, as a process that dies mid-batch: the
//! requests already sent land, the rest never leave. Another program's row
//! is written around the library: on DynamoDB a `PutItem` by the SDK with
//! an attribute the struct lacks; on Bigtable a `MutateRow` by Google's
//! generated client of an `amount` cell and a `written_by` column.
#![cfg(all(feature = "bigtable", feature = "dynamodb"))]

mod common;

use common::rows_model::{op, request, run, Amount, Driver, Key, Scan, Values, Visit};
use common::{cbt, dynalite, emulator};
use futures_util::StreamExt;
use googleapis_tonic_google_bigtable_v2::google::bigtable::v2 as bt;
use keyschema::store::bigtable::BigtableStore;
use keyschema::store::dynamodb::sdk::primitives::Blob;
use keyschema::store::dynamodb::sdk::types::AttributeValue;
use keyschema::store::dynamodb::DynamoStore;
use keyschema::store::{AsyncRecordStore, AsyncStore};
use keyschema::{Cursor, RowKey};
use proptest::prelude::*;
use std::future::Future;
use std::time::Duration;
use tokio::runtime::Runtime;

fn key_of(key: &Key) -> Vec<u8> {
    Visit::get_key(&key.0, key.1)
}

fn text<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

/// A store of the model's rows on one service.
trait Service: AsyncStore + Clone + 'static {
    /// A new client on the same table.
    fn reconnect(table: &str) -> impl Future<Output = Self>;
    /// The store's typed delete.
    fn delete(&self, row: &Visit) -> impl Future<Output = Result<(), String>>;
    /// Another program's write of the row under `key`.
    fn foreign(&self, key: Vec<u8>, amount: i64) -> impl Future<Output = ()>;
    /// Whether its numbers have a negative zero (DynamoDB's do not).
    const NEGATIVE_ZERO: bool = true;
}

impl Service for DynamoStore {
    const NEGATIVE_ZERO: bool = false;

    async fn reconnect(table: &str) -> Self {
        DynamoStore::connect_local::<Visit>(&dynalite::endpoint(), table).expect("connect")
    }

    async fn delete(&self, row: &Visit) -> Result<(), String> {
        self.delete_row(row).await.map_err(text)
    }

    async fn foreign(&self, key: Vec<u8>, amount: i64) {
        let (pk, sk) = Visit::schema().split_key(&key).expect("a key");
        self.client()
            .put_item()
            .table_name(self.table())
            .item("pk", AttributeValue::B(Blob::new(pk)))
            .item("sk", AttributeValue::B(Blob::new(sk)))
            .item("amount", AttributeValue::N(amount.to_string()))
            .item("written_by", AttributeValue::S("billing-v1".into()))
            .send()
            .await
            .expect("PutItem");
    }
}

impl Service for BigtableStore {
    async fn reconnect(table: &str) -> Self {
        let host = emulator::host();
        BigtableStore::connect_emulator(&host, cbt::PROJECT, cbt::INSTANCE, table)
            .await
            .expect("connect")
    }

    async fn delete(&self, row: &Visit) -> Result<(), String> {
        self.delete_row(row).await.map_err(text)
    }

    /// A `MutateRow` by Google's generated client: the family's cells
    /// replaced by an 8-byte `amount` and a `written_by` column.
    async fn foreign(&self, key: Vec<u8>, amount: i64) {
        use bt::mutation::{DeleteFromFamily, Mutation as M, SetCell};
        let family = Visit::schema().family().to_string();
        let set = |qualifier: &[u8], value: Vec<u8>| bt::Mutation {
            mutation: Some(M::SetCell(SetCell {
                family_name: family.clone(),
                column_qualifier: qualifier.to_vec(),
                timestamp_micros: -1,
                value,
            })),
        };
        let channel =
            tonic::transport::Endpoint::from_shared(format!("http://{}", emulator::host()))
                .expect("an endpoint")
                .connect()
                .await
                .expect("connect");
        let mut client = bt::bigtable_client::BigtableClient::new(channel);
        let request = bt::MutateRowRequest {
            table_name: self.table_name().to_string(),
            row_key: key,
            mutations: vec![
                bt::Mutation {
                    mutation: Some(M::DeleteFromFamily(DeleteFromFamily {
                        family_name: family.clone(),
                    })),
                },
                set(b"amount", amount.to_be_bytes().to_vec()),
                set(b"written_by", b"billing-v1".to_vec()),
            ],
            ..Default::default()
        };
        client.mutate_row(request).await.expect("MutateRow");
    }
}

struct Async<S> {
    rt: Runtime,
    table: String,
    store: S,
}

impl<S: Service> Async<S> {
    fn block<T>(&self, f: impl Future<Output = T>) -> T {
        self.rt.block_on(f)
    }
}

impl<S: Service> Driver for Async<S>
where
    S::Error: std::fmt::Display,
{
    fn put(&mut self, row: &Visit) -> Result<(), String> {
        self.block(self.store.put_record(row)).map_err(text)
    }
    fn put_many(&mut self, rows: &[Visit]) -> Result<(), String> {
        self.block(self.store.put_records(rows)).map_err(text)
    }
    fn replace(&mut self, row: &Visit) -> Result<(), String> {
        self.block(self.store.replace_record(row)).map_err(text)
    }
    fn delete(&mut self, key: &Key) -> Result<(), String> {
        let row = Visit::decode(&key_of(key)).map_err(text)?;
        self.block(Service::delete(&self.store, &row))
    }
    fn get(&mut self, key: &Key) -> Result<Option<Visit>, String> {
        self.block(self.store.get_record::<Visit>(&key_of(key)))
            .map_err(text)
    }
    fn get_amount(&mut self, key: &Key) -> Result<Option<Amount>, String> {
        self.block(self.store.get_projected::<Amount>(&key_of(key)))
            .map_err(text)
    }
    fn scan_page(
        &mut self,
        scan: &Scan,
        after: Option<Cursor>,
    ) -> Result<(Vec<Visit>, Cursor), String> {
        if after.is_some() {
            self.restart();
        }
        let mut rows = request(scan, after).stream(&self.store).records();
        let page = self.block(async {
            let mut page = Vec::new();
            while let Some(row) = rows.next().await {
                page.push(row.map_err(text)?);
            }
            Ok::<_, String>(page)
        })?;
        Ok((page, rows.inner().cursor()))
    }
    fn scan_amounts(&mut self, scan: &Scan) -> Result<Vec<Amount>, String> {
        let rows = request(scan, None).project::<Amount>().stream(&self.store);
        self.block(rows.map(|r| r.map_err(text)).collect::<Vec<_>>())
            .into_iter()
            .collect()
    }
    fn foreign(&mut self, key: &Key, amount: i64) {
        self.block(self.store.foreign(key_of(key), amount));
    }
    fn crash_in_put_many(&mut self, rows: &[Visit], micros: u64) {
        let put = self.store.put_records(rows);
        let _ =
            self.block(async { tokio::time::timeout(Duration::from_micros(micros), put).await });
        // What reached the server before the cut lands now or never.
        std::thread::sleep(Duration::from_millis(50));
    }
    fn restart(&mut self) {
        let store = self.block(S::reconnect(&self.table));
        self.store = store;
    }
    fn normal(&self, mut values: Values) -> Values {
        if !S::NEGATIVE_ZERO {
            values.level.0 += 0.0;
        }
        values
    }
}

fn runtime() -> Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("a runtime")
}

fn bigtable() -> Async<BigtableStore> {
    let rt = runtime();
    let table = emulator::fresh_table("rows-model");
    let store = rt.block_on(async {
        let store = BigtableStore::reconnect(&table).await;
        store.create_table_for::<Visit>().await.expect("a table");
        store
    });
    Async { rt, table, store }
}

fn dynamodb() -> Async<DynamoStore> {
    let rt = runtime();
    let store = rt.block_on(dynalite::store::<Visit>("rows-model"));
    let table = store.table().to_string();
    Async { rt, table, store }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]
    #[test]
    fn whole_rows_agree_with_a_map_on_bigtable(ops in prop::collection::vec(op(), 1..60)) {
        run(&mut bigtable(), &ops)?;
    }

    #[test]
    fn whole_rows_agree_with_a_map_on_dynamodb(ops in prop::collection::vec(op(), 1..60)) {
        run(&mut dynamodb(), &ops)?;
    }
}
