//! Google's `cbt` against the test emulator: what a person at 3 a.m. runs
//! on the table, run by the tests on the rows the library wrote.

use std::process::Command;

/// The project and instance the Bigtable tests' stores use.
pub const PROJECT: &str = "keyschema";
/// See [`PROJECT`].
pub const INSTANCE: &str = "test";

/// Where `cbt` is: `CBT`, else on the `PATH`.
fn binary() -> String {
    std::env::var("CBT").unwrap_or_else(|_| "cbt".to_string())
}

/// `cbt -project keyschema -instance test ARGS` against the emulator at `host`; its
/// standard output. A failure of `cbt` fails the test with what it said.
pub fn run(host: &str, args: &[&str]) -> Vec<u8> {
    let output = Command::new(binary())
        .env("BIGTABLE_EMULATOR_HOST", host)
        .args(["-project", PROJECT, "-instance", INSTANCE])
        .args(args)
        .output()
        .unwrap_or_else(|e| {
            panic!("cannot run `cbt` ({e}): install the Google Cloud CLI's cbt, or set CBT to its path")
        });
    assert!(
        output.status.success(),
        "cbt {args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output.stdout
}

/// A `cbt ...` command line as a shell runs it (with its `$'...'` quoting),
/// against the emulator at `host`; its standard output.
pub fn shell(host: &str, command: &str) -> Vec<u8> {
    let command = command
        .strip_prefix("cbt ")
        .map(|rest| format!("\"$CBT_BINARY\" {rest}"))
        .unwrap_or_else(|| panic!("not a cbt command: {command}"));
    let output = Command::new("bash")
        .arg("-c")
        .arg(&command)
        .env("BIGTABLE_EMULATOR_HOST", host)
        .env("CBT_BINARY", binary())
        .output()
        .expect("bash");
    assert!(
        output.status.success(),
        "{command} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output.stdout
}
