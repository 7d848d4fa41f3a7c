//! Whole rows as a model (issue 19), shared by every store: random
//! interleavings of typed puts, batch puts (a key twice in one batch
//! included), replaces, deletes, gets, projected gets, paged scans of whole
//! rows and of a projection (limit, reverse, a cursor resumed in a fresh
//! object), rows another program wrote (an unknown field more, the
//! optional and defaulted fields absent), crashes in the middle of a batch
//! and restarts, checked against a plain map. Nothing lost, nothing
//! brought back, no row read with another row's value fields or half of
//! two writes.
//!
//! A [`Driver`] runs each operation on one store.

use keyschema::{Cursor, Projection, RowKey, ScanRequest};
use proptest::prelude::*;
use std::collections::BTreeMap;

/// The row: its user is the partition (DynamoDB needs one), salted over
/// four buckets, newest first; three value fields of three kinds.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = hash(user) % 4, then = (user), rev(ts))]
pub struct Visit {
    pub user: String,
    pub ts: u16,
    #[rowkey(value)]
    pub amount: i64,
    #[rowkey(value)]
    pub note: Option<String>,
    #[rowkey(value, default)]
    pub tags: Vec<String>,
    /// Self-describing: a number, a word and a string that looks like
    /// either must come back as what they were, on every store.
    #[rowkey(value, default)]
    pub meta: serde_json::Value,
    /// A float at the values stores treat specially (`-0.0`, DynamoDB's
    /// range ends, 39 digits and more written plain), compared bit for bit.
    #[rowkey(value, default)]
    pub level: Level,
}

/// An `f64` whose equality is its bits: `-0.0` is not `0.0`.
#[derive(serde::Serialize, serde::Deserialize, Debug, Clone, Copy, Default)]
#[serde(transparent)]
pub struct Level(pub f64);

impl PartialEq for Level {
    fn eq(&self, other: &Self) -> bool {
        self.0.to_bits() == other.0.to_bits()
    }
}

/// The levels drawn: every store holds each (DynamoDB's `N` included).
const LEVELS: [f64; 9] = [
    -0.0,
    0.0,
    0.1,
    1e38,
    1e125,
    -9.99e125,
    1e-130,
    123456789012345678901234567890.0,
    -1.5,
];

/// The amount alone, with its key.
#[derive(Projection, Debug, Clone, PartialEq)]
#[projection(of = Visit)]
pub struct Amount {
    pub user: String,
    pub ts: u16,
    #[projection(value)]
    pub amount: i64,
}

/// A row's key in the model.
pub type Key = (String, u16);

/// The value fields in the model.
#[derive(Debug, Clone, PartialEq)]
pub struct Values {
    pub amount: i64,
    pub note: Option<String>,
    pub tags: Vec<String>,
    pub meta: serde_json::Value,
    pub level: Level,
}

impl Visit {
    pub fn key(&self) -> Key {
        (self.user.clone(), self.ts)
    }

    fn values(&self) -> Values {
        Values {
            amount: self.amount,
            note: self.note.clone(),
            tags: self.tags.clone(),
            meta: self.meta.clone(),
            level: self.level,
        }
    }

    fn whole(key: &Key, v: &Values) -> Visit {
        Visit {
            user: key.0.clone(),
            ts: key.1,
            amount: v.amount,
            note: v.note.clone(),
            tags: v.tags.clone(),
            meta: v.meta.clone(),
            level: v.level,
        }
    }
}

/// A paged scan of one user's rows.
#[derive(Debug, Clone)]
pub struct Scan {
    pub user: String,
    pub reverse: bool,
    pub limit: Option<usize>,
}

