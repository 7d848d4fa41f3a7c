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
    let dir = install();
    // The server reads stdin and exits when it closes: when this process ends.
    let mut child = Command::new("node")
        .arg("start.js")
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
    // Keep the child (and its stdin) for the life of the process.
    std::mem::forget(child);
    format!("http://127.0.0.1:{port}")
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
