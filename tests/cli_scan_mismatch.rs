//! `keyschema scan` with a document that does not match the table (a
//! 4-bucket document on a table an 8-bucket type wrote): its warning that
//! the rows were missed comes with exit status 1, as a failed `check`'s,
//! never `(0 rows)` and 0. Ground truth: the rows written, by the 8-bucket
//! type, into buckets past the document's last.

#![cfg(feature = "bigtable")]

mod common;

use common::cbt;
use common::cli::{bigtable_of, run};
use keyschema::RowKey;
/// The type that wrote the table: eight buckets.
mod eight {
    use keyschema::RowKey;

    #[derive(RowKey, Debug, Clone, PartialEq)]
    #[rowkey(salt = hash(shelf) % 8, then = shelf, n)]
    pub struct Slot {
        pub shelf: String,
        pub n: u32,
        #[rowkey(value)]
        pub qty: u32,
    }
}

/// The wrong document's type: the same name and fields, four buckets.
mod four {
    use keyschema::RowKey;

    #[derive(RowKey, Debug, Clone, PartialEq)]
    #[rowkey(salt = hash(shelf) % 4, then = shelf, n)]
    pub struct Slot {
        pub shelf: String,
        pub n: u32,
        #[rowkey(value)]
        pub qty: u32,
    }
}

#[tokio::test]
async fn a_scan_that_misses_rows_past_the_documents_buckets_exits_1() {
    // A shelf whose rows the 8-bucket type puts past bucket 3.
    let shelf = (0..100)
        .map(|i| format!("s{i}"))
        .find(|s| {
            let key = eight::Slot::get_key(s, 0);
            key[0] >= 4
        })
        .expect("a shelf past bucket 3");
    let rows: Vec<eight::Slot> = (0..20u32)
        .map(|n| eight::Slot {
            shelf: shelf.clone(),
            n,
            qty: n,
        })
        .collect();
    let (host, table) = bigtable_of("cli-scan-mismatch", &rows).await;
    let dir = tempfile::tempdir().expect("temp dir");
    let path = format!("{}/{}/{table}", cbt::PROJECT, cbt::INSTANCE);
    let write = |name: &str, json: String| {
        let file = dir.path().join(name);
        std::fs::write(&file, json).expect("document");
        file.to_str().expect("path").to_string()
    };
    let right = write("eight.json", eight::Slot::schema().to_json());
    let wrong = write("four.json", four::Slot::schema().to_json());
    let binding = format!("shelf={shelf}");
    let tool = |doc: &str| {
        run(
            &[
                "--schema",
                doc,
                "--bigtable",
                &path,
                "--emulator",
                &host,
                "scan",
                &binding,
                "--limit",
                "2",
            ],
            b"",
        )
    };
    // The right document reads the rows: exit 0.
    let (code, stdout, stderr) = tool(&right);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout.lines().count(), 2, "{stdout}{stderr}");
    // The wrong one reads none of them: the warning, and exit 1.
    let (code, stdout, stderr) = tool(&wrong);
    assert_eq!(stdout, "", "{stderr}");
    assert!(stderr.contains("(0 rows)"), "{stderr}");
    assert!(
        stderr.contains("past the document's 4 salt buckets"),
        "{stderr}"
    );
    assert_eq!(code, 1, "{stderr}");
}