#[derive(Debug, Clone)]
pub enum Op {
    Put(Visit),
    /// `put_records`: later rows of one key win.
    PutMany(Vec<Visit>),
    Replace(Visit),
    Delete(Key),
    Get(Key),
    GetAmount(Key),
    /// Every page, each after the first read by a fresh store object.
    Scan(Scan),
    /// The projection's scan, one request.
    ScanAmounts(Scan),
    /// Another program writes the row: the amount and a field this struct
    /// does not have; no note, no tags.
    Foreign(Key, i64),
    /// `put_records` stopped after about this many microseconds (the
    /// process died): each row in it is then the old or the new one.
    CrashInPutMany(Vec<Visit>, u64),
    /// A fresh store object on the same table.
    Restart,
    /// A paged scan (a limit of 1 to 3) with other writes between its
    /// pages, one after each page: puts, then deletes. Each page holds the
    /// rows the map holds then after the last row returned, in scan order:
    /// a row written ahead of the cursor is read, one behind it is not, a
    /// deleted one never; no row twice.
    ScanWhileWriting(Scan, Vec<Visit>, Vec<Key>),
}

fn key() -> impl Strategy<Value = Key> {
    (prop::sample::select(vec!["u1", "u2", "u3"]), 0u16..5).prop_map(|(u, t)| (u.to_string(), t))
}

fn visit() -> impl Strategy<Value = Visit> {
    let amount = prop_oneof![-3i64..3, Just(i64::MIN), Just(i64::MAX)];
    let text = prop::sample::select(vec!["", "x", "été", "a\u{0}b", "long note here"]);
    (
        key(),
        amount,
        prop::option::of(text.clone()),
        prop::collection::vec(text, 0..3),
        0..8usize,
        prop::sample::select(LEVELS.to_vec()),
    )
        .prop_map(|((user, ts), amount, note, tags, meta, level)| Visit {
            user,
            ts,
            amount,
            note: note.map(str::to_string),
            tags: tags.into_iter().map(str::to_string).collect(),
            meta: [
                serde_json::json!(null),
                serde_json::json!(5),
                serde_json::json!("5"),
                serde_json::json!(true),
                serde_json::json!("true"),
                serde_json::json!(-2.5),
                serde_json::json!([1, "a", null]),
                serde_json::json!({"k": -1}),
            ][meta]
                .clone(),
            level: Level(level),
        })
}

fn scan() -> impl Strategy<Value = Scan> {
    (
        prop::sample::select(vec!["u1", "u2", "u3"]),
        any::<bool>(),
        prop::option::of(1usize..4),
    )
        .prop_map(|(user, reverse, limit)| Scan {
            user: user.to_string(),
            reverse,
            limit,
        })
}

/// The request of `scan`, after `after` when given.
pub fn request(scan: &Scan, after: Option<Cursor>) -> ScanRequest<Visit> {
    let mut request = Visit::scan().user(&scan.user).request();
    if scan.reverse {
        request = request.reverse();
    }
    if let Some(n) = scan.limit {
        request = request.limit(n);
    }
    match after {
        Some(cursor) => request.after(cursor),
        None => request,
    }
}

pub fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => visit().prop_map(Op::Put),
        2 => prop::collection::vec(visit(), 1..6).prop_map(Op::PutMany),
        2 => visit().prop_map(Op::Replace),
        2 => key().prop_map(Op::Delete),
        3 => key().prop_map(Op::Get),
        1 => key().prop_map(Op::GetAmount),
        3 => scan().prop_map(Op::Scan),
        1 => scan().prop_map(Op::ScanAmounts),
        1 => (key(), -3i64..3).prop_map(|(k, a)| Op::Foreign(k, a)),
        1 => (prop::collection::vec(visit(), 2..30), 0u64..3_000).prop_map(|(r, t)| Op::CrashInPutMany(r, t)),
        1 => Just(Op::Restart),
        2 => (scan(), 1usize..4, prop::collection::vec(visit(), 0..4), prop::collection::vec(key(), 0..3))
            .prop_map(|(scan, limit, puts, deletes)| Op::ScanWhileWriting(
                Scan { limit: Some(limit), ..scan },
                puts,
                deletes,
            )),
    ]
}

