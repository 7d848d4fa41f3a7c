//! Typed scans on real stores, against a brute-force model: random datasets
//! and requests, 1, 8 and 256 buckets, the in-memory store and redb.

mod common;

use common::model::{logical_cmp, request, row, Eight, One, Request, Row3, Wide};

use keyschema::store::{
    Direction, MemoryStore, Mutation, RedbStore, Row, RowError, RowStore, Store,
};
use keyschema::{KeyRange, RowKey};
use proptest::prelude::*;
use std::cmp::Ordering;
use std::sync::atomic::{AtomicUsize, Ordering as AtomicOrdering};

/// Runs every check of one request on one store and key type.
macro_rules! check_model {
    ($k:ident, $store:expr, $rows:expr, $req:expr) => {{
        let store = $store;
        let rows: &[Row3] = $rows;
        let req: &Request = $req;
        let batch: Vec<Mutation> = rows
            .iter()
            .map(|r| Mutation::Put {
                key: $k::from(r).encode(),
                value: format!("{r:?}").into_bytes(),
            })
            .collect();
        store.write_batch(&batch).expect("write");
        let expected = req.expected(rows);
        let base = scan_for!($k, req);
        let collect =
            |it: &mut dyn Iterator<Item = Result<($k, Vec<u8>), RowError<_>>>| -> Vec<Row3> {
                it.map(|r| {
                    let (k, v) = r.expect("scan row");
                    let row = Row3::from(k);
                    assert_eq!(
                        v,
                        format!("{row:?}").into_bytes(),
                        "value travels with its key"
                    );
                    row
                })
                .collect()
            };

        // Ordered, with and without a limit.
        let mut all = base.run(&store);
        assert_eq!(collect(&mut all), expected, "ordered scan of {req:?}");
        assert!(all.cursor().is_finished());
        if let Some(n) = req.limit {
            let got = collect(&mut base.clone().limit(n).run(&store));
            assert_eq!(
                got,
                expected[..n.min(expected.len())],
                "limit {n} of {req:?}"
            );
        }

        // Unordered: the same rows.
        let mut unordered = collect(&mut base.clone().unordered().run(&store));
        unordered.sort_by(logical_cmp);
        let mut sorted = expected.clone();
        sorted.sort_by(logical_cmp);
        assert_eq!(unordered, sorted, "unordered scan of {req:?}");

        // Resume at every position, ordered and unordered: never a repeat, never a gap.
        for k in 0..=expected.len() {
            let mut first = base.clone().limit(k).run(&store);
            let head = collect(&mut first);
            let cursor: keyschema::Cursor = first
                .cursor()
                .to_string()
                .parse()
                .expect("cursor round-trips as hex");
            // A merged page that ends on the last row knows it: each bucket
            // reads one row past the limit.
            assert_eq!(
                cursor.is_finished(),
                k > 0 && k == expected.len(),
                "the cursor after {k} of {} rows of {req:?}",
                expected.len()
            );
            let tail = collect(&mut base.clone().after(cursor).run(&store));
            assert_eq!(
                [head, tail].concat(),
                expected,
                "resume after {k} rows of {req:?}"
            );

            let mut first = base.clone().unordered().limit(k).run(&store);
            let mut seen = collect(&mut first);
            let cursor = keyschema::Cursor::from_bytes(&first.cursor().to_bytes())
                .expect("cursor round-trips as bytes");
            seen.extend(collect(
                &mut base.clone().unordered().after(cursor).run(&store),
            ));
            seen.sort_by(logical_cmp);
            assert_eq!(seen, sorted, "unordered resume after {k} rows of {req:?}");
        }
    }};
}

