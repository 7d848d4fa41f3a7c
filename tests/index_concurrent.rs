//! Concurrent writers of one row on a store without transactions (the
//! Bigtable emulator, and `MemoryStore` behind the default three steps):
//! each writer deletes the entries of the version it read, so without the
//! check after the deletes (see `store/indexed.rs`) a writer could delete
//! the entry another one had just put for the row's last version. Two
//! writers race on the same rows round after round; every row must then be
//! found through each index under its last value, and nowhere else.
#![cfg(feature = "bigtable")]

mod common;

use common::index_model::{Hit, HitByPage, HitByTag};
use common::no_txn::NoTxn;
use common::{cbt, emulator};
use futures_util::StreamExt;
use keyschema::index::IndexBackfill;
use keyschema::store::bigtable::BigtableStore;
use keyschema::store::{AsyncRecordStore, RecordStore};
use keyschema::RowKey;

const PAGES: [&str; 3] = ["/a", "/b", "/c"];
const TAGS: [Option<&str>; 3] = [None, Some("x"), Some("y")];

/// A small deterministic generator: the rounds are the same on every run.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) % n as u64) as usize
    }

    fn hit(&mut self, user: usize, n: i64) -> Hit {
        Hit {
            user: format!("u{user}"),
            ts: 1,
            page: PAGES[self.next(PAGES.len())].into(),
            tag: TAGS[self.next(TAGS.len())].map(Into::into),
            n,
        }
    }
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime")
}

/// Each row through each index, under its value and no other.
async fn check_async(store: &BigtableStore, rows: &[Hit]) {
    for page in PAGES {
        let mut got = Vec::new();
        let mut scan = HitByPage::scan().page(page).request().stream_rows(store);
        while let Some(row) = scan.next().await {
            got.push(row.expect("a row").user);
        }
        got.sort();
        let want: Vec<String> = rows
            .iter()
            .filter(|r| r.page == page)
            .map(|r| r.user.clone())
            .collect();
        assert_eq!(got, want, "rows under page {page}");
    }
    let v = IndexBackfill::<HitByPage>::new()
        .verify_async(store)
        .await
        .expect("verify");
    assert_eq!(
        (v.expected, v.present),
        (rows.len() as u64, rows.len() as u64),
        "{v:?}"
    );
    let v = IndexBackfill::<HitByTag>::new()
        .verify_async(store)
        .await
        .expect("verify");
    let tagged = rows.iter().filter(|r| r.tag.is_some()).count() as u64;
    assert_eq!((v.expected, v.present), (tagged, tagged), "{v:?}");
}

#[test]
fn two_bigtable_writers_racing_on_the_same_rows_lose_no_entry() {
    rt().block_on(async {
        let table = emulator::fresh_table("index-race");
        let host = emulator::host();
        let a = BigtableStore::connect_emulator(&host, cbt::PROJECT, cbt::INSTANCE, &table)
            .await
            .expect("connect");
        a.create_table_for::<Hit>().await.expect("a table");
        let b = BigtableStore::connect_emulator(&host, cbt::PROJECT, cbt::INSTANCE, &table)
            .await
            .expect("connect");
        let mut gen = Lcg(7);
        const USERS: usize = 3;
        for round in 0..120i64 {
            let user = gen.next(USERS);
            let (x, y) = (gen.hit(user, round), gen.hit(user, -round));
            let (ra, rb) = tokio::join!(a.put_record(&x), b.put_record(&y));
            ra.expect("a's write");
            rb.expect("b's write");
        }
        // The rows as they ended, whichever writer was last.
        let mut rows = Vec::new();
        for user in 0..USERS {
            let key = Hit {
                user: format!("u{user}"),
                ts: 1,
                page: String::new(),
                tag: None,
                n: 0,
            }
            .encode();
            if let Some(row) = a.get_record::<Hit>(&key).await.expect("get") {
                rows.push(row);
            }
        }
        assert_eq!(rows.len(), USERS);
        check_async(&a, &rows).await;
    });
}

#[test]
fn two_threads_racing_on_a_store_without_transactions_lose_no_entry() {
    let store = NoTxn::new();
    let barrier = std::sync::Barrier::new(2);
    let lost = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for seed in [1u64, 2] {
            let (store, barrier, lost) = (store.clone(), &barrier, &lost);
            s.spawn(move || {
                let mut gen = Lcg(seed);
                for round in 0..2_000 {
                    store.put_record(&gen.hit(0, round)).expect("write");
                    // Both writes done: the row must be under its page.
                    if barrier.wait().is_leader() && !found(&store) {
                        lost.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    }
                    barrier.wait();
                }
            });
        }
    });
    assert_eq!(
        lost.into_inner(),
        0,
        "rounds whose row was missing from the index"
    );
}

/// Whether the row of user 0 is found through its page's index.
fn found(store: &NoTxn) -> bool {
    let mut key_row = Lcg(0).hit(0, 0);
    key_row.page.clear();
    let row: Hit = store
        .get_record(&key_row.encode())
        .expect("get")
        .expect("the row");
    let through: Vec<Hit> = HitByPage::scan()
        .page(row.page.as_str())
        .run(store)
        .rows()
        .collect::<Result<_, _>>()
        .expect("an index scan");
    through.contains(&row)
}
