//! What every fuzz target checks of a schema, given arbitrary bytes, the
//! dynamic schema read from its document included.

use keyschema::dynamic::DynSchema;
use keyschema::RowKey;
use std::collections::HashMap;
use std::fmt::Debug;

thread_local! {
    /// Each schema's document read back once.
    static DYNAMIC: std::cell::RefCell<HashMap<&'static str, DynSchema>> = Default::default();
}

/// The dynamic schema read from `K`'s document agrees with `K` on `data`:
/// the same error, or the same key from the decoded values; the same
/// rendering.
pub fn check_dynamic<K: RowKey + Debug>(data: &[u8]) {
    DYNAMIC.with(|cache| {
        let mut cache = cache.borrow_mut();
        let schema = cache.entry(K::schema().name()).or_insert_with(|| {
            DynSchema::from_json(&K::schema().to_json())
                .expect("a derived schema's document reads back")
        });
        let derived = K::decode(data);
        let dynamic = schema.decode(data);
        assert_eq!(
            dynamic.as_ref().err(),
            derived.as_ref().err(),
            "{data:02x?}"
        );
        if let Ok(values) = dynamic {
            let again = match schema.salt() {
                Some(s) if s.is_random() => {
                    schema.encode_in(&values, schema.bucket_of(data).expect("decoded"))
                }
                _ => schema.encode(&values),
            };
            assert_eq!(again.as_deref(), Ok(data), "{values:?}");
        }
        assert_eq!(schema.render(data), K::schema().render(data));
        assert_eq!(schema.render_prefix(data), K::schema().render_prefix(data));
    });
}

/// Decodes `data` as a `K`: never panics; a success re-encodes to exactly
/// `data` (decode accepts one encoding per value, so a row cannot hide
/// under a second key), and a failure says where; rendering never panics.
pub fn check_decode<K: RowKey + Debug>(data: &[u8]) {
    check_dynamic::<K>(data);
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
