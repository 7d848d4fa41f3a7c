//! Base64 as keys are shown: the DynamoDB console's binary attributes,
//! `--input base64`.

use base64::Engine as _;

/// `text` as base64 (padding optional), or why it is not.
pub fn base64(text: &str) -> Result<Vec<u8>, String> {
    let text = text.trim().trim_end_matches('=');
    base64::engine::general_purpose::STANDARD_NO_PAD
        .decode(text)
        .map_err(|e| format!("not base64: {e}"))
}
