//! The index model's backfill step (issue 40): the current version's
//! `verify` of both indexes, after a `build` of both when asked, on a
//! table that holds rows the older version wrote, checked against the
//! plain map: every row counted and expected as the map says (every row
//! by page, the tagged ones by tag), each with its entry, no row
//! unreadable, and no entry stale but where a crash or another program's
//! delete may have left one.

use super::index_model::{Driver, Key, Values};
use keyschema::index::IndexVerification;
use proptest::prelude::*;
use std::collections::BTreeMap;

fn fail(at: &str, what: impl std::fmt::Display) -> TestCaseError {
    TestCaseError::fail(format!("{at}: {what}"))
}

/// Runs the step on `driver` (nothing where it has none) and checks it.
pub fn check(
    driver: &mut dyn Driver,
    build: bool,
    model: &BTreeMap<Key, Values>,
    may_be_stale: bool,
    at: &str,
) -> Result<(), TestCaseError> {
    let Some(verified) = driver.backfill(build) else {
        return Ok(());
    };
    let [by_page, by_tag] = verified.map_err(|e| fail(at, e))?;
    let rows = model.len() as u64;
    let tagged = model.values().filter(|v| v.1.is_some()).count() as u64;
    for (v, expected) in [(&by_page, rows), (&by_tag, tagged)] {
        prop_assert_eq!(
            (v.rows, v.expected, v.present, v.valid, v.unreadable),
            (rows, expected, expected, expected, 0),
            "{}: {:?}",
            at,
            v
        );
        prop_assert_eq!(v.entries, v.valid + v.stale, "{}: {:?}", at, v);
        prop_assert!(v.missing.is_empty(), "{}: {:?}", at, v);
        prop_assert!(may_be_stale || v.stale == 0, "{}: {:?}", at, v);
        prop_assert!(may_be_stale || v.matches(), "{}: {:?}", at, v);
    }
    Ok(())
}

/// What a driver's `backfill` returns: the by-page and the by-tag
/// verifications.
pub type Verified = Result<[IndexVerification; 2], String>;