/// One store under test.
pub trait Driver {
    fn put(&mut self, row: &Visit) -> Result<(), String>;
    fn put_many(&mut self, rows: &[Visit]) -> Result<(), String>;
    fn replace(&mut self, row: &Visit) -> Result<(), String>;
    fn delete(&mut self, key: &Key) -> Result<(), String>;
    fn get(&mut self, key: &Key) -> Result<Option<Visit>, String>;
    fn get_amount(&mut self, key: &Key) -> Result<Option<Amount>, String>;
    /// One page of `scan` after `after`: its rows and the cursor after them.
    fn scan_page(
        &mut self,
        scan: &Scan,
        after: Option<Cursor>,
    ) -> Result<(Vec<Visit>, Cursor), String>;
    fn scan_amounts(&mut self, scan: &Scan) -> Result<Vec<Amount>, String>;
    /// Writes the row as another program would: `amount`, and a
    /// `written_by` this struct does not have.
    fn foreign(&mut self, key: &Key, amount: i64);
    /// `put_records(rows)` cut off after about `micros` (or before the
    /// call, where the store's batch cannot be cut); whatever it did stays.
    fn crash_in_put_many(&mut self, rows: &[Visit], micros: u64);
    fn restart(&mut self);
    /// The values as this store gives them back (DynamoDB: `-0.0` as `0.0`).
    fn normal(&self, values: Values) -> Values {
        values
    }
}

fn fail(at: &str, what: impl std::fmt::Display) -> TestCaseError {
    TestCaseError::fail(format!("{at}: {what}"))
}

/// The user's rows as the model orders them: newest first, or oldest first
/// when reversed.
fn expected(model: &BTreeMap<Key, Values>, scan: &Scan) -> Vec<Visit> {
    let mut rows: Vec<Visit> = model
        .iter()
        .filter(|(k, _)| k.0 == scan.user)
        .map(|(k, v)| Visit::whole(k, v))
        .collect();
    rows.sort_by_key(|r| std::cmp::Reverse(r.ts));
    if scan.reverse {
        rows.reverse();
    }
    rows
}

fn amount_of(row: &Visit) -> Amount {
    Amount {
        user: row.user.clone(),
        ts: row.ts,
        amount: row.amount,
    }
}

pub fn run(driver: &mut dyn Driver, ops: &[Op]) -> Result<(), TestCaseError> {
    let mut model: BTreeMap<Key, Values> = BTreeMap::new();
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
                model.insert(row.key(), driver.normal(row.values()));
            }
            Op::PutMany(rows) => {
                driver.put_many(rows).map_err(|e| fail(&at, e))?;
                for row in rows {
                    model.insert(row.key(), driver.normal(row.values()));
                }
            }
            Op::Delete(key) => {
                driver.delete(key).map_err(|e| fail(&at, e))?;
                model.remove(key);
            }
            Op::Get(key) => {
                let got = driver.get(key).map_err(|e| fail(&at, e))?;
                let want = model.get(key).map(|v| Visit::whole(key, v));
                prop_assert_eq!(got, want, "{}", at);
            }
            Op::GetAmount(key) => {
                let got = driver.get_amount(key).map_err(|e| fail(&at, e))?;
                let want = model.get(key).map(|v| amount_of(&Visit::whole(key, v)));
                prop_assert_eq!(got, want, "{}", at);
            }
            Op::Scan(scan) => {
                let want = expected(&model, scan);
                let mut got = Vec::new();
                let mut after = None;
                loop {
                    let (page, cursor) = driver
                        .scan_page(scan, after.take())
                        .map_err(|e| fail(&at, e))?;
                    if let Some(n) = scan.limit {
                        prop_assert!(page.len() <= n, "{}: a page of {}", at, page.len());
                    }
                    let done = page.is_empty() || scan.limit.is_none_or(|n| page.len() < n);
                    got.extend(page);
                    prop_assert!(got.len() <= want.len(), "{}: more rows than the map", at);
                    if done {
                        break;
                    }
                    after = Some(cursor);
                }
                prop_assert_eq!(got, want, "{}", at);
            }
            Op::ScanAmounts(scan) => {
                let got = driver.scan_amounts(scan).map_err(|e| fail(&at, e))?;
                let mut want: Vec<Amount> = expected(&model, scan).iter().map(amount_of).collect();
                if let Some(n) = scan.limit {
                    want.truncate(n);
                }
                prop_assert_eq!(got, want, "{}", at);
            }
            Op::Foreign(key, amount) => {
                driver.foreign(key, *amount);
                let values = Values {
                    amount: *amount,
                    note: None,
                    tags: Vec::new(),
                    meta: serde_json::Value::Null,
                    level: Level(0.0),
                };
                model.insert(key.clone(), values);
            }
            Op::CrashInPutMany(rows, micros) => {
                driver.crash_in_put_many(rows, *micros);
                driver.restart();
                // Each key's writes in the batch, in order.
                let mut writes: BTreeMap<Key, Vec<Values>> = BTreeMap::new();
                for row in rows {
                    writes
                        .entry(row.key())
                        .or_default()
                        .push(driver.normal(row.values()));
                }
                for (key, new) in writes {
                    let got = driver.get(&key).map_err(|e| fail(&at, e))?;
                    let old = model.get(&key).map(|v| Visit::whole(&key, v));
                    let written = new
                        .iter()
                        .find(|v| got.as_ref() == Some(&Visit::whole(&key, v)));
                    prop_assert!(
                        written.is_some() || got == old,
                        "{}: row {:?} is neither the old ({:?}) nor one written ({:?}): {:?}",
                        at,
                        key,
                        old,
                        new,
                        got
                    );
                    if let Some(v) = written {
                        model.insert(key, v.clone());
                    }
                }
            }
            Op::Restart => driver.restart(),
            Op::ScanWhileWriting(scan, puts, deletes) => {
                scan_while_writing(driver, &mut model, scan, puts, deletes, &at)?;
            }
        }
    }
    // At the end, every row the map holds is read back whole, and no other.
    for user in ["u1", "u2", "u3"] {
        let scan = Scan {
            user: user.to_string(),
            reverse: false,
            limit: None,
        };
        let (got, _) = driver.scan_page(&scan, None).map_err(|e| fail("end", e))?;
        prop_assert_eq!(got, expected(&model, &scan), "the end, user {}", user);
    }
    Ok(())
}

