//! Indexed floats as a model (issue 40), on memory, redb, the Bigtable
//! emulator and a DynamoDB-API server (dynalite here; DynamoDB Local in
//! `.ci/run`): random puts, deletes and index scans of rows whose indexed
//! fields (an `f64`, an `f32`, an `Option<f64>`) are drawn from the values
//! stores treat specially (`-0.0` and `0.0`, subnormals, DynamoDB's range
//! ends, values beyond it, infinities of an `f32`) against a plain map of
//! what each store gives back: everything as written on memory, redb and
//! Bigtable; on DynamoDB `-0.0` as `0.0`, and a row with a float DynamoDB
//! cannot hold refused before anything is written. Every index scan
//! returns exactly the map's rows in the index's order (IEEE total order,
//! `-0.0` before `0.0`), none stale.
#![cfg(all(feature = "bigtable", feature = "dynamodb"))]

mod common;

use common::readings::{ByCold, ByPeak, ByTemp, Reading};
use common::{cbt, dynalite, emulator};
use futures_util::StreamExt;
use keyschema::history::Phase;
use keyschema::store::bigtable::BigtableStore;
use keyschema::store::{
    AsyncRecordStore, AsyncStore, MemoryStore, RecordStore, RedbStore, RowStore, Store,
};
use keyschema::{Index, OneLayout, RowKey, ScanRequest};
use proptest::prelude::*;
use std::cmp::Ordering;
use std::collections::BTreeMap;
use tokio::runtime::Runtime;

const F64S: [f64; 14] = [
    -0.0,
    0.0,
    5e-324,
    -1e-310,
    2.2250738585072014e-308,
    1e-130,
    -1e-130,
    1.5,
    -1.5,
    1e38,
    1e125,
    -9.99e125,
    1e300,
    -1e200,
];
const F32S: [f32; 8] = [-0.0, 0.0, 1e-45, -1e-40, 0.9, -1.5, 3.4e38, f32::INFINITY];

#[derive(Debug, Clone)]
enum Op {
    Put(Reading),
    Delete(u16),
    /// Which index, reversed, a limit.
    Scan(u8, bool, Option<usize>),
}

fn reading() -> impl Strategy<Value = Reading> {
    (
        0u16..5,
        prop::sample::select(F64S.to_vec()),
        prop::sample::select(F32S.to_vec()),
        prop::option::of(prop::sample::select(F64S.to_vec())),
    )
        .prop_map(|(id, temp, cold, peak)| Reading {
            zone: "z".into(),
            id,
            temp,
            cold,
            peak,
        })
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => reading().prop_map(Op::Put),
        1 => (0u16..5).prop_map(Op::Delete),
        3 => (0u8..3, any::<bool>(), prop::option::of(1usize..4))
            .prop_map(|(i, r, l)| Op::Scan(i, r, l)),
    ]
}

/// A store under test.
trait Driver {
    /// The row as this store gives it back, or `None` when the store
    /// refuses it.
    fn stored(&self, row: &Reading) -> Option<Reading>;
    fn put(&mut self, row: &Reading) -> Result<(), String>;
    fn delete(&mut self, id: u16) -> Result<(), String>;
    /// The rows of an index scan and the stale entries it skipped.
    fn scan<I: Index<Row = Reading> + OneLayout>(
        &mut self,
        request: ScanRequest<I>,
    ) -> Result<(Vec<Reading>, u64), String>;
}

fn text<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

fn request<I: Index<Row = Reading> + OneLayout>(
    base: ScanRequest<I>,
    reverse: bool,
    limit: Option<usize>,
) -> ScanRequest<I> {
    let mut request = if reverse { base.reverse() } else { base };
    if let Some(n) = limit {
        request = request.limit(n);
    }
    request
}

/// The map's rows in index `which`'s order (rows without an entry left
/// out), reversed and cut as the scan is.
fn expected(
    map: &BTreeMap<u16, Reading>,
    which: u8,
    reverse: bool,
    limit: Option<usize>,
) -> Vec<Reading> {
    let mut rows: Vec<Reading> = map
        .values()
        .filter(|r| which != 2 || r.peak.is_some())
        .cloned()
        .collect();
    let order = |a: &Reading, b: &Reading| -> Ordering {
        let by = match which {
            0 => a.temp.total_cmp(&b.temp),
            1 => a.cold.total_cmp(&b.cold),
            _ => a.peak.unwrap_or(0.0).total_cmp(&b.peak.unwrap_or(0.0)),
        };
        by.then(a.id.cmp(&b.id))
    };
    rows.sort_by(order);
    if reverse {
        rows.reverse();
    }
    rows.truncate(limit.unwrap_or(usize::MAX));
    rows
}

/// Bitwise equality, so that `-0.0` and `0.0` differ.
fn same(a: &[Reading], b: &[Reading]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(a, b)| {
            a.id == b.id
                && a.temp.to_bits() == b.temp.to_bits()
                && a.cold.to_bits() == b.cold.to_bits()
                && a.peak.map(f64::to_bits) == b.peak.map(f64::to_bits)
        })
}