fn redb() -> (tempfile::TempDir, RedbStore) {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = RedbStore::open(dir.path()).expect("open redb");
    (dir, store)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn memory_store_matches_the_model(rows in prop::collection::vec(row(), 0..30), req in request()) {
        check_model!(One, MemoryStore::new(), &rows, &req);
        check_model!(Eight, MemoryStore::new(), &rows, &req);
        check_model!(Wide, MemoryStore::new(), &rows, &req);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    #[test]
    fn redb_store_matches_the_model(rows in prop::collection::vec(row(), 0..30), req in request()) {
        let (_dir, store) = redb();
        check_model!(One, &store, &rows, &req);
        let (_dir, store) = redb();
        check_model!(Eight, &store, &rows, &req);
        let (_dir, store) = redb();
        check_model!(Wide, &store, &rows, &req);
    }
}

/// A store that counts the rows its scans hand out and can fail on the n-th.
#[derive(Default)]
struct Probe {
    inner: MemoryStore,
    pulled: AtomicUsize,
    fail_at: Option<usize>,
}

#[derive(Debug)]
struct Lost(usize);

impl std::fmt::Display for Lost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "connection lost after {} rows", self.0)
    }
}

impl std::error::Error for Lost {}

struct ProbeRows<'a> {
    inner: <MemoryStore as Store>::Rows<'a>,
    probe: &'a Probe,
}

impl Iterator for ProbeRows<'_> {
    type Item = Result<Row, Lost>;
    fn next(&mut self) -> Option<Self::Item> {
        let row = self.inner.next()?;
        let n = self.probe.pulled.fetch_add(1, AtomicOrdering::SeqCst) + 1;
        if self.probe.fail_at == Some(n) {
            return Some(Err(Lost(n)));
        }
        Some(row.map_err(|e| unreachable!("the memory store refused: {e}")))
    }
}

impl Store for Probe {
    type Error = Lost;
    type Rows<'a> = ProbeRows<'a>;
    common::lend_scanned_rows!();
    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, Lost> {
        Ok(self
            .inner
            .get(key)
            .unwrap_or_else(|e| unreachable!("the memory store refused: {e}")))
    }
    fn write_batch(&self, batch: &[Mutation]) -> Result<(), Lost> {
        self.inner
            .write_batch(batch)
            .map_err(|e| unreachable!("the memory store refused: {e}"))
    }
    fn scan(&self, range: &KeyRange, direction: Direction) -> Result<ProbeRows<'_>, Lost> {
        let inner = self
            .inner
            .scan(range, direction)
            .unwrap_or_else(|e| unreachable!("the memory store refused: {e}"));
        Ok(ProbeRows { inner, probe: self })
    }
    fn compare_and_write(&self, batch: &[keyschema::store::Cas]) -> Result<Vec<bool>, Lost> {
        self.inner
            .compare_and_write(batch)
            .map_err(|e| unreachable!("the memory store refused: {e}"))
    }
}

fn events(n: usize) -> Vec<Eight> {
    (0..n)
        .map(|i| Eight {
            user: format!("u{}", i % 50),
            site: format!("s{}", i % 7),
            ts: i as i64,
        })
        .collect()
}

#[test]
fn ordered_merge_holds_one_row_per_bucket() {
    let probe = Probe::default();
    let rows = events(10_000);
    probe.put_rows(rows.iter().map(|r| (r, b""))).unwrap();
    let mut scan = Eight::scan().run(&probe);
    let first = scan.next().unwrap().unwrap();
    // One row read from each of the 8 buckets, plus the refill of the one returned.
    assert_eq!(probe.pulled.load(AtomicOrdering::SeqCst), 9);
    let mut previous = first.0;
    let mut count = 1;
    for row in scan {
        let (row, _) = row.unwrap();
        assert!(logical_cmp(&previous.clone().into(), &row.clone().into()) == Ordering::Less);
        previous = row;
        count += 1;
    }
    assert_eq!(count, 10_000);
}

#[test]
fn limit_is_pushed_down_to_every_bucket() {
    let probe = Probe::default();
    let rows = events(10_000);
    probe.put_rows(rows.iter().map(|r| (r, b""))).unwrap();
    let got: Vec<_> = Eight::scan().limit(10).run(&probe).collect();
    assert_eq!(got.len(), 10);
    // At most 11 rows per bucket (one past the limit, to know whether the
    // bucket ran out), never the whole table.
    assert!(probe.pulled.load(AtomicOrdering::SeqCst) <= 8 * 11);
}

