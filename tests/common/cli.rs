//! The `keyschema` command of this build, run by the tests that feed it
//! real tools' output and point it at live tables.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

/// The `keyschema` binary of this build, built from these sources once per
/// test process (a test of the root package does not build another
/// package's binary, and one left from an older build would be tested
/// instead), or the one `KEYSCHEMA_CLI` names (another build's, to see a
/// test fail before a fix).
pub fn cli() -> PathBuf {
    if let Some(path) = std::env::var_os("KEYSCHEMA_CLI") {
        return path.into();
    }
    static BUILT: std::sync::OnceLock<()> = std::sync::OnceLock::new();
    let exe = std::env::current_exe().expect("test binary");
    let dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("target directory");
    // The uplifted `target/debug/keyschema` is shared by every checkout
    // that builds into this target directory; each test process copies the
    // one it built to a name of its own checkout at once, so another
    // checkout's build cannot swap the binary under its tests.
    let built = dir.join(format!("keyschema{}", std::env::consts::EXE_SUFFIX));
    let own = dir.join(format!(
        "keyschema-of-{:016x}{}",
        checkout_hash(),
        std::env::consts::EXE_SUFFIX
    ));
    BUILT.get_or_init(|| {
        let status = Command::new(env!("CARGO"))
            .args(["build", "-p", "keyschema-cli"])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .status()
            .expect("cargo build");
        assert!(status.success(), "building the keyschema command");
        let staging = own.with_extension(format!("{}.tmp", std::process::id()));
        std::fs::copy(&built, &staging).expect("copying the keyschema command");
        std::fs::rename(&staging, &own).expect("placing the keyschema command");
    });
    own
}

/// A name for this checkout (its manifest directory), fixed across runs.
fn checkout_hash() -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    env!("CARGO_MANIFEST_DIR").hash(&mut hasher);
    hasher.finish()
}

/// Runs the tool with `input` on standard input: its exit code, standard
/// output and standard error.
pub fn run(args: &[&str], input: &[u8]) -> (i32, String, String) {
    let mut child = Command::new(cli())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("keyschema");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input)
        .expect("write");
    let output = child.wait_with_output().expect("keyschema");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// Writes the schema document of `K` into `dir` (as `NAME.json`): its
/// path, for `--schema`.
pub fn document<K: keyschema::RowKey>(dir: &std::path::Path) -> String {
    let path = dir.join(format!("{}.json", K::schema().name()));
    std::fs::write(&path, K::schema().to_json()).expect("schema document");
    path.to_str().expect("path").to_string()
}

/// A fresh table of `K` on the test emulator holding `rows`: the
/// emulator's host and the table's name.
#[cfg(feature = "bigtable")]
pub async fn bigtable_of<K>(prefix: &str, rows: &[K]) -> (String, String)
where
    K: keyschema::OneLayout + keyschema::record::Record,
{
    use keyschema::store::AsyncRecordStore;
    let host = super::emulator::host();
    let table = super::emulator::fresh_table(prefix);
    let store = keyschema::store::bigtable::BigtableStore::connect_emulator(
        &host,
        super::cbt::PROJECT,
        super::cbt::INSTANCE,
        &table,
    )
    .await
    .expect("connect");
    store.create_table_for::<K>().await.expect("create");
    store.put_records(rows).await.expect("write");
    (host, table)
}

/// `(first words, count)` of each indented line of a `hotspot` report under
/// the heading that starts with `heading`, up to the next blank line; bars
/// and the `hottest` line left out.
pub fn section(stdout: &str, heading: &str) -> Vec<(String, u64)> {
    let bar = |w: &&str| w.chars().all(|c| "█▏▎▍▌▋▊▉".contains(c));
    stdout
        .split("\n\n")
        .find(|block| block.starts_with(heading))
        .unwrap_or_else(|| panic!("no section {heading:?} in\n{stdout}"))
        .lines()
        .skip(1)
        .filter(|l| !l.trim_start().starts_with("hottest"))
        .map(|l| {
            let words: Vec<&str> = l.split_whitespace().filter(|w| !bar(w)).collect();
            let count = words[words.len() - 2].parse().expect("a count");
            (words[..words.len() - 2].join(" "), count)
        })
        .collect()
}

/// Runs the tool on DynamoDB table `table` of the tests' DynamoDB-API
/// server (dynalite, or the one `DYNAMODB_ENDPOINT` names), with schema
/// document `doc`, then `args`: its exit code, standard output and error.
pub fn on_dynamodb(doc: &str, table: &str, args: &[&str]) -> (i32, String, String) {
    let endpoint = super::dynalite::endpoint();
    let mut all = vec![
        "--schema",
        doc,
        "--dynamodb",
        table,
        "--endpoint",
        &endpoint,
    ];
    all.extend_from_slice(args);
    run(&all, b"")
}

/// The lines of `text` that contain `needle`.
pub fn lines_with<'a>(text: &'a str, needle: &str) -> Vec<&'a str> {
    text.lines().filter(|l| l.contains(needle)).collect()
}
