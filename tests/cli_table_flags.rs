//! The live-table flags of issue 39: `--key-attributes` on a DynamoDB
//! table of a single-table design's `PK`/`SK` (and the message naming them
//! without it), `decode --input dynamodb` of a key as the console shows
//! it, `--region` and `--profile` reaching the AWS client, and the
//! `projects/P/instances/I/tables/T` form of `--bigtable`.

#![cfg(all(feature = "bigtable", feature = "dynamodb"))]

mod common;

use common::cli::{bigtable_of, document, run, section};
use common::{cbt, dynalite};
use keyschema::store::dynamodb::{DynamoStore, ItemShape};
use keyschema::store::AsyncRecordStore;
use keyschema::RowKey;
use std::io::{Read, Write};

#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = hash(user_id) % 4, then = (user_id), rev(timestamp))]
struct Visit {
    user_id: String,
    timestamp: u64,
    #[rowkey(value)]
    page: String,
}

fn visits() -> Vec<Visit> {
    (0..60u64)
        .map(|i| Visit {
            user_id: format!("u{}", i % 6),
            timestamp: 1000 + i,
            page: format!("/p/{i}"),
        })
        .collect()
}

fn line(v: &Visit) -> String {
    format!(
        "user_id={} timestamp={} | page={:?}",
        v.user_id, v.timestamp, v.page
    )
}

/// `bytes` as base64, by coreutils' `base64` (as the AWS CLI prints a
/// binary attribute).
fn base64(bytes: &[u8]) -> String {
    let mut child = std::process::Command::new("base64")
        .arg("-w0")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("coreutils base64");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(bytes)
        .expect("write");
    let out = child.wait_with_output().expect("base64");
    String::from_utf8(out.stdout).expect("text")
}

