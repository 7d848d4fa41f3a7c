//! The model shared by the typed-scan tests: rows, requests, the brute-force
//! answer, and the three key layouts (1, 8 and 256 buckets).

use super::{bound, within};
use keyschema::RowKey;
use proptest::prelude::*;
use std::cmp::Ordering;

/// The logical row; the key structs below lay it out with different salts.
#[derive(Debug, Clone, PartialEq)]
pub struct Row3 {
    pub user: String,
    pub site: String,
    pub ts: i64,
}

/// Declared order: user, site ascending; ts descending.
pub fn logical_cmp(a: &Row3, b: &Row3) -> Ordering {
    a.user
        .cmp(&b.user)
        .then(a.site.cmp(&b.site))
        .then(b.ts.cmp(&a.ts))
}

macro_rules! key_struct {
    ($name:ident, $($attr:tt)*) => {
        #[derive(RowKey, Debug, Clone, PartialEq)]
        #[rowkey($($attr)*)]
        pub struct $name {
            pub user: String,
            pub site: String,
            pub ts: i64,
        }
        impl From<&Row3> for $name {
            fn from(r: &Row3) -> Self {
                $name { user: r.user.clone(), site: r.site.clone(), ts: r.ts }
            }
        }
        impl From<$name> for Row3 {
            fn from(k: $name) -> Self {
                Row3 { user: k.user, site: k.site, ts: k.ts }
            }
        }
    };
}

key_struct!(One, salt = hash(user, site) % 1, then = user, site, rev(ts));
key_struct!(
    Eight,
    salt = hash(user, site) % 8,
    then = user,
    site,
    rev(ts)
);
key_struct!(Wide, salt = hash(*) % 256, then = user, site, rev(ts));
key_struct!(Prefixed, prefix = "v", then = user, site, rev(ts));

pub fn small_string() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(vec!['a', 'b', '\0', '\u{1}', '\u{ff}']),
        0..3,
    )
    .prop_map(String::from_iter)
}

pub fn row() -> impl Strategy<Value = Row3> {
    (small_string(), small_string(), -4i64..4).prop_map(|(user, site, ts)| Row3 { user, site, ts })
}

#[derive(Debug, Clone)]
pub struct Request {
    pub pivot: Row3,
    pub depth: usize,
    pub range: Option<(Row3, u8, Row3, u8)>,
    pub reverse: bool,
    pub limit: Option<usize>,
}

impl Request {
    pub fn matches(&self, v: &Row3) -> bool {
        let p = &self.pivot;
        let eq = [v.user == p.user, v.site == p.site, v.ts == p.ts];
        if !eq[..self.depth].iter().all(|&e| e) {
            return false;
        }
        let Some((lo, lk, hi, hk)) = &self.range else {
            return true;
        };
        match self.depth {
            0 => within(
                &v.user,
                &bound(lo.user.clone(), *lk),
                &bound(hi.user.clone(), *hk),
            ),
            1 => within(
                &v.site,
                &bound(lo.site.clone(), *lk),
                &bound(hi.site.clone(), *hk),
            ),
            _ => within(&v.ts, &bound(lo.ts, *lk), &bound(hi.ts, *hk)),
        }
    }

    /// The brute-force answer: filter, sort by logical key, direction, limit.
    pub fn expected(&self, rows: &[Row3]) -> Vec<Row3> {
        let mut hits: Vec<Row3> = rows.iter().filter(|r| self.matches(r)).cloned().collect();
        hits.sort_by(logical_cmp);
        hits.dedup();
        if self.reverse {
            hits.reverse();
        }
        hits
    }
}

pub fn request() -> impl Strategy<Value = Request> {
    (
        row(),
        0..=3usize,
        proptest::option::of((row(), any::<u8>(), row(), any::<u8>())),
        any::<bool>(),
        proptest::option::of(0..6usize),
    )
        .prop_map(|(pivot, depth, range, reverse, limit)| Request {
            pivot,
            depth,
            range: if depth == 3 { None } else { range },
            reverse,
            limit,
        })
}

/// Builds the request for key type `$k` (without limit or cursor).
#[macro_export]
macro_rules! scan_for {
    ($k:ident, $req:expr) => {{
        let r: &$crate::common::model::Request = $req;
        let p = &r.pivot;
        let request = match (r.depth, &r.range) {
            (0, None) => $k::scan().request(),
            (0, Some((lo, lk, hi, hk))) => $k::scan().user((
                $crate::common::bound(lo.user.clone(), *lk),
                $crate::common::bound(hi.user.clone(), *hk),
            )),
            (1, None) => $k::scan().user(&p.user).request(),
            (1, Some((lo, lk, hi, hk))) => $k::scan().user(&p.user).site((
                $crate::common::bound(lo.site.clone(), *lk),
                $crate::common::bound(hi.site.clone(), *hk),
            )),
            (2, None) => $k::scan().user(&p.user).site(&p.site).request(),
            (2, Some((lo, lk, hi, hk))) => $k::scan().user(&p.user).site(&p.site).ts((
                $crate::common::bound(lo.ts, *lk),
                $crate::common::bound(hi.ts, *hk),
            )),
            _ => $k::scan().user(&p.user).site(&p.site).ts(p.ts).request(),
        };
        if r.reverse {
            request.reverse()
        } else {
            request
        }
    }};
}