#[test]
fn a_lost_connection_is_an_error_and_the_cursor_resumes_exactly() {
    let rows = events(500);
    let healthy = MemoryStore::new();
    healthy.put_rows(rows.iter().map(|r| (r, b""))).unwrap();
    let expected: Vec<Row3> = Eight::scan()
        .run(&healthy)
        .map(|r| r.unwrap().0.into())
        .collect();
    for fail_at in [1, 2, 9, 50, 499] {
        let failing = Probe {
            inner: healthy.clone(),
            pulled: AtomicUsize::new(0),
            fail_at: Some(fail_at),
        };
        let mut scan = Eight::scan().run(&failing);
        let mut got: Vec<Row3> = Vec::new();
        let mut errors = 0;
        for row in scan.by_ref() {
            match row {
                Ok((k, _)) => got.push(k.into()),
                Err(RowError::Store(Lost(n))) => {
                    assert_eq!(n, fail_at);
                    errors += 1;
                }
                Err(e) => panic!("unexpected {e}"),
            }
        }
        assert_eq!(errors, 1, "the failure is reported, not swallowed");
        assert!(got.len() < expected.len(), "the scan stopped at the error");
        let rest = Eight::scan()
            .after(scan.cursor())
            .run(&healthy)
            .map(|r| r.unwrap().0.into());
        got.extend(rest);
        assert_eq!(
            got, expected,
            "after resuming, every row exactly once (failure at row {fail_at})"
        );
    }
}

#[test]
fn a_key_that_does_not_decode_is_an_error_item_naming_it() {
    let store = MemoryStore::new();
    let good = Eight {
        user: "u1".into(),
        site: "s".into(),
        ts: 1,
    };
    store.put_row(&good, b"ok").unwrap();
    // A key in the same bucket and under the same user, but not a key of the schema.
    let mut bad = Eight::get_key("u1", "s", 1);
    bad.truncate(bad.len() - 3);
    store.put(&bad, b"junk").unwrap();
    let results: Vec<_> = Eight::scan().user("u1").site("s").run(&store).collect();
    assert_eq!(results.len(), 2);
    let errors: Vec<String> = results
        .iter()
        .filter_map(|r| r.as_ref().err())
        .map(ToString::to_string)
        .collect();
    assert_eq!(errors.len(), 1);
    assert!(errors[0].contains("does not decode"), "{}", errors[0]);
    assert!(
        errors[0].contains("key ends inside component `ts`"),
        "{}",
        errors[0]
    );
    assert!(results
        .iter()
        .any(|r| matches!(r, Ok((k, v)) if *k == good && v == b"ok")));
}

/// A scan does not hash a row's salt again (its range pinned the salt
/// byte): a copy of a row that another program stored under the wrong salt
/// byte is read as a row of the bucket it lies in, where `decode` of the
/// same key reports the mismatch. Nothing is lost: both rows come back.
#[test]
fn a_row_under_the_wrong_salt_byte_is_read_as_its_buckets_row() {
    let store = MemoryStore::new();
    let row = Eight {
        user: "u1".into(),
        site: "s".into(),
        ts: 1,
    };
    store.put_row(&row, b"ok").unwrap();
    let mut copy = row.encode();
    copy[0] = (copy[0] + 1) % 8;
    store.put(&copy, b"copy").unwrap();
    assert!(matches!(
        Eight::decode(&copy),
        Err(keyschema::DecodeError::SaltMismatch { .. })
    ));
    for ordered in [true, false] {
        let scan = Eight::scan().user("u1").request();
        let scan = if ordered { scan } else { scan.unordered() };
        let rows: Vec<_> = scan.run(&store).map(|r| r.expect("row")).collect();
        assert_eq!(rows.len(), 2, "ordered: {ordered}");
        assert!(rows.iter().all(|(k, _)| *k == row), "ordered: {ordered}");
    }
}

