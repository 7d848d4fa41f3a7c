//! A Bigtable emulator for the tests: the one named by
//! `BIGTABLE_EMULATOR_HOST`, or a `cbtemulator` started here on a free
//! loopback port and stopped when the test process ends, also on failure.

use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

const DEFAULT_BINARY: &str = "/usr/lib/google-cloud-sdk/platform/bigtable-emulator/cbtemulator";

static HOST: OnceLock<String> = OnceLock::new();
static TABLES: AtomicUsize = AtomicUsize::new(0);

/// `host:port` of a running emulator.
pub fn host() -> String {
    HOST.get_or_init(start).clone()
}

/// A table name no other test uses.
pub fn fresh_table(prefix: &str) -> String {
    format!(
        "{prefix}-{}-{}",
        std::process::id(),
        TABLES.fetch_add(1, Ordering::SeqCst)
    )
}

fn start() -> String {
    if let Ok(host) = std::env::var("BIGTABLE_EMULATOR_HOST") {
        return host;
    }
    let binary = std::env::var("CBTEMULATOR").unwrap_or_else(|_| DEFAULT_BINARY.to_string());
    assert!(
        Path::new(&binary).exists(),
        "the Bigtable emulator is not at {binary}: install the Google Cloud CLI's bigtable emulator \
         (Debian package google-cloud-cli-bigtable-emulator), or set CBTEMULATOR to its path, \
         or BIGTABLE_EMULATOR_HOST to a running one"
    );
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free loopback port");
    // A watchdog shell owns the emulator and kills it once this process is gone.
    let script = r#"
        "$1" -host 127.0.0.1 -port "$2" >/dev/null 2>&1 &
        emulator=$!
        while kill -0 "$3" 2>/dev/null && kill -0 "$emulator" 2>/dev/null; do sleep 0.2; done
        kill "$emulator" 2>/dev/null
        wait "$emulator" 2>/dev/null
    "#;
    // The watchdog outlives this function on purpose: it ends with the test process.
    #[allow(clippy::zombie_processes)]
    Command::new("sh")
        .args([
            "-c",
            script,
            "watchdog",
            &binary,
            &port.to_string(),
            &std::process::id().to_string(),
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the emulator watchdog");
    let host = format!("127.0.0.1:{port}");
    wait_for(&host);
    host
}

/// Waits until the emulator at `host` accepts connections (20 s at most).
fn wait_for(host: &str) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while TcpStream::connect(host).is_err() {
        assert!(
            Instant::now() < deadline,
            "the Bigtable emulator did not answer on {host} within 20 s"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// An emulator of one test's own, which the test can stop and start again
/// on the same port (the emulator keeps nothing: a restart is empty). It is
/// killed when dropped; `.ci/run` also stops any left by a killed test.
#[allow(dead_code)]
pub struct Private {
    child: Option<std::process::Child>,
    port: u16,
}

#[allow(dead_code)]
impl Private {
    pub fn start() -> Private {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .expect("a free loopback port");
        let mut private = Private { child: None, port };
        private.restart();
        private
    }

    /// `host:port`, the same across restarts.
    pub fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// Kills the emulator (SIGKILL: no goodbye to open streams).
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts the emulator again on the same port, and waits for it.
    pub fn restart(&mut self) {
        self.stop();
        let binary = std::env::var("CBTEMULATOR").unwrap_or_else(|_| DEFAULT_BINARY.to_string());
        let child = Command::new(&binary)
            .args(["-host", "127.0.0.1", "-port", &self.port.to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("start the emulator {binary}: {e}"));
        self.child = Some(child);
        wait_for(&self.host());
        // Another process may have taken the port while it was free: then
        // this emulator exits at once and the answer came from someone else.
        std::thread::sleep(Duration::from_millis(50));
        if let Some(Ok(Some(status))) = self.child.as_mut().map(|c| c.try_wait()) {
            panic!(
                "the emulator on port {} exited at once ({status}): the port was taken",
                self.port
            );
        }
    }
}

impl Drop for Private {
    fn drop(&mut self) {
        self.stop();
    }
}