fn run<D: Driver>(driver: &mut D, ops: &[Op]) -> Result<(), TestCaseError> {
    let mut map: BTreeMap<u16, Reading> = BTreeMap::new();
    for (step, op) in ops.iter().enumerate() {
        match op {
            Op::Put(row) => {
                let put = driver.put(row);
                match driver.stored(row) {
                    Some(stored) => {
                        prop_assert!(put.is_ok(), "step {step}: {put:?}");
                        map.insert(row.id, stored);
                    }
                    None => prop_assert!(put.is_err(), "step {step}: {row:?} was taken"),
                }
            }
            Op::Delete(id) => {
                driver.delete(*id).map_err(TestCaseError::fail)?;
                map.remove(id);
            }
            Op::Scan(which, reverse, limit) => {
                let (rows, stale) = match which {
                    0 => driver.scan(request(
                        ByTemp::scan().zone("z").request(),
                        *reverse,
                        *limit,
                    )),
                    1 => driver.scan(request(
                        ByCold::scan().zone("z").request(),
                        *reverse,
                        *limit,
                    )),
                    _ => driver.scan(request(
                        ByPeak::scan().zone("z").request(),
                        *reverse,
                        *limit,
                    )),
                }
                .map_err(TestCaseError::fail)?;
                let want = expected(&map, *which, *reverse, *limit);
                prop_assert!(
                    same(&rows, &want),
                    "step {step}: index {which} reverse {reverse} limit {limit:?}:\n got {rows:?}\nwant {want:?}"
                );
                prop_assert_eq!(stale, 0, "step {}: no entry is stale", step);
            }
        }
    }
    Ok(())
}

/// Memory and redb: rows as written.
struct Sync<S>(S);

impl<S: Store> Driver for Sync<S>
where
    S::Error: std::fmt::Display,
{
    fn stored(&self, row: &Reading) -> Option<Reading> {
        Some(row.clone())
    }
    fn put(&mut self, row: &Reading) -> Result<(), String> {
        self.0.put_record(row).map_err(text)
    }
    fn delete(&mut self, id: u16) -> Result<(), String> {
        let row = Reading::decode(&Reading::get_key("z", id)).map_err(text)?;
        self.0.delete_row(&row).map_err(text)
    }
    fn scan<I: Index<Row = Reading> + OneLayout>(
        &mut self,
        request: ScanRequest<I>,
    ) -> Result<(Vec<Reading>, u64), String> {
        let mut rows = request.run(&self.0).rows();
        let mut out = Vec::new();
        for row in rows.by_ref() {
            out.push(row.map_err(text)?);
        }
        Ok((out, rows.stale_entries()))
    }
}

/// The services, through their async stores.
struct Service<S> {
    rt: Runtime,
    store: S,
    /// DynamoDB's rules for numbers.
    dynamodb: bool,
}

fn runtime() -> Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("a runtime")
}

/// A float as DynamoDB holds it: `None` when it cannot.
fn dynamodb_number(v: f64) -> Option<f64> {
    let held = v == 0.0 || (1e-130..1e126).contains(&v.abs());
    held.then_some(v + 0.0)
}

impl<S: AsyncRecordStore + AsyncStore> Driver for Service<S>
where
    S::Error: std::fmt::Display,
{
    fn stored(&self, row: &Reading) -> Option<Reading> {
        if !self.dynamodb {
            return Some(row.clone());
        }
        let cold = dynamodb_number(f64::from(row.cold))?;
        Some(Reading {
            temp: dynamodb_number(row.temp)?,
            cold: if cold == 0.0 { 0.0 } else { row.cold },
            peak: match row.peak {
                Some(p) => Some(dynamodb_number(p)?),
                None => None,
            },
            ..row.clone()
        })
    }
    fn put(&mut self, row: &Reading) -> Result<(), String> {
        self.rt.block_on(self.store.put_record(row)).map_err(text)
    }
    fn delete(&mut self, id: u16) -> Result<(), String> {
        let row = Reading::decode(&Reading::get_key("z", id)).map_err(text)?;
        // The typed delete keeps the row's entries in step (a Bigtable row
        // type has no history: its one phase is the declared layout's).
        self.rt
            .block_on(self.store.delete_row_in(Phase::New, &row))
            .map_err(text)
    }
    fn scan<I: Index<Row = Reading> + OneLayout>(
        &mut self,
        request: ScanRequest<I>,
    ) -> Result<(Vec<Reading>, u64), String> {
        let mut rows = request.stream_rows(&self.store);
        let out = self.rt.block_on(async {
            let mut out = Vec::new();
            while let Some(row) = rows.next().await {
                out.push(row.map_err(text)?);
            }
            Ok::<_, String>(out)
        })?;
        Ok((out, rows.stale_entries()))
    }
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 24,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn memory_indexes_floats_as_a_map(ops in prop::collection::vec(op(), 1..40)) {
        run(&mut Sync(MemoryStore::new()), &ops)?;
    }

    #[test]
    fn redb_indexes_floats_as_a_map(ops in prop::collection::vec(op(), 1..40)) {
        let dir = tempfile::tempdir().expect("a directory");
        let store = RedbStore::open(dir.path()).expect("redb");
        run(&mut Sync(store), &ops)?;
    }

    #[test]
    fn bigtable_indexes_floats_as_a_map(ops in prop::collection::vec(op(), 1..40)) {
        let rt = runtime();
        let table = emulator::fresh_table("floats");
        let store = rt.block_on(async {
            let store = BigtableStore::connect_emulator(&emulator::host(), cbt::PROJECT, cbt::INSTANCE, &table)
                .await
                .expect("connect");
            store.create_table_for::<Reading>().await.expect("a table");
            store
        });
        run(&mut Service { rt, store, dynamodb: false }, &ops)?;
    }

    #[test]
    fn dynamodb_indexes_floats_as_a_map(ops in prop::collection::vec(op(), 1..40)) {
        let rt = runtime();
        let store = rt.block_on(dynalite::store::<Reading>("floats"));
        run(&mut Service { rt, store, dynamodb: true }, &ops)?;
    }
}
