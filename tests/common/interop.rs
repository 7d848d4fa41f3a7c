//! The services' own Python clients for the interop tests: a venv at
//! `target/interop-venv` with `tests/interop/requirements.txt` (boto3),
//! which `.ci/run` makes first and a test makes itself when it is missing.
//! `KEYSCHEMA_INTEROP_PYTHON` names another interpreter that has them.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

static PYTHON: OnceLock<PathBuf> = OnceLock::new();

/// The interpreter with the clients installed.
pub fn python() -> PathBuf {
    PYTHON.get_or_init(find).clone()
}

/// The interpreter with the clients, if one is there already
/// (`KEYSCHEMA_INTEROP_PYTHON`, or a ready `target/interop-venv`), without
/// making one: for checks that run where `.ci/run` made the venv and are
/// skipped elsewhere.
pub fn python_if_ready() -> Option<PathBuf> {
    std::env::var_os("KEYSCHEMA_INTEROP_PYTHON")
        .map(PathBuf::from)
        .or_else(|| {
            let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/interop-venv");
            venv.join(".ready")
                .exists()
                .then(|| venv.join("bin/python"))
        })
}

fn find() -> PathBuf {
    if let Some(p) = std::env::var_os("KEYSCHEMA_INTEROP_PYTHON") {
        return PathBuf::from(p);
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let venv = root.join("target/interop-venv");
    let python = venv.join("bin/python");
    let ready = venv.join(".ready");
    if !ready.exists() {
        let made = Command::new("python3")
            .args(["-m", "venv"])
            .arg(&venv)
            .status()
            .expect("python3 -m venv");
        assert!(made.success(), "python3 -m venv {}", venv.display());
        let installed = Command::new(&python)
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "-r",
            ])
            .arg(root.join("tests/interop/requirements.txt"))
            .status()
            .expect("pip install");
        assert!(
            installed.success(),
            "pip install -r tests/interop/requirements.txt"
        );
        std::fs::write(&ready, b"").expect("mark the venv ready");
    }
    python
}

/// Runs `tests/interop/SCRIPT` with `args`; its standard output, or a
/// panic with its standard error.
pub fn run(script: &str, args: &[&str]) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/interop")
        .join(script);
    let out = Command::new(python())
        .arg(&path)
        .args(args)
        .output()
        .expect("the interop script runs");
    assert!(
        out.status.success(),
        "{script} {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}
