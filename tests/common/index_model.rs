//! Indexes as a model (issue 20), shared by every store: random
//! interleavings of puts, batch puts, replaces that change indexed fields,
//! deletes, rows another program deletes without the index, crashes
//! between the steps of a write, restarts, and paged index scans (limit,
//! reverse, a range, a cursor resumed in a fresh object) against a plain
//! map. Every index scan returns exactly the map's rows in the index's
//! order: none that is not in the table, none missed, none under an index
//! value it no longer has.
//!
//! Some writes are an older version of the struct's (`HitV1`, without the
//! required `n`; issue 40): the current version cannot read such a row (a
//! scan that meets it fails naming `n`), but its writes and deletes over
//! it must still move and remove the entries the older version wrote, and
//! its index backfill must build and verify every row, both versions'
//! (`index_model_backfill`).

use keyschema::{Cursor, ScanRequest};
use proptest::prelude::*;
use std::collections::BTreeMap;

/// The row and its older version, with the index declarations of the
/// module this model is in (`hit_rows`: encoded in `common`; native in
/// `tests/dynamodb_native_model.rs`, which includes this file once per
/// declaration).
pub use super::hit_rows::{Hit, HitByPage, HitByTag, HitV1, HitV1ByPage, HitV1ByTag};

/// A row's key in the model.
pub type Key = (String, u16);

/// The value fields in the model; `n` is `None` in a row `HitV1` wrote.
pub type Values = (String, Option<String>, Option<i64>);

/// What a read of a row `HitV1` wrote fails with.
const OLDER: &str = "value field `n` is missing";

impl Hit {
    pub fn key(&self) -> Key {
        (self.user.clone(), self.ts)
    }
    fn values(&self) -> Values {
        (self.page.clone(), self.tag.clone(), Some(self.n))
    }
    /// The row of the model (`n` 0 in a row `HitV1` wrote, which no read
    /// of `Hit` returns).
    fn whole(key: &Key, v: &Values) -> Hit {
        Hit {
            user: key.0.clone(),
            ts: key.1,
            page: v.0.clone(),
            tag: v.1.clone(),
            n: v.2.unwrap_or_default(),
        }
    }
}

/// A paged index scan.
#[derive(Debug, Clone)]
pub enum By {
    /// One page's hits, newest first; with `ts` below a bound when given.
    Page { page: String, before: Option<u16> },
    /// One tag's hits, or every tagged hit.
    Tag(Option<String>),
}

#[derive(Debug, Clone)]
pub struct Scan {
    pub by: By,
    pub reverse: bool,
    pub limit: Option<usize>,
    /// Buckets one after another (the rows then compare as a set).
    pub unordered: bool,
}

#[derive(Debug, Clone)]
pub enum Op {
    Put(Hit),
    /// The row written by the older version (`HitV1`: `n` dropped).
    PutOlder(Hit),
    PutMany(Vec<Hit>),
    Replace(Hit),
    Delete(Key),
    Scan(Scan),
    /// The scan without a limit, left after this many rows and resumed
    /// from its cursor in a fresh object.
    Interrupted(Scan, usize),
    /// Another program deletes the row alone, leaving its entries.
    ForeignDelete(Key),
    /// The current version's `verify` of both indexes, after their
    /// `build` when `true` (`index_model_backfill`).
    Backfill(bool),
    /// A write of the row stopped after `steps` store calls (the process
    /// died): the row is then the old one or the new one.
    CrashInPut(Hit, usize),
    Restart,
}

const PAGES: [&str; 3] = ["/a", "/b", "/c"];
const TAGS: [&str; 2] = ["x", "y"];

fn key() -> impl Strategy<Value = Key> {
    (prop::sample::select(vec!["u1", "u2", "u3"]), 0u16..6).prop_map(|(u, t)| (u.to_string(), t))
}

fn hit() -> impl Strategy<Value = Hit> {
    (
        key(),
        prop::sample::select(PAGES.to_vec()),
        prop::option::of(prop::sample::select(TAGS.to_vec())),
        -3i64..3,
    )
        .prop_map(|((user, ts), page, tag, n)| Hit {
            user,
            ts,
            page: page.to_string(),
            tag: tag.map(str::to_string),
            n,
        })
}

