//! Rules of the partition group (`then = (a, b), c`).

use super::{error, Errors, Listed};
use crate::attr::KeyAttr;

/// Rules of the partition group (`then = (a, b), c`): at most one, first
/// in `then`, not empty. How many entries of `then` it holds.
pub(super) fn partition_group(attr: &KeyAttr, errors: &mut Errors) -> Option<usize> {
    let (first, rest) = attr.groups.split_first()?;
    for group in rest {
        errors.push(error(
            group.span,
            "the partition key is given twice: one `( ... )` group, first in `then`, holds it (`then = (tenant, invoice_id), rev(created_at)`)",
        ));
    }
    if first.start != 0 {
        errors.push(error(
            first.span,
            "the partition group must come first in `then`: the partition key is the key's leading components (`then = (invoice_id), rev(created_at), line_no`)",
        ));
        return None;
    }
    if first.len == 0 {
        errors.push(error(
            first.span,
            "the partition group is empty: put the partition key's fields inside `( ... )`, e.g. `then = (invoice_id), rev(created_at)`",
        ));
        return None;
    }
    rest.is_empty().then_some(first.len)
}

/// How many encoded components the partition holds: those listed in its
/// group (a bucket may be in the partition and its field outside: Cassandra's
/// month bucket as a partition column, the day as a clustering column).
pub(super) fn partition_components(entries: usize, listed: &[Listed]) -> usize {
    listed.iter().take_while(|c| c.entry < entries).count()
}
