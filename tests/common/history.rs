//! The layout-history model shared by the redb and Bigtable tests: a key
//! type cut over from unsalted to salted at T (the Bigtable article's
//! migration), one migrated from `% 8` to `% 32`, random tables in a
//! migration state, random typed scans, and the brute-force answer.

use keyschema::history::Phase;
use keyschema::{Phased, RowKey, ScanRequest};
use proptest::prelude::*;
use std::ops::{Bound, RangeBounds};

pub const T: u64 = 1_700_000_000;

/// The Bigtable article's migration: unsalted before T, salted from T.
#[derive(RowKey, Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
#[rowkey(salt = hash(user_id, site) % 8, then = user_id, site, rev(timestamp))]
#[rowkey_was(salt = none, until = timestamp >= 1_700_000_000)]
pub struct Event {
    pub user_id: String,
    pub site: String,
    pub timestamp: u64,
}

/// A bucket-count change by migration: `% 8` to `% 32`, no field decides.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = hash(id) % 32, then = id, seq)]
#[rowkey_was(salt = hash(id) % 8, until = migration)]
pub struct Thing {
    pub id: u64,
    pub seq: u32,
}

#[derive(Debug, Clone)]
pub struct Table {
    pub rows: Vec<Event>,
    /// Of the rows before T, those already copied into the new layout.
    pub copied: Vec<bool>,
    pub phase: Phase,
}

fn rows() -> impl Strategy<Value = Vec<Event>> {
    prop::collection::vec(
        (
            prop::sample::select(vec!["u1", "u2", "\u{3}u"]),
            prop::sample::select(vec!["a", "b"]),
            T - 5..T + 5,
        ),
        0..40,
    )
    .prop_map(|v| {
        let mut rows: Vec<Event> = v
            .into_iter()
            .map(|(u, s, t)| Event {
                user_id: u.into(),
                site: s.into(),
                timestamp: t,
            })
            .collect();
        rows.sort_by_key(logical);
        rows.dedup();
        rows
    })
}

pub fn tables() -> impl Strategy<Value = Table> {
    (
        rows(),
        prop::collection::vec(any::<bool>(), 40),
        any::<bool>(),
    )
        .prop_map(|(rows, copied, done)| {
            let copied = rows
                .iter()
                .zip(copied)
                .map(|(r, c)| r.timestamp < T && (c || done))
                .collect();
            Table {
                rows,
                copied,
                phase: if done { Phase::New } else { Phase::Split },
            }
        })
}

/// The declared order: user, site, newest first.
pub fn logical(e: &Event) -> (String, String, std::cmp::Reverse<u64>) {
    (
        e.user_id.clone(),
        e.site.clone(),
        std::cmp::Reverse(e.timestamp),
    )
}

#[derive(Debug, Clone)]
pub struct Request {
    pub bind: u8,
    pub user: &'static str,
    pub site: &'static str,
    pub lo: (u64, u8),
    pub hi: (u64, u8),
    pub limit: Option<usize>,
    pub reverse: bool,
}

pub fn requests() -> impl Strategy<Value = Request> {
    (
        0u8..4,
        prop::sample::select(vec!["u1", "u2", "\u{3}u"]),
        prop::sample::select(vec!["a", "b"]),
        (T - 6..T + 6, 0u8..3),
        (T - 6..T + 6, 0u8..3),
        prop::option::of(1usize..5),
        any::<bool>(),
    )
        .prop_map(|(bind, user, site, lo, hi, limit, reverse)| Request {
            bind,
            user,
            site,
            lo,
            hi,
            limit,
            reverse,
        })
}

pub fn bound(v: u64, kind: u8) -> Bound<u64> {
    match kind {
        0 => Bound::Included(v),
        1 => Bound::Excluded(v),
        _ => Bound::Unbounded,
    }
}

pub fn request(r: &Request, phase: Phase) -> ScanRequest<Event, Phased> {
    let scan = match r.bind {
        0 => Event::scan().request(),
        1 => Event::scan().user_id(r.user).request(),
        2 => Event::scan().user_id(r.user).site(r.site).request(),
        _ => Event::scan()
            .user_id(r.user)
            .site(r.site)
            .timestamp((bound(r.lo.0, r.lo.1), bound(r.hi.0, r.hi.1))),
    };
    let mut scan = scan.phase(phase);
    if let Some(n) = r.limit {
        scan = scan.limit(n);
    }
    if r.reverse {
        scan = scan.reverse();
    }
    scan
}

pub fn expected(t: &Table, r: &Request) -> Vec<Event> {
    let mut out: Vec<Event> = t
        .rows
        .iter()
        .filter(|e| {
            (r.bind < 1 || e.user_id == r.user)
                && (r.bind < 2 || e.site == r.site)
                && (r.bind < 3
                    || (bound(r.lo.0, r.lo.1), bound(r.hi.0, r.hi.1)).contains(&e.timestamp))
        })
        .cloned()
        .collect();
    out.sort_by_key(logical);
    if r.reverse {
        out.reverse();
    }
    out
}
