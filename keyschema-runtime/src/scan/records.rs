//! A typed scan's rows read whole ([`Records`]): each row's value fields
//! decoded into the row the scan decoded, on the sync and the async driver.

use super::{AsyncTypedRows, TypedRows};
use crate::record::{decode_values, Record};
use crate::store::{whole_at, Records, RowError, Store};

/// Each row's value fields are read into the row the scan decoded, before
/// it is moved out: no intermediate `(row, value)` pair.
impl<K: Record, S: Store> Iterator for Records<TypedRows<'_, K, S>> {
    type Item = Result<K, RowError<S::Error>>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        // Read from the value the store lends: no copy of it.
        self.rows.next_row(|mut row: K, key: &[u8], value: &[u8]| {
            match decode_values(&mut row, value) {
                Ok(()) => Ok(row),
                Err(source) => Err(RowError::Value {
                    schema: K::schema().name(),
                    key: key.to_vec(),
                    source,
                }),
            }
        })
    }
}

/// An async typed scan's rows, whole (`scan.run_async(&store).records()`);
/// an error names the key the row was read under.
impl<K: Record, E> futures_core::Stream for Records<AsyncTypedRows<K, E>> {
    type Item = Result<K, RowError<E>>;

    fn poll_next(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Self::Item>> {
        self.get_mut()
            .rows
            .poll_keyed(cx)
            .map(|row| row.map(|row| row.and_then(|(key, row, value)| whole_at(key, (row, value)))))
    }
}