fn scan() -> impl Strategy<Value = Scan> {
    let by = prop_oneof![
        (
            prop::sample::select(PAGES.to_vec()),
            prop::option::of(0u16..7)
        )
            .prop_map(|(p, before)| By::Page {
                page: p.to_string(),
                before
            }),
        prop::option::of(prop::sample::select(TAGS.to_vec()))
            .prop_map(|t| By::Tag(t.map(str::to_string))),
    ];
    (
        by,
        any::<bool>(),
        prop::option::of(1usize..4),
        prop::bool::weighted(0.25),
    )
        .prop_map(|(by, reverse, limit, unordered)| Scan {
            by,
            reverse,
            limit,
            unordered,
        })
}

pub fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => hit().prop_map(Op::Put),
        2 => hit().prop_map(Op::PutOlder),
        2 => prop::collection::vec(hit(), 1..5).prop_map(Op::PutMany),
        2 => hit().prop_map(Op::Replace),
        2 => key().prop_map(Op::Delete),
        4 => scan().prop_map(Op::Scan),
        2 => (scan(), 0usize..6).prop_map(|(s, k)| Op::Interrupted(Scan { limit: None, ..s }, k)),
        1 => key().prop_map(Op::ForeignDelete),
        1 => any::<bool>().prop_map(Op::Backfill),
        1 => (hit(), 0usize..4).prop_map(|(h, s)| Op::CrashInPut(h, s)),
        1 => Just(Op::Restart),
    ]
}

/// The index scan request of `scan`, after `after` when given.
pub fn by_page(scan: &Scan, after: Option<Cursor>) -> Option<ScanRequest<HitByPage>> {
    let By::Page { page, before } = &scan.by else {
        return None;
    };
    let stage = HitByPage::scan().page(page);
    // `rev(ts)`: newest first, so "before t" is `..t` in the field's terms.
    let mut request = match before {
        Some(t) => stage.ts(..*t),
        None => stage.request(),
    };
    if scan.reverse {
        request = request.reverse();
    }
    if scan.unordered {
        request = request.unordered();
    }
    if let Some(n) = scan.limit {
        request = request.limit(n);
    }
    Some(match after {
        Some(cursor) => request.after(cursor),
        None => request,
    })
}

/// The tag scan request of `scan`.
pub fn by_tag(scan: &Scan, after: Option<Cursor>) -> Option<ScanRequest<HitByTag>> {
    let By::Tag(tag) = &scan.by else {
        return None;
    };
    let mut request = match tag {
        Some(t) => HitByTag::scan().tag(t).request(),
        None => HitByTag::scan().request(),
    };
    if scan.unordered {
        request = request.unordered();
    }
    if scan.reverse {
        request = request.reverse();
    }
    if scan.unordered {
        request = request.unordered();
    }
    if let Some(n) = scan.limit {
        request = request.limit(n);
    }
    Some(match after {
        Some(cursor) => request.after(cursor),
        None => request,
    })
}

/// One store under test.
pub trait Driver {
    fn put(&mut self, row: &Hit) -> Result<(), String>;
    /// `put_record` of the older version's row; `None` where the driver
    /// does not write it (the operation is then skipped).
    fn put_older(&mut self, row: &HitV1) -> Option<Result<(), String>> {
        let _ = row;
        None
    }
    /// The older version's `verify` of both indexes (it reads the rows of
    /// both versions): whether each matches, and the stale entries it
    /// counted. `None` where the driver has no such check.
    fn verify_older(&mut self) -> Option<Result<(bool, u64), String>> {
        None
    }
    /// The current version's `verify` of the by-page and the by-tag
    /// index, after their `build` when `build`; `None` where the driver
    /// has no backfill.
    fn backfill(&mut self, build: bool) -> Option<super::index_model_backfill::Verified> {
        let _ = build;
        None
    }
    fn put_many(&mut self, rows: &[Hit]) -> Result<(), String>;
    fn replace(&mut self, row: &Hit) -> Result<(), String>;
    fn delete(&mut self, key: &Key) -> Result<(), String>;
    fn get(&mut self, key: &Key) -> Result<Option<Hit>, String>;
    /// One page of `scan` after `after`: its rows and the cursor after them.
    fn scan_page(
        &mut self,
        scan: &Scan,
        after: Option<Cursor>,
    ) -> Result<(Vec<Hit>, Cursor), String>;
    /// The first `k` rows of `scan` (no limit), and the cursor after them.
    fn scan_first(&mut self, scan: &Scan, k: usize) -> Result<(Vec<Hit>, Cursor), String>;
    /// Deletes the row's key alone, as a program without the index would.
    fn foreign_delete(&mut self, key: &Key);
    /// `put_record(row)` cut off after `steps` store calls (or whole,
    /// where the store writes in one transaction).
    fn crash_in_put(&mut self, row: &Hit, steps: usize);
    fn restart(&mut self);
    /// Whether a write is one transaction: then no entry is ever stale
    /// but for the rows another program deleted.
    fn transactional(&self) -> bool;
    /// Entries skipped as stale by the scans since the last call.
    fn stale_seen(&mut self) -> u64;
    /// Whether a scan must bind the index's partition (DynamoDB Queries one
    /// partition): a scan of every tag is then one scan per tag.
    fn needs_partition(&self) -> bool {
        false
    }
}

