//! What the integration tests share, through `mod common;`: the shared
//! schemas, the typed-scan model, the Bigtable emulator, a DynamoDB-API
//! server, a TCP proxy and an HTTP proxy that injects DynamoDB faults.
#![allow(dead_code, unused_macros, unused_imports)]

pub mod dynalite;
pub mod emulator;
pub mod history;
pub mod http_faults;
pub mod layout_model;
pub mod model;
pub mod proxy;
pub mod schemas;

use std::ops::Bound;

/// A bound of one of the three kinds, chosen by `kind % 3`.
pub fn bound<T>(v: T, kind: u8) -> Bound<T> {
    match kind % 3 {
        0 => Bound::Included(v),
        1 => Bound::Excluded(v),
        _ => Bound::Unbounded,
    }
}

/// Whether `v` lies between `lo` and `hi`.
pub fn within<T: Ord>(v: &T, lo: &Bound<T>, hi: &Bound<T>) -> bool {
    let above = match lo {
        Bound::Included(l) => v >= l,
        Bound::Excluded(l) => v > l,
        Bound::Unbounded => true,
    };
    let below = match hi {
        Bound::Included(h) => v <= h,
        Bound::Excluded(h) => v < h,
        Bound::Unbounded => true,
    };
    above && below
}
pub mod catalog;
