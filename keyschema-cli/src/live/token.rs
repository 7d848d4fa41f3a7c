//! Access tokens for Cloud Bigtable from the Google Cloud CLI, as `cbt`
//! users already have them.

use keyschema::store::bigtable::{TokenError, TokenSource};
use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long a token is reused: gcloud's tokens live an hour.
const REUSE: Duration = Duration::from_secs(30 * 60);

/// The token `gcloud auth print-access-token` prints, fetched again every
/// half hour.
#[derive(Default)]
pub struct Gcloud {
    cached: Mutex<Option<(String, Instant)>>,
}

impl Gcloud {
    fn fetch(&self) -> Result<String, TokenError> {
        let mut cached = self.cached.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((token, at)) = cached.as_ref() {
            if at.elapsed() < REUSE {
                return Ok(token.clone());
            }
        }
        let output = std::process::Command::new("gcloud")
            .args(["auth", "print-access-token"])
            .output()
            .map_err(|e| format!("running `gcloud auth print-access-token` for a Cloud Bigtable token: {e} (for the emulator, give --emulator HOST:PORT)"))?;
        if !output.status.success() {
            return Err(format!(
                "`gcloud auth print-access-token` failed ({}): {}",
                output.status,
                String::from_utf8_lossy(&output.stderr).trim()
            )
            .into());
        }
        let token = String::from_utf8_lossy(&output.stdout).trim().to_string();
        *cached = Some((token.clone(), Instant::now()));
        Ok(token)
    }
}

impl TokenSource for Gcloud {
    fn token(&self) -> Pin<Box<dyn Future<Output = Result<String, TokenError>> + Send + '_>> {
        Box::pin(async move { self.fetch() })
    }
}
