#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod guide;

pub use keyschema_macros::{KeyComponent, Projection, RowKey};
pub use keyschema_runtime::*;
