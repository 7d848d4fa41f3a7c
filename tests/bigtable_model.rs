//! The typed-scan model of `tests/typed_scan.rs` on Bigtable (the emulator,
//! started by the tests themselves when `BIGTABLE_EMULATOR_HOST` is not set),
//! and typed scans merging the salt buckets.
#![cfg(feature = "bigtable")]

mod common;

use common::bigtable_store::store;
use common::emulator;
use common::model::{logical_cmp, request, row, Eight, One, Request, Row3, Wide};
use common::schemas::Event;
use proptest::prelude::*;
use std::sync::OnceLock;

use futures_util::StreamExt;
use keyschema::store::bigtable::{BigtableError, BigtableStore};
use keyschema::store::Mutation;
use keyschema::RowKey;

fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("runtime")
    })
}

/// The typed-scan model of `tests/typed_scan.rs`, on Bigtable: every request
/// ordered, limited, unordered and resumed at every position, against the
/// brute-force answer.
macro_rules! check_bigtable_model {
    ($k:ident, $rows:expr, $req:expr) => {{
        let rows: &[Row3] = $rows;
        let req: &Request = $req;
        let store = BigtableStore::connect_emulator(
            &emulator::host(),
            "keyschema",
            "test",
            &emulator::fresh_table("model"),
        )
        .await
        .expect("connect");
        store.create_table_for::<$k>().await.expect("create table");
        let mut batch: Vec<Mutation> = rows
            .iter()
            .map(|r| Mutation::Put {
                key: $k::from(r).encode(),
                value: format!("{r:?}").into_bytes(),
            })
            .collect();
        batch.dedup_by(|a, b| a == b);
        if !batch.is_empty() {
            store.write_batch(&batch).await.expect("write");
        }
        let expected = req.expected(rows);
        let base = crate::scan_for!($k, req);
        async fn collect<S>(mut s: S) -> (Vec<Row3>, S)
        where
            S: futures_util::Stream<
                    Item = Result<($k, Vec<u8>), keyschema::store::RowError<BigtableError>>,
                > + Unpin,
        {
            let mut out = Vec::new();
            while let Some(r) = s.next().await {
                let (k, v) = r.expect("scan row");
                let row = Row3::from(k);
                assert_eq!(v, format!("{row:?}").into_bytes());
                out.push(row);
            }
            (out, s)
        }
        let (all, s) = collect(base.stream(&store)).await;
        assert_eq!(all, expected, "ordered scan of {req:?}");
        assert!(s.cursor().is_finished());
        if let Some(n) = req.limit {
            let (got, _) = collect(base.clone().limit(n).stream(&store)).await;
            assert_eq!(
                got,
                expected[..n.min(expected.len())],
                "limit {n} of {req:?}"
            );
        }
        let (mut unordered, _) = collect(base.clone().unordered().stream(&store)).await;
        unordered.sort_by(logical_cmp);
        let mut sorted = expected.clone();
        sorted.sort_by(logical_cmp);
        assert_eq!(unordered, sorted, "unordered scan of {req:?}");
        for k in 0..=expected.len() {
            let (head, first) = collect(base.clone().limit(k).stream(&store)).await;
            let (tail, _) = collect(base.clone().after(first.cursor()).stream(&store)).await;
            assert_eq!(
                [head, tail].concat(),
                expected,
                "resume after {k} rows of {req:?}"
            );
        }
    }};
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn bigtable_matches_the_model(rows in prop::collection::vec(row(), 0..16), req in request()) {
        runtime().block_on(async {
            check_bigtable_model!(One, &rows, &req);
            check_bigtable_model!(Eight, &rows, &req);
            check_bigtable_model!(Wide, &rows, &req);
        });
    }
}

#[tokio::test]
async fn typed_scans_merge_the_buckets_concurrently() {
    let store = store("typed").await;
    let events: Vec<Event> = (0..400u64)
        .map(|t| Event {
            user_id: format!("u{}", t % 5),
            site: format!("s{}", t % 3),
            timestamp: t,
        })
        .collect();
    store
        .put_rows(events.iter().map(|e| (e, format!("at {}", e.timestamp))))
        .await
        .unwrap();
    let (row, value) = store
        .get_row::<Event>(&events[7].encode())
        .await
        .unwrap()
        .expect("typed get");
    assert_eq!((row, value), (events[7].clone(), b"at 7".to_vec()));
    let got: Vec<Event> = Event::scan()
        .user_id("u1")
        .request()
        .stream(&store)
        .map(|r| r.unwrap().0)
        .collect()
        .await;
    let mut expected: Vec<Event> = events
        .iter()
        .filter(|e| e.user_id == "u1")
        .cloned()
        .collect();
    expected.sort_by(|a, b| a.site.cmp(&b.site).then(b.timestamp.cmp(&a.timestamp)));
    assert_eq!(got, expected);
    let newest: Vec<u64> = Event::scan()
        .user_id("u1")
        .site("s0")
        .limit(3)
        .stream(&store)
        .map(|r| r.unwrap().0.timestamp)
        .collect()
        .await;
    assert_eq!(newest, [396, 381, 366]);
    let oldest: Vec<u64> = Event::scan()
        .user_id("u1")
        .site("s0")
        .reverse()
        .limit(3)
        .stream(&store)
        .map(|r| r.unwrap().0.timestamp)
        .collect()
        .await;
    assert_eq!(oldest, [6, 21, 36]);
}
