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

/// Another program's `MutateRow` on the emulator's test instance
/// ([`PROJECT`]/[`INSTANCE`]): each of `cells` set in `family`, or
/// its column deleted where the value is `None`.
pub async fn mutate_row(
    table: &str,
    key: Vec<u8>,
    family: &str,
    cells: &[(&str, Option<Vec<u8>>)],
) {
    use bt::mutation::{DeleteFromColumn, Mutation as M, SetCell};
    use googleapis_tonic_google_bigtable_v2::google::bigtable::v2 as bt;
    let mutations = cells
        .iter()
        .map(|(qualifier, value)| bt::Mutation {
            mutation: Some(match value {
                Some(value) => M::SetCell(SetCell {
                    family_name: family.to_string(),
                    column_qualifier: qualifier.as_bytes().to_vec(),
                    timestamp_micros: -1,
                    value: value.clone(),
                }),
                None => M::DeleteFromColumn(DeleteFromColumn {
                    family_name: family.to_string(),
                    column_qualifier: qualifier.as_bytes().to_vec(),
                    time_range: None,
                }),
            }),
        })
        .collect();
    let channel =
        tonic::transport::Endpoint::from_shared(format!("http://{}", super::emulator::host()))
            .expect("an endpoint")
            .connect()
            .await
            .expect("connect");
    let request = bt::MutateRowRequest {
        table_name: format!("projects/{}/instances/{}/tables/{table}", PROJECT, INSTANCE),
        row_key: key,
        mutations,
        ..Default::default()
    };
    bt::bigtable_client::BigtableClient::new(channel)
        .mutate_row(request)
        .await
        .expect("MutateRow");
}
