//! Paging a typed scan to its end as the README does: until a page is empty
//! or its cursor is finished.

use keyschema::store::Store;
use keyschema::{Cursor, RowKey, TypedRows};

/// Runs pages (`page(after)` runs one, resumed after the cursor given)
/// until one is empty or its cursor is finished: how many pages, and every
/// row read, in order.
pub fn page_through<'s, K: RowKey, S: Store + 's>(
    mut page: impl FnMut(Option<Cursor>) -> TypedRows<'s, K, S>,
) -> (usize, Vec<K>)
where
    S::Error: std::fmt::Debug,
{
    let (mut after, mut pages, mut rows) = (None, 0, Vec::new());
    loop {
        let mut scan = page(after.take());
        let before = rows.len();
        for row in scan.by_ref() {
            rows.push(row.expect("row").0);
        }
        let cursor = scan.cursor();
        pages += 1;
        assert!(pages <= 10_000, "paging does not end");
        if rows.len() == before || cursor.is_finished() {
            return (pages, rows);
        }
        after = Some(cursor);
    }
}
