//! The layout change as a model (issue 18) on a DynamoDB-API server
//! (dynalite here; DynamoDB Local in `.ci/run`), through the async API.
//! `common::layout_model` runs random interleavings against a map; this file
//! drives them on a `DynamoStore` holding a partitioned twin of the model's
//! key type (DynamoDB needs a partition key): the new binary's typed puts,
//! replaces and deletes in its phase, the older binary's puts and deletes
//! on either side of the cut-over, gets, paged scans (limit, reverse,
//! cursor) with every page after the first read by a new client (a reader
//! that resumed in a fresh process), and restarts on a new client.
//!
//! The backfill is refused on DynamoDB (`BackfillError::Unsupported`, see
//! `tests/dynamodb_edges.rs`), so the model's copy, verify, switch and
//! delete operations are not drawn here: the table stays in `Split`, where
//! a row the older binary wrote past the cut-over must still be found by a
//! get.
#![cfg(feature = "dynamodb")]

mod common;

use common::dynalite;
use common::history::{Event, Request};
use common::layout_model::{op_on_partitions, run, Driver, Page};
use futures_util::StreamExt;
use keyschema::backfill::{Progress, Verification};
use keyschema::history::Phase;
use keyschema::store::dynamodb::DynamoStore;
use keyschema::store::{AsyncStore, Mutation};
use keyschema::{Cursor, Phased, RowKey, ScanRequest};
use proptest::prelude::*;
use tokio::runtime::Runtime;

/// The model's `Event` with its user and site as DynamoDB's partition key:
/// unsalted before T, salted from T, as the model's.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = hash(user_id, site) % 8, then = (user_id, site), rev(timestamp))]
#[rowkey_was(salt = none, until = timestamp >= 1_700_000_000)]
struct PEvent {
    user_id: String,
    site: String,
    timestamp: u64,
}

impl From<&Event> for PEvent {
    fn from(e: &Event) -> Self {
        PEvent {
            user_id: e.user_id.clone(),
            site: e.site.clone(),
            timestamp: e.timestamp,
        }
    }
}

impl From<PEvent> for Event {
    fn from(e: PEvent) -> Self {
        Event {
            user_id: e.user_id,
            site: e.site,
            timestamp: e.timestamp,
        }
    }
}

/// The model's request (its partition bound) on `PEvent`.
fn request(r: &Request, phase: Phase, after: Option<Cursor>) -> ScanRequest<PEvent, Phased> {
    let scan = PEvent::scan().user_id(r.user).site(r.site);
    let scan = if r.bind >= 3 {
        scan.timestamp((
            common::history::bound(r.lo.0, r.lo.1),
            common::history::bound(r.hi.0, r.hi.1),
        ))
    } else {
        scan.request()
    };
    let mut scan = scan.phase(phase);
    if let Some(n) = r.limit {
        scan = scan.limit(n);
    }
    if r.reverse {
        scan = scan.reverse();
    }
    match after {
        Some(c) => scan.after(c),
        None => scan,
    }
}

struct Dynamo {
    rt: Runtime,
    table: String,
    store: DynamoStore,
}

fn connect(table: &str) -> DynamoStore {
    DynamoStore::connect_local::<PEvent>(&dynalite::endpoint(), table).expect("connect")
}

impl Dynamo {
    fn new() -> Self {
        let rt = Runtime::new().expect("a runtime");
        let store = rt.block_on(dynalite::store::<PEvent>("model"));
        Dynamo {
            rt,
            table: store.table().to_string(),
            store,
        }
    }
}

const NO_BACKFILL: &str = "the backfill is refused on DynamoDB; op_on_partitions draws none";

impl Driver for Dynamo {
    fn put_in(&mut self, phase: Phase, e: &Event, value: &[u8]) -> Result<(), String> {
        let put = AsyncStore::put_row_in(&self.store, phase, &PEvent::from(e), value);
        self.rt.block_on(put).map_err(|e| e.to_string())
    }
    fn replace_in(&mut self, phase: Phase, e: &Event, value: &[u8]) {
        let replace = AsyncStore::replace_row_in(&self.store, phase, &PEvent::from(e), value);
        self.rt.block_on(replace).expect("replace");
    }
    fn delete_in(&mut self, phase: Phase, e: &Event) {
        let delete = AsyncStore::delete_row_in(&self.store, phase, &PEvent::from(e));
        self.rt.block_on(delete).expect("delete");
    }
    fn delete_older_key(&mut self, e: &Event) {
        let key = PEvent::from(e).encode_older().expect("a history");
        let delete = self.store.write(vec![Mutation::Delete { key }]);
        self.rt.block_on(delete).expect("delete");
    }
    fn get_in(&mut self, phase: Phase, e: &Event) -> Option<Vec<u8>> {
        let get = AsyncStore::get_row_in(&self.store, phase, &PEvent::from(e));
        self.rt.block_on(get).expect("get").map(|(_, v)| v)
    }
    fn older_holds(&mut self, e: &Event) -> bool {
        let key = PEvent::from(e).encode_older().expect("a history");
        let get = self.store.get_many(vec![key]);
        !self.rt.block_on(get).expect("get").is_empty()
    }
    fn scan_page(
        &mut self,
        r: &Request,
        phase: Phase,
        after: Option<Cursor>,
    ) -> Result<Page, String> {
        // A page after the first: the reader resumed in a new process.
        if after.is_some() {
            self.store = connect(&self.table);
        }
        let scan = request(r, phase, after);
        let mut rows = scan.stream(&self.store);
        let page = self.rt.block_on(async {
            let mut page = Vec::new();
            while let Some(row) = rows.next().await {
                let (e, v) = row.map_err(|e| e.to_string())?;
                page.push((Event::from(e), v));
            }
            Ok::<_, String>(page)
        })?;
        Ok((page, rows.cursor()))
    }
    fn copy_batch(&mut self) -> Result<(), String> {
        unreachable!("{NO_BACKFILL}")
    }
    fn crash_in_copy(&mut self, _: usize) -> Option<String> {
        unreachable!("{NO_BACKFILL}")
    }
    fn restart(&mut self) {
        self.store = connect(&self.table);
    }
    fn copy(&mut self) -> Progress {
        unreachable!("{NO_BACKFILL}")
    }
    fn verify(&mut self) -> Verification {
        unreachable!("{NO_BACKFILL}")
    }
    fn delete_older(&mut self, _: &Verification, _: Option<usize>) -> Result<(), String> {
        unreachable!("{NO_BACKFILL}")
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]
    #[test]
    fn the_layout_change_agrees_with_a_map_dynamodb(ops in prop::collection::vec(op_on_partitions(), 1..100)) {
        run(&mut Dynamo::new(), &ops)?;
    }
}