fn fail(at: &str, what: impl std::fmt::Display) -> TestCaseError {
    TestCaseError::fail(format!("{at}: {what}"))
}

/// The rows `scan` finds in the model, in the index's key order.
fn expected(model: &BTreeMap<Key, Values>, scan: &Scan) -> Vec<Hit> {
    let mut rows: Vec<Hit> = model.iter().map(|(k, v)| Hit::whole(k, v)).collect();
    match &scan.by {
        By::Page { page, before } => {
            rows.retain(|r| r.page == *page && before.is_none_or(|b| r.ts < b));
            rows.sort_by(|a, b| b.ts.cmp(&a.ts).then(a.user.cmp(&b.user)));
        }
        By::Tag(tag) => {
            rows.retain(|r| r.tag.is_some() && (tag.is_none() || r.tag == *tag));
            rows.sort_by(|a, b| (&a.tag, &a.user, a.ts).cmp(&(&b.tag, &b.user, b.ts)));
        }
    }
    if scan.reverse {
        rows.reverse();
    }
    rows
}

/// The rows as a set when the scan is unordered.
fn sorted(mut rows: Vec<Hit>, scan: &Scan) -> Vec<Hit> {
    if scan.unordered {
        rows.sort_by(|a, b| (&a.user, a.ts).cmp(&(&b.user, b.ts)));
    }
    rows
}

/// A scan's rows, or the error a page of it failed with.
type Paged = Result<Vec<Hit>, String>;

/// Every page of `scan`; on a store that must bind the partition, a scan
/// of every tag as one scan per tag, in the index's order.
fn paged(driver: &mut dyn Driver, scan: &Scan, at: &str) -> Result<Paged, TestCaseError> {
    if !(driver.needs_partition() && matches!(scan.by, By::Tag(None))) {
        return paged_one(driver, scan, at);
    }
    let mut tags = TAGS.to_vec();
    if scan.reverse {
        tags.reverse();
    }
    let mut rows = Vec::new();
    for tag in tags {
        let one = Scan {
            by: By::Tag(Some(tag.to_string())),
            ..scan.clone()
        };
        match paged_one(driver, &one, at)? {
            Ok(some) => rows.extend(some),
            Err(e) => return Ok(Err(e)),
        }
    }
    Ok(Ok(rows))
}

/// Every page of `scan`, each after the first from the cursor.
fn paged_one(driver: &mut dyn Driver, scan: &Scan, at: &str) -> Result<Paged, TestCaseError> {
    let mut got = Vec::new();
    let mut after = None;
    for _ in 0..200 {
        let (page, cursor) = match driver.scan_page(scan, after.take()) {
            Ok(page) => page,
            Err(e) => return Ok(Err(e)),
        };
        if let Some(n) = scan.limit {
            prop_assert!(page.len() <= n, "{}: a page of {}", at, page.len());
        }
        let done = page.is_empty() || scan.limit.is_none_or(|n| page.len() < n);
        got.extend(page);
        if done {
            return Ok(Ok(got));
        }
        after = Some(cursor);
    }
    Err(fail(at, "more than 200 pages"))
}

/// Checks a scan's outcome against the model: its rows when none of the
/// rows it finds is one the older version wrote; else an error naming the
/// missing field. A stale entry naming such a row is skipped, as any stale
/// entry is (its row's own entry is made from the fields the index is
/// over), so it is never the error.
fn agree(
    got: Paged,
    model: &BTreeMap<Key, Values>,
    scan: &Scan,
    at: &str,
) -> Result<(), TestCaseError> {
    let want = expected(model, scan);
    let older = |h: &Hit| model.get(&h.key()).is_some_and(|v| v.2.is_none());
    let meets_older = want.iter().any(older);
    match got {
        Ok(rows) => {
            prop_assert!(
                !meets_older,
                "{}: rows the older version wrote read as the current one's: {:?}",
                at,
                rows
            );
            prop_assert_eq!(sorted(rows, scan), sorted(want, scan), "{}", at);
        }
        Err(e) => {
            prop_assert!(e.contains(OLDER) && meets_older, "{}: {}", at, e);
        }
    }
    Ok(())
}