#[tokio::test]
async fn key_attributes_read_a_single_table_design_and_decode_reads_its_keys() {
    let endpoint = dynalite::endpoint();
    let table = dynalite::fresh_table("cli-pksk");
    let store = DynamoStore::from_client_with::<Visit>(
        DynamoStore::local_client(&endpoint),
        &table,
        ItemShape::default().key_attributes("PK", "SK"),
    )
    .expect("a store");
    assert!(store.create_table().await.expect("create"), "created");
    let rows = visits();
    store.put_records(&rows).await.expect("write");
    let dir = tempfile::tempdir().expect("temp dir");
    let doc = document::<Visit>(dir.path());
    let tool = |args: &[&str]| {
        let mut all = vec![
            "--schema",
            &doc,
            "--dynamodb",
            &table,
            "--endpoint",
            &endpoint,
        ];
        all.extend_from_slice(args);
        run(&all, b"")
    };

    // Without the flag: the table's names, and the flag to give.
    let (code, _, stderr) = tool(&["scan", "user_id=u1"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains(&format!(
            "DynamoDB table {table} names its key attributes `PK` (partition) and `SK` (sort), not `pk` and `sk` as keyschema names them by default: give --key-attributes PK,SK"
        )),
        "{stderr}"
    );

    // With it: scan, get, hotspot and check read the rows written.
    let (code, stdout, stderr) = tool(&["--key-attributes", "PK,SK", "scan", "user_id=u1"]);
    assert_eq!(code, 0, "{stderr}");
    let mut u1: Vec<&Visit> = rows.iter().filter(|v| v.user_id == "u1").collect();
    u1.sort_by_key(|v| std::cmp::Reverse(v.timestamp));
    let want: Vec<String> = u1.iter().map(|v| line(v)).collect();
    assert_eq!(stdout.lines().collect::<Vec<_>>(), want);
    let (code, stdout, stderr) = tool(&[
        "get",
        "user_id=u2",
        "timestamp=1008",
        "--key-attributes",
        "PK,SK",
    ]);
    assert_eq!(
        (code, stdout.trim_end()),
        (0, line(&rows[8]).as_str()),
        "{stderr}"
    );
    let (code, stdout, stderr) = tool(&["--key-attributes", "PK,SK", "hotspot", "--top", "6"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        section(&stdout, "by user_id ("),
        (0..6).map(|u| (format!("u{u}"), 10)).collect::<Vec<_>>()
    );
    let (code, stdout, stderr) = tool(&["--key-attributes", "PK,SK", "check"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("all 60 sampled keys decode"), "{stdout}");
    // Names the table does not have: the names it has.
    let (code, _, stderr) = tool(&["--key-attributes", "pk1,sk1", "scan"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("names its key attributes `PK` (partition) and `SK` (sort), not `pk1` and `sk1` as --key-attributes names: give --key-attributes PK,SK"),
        "{stderr}"
    );

    // decode --input dynamodb: each item's key attributes as the AWS CLI
    // prints them (base64 of the stored binary), read straight from the
    // table with the SDK, decode to the row written under them.
    let scanned = store
        .client()
        .scan()
        .table_name(&table)
        .send()
        .await
        .expect("scan");
    let mut pairs = Vec::new();
    let mut jsons = Vec::new();
    let mut want = Vec::new();
    for item in scanned.items().iter().take(10) {
        let b = |name: &str| item[name].as_b().expect("binary").as_ref().to_vec();
        let (pk, sk) = (base64(&b("PK")), base64(&b("SK")));
        pairs.push(format!("{pk} {sk}"));
        jsons.push(format!(
            r#"{{"PK": {{"B": "{pk}"}}, "SK": {{"B": "{sk}"}}}}"#
        ));
        let page = item["page"].as_s().expect("page");
        let v = rows
            .iter()
            .find(|v| &v.page == page)
            .expect("a row written");
        want.push(format!("user_id={} timestamp={}", v.user_id, v.timestamp));
    }
    let args: Vec<&str> = ["--schema", doc.as_str(), "decode", "--input", "dynamodb"]
        .into_iter()
        .chain(pairs.iter().map(String::as_str))
        .collect();
    let (code, stdout, stderr) = run(&args, b"");
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout.lines().collect::<Vec<_>>(), want);
    let input = jsons.join("\n");
    let (code, stdout, stderr) = run(
        &[
            "--schema",
            &doc,
            "--key-attributes",
            "PK,SK",
            "decode",
            "--input",
            "dynamodb",
        ],
        input.as_bytes(),
    );
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout.lines().collect::<Vec<_>>(), want);
    // The JSON under other names than the flag's: said so.
    let (code, _, stderr) = run(
        &["--schema", &doc, "decode", "--input", "dynamodb", &jsons[0]],
        b"",
    );
    assert_eq!(code, 1);
    assert!(
        stderr.contains("no attribute `pk` in the key's JSON (it has [\"PK\", \"SK\"]): name the key attributes with --key-attributes"),
        "{stderr}"
    );
}

/// A server that answers every request with HTTP 400 and keeps the first
/// request's head: the region and access key the client signed with.
fn recording_server() -> (String, std::sync::mpsc::Receiver<String>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("address"));
    let (send, heads) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let mut buf = [0u8; 8192];
            let n = stream.read(&mut buf).unwrap_or(0);
            let _ = send.send(String::from_utf8_lossy(&buf[..n]).into_owned());
            let body = r#"{"__type":"com.amazon.coral.validate#ValidationException","message":"recorded"}"#;
            let _ = write!(
                stream,
                "HTTP/1.1 400 Bad Request\r\nContent-Type: application/x-amz-json-1.0\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    (url, heads)
}

/// The `Credential=KEY/DATE/REGION/dynamodb/aws4_request` of a request head.
fn credential(head: &str) -> String {
    let start = head.find("Credential=").expect("a signed request") + "Credential=".len();
    head[start..]
        .split([',', ' '])
        .next()
        .expect("a credential")
        .to_string()
}

#[test]
fn region_and_profile_reach_the_aws_client() {
    let dir = tempfile::tempdir().expect("temp dir");
    let doc = document::<Visit>(dir.path());
    let config = dir.path().join("config");
    let credentials = dir.path().join("credentials");
    std::fs::write(&config, "[profile other]\nregion = eu-north-1\n").expect("config");
    std::fs::write(
        &credentials,
        "[other]\naws_access_key_id = AKIDOTHERPROFILE\naws_secret_access_key = secret\n",
    )
    .expect("credentials");
    let tool = |url: &str, args: &[&str]| {
        let mut all = vec!["--schema", &doc, "--dynamodb", "t", "--endpoint", url];
        all.extend_from_slice(args);
        std::process::Command::new(common::cli::cli())
            .args(&all)
            .env("AWS_CONFIG_FILE", &config)
            .env("AWS_SHARED_CREDENTIALS_FILE", &credentials)
            .env_remove("AWS_REGION")
            .env_remove("AWS_DEFAULT_REGION")
            .env_remove("AWS_PROFILE")
            .env_remove("AWS_ACCESS_KEY_ID")
            .env_remove("AWS_SECRET_ACCESS_KEY")
            .output()
            .expect("keyschema")
    };

    // --region with a local endpoint: the request is signed for it.
    let (url, heads) = recording_server();
    let out = tool(&url, &["--region", "ap-south-2", "scan"]);
    assert_eq!(out.status.code(), Some(2));
    let head = heads.recv().expect("a request");
    assert!(
        credential(&head).ends_with("/ap-south-2/dynamodb/aws4_request"),
        "{head}"
    );
    // Without it: us-east-1, the local servers' default.
    let (url, heads) = recording_server();
    tool(&url, &["scan"]);
    assert!(credential(&heads.recv().expect("a request")).contains("/us-east-1/"));

    // --profile: its credentials and its region; --region still wins.
    let (url, heads) = recording_server();
    tool(&url, &["--profile", "other", "scan"]);
    let signed = credential(&heads.recv().expect("a request"));
    assert!(
        signed.starts_with("AKIDOTHERPROFILE/")
            && signed.ends_with("/eu-north-1/dynamodb/aws4_request"),
        "{signed}"
    );
    let (url, heads) = recording_server();
    tool(
        &url,
        &["--profile", "other", "--region", "us-west-2", "scan"],
    );
    let signed = credential(&heads.recv().expect("a request"));
    assert!(
        signed.starts_with("AKIDOTHERPROFILE/") && signed.contains("/us-west-2/"),
        "{signed}"
    );

    // A region that is no name is refused before any request.
    let (url, _heads) = recording_server();
    let out = tool(&url, &["--region", "eu west", "scan"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("--region \"eu west\": expected a region name"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[tokio::test]
async fn bigtable_takes_the_resource_name_form() {
    let rows = visits();
    let (host, table) = bigtable_of("cli-resource", &rows).await;
    let dir = tempfile::tempdir().expect("temp dir");
    let doc = document::<Visit>(dir.path());
    let short = format!("{}/{}/{table}", cbt::PROJECT, cbt::INSTANCE);
    let long = format!(
        "projects/{}/instances/{}/tables/{table}",
        cbt::PROJECT,
        cbt::INSTANCE
    );
    let scan = |path: &str| {
        run(
            &[
                "--schema",
                &doc,
                "--bigtable",
                path,
                "--emulator",
                &host,
                "scan",
                "user_id=u3",
            ],
            b"",
        )
    };
    let (code, by_long, stderr) = scan(&long);
    assert_eq!(code, 0, "{stderr}");
    let mut u3: Vec<&Visit> = rows.iter().filter(|v| v.user_id == "u3").collect();
    u3.sort_by_key(|v| std::cmp::Reverse(v.timestamp));
    assert_eq!(
        by_long.lines().collect::<Vec<_>>(),
        u3.iter().map(|v| line(v)).collect::<Vec<_>>()
    );
    assert_eq!(scan(&short).1, by_long);
    // The name the tool prints of the table is the form it takes.
    let (code, stdout, stderr) = run(
        &[
            "--schema",
            &doc,
            "--bigtable",
            &long,
            "--emulator",
            &host,
            "hotspot",
            "--rows",
            "10",
        ],
        b"",
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains(&format!("of Bigtable table {long})")),
        "{stdout}"
    );
    let (code, _, stderr) = scan("projects/p/instances/i/table/t");
    assert_eq!(code, 2);
    assert!(
        stderr.contains(
            "expected PROJECT/INSTANCE/TABLE or projects/PROJECT/instances/INSTANCE/tables/TABLE"
        ),
        "{stderr}"
    );
}
