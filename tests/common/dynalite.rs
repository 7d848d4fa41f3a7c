//! A DynamoDB-API server for the tests: the one named by
//! `DYNAMODB_ENDPOINT` (DynamoDB Local in CI, for example), or dynalite 4.0.0
//! (pinned in `tests/dynalite/package-lock.json`) installed once with
//! `npm ci` into `target/dynalite` and started here on a free loopback port;
//! it exits with the test process.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

static ENDPOINT: OnceLock<String> = OnceLock::new();
static TABLES: AtomicUsize = AtomicUsize::new(0);

/// `http://127.0.0.1:port` of a running server.
pub fn endpoint() -> String {
    ENDPOINT.get_or_init(start).clone()
}

/// A store on a fresh table of key type `K`, created.
#[cfg(feature = "dynamodb")]
pub async fn store<K: keyschema::RowKey>(prefix: &str) -> keyschema::store::dynamodb::DynamoStore {
    let store = keyschema::store::dynamodb::DynamoStore::connect_local::<K>(
        &endpoint(),
        &fresh_table(prefix),
    )
    .expect("a store");
    assert!(store.create_table().await.expect("create table"), "created");
    store
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
    if let Ok(endpoint) = std::env::var("DYNAMODB_ENDPOINT") {
        return endpoint;
    }
    let (child, port) = spawn(0);
    // Keep the child (and its stdin) for the life of the process.
    std::mem::forget(child);
    format!("http://127.0.0.1:{port}")
}

/// Starts dynalite on `port` (0: a free one); the child and its port. The
/// server reads stdin and exits when it closes: when this process ends.
fn spawn(port: u16) -> (std::process::Child, u16) {
    let dir = install();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/dynalite/start.js");
    std::fs::copy(script, dir.join("start.js")).expect("copy start.js");
    let mut child = Command::new("node")
        .arg("start.js")
        .arg(port.to_string())
        .current_dir(&dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start dynalite with node (is Node.js installed?)");
    let stdout = child.stdout.take().expect("dynalite's stdout");
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .expect("dynalite prints its port");
    let port: u16 = line
        .trim()
        .parse()
        .unwrap_or_else(|_| panic!("dynalite printed {line:?}, not a port"));
    (child, port)
}

/// `npm ci` of the pinned dynalite into `target/dynalite`, once, under a
/// lock: test binaries run in parallel.
fn install() -> PathBuf {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/dynalite");
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"));
    let dir = target.join("dynalite");
    let ready = dir.join(".installed");
    let lock = target.join("dynalite.lock");
    let deadline = Instant::now() + Duration::from_secs(300);
    loop {
        if ready.exists() {
            return dir;
        }
        std::fs::create_dir_all(&target).expect("create the target directory");
        if std::fs::File::create_new(&lock).is_ok() {
            std::fs::create_dir_all(&dir).expect("create target/dynalite");
            for file in ["package.json", "package-lock.json", "start.js"] {
                std::fs::copy(source.join(file), dir.join(file)).expect("copy the dynalite files");
            }
            let status = Command::new("npm")
                .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
                .current_dir(&dir)
                .status();
            let ok = matches!(status, Ok(s) if s.success());
            if ok {
                std::fs::write(&ready, b"").expect("mark dynalite installed");
            }
            let _ = std::fs::remove_file(&lock);
            assert!(
                ok,
                "npm ci of dynalite failed: {status:?} (are Node.js and npm installed?)"
            );
            return dir;
        }
        assert!(
            Instant::now() < deadline,
            "waited 300 s for another test to install dynalite (remove {} if it is stale)",
            lock.display()
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// A dynalite of one test's own, which the test can stop and start again on
/// the same port (it keeps nothing: a restart is empty). Killed when dropped.
pub struct Private {
    child: Option<std::process::Child>,
    port: u16,
}

impl Private {
    pub fn start() -> Private {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .expect("a free loopback port");
        let mut private = Private { child: None, port };
        private.restart();
        private
    }

    /// `http://127.0.0.1:port`, the same across restarts.
    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Kills the server (SIGKILL).
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts the server again on the same port, and waits for it.
    pub fn restart(&mut self) {
        self.stop();
        let (child, port) = spawn(self.port);
        assert_eq!(port, self.port, "dynalite came back on its port");
        self.child = Some(child);
    }
}

impl Drop for Private {
    fn drop(&mut self) {
        self.stop();
    }
}
