//! The guide: one chapter per concept, each a page of this documentation
//! whose examples `cargo test` compiles and runs. The front page
//! ([the crate docs](crate)) shows one example and maps these chapters.

#[doc = include_str!("../docs/guide/keys.md")]
pub mod keys {}

#[doc = include_str!("../docs/guide/articles.md")]
pub mod articles {}

#[doc = include_str!("../docs/guide/rows.md")]
pub mod rows {}

#[doc = include_str!("../docs/guide/indexes.md")]
pub mod indexes {}

#[doc = include_str!("../docs/guide/scans.md")]
pub mod scans {}

#[doc = include_str!("../docs/guide/stores.md")]
pub mod stores {}

#[doc = include_str!("../docs/guide/layout-changes.md")]
pub mod layout_changes {}

#[doc = include_str!("../docs/guide/tool-and-python.md")]
pub mod tool_and_python {}

#[doc = include_str!("../docs/guide/speed.md")]
pub mod speed {}

#[doc = include_str!("../docs/guide/limits.md")]
pub mod limits {}