pub fn run(driver: &mut dyn Driver, ops: &[Op]) -> Result<(), TestCaseError> {
    let mut model: BTreeMap<Key, Values> = BTreeMap::new();
    // Whether stale entries may exist (another program's delete, a crash
    // on a store without transactions).
    let mut may_be_stale = false;
    for (step, op) in ops.iter().enumerate() {
        let at = format!("step {step}: {op:?}");
        match op {
            Op::Put(row) | Op::Replace(row) => {
                if matches!(op, Op::Put(_)) {
                    driver.put(row)
                } else {
                    driver.replace(row)
                }
                .map_err(|e| fail(&at, e))?;
                model.insert(row.key(), row.values());
            }
            Op::PutOlder(row) => {
                if let Some(put) = driver.put_older(&HitV1::from(row)) {
                    put.map_err(|e| fail(&at, e))?;
                    model.insert(row.key(), (row.page.clone(), row.tag.clone(), None));
                }
            }
            Op::PutMany(rows) => {
                driver.put_many(rows).map_err(|e| fail(&at, e))?;
                for row in rows {
                    model.insert(row.key(), row.values());
                }
            }
            Op::Delete(key) => {
                driver.delete(key).map_err(|e| fail(&at, e))?;
                model.remove(key);
            }
            Op::Scan(scan) => {
                let got = paged(driver, scan, &at)?;
                agree(got, &model, scan, &at)?;
            }
            Op::Interrupted(scan, _)
                if driver.needs_partition() && matches!(scan.by, By::Tag(None)) =>
            {
                let got = paged(driver, scan, &at)?;
                agree(got, &model, scan, &at)?;
            }
            Op::Interrupted(scan, k) => {
                let got = driver.scan_first(scan, *k).and_then(|(mut got, cursor)| {
                    let (rest, _) = driver.scan_page(scan, Some(cursor))?;
                    got.extend(rest);
                    Ok(got)
                });
                agree(got, &model, scan, &at)?;
            }
            Op::ForeignDelete(key) => {
                driver.foreign_delete(key);
                may_be_stale |= model.remove(key).is_some();
            }
            Op::Backfill(build) => {
                super::index_model_backfill::check(driver, *build, &model, may_be_stale, &at)?;
            }
            Op::CrashInPut(row, steps) => {
                driver.crash_in_put(row, *steps);
                driver.restart();
                may_be_stale |= !driver.transactional();
                let key = row.key();
                let older = model.get(&key).is_some_and(|v| v.2.is_none());
                match driver.get(&key) {
                    // The older version's row is still there.
                    Err(e) if older && e.contains(OLDER) => {}
                    got => {
                        let got = got.map_err(|e| fail(&at, e))?;
                        // A row the older version wrote never reads as `Hit`.
                        let old = model
                            .get(&key)
                            .filter(|v| v.2.is_some())
                            .map(|v| Hit::whole(&key, v));
                        prop_assert!(
                            got.as_ref() == Some(row) || (!older && got == old),
                            "{}: the row is neither the old ({:?}) nor the new one: {:?}",
                            at,
                            old,
                            got
                        );
                        if got.as_ref() == Some(row) {
                            model.insert(key, row.values());
                        }
                    }
                }
            }
            Op::Restart => driver.restart(),
        }
        let stale = driver.stale_seen();
        prop_assert!(
            may_be_stale || stale == 0,
            "{}: {} stale entries, with every write one transaction",
            at,
            stale
        );
    }
    // At the end, each index returns every row the map holds, and no other.
    for by in [
        By::Tag(None),
        By::Page {
            page: "/a".into(),
            before: None,
        },
        By::Page {
            page: "/b".into(),
            before: None,
        },
        By::Page {
            page: "/c".into(),
            before: None,
        },
    ] {
        let scan = Scan {
            by,
            reverse: false,
            limit: None,
            unordered: false,
        };
        let got = paged(driver, &scan, "end")?;
        agree(got, &model, &scan, &format!("the end, {scan:?}"))?;
    }
    // The current version's backfill over every row, both versions'.
    super::index_model_backfill::check(driver, true, &model, may_be_stale, "the end")?;
    // And the older version's check of both indexes (which reads the rows
    // of both versions) finds every row with its entry, and no entry left
    // stale but by a crash or another program's delete.
    if let Some(verified) = driver.verify_older() {
        let (matches, stale) = verified.map_err(|e| fail("verify", e))?;
        prop_assert!(
            may_be_stale || (matches && stale == 0),
            "the end: {} stale entries",
            stale
        );
    }
    Ok(())
}
