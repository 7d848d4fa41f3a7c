//! What every fuzz target checks of a schema, given arbitrary bytes.

use keyschema::RowKey;
use std::fmt::Debug;

/// Decodes `data` as a `K`: never panics; a success re-encodes to exactly
/// `data` (decode accepts one encoding per value, so a row cannot hide
/// under a second key), and a failure says where; rendering never panics.
pub fn check_decode<K: RowKey + Debug>(data: &[u8]) {
    let schema = K::schema();
    let rendered = schema.render(data);
    let _ = schema.render_prefix(data);
    let strict = schema.render_strict(data);
    let _ = schema.bucket_of(data);
    match K::decode(data) {
        Ok(value) => {
            let mut again = value.encode();
            if schema.salt().is_some_and(|s| s.is_random()) {
                // The bucket is chosen on write: compare the rest.
                let header = schema.header_len();
                assert!(again.len() >= header && data.len() >= header);
                again[..header].copy_from_slice(&data[..header]);
            }
            assert_eq!(
                again, data,
                "{value:?} decoded from {data:02x?} but encodes differently"
            );
            assert!(strict.is_ok(), "decodes but does not render: {strict:?}");
            assert_eq!(
                K::decode(&again).ok().map(|v| format!("{v:?}")),
                Some(format!("{value:?}"))
            );
        }
        Err(err) => {
            let message = err.to_string();
            assert!(!message.is_empty());
            assert!(!rendered.is_empty() || data.is_empty());
        }
    }
}
