//! The Bigtable emulator an example starts for itself (`cbtemulator`, from
//! the Google Cloud CLI, or the binary `CBTEMULATOR` names), on a free
//! loopback port; stopped when dropped.

use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const EMULATOR: &str = "/usr/lib/google-cloud-sdk/platform/bigtable-emulator/cbtemulator";

/// The emulator this example started; stopped when dropped.
pub struct Emulator(Child);

impl Drop for Emulator {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

pub fn start_emulator() -> Result<(String, Emulator), Box<dyn std::error::Error>> {
    // CBTEMULATOR names another binary, as for the tests (.ci/run).
    let binary = std::env::var("CBTEMULATOR").unwrap_or_else(|_| EMULATOR.to_string());
    let port = TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
    let child = Command::new(&binary)
        .args(["-host", "127.0.0.1", "-port", &port.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| {
            format!("cannot start {binary}: {e} (set BIGTABLE_EMULATOR_HOST to use another)")
        })?;
    let emulator = Emulator(child);
    let host = format!("127.0.0.1:{port}");
    let deadline = Instant::now() + Duration::from_secs(20);
    while TcpStream::connect(&host).is_err() {
        if Instant::now() > deadline {
            return Err(format!("the emulator did not answer on {host} within 20 s").into());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok((host, emulator))
}
