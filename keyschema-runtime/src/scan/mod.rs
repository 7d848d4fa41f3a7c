//! Typed scans: a builder that binds a key's components in order, the
//! request it makes, and the drivers that run it on a store, one scan per
//! salt bucket merged back into key order, with a resumable cursor.
//!
//! The files, in the order a scan goes through them: `builder` (the bound
//! components and their key ranges), `request` (the request and the
//! builder's argument kinds), `cursor` (where a scan stopped), `merge` (the
//! fetch-independent core), `finish` (what the drivers make of each row),
//! `projected` (a scan read as a projection), `ranges` (a merged scan of
//! given key ranges, for a layout known at run time), `rows` (the sync driver over a
//! [`Store`](crate::store::Store)) and `stream` (the async driver over an
//! [`AsyncStore`](crate::store::AsyncStore)).

pub(crate) mod builder;
mod cursor;
mod finish;
mod merge;
mod plan;
mod projected;
mod ranges;
mod records;
pub(crate) mod request;
mod rows;
mod stream;
mod tree;
mod walk;

pub use crate::error::ScanError;
pub use cursor::Cursor;
pub use merge::DEFAULT_CONCURRENCY;
pub use projected::{Projected, ProjectedScan};
pub use ranges::{MergedRows, RangeScan};
pub use request::{BucketArg, PhaseKnown, Phased, ScanArg, ScanRequest, Unphased};
pub use rows::TypedRows;
pub use stream::AsyncTypedRows;