/// [`Op::ScanWhileWriting`]: pages checked one by one against the map as
/// it is when each page is read.
fn scan_while_writing(
    driver: &mut dyn Driver,
    model: &mut BTreeMap<Key, Values>,
    scan: &Scan,
    puts: &[Visit],
    deletes: &[Key],
    at: &str,
) -> Result<(), TestCaseError> {
    let limit = scan.limit.unwrap_or(1);
    let mut writes = puts
        .iter()
        .map(|row| (row.key(), Some(row.values())))
        .chain(deletes.iter().map(|key| (key.clone(), None)));
    let mut after: Option<Cursor> = None;
    let mut last: Option<u16> = None;
    let mut seen = std::collections::BTreeSet::new();
    for page_no in 0.. {
        // The rows still ahead of the cursor, as the map holds them now.
        let ahead: Vec<Visit> = expected(model, scan)
            .into_iter()
            .filter(|r| match last {
                None => true,
                Some(ts) if scan.reverse => r.ts > ts,
                Some(ts) => r.ts < ts,
            })
            .collect();
        let (page, cursor) = driver
            .scan_page(scan, after.take())
            .map_err(|e| fail(at, e))?;
        let want: Vec<Visit> = ahead.iter().take(limit).cloned().collect();
        prop_assert_eq!(&page, &want, "{}: page {}", at, page_no);
        for row in &page {
            prop_assert!(seen.insert(row.ts), "{}: row {} read twice", at, row.ts);
        }
        // A finished cursor: the page took every row the map held ahead of
        // it (a page that ends on the last row knows it). Rows written
        // after that are not this scan's.
        if cursor.is_finished() {
            prop_assert_eq!(page.len(), ahead.len(), "{}: finished early", at);
            return Ok(());
        }
        if page.len() < limit {
            return Ok(());
        }
        last = page.last().map(|r| r.ts);
        after = Some(cursor);
        // Another writer, between this page and the next.
        if let Some((key, values)) = writes.next() {
            match values {
                Some(v) => {
                    driver
                        .put(&Visit::whole(&key, &v))
                        .map_err(|e| fail(at, e))?;
                    model.insert(key, driver.normal(v));
                }
                None => {
                    driver.delete(&key).map_err(|e| fail(at, e))?;
                    model.remove(&key);
                }
            }
        }
    }
    Ok(())
}
