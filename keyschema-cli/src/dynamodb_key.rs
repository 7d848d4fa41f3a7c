//! `--input dynamodb`: a DynamoDB item's key as the console and the AWS
//! CLI show it, read back into the key's bytes (the partition key
//! attribute's, then the sort key attribute's, as `DynamoStore` splits a
//! key).

use std::sync::OnceLock;

static NAMES: OnceLock<(String, String)> = OnceLock::new();

/// The key attributes' names the JSON form is read by (`--key-attributes`;
/// `pk` and `sk` when never set).
pub fn set_names(partition: &str, sort: &str) {
    let _ = NAMES.set((partition.to_string(), sort.to_string()));
}

fn names() -> (&'static str, &'static str) {
    NAMES
        .get()
        .map_or(("pk", "sk"), |(p, s)| (p.as_str(), s.as_str()))
}

/// The key `text` shows: `PK SK` (base64 for binary keys, text for a
/// text key's), `PK` alone, or the key's JSON.
pub fn read(text: &str, text_keys: bool) -> Result<Vec<u8>, String> {
    let text = text.trim();
    if text.starts_with('{') {
        return json(text, text_keys);
    }
    let parts: Vec<&str> = text.split_whitespace().collect();
    if parts.is_empty() || parts.len() > 2 {
        return Err(format!(
            "{} words: expected the partition key attribute, then the sort key attribute (`PK SK`, binary ones as base64), or the key's JSON as `aws dynamodb scan` prints it ({{\"pk\":{{\"B\":\"...\"}},\"sk\":{{\"B\":\"...\"}}}})",
            parts.len()
        ));
    }
    let mut key = Vec::new();
    for (part, what) in parts.iter().zip(["partition", "sort"]) {
        match text_keys {
            true => key.extend_from_slice(part.as_bytes()),
            false => key.extend(
                crate::b64::base64(part)
                    .map_err(|e| format!("the {what} key attribute {part:?}: {e}"))?,
            ),
        }
    }
    Ok(key)
}

/// `{"pk":{"B":"..."},"sk":{"B":"..."}}` (or `S` for text keys).
fn json(text: &str, text_keys: bool) -> Result<Vec<u8>, String> {
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| format!("not a DynamoDB key's JSON: {e}"))?;
    let (pk, sk) = names();
    let wanted = if text_keys { "S" } else { "B" };
    let attribute = |name: &str| -> Result<Option<Vec<u8>>, String> {
        let Some(typed) = value.get(name) else {
            return Ok(None);
        };
        let Some(shown) = typed.get(wanted).and_then(|v| v.as_str()) else {
            return Err(format!(
                "the key attribute `{name}` is {typed}, not {{\"{wanted}\": ...}}: this schema's keys are {} attributes",
                if text_keys { "string (S)" } else { "binary (B)" }
            ));
        };
        match text_keys {
            true => Ok(Some(shown.as_bytes().to_vec())),
            false => crate::b64::base64(shown)
                .map(Some)
                .map_err(|e| format!("the key attribute `{name}`: {e}")),
        }
    };
    let Some(mut key) = attribute(pk)? else {
        let has: Vec<&String> = value
            .as_object()
            .map(|o| o.keys().collect())
            .unwrap_or_default();
        return Err(format!(
            "no attribute `{pk}` in the key's JSON (it has {has:?}): name the key attributes with --key-attributes PARTITION,SORT"
        ));
    };
    key.extend(attribute(sk)?.unwrap_or_default());
    Ok(key)
}
