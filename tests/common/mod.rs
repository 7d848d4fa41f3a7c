//! What the integration tests share, through `mod common;`: the shared
//! schemas, the typed-scan model, the Bigtable emulator, a DynamoDB-API
//! server, a TCP proxy and an HTTP proxy that injects DynamoDB faults.
#![allow(dead_code, unused_macros, unused_imports)]

/// A test store's `Lent` and `scan_into`: the rows its own `scan` yields,
/// lent (`OwnedRows`), so that what its scan does (faults, counts) reaches
/// the typed scans.
macro_rules! lend_scanned_rows {
    () => {
        type Lent<'a>
            = keyschema::store::OwnedRows<Self::Rows<'a>>
        where
            Self: 'a;
        fn scan_into(
            &self,
            range: &keyschema::KeyRange,
            direction: keyschema::store::Direction,
        ) -> Result<Self::Lent<'_>, Self::Error> {
            Ok(keyschema::store::OwnedRows::new(
                self.scan(range, direction)?,
            ))
        }
    };
}
pub(crate) use lend_scanned_rows;

pub mod bigtable_store;
pub mod cbt;
pub mod cli;
pub mod cut;
pub mod dynalite;
pub mod emulator;
pub mod history;
pub mod hit_rows;
pub mod hotspot_share;
pub mod http_faults;
pub mod index_model;
pub mod index_model_backfill;
pub mod interop;
pub mod latency;
pub mod layout_model;
pub mod model;
pub mod native_table;
pub mod no_txn;
pub mod paging;
pub mod proxy;
pub mod readings;
pub mod rows;
pub mod rows_model;
pub mod schemas;
pub mod versions;
pub mod versions_under;
pub mod watch;

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

/// A row's fields as the JSON object the vectors and the cross-language
/// files hold: `{"name": value, ...}` in field order.
pub fn fields_json(
    schema: &keyschema::dynamic::DynSchema,
    values: &[keyschema::dynamic::Value],
) -> String {
    let pairs: Vec<String> = schema
        .fields()
        .iter()
        .zip(values)
        .map(|(f, v)| {
            let name = keyschema::dynamic::Value::from(f.name()).to_json();
            format!("{name}:{}", v.to_json())
        })
        .collect();
    format!("{{{}}}", pairs.join(","))
}
