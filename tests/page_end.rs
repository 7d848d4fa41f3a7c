//! Where a page that ends on the last row leaves its cursor, on the
//! embedded stores (memory, redb) and on a store that lends `scan`'s rows:
//! merged, the cursor is finished (each bucket reads one row past the
//! limit, so a bucket that ran out with the page is known done); unordered,
//! it is finished when the page ended in the last bucket read, and it
//! otherwise names the next bucket, whose page is then empty and finished.
//! Paged by `n` as the README pages, `r` rows take exactly `ceil(r / n)`
//! pages merged.

mod common;

use common::model::Eight;
use common::no_txn::NoTxn;
use common::paging;
use keyschema::store::{MemoryStore, RedbStore, RowStore, Store};
use keyschema::{Cursor, RowKey};

/// The first `total` rows of a stream of events whose salt bucket is one of
/// `buckets`.
fn rows_in(buckets: &[u8], total: usize) -> Vec<Eight> {
    let rows: Vec<Eight> = (0..10_000)
        .map(|i| Eight {
            user: format!("u{}", i % 97),
            site: format!("s{}", i % 5),
            ts: i,
        })
        .filter(|e| buckets.contains(&e.encode()[0]))
        .take(total)
        .collect();
    assert_eq!(rows.len(), total);
    rows
}

/// Pages through every row `n` at a time, as the README does: the number
/// of pages and of rows.
fn page_through<S: Store>(store: &S, n: usize, unordered: bool, reverse: bool) -> (usize, usize)
where
    S::Error: std::fmt::Debug,
{
    let (pages, rows) = paging::page_through(|after: Option<Cursor>| {
        let mut request = Eight::scan().limit(n);
        if unordered {
            request = request.unordered();
        }
        if reverse {
            request = request.reverse();
        }
        if let Some(cursor) = after {
            request = request.after(cursor);
        }
        request.run(store)
    });
    (pages, rows.len())
}

/// Runs `check` on a memory store, a redb store and a store that lends the
/// rows its scan allocated, each holding `rows`.
fn on_every_store(rows: &[Eight], check: impl Fn(&dyn Fn(usize, bool, bool) -> (usize, usize))) {
    let memory = MemoryStore::new();
    memory
        .put_rows(rows.iter().map(|r| (r, b"v")))
        .expect("put");
    check(&|n, unordered, reverse| page_through(&memory, n, unordered, reverse));
    let dir = tempfile::tempdir().expect("temp dir");
    let redb = RedbStore::open(dir.path()).expect("redb");
    redb.put_rows(rows.iter().map(|r| (r, b"v"))).expect("put");
    check(&|n, unordered, reverse| page_through(&redb, n, unordered, reverse));
    let owned = NoTxn::new();
    owned.put_rows(rows.iter().map(|r| (r, b"v"))).expect("put");
    check(&|n, unordered, reverse| page_through(&owned, n, unordered, reverse));
}

/// Pages `total` rows (for each of `totals`) stored in `buckets`, by each
/// of `limits` and by `total` and `total + 1`, on every store, in each of
/// `reverses`: every row read, in `pages(total, n)` pages.
fn assert_pages(
    buckets: &[u8],
    totals: &[usize],
    limits: &[usize],
    unordered: bool,
    reverses: &[bool],
    pages: impl Fn(usize, usize) -> usize,
) {
    for &total in totals {
        let rows = rows_in(buckets, total);
        on_every_store(&rows, |page| {
            for n in limits.iter().copied().chain([total, total + 1]) {
                for &reverse in reverses {
                    let (got, read) = page(n, unordered, reverse);
                    assert_eq!(read, total, "{total} rows by {n}");
                    assert_eq!(
                        got,
                        pages(total, n),
                        "{total} rows by {n}, reverse {reverse}"
                    );
                }
            }
        });
    }
}

#[test]
fn a_merged_page_that_ends_on_the_last_row_is_finished() {
    let buckets = [0, 2, 3, 5, 6, 7];
    assert_pages(
        &buckets,
        &[1, 7, 40],
        &[1, 2, 3, 5, 8],
        false,
        &[false, true],
        usize::div_ceil,
    );
}

#[test]
fn an_unordered_page_that_ends_in_the_last_bucket_is_finished() {
    // Rows in buckets 0 and 7: the last row is in the last bucket read (7;
    // unordered, buckets are read in ascending order both ways, each one's
    // rows backwards under `.reverse()`).
    assert_pages(
        &[0, 7],
        &[1, 6, 30],
        &[1, 2, 3, 5],
        true,
        &[false, true],
        usize::div_ceil,
    );
}

#[test]
fn an_unordered_page_that_ends_before_empty_buckets_names_the_next() {
    // Rows in buckets 0 and 3, read forwards: a page that fills with the
    // last row leaves buckets 4 to 7 unread, so one more page, empty and
    // finished; a page that ends short has read them and is finished.
    assert_pages(
        &[0, 3],
        &[1, 6, 30],
        &[1, 2, 4, 5],
        true,
        &[false],
        |total, n| total.div_ceil(n) + usize::from(total % n == 0),
    );
}
