//! Indexes as a model (issue 20) on the Bigtable emulator and a
//! DynamoDB-API server (dynalite here; DynamoDB Local in `.ci/run`): random
//! interleavings of the async record operations against a plain map
//! (`common::index_model`).
//!
//! Bigtable applies each row atomically, not a write and its entries: a
//! write reads the rows' old values, then writes the new entries, the rows,
//! and the old entries' deletes, three requests. On DynamoDB a row and its
//! index attributes are one item and the service keeps each GSI. A crash
//! stops a write after any request (`common::cut`: the requests after the
//! cut never leave); a restart is a new client on the same table, and every
//! scan page after the first is read by one. Another program's delete
//! removes the row alone (on DynamoDB, its item and so its GSI entries).
//! Every index scan must equal the map: no row that is not in the table,
//! none missed. DynamoDB's GSI reads are eventually consistent; dynalite
//! and DynamoDB Local apply a write to the GSI before answering it, so no
//! settling is needed here (against DynamoDB, a scan right after a write
//! may miss that row, never return a wrong one). The current version's
//! backfill (`build_async`, `verify_async`; on DynamoDB through the table
//! pass) runs between any two steps and at the end (issue 40).
#![cfg(all(feature = "bigtable", feature = "dynamodb"))]

mod common;

use common::index_model::{op, run, Hit};
use common::{cbt, dynalite, emulator};
// The driver drives `super::index_model`: the encoded declarations here.
use common::{index_model, index_model_backfill};
use index_model_driver::{text, Service, Services};
use keyschema::store::bigtable::BigtableStore;
use keyschema::store::dynamodb::DynamoStore;
use proptest::prelude::*;
use tokio::runtime::Runtime;

#[path = "common/index_model_driver.rs"]
mod index_model_driver;

impl Service for BigtableStore {
    const ONE_PARTITION: bool = false;
    const OLDER_WRITES: bool = true;
    fn create(rt: &Runtime) -> (String, Self) {
        let table = emulator::fresh_table("index-model");
        let store = rt.block_on(async {
            let store = Self::reconnect(&table).await;
            store.create_table_for::<Hit>().await.expect("a table");
            store
        });
        (table, store)
    }
    async fn reconnect(table: &str) -> Self {
        BigtableStore::connect_emulator(&emulator::host(), cbt::PROJECT, cbt::INSTANCE, table)
            .await
            .expect("connect")
    }
    async fn delete(&self, row: &Hit) -> Result<(), String> {
        self.delete_row(row).await.map_err(text)
    }
}

impl Service for DynamoStore {
    const ONE_PARTITION: bool = true;
    // A DynamoDB store serves the one key type it was made for, and each
    // index is a GSI named after the index, so an older version is another
    // binary with the same names; an item and its index attributes are
    // one PutItem, which replaces the older version's attributes whole.
    const OLDER_WRITES: bool = false;
    fn create(rt: &Runtime) -> (String, Self) {
        let store = rt.block_on(dynalite::store::<Hit>("index-model"));
        (store.table().to_string(), store)
    }
    async fn reconnect(table: &str) -> Self {
        DynamoStore::connect_local::<Hit>(&dynalite::endpoint(), table).expect("connect")
    }
    async fn delete(&self, row: &Hit) -> Result<(), String> {
        self.delete_row(row).await.map_err(text)
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
    #[test]
    fn index_scans_agree_with_a_map_on_bigtable(ops in prop::collection::vec(op(), 1..50)) {
        run(&mut Services::<BigtableStore>::new(), &ops)?;
    }

    #[test]
    fn index_scans_agree_with_a_map_on_dynamodb(ops in prop::collection::vec(op(), 1..50)) {
        run(&mut Services::<DynamoStore>::new(), &ops)?;
    }
}