#[test]
fn typed_get_and_redb_persistence() {
    let dir = tempfile::tempdir().unwrap();
    let rows = events(2_000);
    {
        let store = RedbStore::open(dir.path()).unwrap();
        store
            .put_rows(rows.iter().map(|r| (r, r.user.as_bytes())))
            .unwrap();
        store.delete_row(&rows[0]).unwrap();
    }
    let store = RedbStore::open(dir.path()).unwrap();
    let (row, value) = Eight::get(&store, "u7", "s0", 7)
        .unwrap()
        .expect("row 7 survives a reopen");
    assert_eq!((row, value), (rows[7].clone(), b"u7".to_vec()));
    assert!(
        Eight::get(&store, "u0", "s0", 0).unwrap().is_none(),
        "deleted"
    );
    let all: Vec<Eight> = Eight::scan()
        .unordered()
        .run(&store)
        .map(|r| r.unwrap().0)
        .collect();
    assert_eq!(all.len(), 1_999);
}

#[test]
fn reverse_scans_on_both_stores() {
    let rows = events(300);
    let memory = MemoryStore::new();
    memory.put_rows(rows.iter().map(|r| (r, b""))).unwrap();
    let (_dir, redb) = redb();
    redb.put_rows(rows.iter().map(|r| (r, b""))).unwrap();
    let forward: Vec<Row3> = Eight::scan()
        .user("u3")
        .run(&memory)
        .map(|r| r.unwrap().0.into())
        .collect();
    let mut backward: Vec<Row3> = Eight::scan()
        .user("u3")
        .reverse()
        .run(&memory)
        .map(|r| r.unwrap().0.into())
        .collect();
    let redb_backward: Vec<Row3> = Eight::scan()
        .user("u3")
        .reverse()
        .run(&redb)
        .map(|r| r.unwrap().0.into())
        .collect();
    assert_eq!(backward, redb_backward);
    backward.reverse();
    assert_eq!(forward, backward);
    assert_eq!(forward.len(), 6);
}

/// A page token belongs to its request: user `u`'s cursor on user `v`'s
/// scan (seen before the fix: a silent `[]`), the other direction, the other
/// order mode, another bound value: each a typed error, on every store.
fn cursors_resume_only_their_own_request<S: Store>(store: &S) {
    let rows: Vec<Eight> = ["u", "v"]
        .iter()
        .flat_map(|user| {
            (0..6i64).map(move |ts| Eight {
                user: user.to_string(),
                site: format!("s{}", ts % 3),
                ts,
            })
        })
        .collect();
    store
        .put_rows(rows.iter().map(|r| (r, b"")))
        .expect("write");
    let mut page = Eight::scan().user("u").limit(2).run(store);
    assert_eq!(page.by_ref().count(), 2);
    let cursor = page.cursor();

    let refused = |mut rows: keyschema::TypedRows<'_, Eight, S>| {
        let first = rows.next().expect("an item");
        assert!(
            matches!(
                first,
                Err(RowError::Cursor(keyschema::CursorError::OtherRequest {
                    schema: "Eight"
                }))
            ),
            "{first:?}"
        );
        assert!(rows.next().is_none(), "nothing after the refusal");
    };
    refused(Eight::scan().user("v").after(cursor.clone()).run(store));
    refused(
        Eight::scan()
            .user("u")
            .site("s1")
            .after(cursor.clone())
            .run(store),
    );
    refused(
        Eight::scan()
            .user("u")
            .after(cursor.clone())
            .reverse()
            .run(store),
    );
    // Reverse first, then a forward cursor: refused too (it used to take
    // the cursor's direction and go forward, silently).
    refused(
        Eight::scan()
            .user("u")
            .reverse()
            .after(cursor.clone())
            .run(store),
    );
    refused(
        Eight::scan()
            .user("u")
            .unordered()
            .after(cursor.clone())
            .run(store),
    );
    // A reverse scan's cursor resumes in reverse, with or without
    // `reverse()` again.
    let mut back = Eight::scan().user("u").reverse().limit(2).run(store);
    assert_eq!(back.by_ref().count(), 2);
    let back = back.cursor();
    let all: Vec<i64> = Eight::scan()
        .user("u")
        .reverse()
        .run(store)
        .map(|r| r.expect("a row").0.ts)
        .collect();
    for resumed in [
        Eight::scan().user("u").after(back.clone()),
        Eight::scan().user("u").reverse().after(back.clone()),
        Eight::scan().user("u").after(back.clone()).reverse(),
    ] {
        let ts: Vec<i64> = resumed.run(store).map(|r| r.expect("a row").0.ts).collect();
        assert_eq!(ts, all[2..]);
    }
    // The same request resumes exactly after the page.
    let rest = Eight::scan()
        .user("u")
        .after(cursor.clone())
        .run(store)
        .count();
    assert_eq!(rest, 4);
    // Bytes that are not a cursor are refused when parsed.
    let err = keyschema::Cursor::from_bytes(&cursor.to_bytes()[..5]).unwrap_err();
    assert!(err.to_string().contains("invalid scan cursor"), "{err}");
}

#[test]
fn cursors_resume_only_their_own_request_on_memory() {
    cursors_resume_only_their_own_request(&MemoryStore::new());
}

#[test]
fn cursors_resume_only_their_own_request_on_redb() {
    let (_dir, store) = redb();
    cursors_resume_only_their_own_request(&store);
}

/// `salt = hash(id) % 65536`: paging 120 rows by 10, merged, unordered and
/// reversed, returns each row once in the mode's order, with rows written
/// between pages (after the cursor: read; before it: not), and every
/// cursor is one position, not one per bucket.
#[test]
fn cursors_over_65536_buckets_are_one_position() {
    #[derive(RowKey, Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
    #[rowkey(salt = hash(id) % 65536, then = id, seq)]
    struct Huge {
        id: u32,
        seq: u32,
    }
    for (ordered, reverse) in [(true, false), (true, true), (false, false), (false, true)] {
        let store = MemoryStore::new();
        for id in 0..120 {
            store.put_row(&Huge { id, seq: 0 }, b"").expect("put");
        }
        let scan = || {
            let mut s = Huge::scan().limit(10);
            if !ordered {
                s = s.unordered();
            }
            if reverse {
                s = s.reverse();
            }
            s
        };
        let mut seen = Vec::new();
        let mut cursor: Option<keyschema::Cursor> = None;
        let mut written = 0;
        loop {
            let request = match cursor.take() {
                Some(c) => scan().after(c),
                None => scan(),
            };
            let mut page = request.run(&store);
            let rows: Vec<Huge> = page.by_ref().map(|r| r.expect("row").0).collect();
            let next = page.cursor();
            assert!(
                next.to_bytes().len() <= 20 + 8,
                "{} bytes",
                next.to_bytes().len()
            );
            // Another writer adds a row between pages.
            if written < 5 {
                store
                    .put_row(
                        &Huge {
                            id: 1000 + written,
                            seq: 1,
                        },
                        b"",
                    )
                    .expect("put");
                written += 1;
            }
            seen.extend(rows);
            if next.is_finished() {
                break;
            }
            cursor = Some(next);
        }
        let mut sorted = seen.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), seen.len(), "a row returned twice");
        assert!(
            (0..120).all(|id| seen.contains(&Huge { id, seq: 0 })),
            "a row lost"
        );
        if ordered {
            let mut expected = seen.clone();
            expected.sort_by(|a, b| a.encode()[2..].cmp(&b.encode()[2..]));
            if reverse {
                expected.reverse();
            }
            assert_eq!(seen, expected, "merged pages in key order");
        }
        // The full scan now agrees with what the pages returned and the
        // rows written behind the cursor.
        let all = Huge::scan().run(&store).count();
        assert!(seen.len() <= all);
    }
}
