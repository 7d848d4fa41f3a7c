//! `keyschema hotspot`, `splits` and `check` over a shared table (the
//! single-table design: rows of several key types under their own
//! prefixes), one `--schema` per layout: each sampled key counted under the
//! layout whose prefix it carries, a report per layout and the table's
//! total, keys of no given layout counted; documents whose prefixes overlap
//! refused, and `scan`/`get` given several refused. Two layouts (and a
//! third, not given) on one emulator table and one dynalite table; ground
//! truth is counted from the rows the test wrote.

#![cfg(all(feature = "bigtable", feature = "dynamodb"))]

mod common;

use common::cli::{document, on_dynamodb, run, section};
use common::{cbt, dynalite, emulator};
use keyschema::dynamic::DynSchema;
use keyschema::store::bigtable::BigtableStore;
use keyschema::store::dynamodb::DynamoStore;
use keyschema::store::AsyncRecordStore;
use keyschema::RowKey;
use std::collections::BTreeMap;

/// Clicks, a hot user among them.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(prefix = "ev", salt = hash(user_id) % 4, then = (user_id), timestamp)]
struct Click {
    user_id: String,
    timestamp: u64,
    #[rowkey(value)]
    page: String,
}

/// Orders, in the same table under their own prefix.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(prefix = "or", salt = hash(customer) % 2, then = (customer), order_id)]
struct Order {
    customer: String,
    order_id: u64,
    #[rowkey(value)]
    total_cents: u64,
}

/// A third layout in the table, whose document is not given.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(prefix = "zz", then = (name), n)]
struct Stray {
    name: String,
    n: u32,
    #[rowkey(value)]
    note: String,
}

/// A layout without a prefix: its keys may begin like any other's.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(then = (name), n)]
struct Bare {
    name: String,
    n: u32,
}

fn clicks() -> Vec<Click> {
    (0..600u64)
        .map(|i| Click {
            // A third of the clicks are the hot user's.
            user_id: if i % 3 == 0 {
                "hot".into()
            } else {
                format!("u{}", i % 41)
            },
            timestamp: 1_700_000_000 + i,
            page: format!("/p/{i}"),
        })
        .collect()
}

fn orders() -> Vec<Order> {
    (0..300u64)
        .map(|i| Order {
            customer: format!("c{}", i % 17),
            order_id: i,
            total_cents: i * 100,
        })
        .collect()
}

fn strays() -> Vec<Stray> {
    (0..50u32)
        .map(|n| Stray {
            name: "s".into(),
            n,
            note: "x".into(),
        })
        .collect()
}

/// Row counts per salt bucket of `K`'s keys.
fn by_bucket<K: RowKey>(rows: &[K]) -> BTreeMap<String, u64> {
    let mut counts = BTreeMap::new();
    for r in rows {
        let b = K::schema().bucket_of(&r.encode()).expect("bucket");
        *counts.entry(format!("bucket {b}")).or_default() += 1;
    }
    counts
}

/// The part of `stdout` reporting on `name`: from its `=== ` heading to
/// the next.
fn part<'a>(stdout: &'a str, name: &str) -> &'a str {
    let heading = format!("=== `{name}`");
    let start = stdout
        .find(&heading)
        .unwrap_or_else(|| panic!("no part {heading} in\n{stdout}"));
    let rest = &stdout[start..];
    let end = rest[4..].find("\n=== ").map_or(rest.len(), |e| e + 4);
    &rest[..end]
}

/// Checks a `hotspot` report over the shared table holding every click,
/// order and stray: the table's total by layout, each layout's buckets
/// and its hottest partition key, all counted from the rows written
/// (`--rows` above the row count: every row is in the sample).
fn check_hotspot(stdout: &str) {
    let (clicks, orders) = (clicks(), orders());
    assert!(
        stdout.starts_with("950 keys sampled ("),
        "every row sampled: {stdout}"
    );
    let layouts = section(stdout, "by layout (2 schema documents");
    assert_eq!(
        layouts,
        vec![
            ("`Click` (click.json)".to_string(), 600),
            ("`Order` (order.json)".to_string(), 300),
            ("(no given layout)".to_string(), 50),
        ],
        "{stdout}"
    );
    assert!(
        stdout.contains("50 keys of no given layout (first: "),
        "{stdout}"
    );
    let click = part(stdout, "Click");
    assert!(click.contains("\n600 keys sampled ("), "{click}");
    let reported: BTreeMap<String, u64> = section(click, "by bucket").into_iter().collect();
    assert_eq!(reported, by_bucket(&clicks), "{click}");
    let hot = clicks.iter().filter(|c| c.user_id == "hot").count() as u64;
    assert_eq!(
        section(click, "by partition key (user_id)")[0],
        ("hot".to_string(), hot),
        "{click}"
    );
    let order = part(stdout, "Order");
    assert!(order.contains("\n300 keys sampled ("), "{order}");
    let reported: BTreeMap<String, u64> = section(order, "by bucket").into_iter().collect();
    assert_eq!(reported, by_bucket(&orders), "{order}");
    assert!(
        !order.contains("are not keys of"),
        "no key of Order's prefix is another's: {order}"
    );
}

/// The split points printed for each layout: those planned from its own
/// rows alone, each rendered by its layout.
fn check_splits(stdout: &str) {
    let plan = |json: &str, keys: Vec<Vec<u8>>| {
        let layout = DynSchema::from_json(json).expect("layout");
        let points = layout.split_points(keys.iter().map(Vec::as_slice), 2);
        points
            .iter()
            .map(|p| layout.render_prefix(p))
            .collect::<Vec<_>>()
    };
    let clicks = plan(
        &Click::schema().to_json(),
        clicks().iter().map(RowKey::encode).collect(),
    );
    let orders = plan(
        &Order::schema().to_json(),
        orders().iter().map(RowKey::encode).collect(),
    );
    for (name, want, sampled) in [("Click", clicks, 600), ("Order", orders, 300)] {
        let part = part(stdout, name);
        let mut lines = part.lines().skip(1);
        assert_eq!(
            lines.next(),
            Some(
                format!(
                    "{} split points from {sampled} sampled keys (0 not of this schema, ignored)",
                    want.len()
                )
                .as_str()
            ),
            "{part}"
        );
        let printed: Vec<&str> = lines.take_while(|l| !l.is_empty()).collect();
        assert_eq!(printed.len(), want.len(), "{part}");
        for (line, rendered) in printed.iter().zip(&want) {
            assert!(
                line.ends_with(&format!("  {rendered}")),
                "{line} / {rendered}"
            );
        }
    }
}

/// Writes `name.json` of `K` into `dir`: its path.
fn doc<K: RowKey>(dir: &std::path::Path, name: &str) -> String {
    let path = dir.join(format!("{name}.json"));
    std::fs::write(&path, K::schema().to_json()).expect("document");
    path.to_str().expect("path").to_string()
}

#[tokio::test]
async fn two_layouts_on_one_bigtable_table() {
    let host = emulator::host();
    let table = emulator::fresh_table("cli-shared");
    let connect = || BigtableStore::connect_emulator(&host, cbt::PROJECT, cbt::INSTANCE, &table);
    let store = connect().await.expect("connect");
    store.create_table_for::<Click>().await.expect("create");
    store.put_records(&clicks()).await.expect("clicks");
    store.put_records(&orders()).await.expect("orders");
    store.put_records(&strays()).await.expect("strays");
    let dir = tempfile::tempdir().expect("temp dir");
    let (click, order, stray) = (
        doc::<Click>(dir.path(), "click"),
        doc::<Order>(dir.path(), "order"),
        doc::<Stray>(dir.path(), "stray"),
    );
    let bare = document::<Bare>(dir.path());
    let path = format!("{}/{}/{table}", cbt::PROJECT, cbt::INSTANCE);
    let tool = |docs: &[&str], args: &[&str]| {
        let mut all = Vec::new();
        for d in docs {
            all.extend(["--schema", d]);
        }
        all.extend(["--bigtable", &path, "--emulator", &host]);
        all.extend_from_slice(args);
        run(&all, b"")
    };

    let (code, stdout, stderr) = tool(&[&click, &order], &["hotspot", "--rows", "5000"]);
    // Keys of no given layout: reported, and the exit status says so.
    assert_eq!(code, 1, "{stderr}\n{stdout}");
    check_hotspot(&stdout);
    println!("{stdout}");

    let (code, stdout, stderr) = tool(
        &[&click, &order],
        &["splits", "--rows", "5000", "--per-bucket", "2"],
    );
    assert_eq!(code, 1, "{stderr}\n{stdout}");
    check_splits(&stdout);
    assert!(stdout.contains("50 keys of no given layout"), "{stdout}");

    // Every layout given: every check passes, per layout.
    let (code, stdout, stderr) = tool(&[&click, &order, &stray], &["check", "--rows", "5000"]);
    assert_eq!(code, 0, "{stderr}\n{stdout}");
    println!("{stdout}");
    for (name, n) in [("Click", 600), ("Order", 300), ("Stray", 50)] {
        let part = part(&stdout, name);
        assert!(
            part.contains(&format!("ok    keys: all {n} sampled keys decode")),
            "{part}"
        );
        assert!(part.contains("ok    values: "), "{part}");
        assert!(!part.contains("FAIL"), "{part}");
    }
    // Two of three: the third layout's keys are a failed check.
    let (code, stdout, _) = tool(&[&click, &order], &["check", "--rows", "5000"]);
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.contains("FAIL  layouts: 50 of 950 sampled keys are of no given layout"),
        "{stdout}"
    );

    // Documents whose prefixes overlap: refused, both named.
    let (code, _, stderr) = tool(&[&click, &bare], &["hotspot"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("click.json") && stderr.contains("Bare.json") && stderr.contains("overlap"),
        "{stderr}"
    );
    let (code, _, stderr) = tool(&[&click, &click], &["hotspot"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("overlap"), "{stderr}");

    // scan and get read one layout: several documents are refused.
    let (code, stdout, stderr) = tool(&[&click, &order], &["scan"]);
    assert_eq!((code, stdout.as_str()), (2, ""), "{stderr}");
    assert!(
        stderr.contains("--schema was given 2 times") && stderr.contains("scan"),
        "{stderr}"
    );
    let (code, _, stderr) = tool(&[&click, &click], &["decode", "x"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains(
            "`decode` reads the rows or keys of one layout, and --schema was given 2 times"
        ),
        "{stderr}"
    );
    let (code, _, stderr) = tool(&[&click, &order], &["get", "user_id=hot", "timestamp=1"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("--schema was given 2 times"), "{stderr}");
    // One document on the shared table: the other layouts' keys are met,
    // and the tool says --schema can be repeated.
    let (code, stdout, stderr) = tool(&[&click], &["hotspot", "--rows", "5000"]);
    assert_eq!(code, 1, "{stderr}\n{stdout}");
    let said = stdout
        .lines()
        .find(|l| l.contains("are not keys of `Click`"))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(
        said.starts_with("350 keys") && said.contains("repeat --schema"),
        "{said}"
    );
    let (code, stdout, _) = tool(&[&click], &["check", "--rows", "5000"]);
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.contains("350 of 950 sampled keys") && stdout.contains("repeat --schema"),
        "{stdout}"
    );
    // One document still reads as before.
    let (code, stdout, stderr) = tool(&[&order], &["scan", "customer=c1", "--limit", "1"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.starts_with("customer=c1 order_id=1 |"), "{stdout}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_layouts_on_one_dynamodb_table() {
    let store = dynalite::store::<Click>("cli-shared-ddb").await;
    let table = store.table().to_string();
    store.put_records(&clicks()).await.expect("clicks");
    let endpoint = dynalite::endpoint();
    let on_table = DynamoStore::connect_local::<Order>(&endpoint, &table).expect("orders");
    on_table.put_records(&orders()).await.expect("orders");
    let on_table = DynamoStore::connect_local::<Stray>(&endpoint, &table).expect("strays");
    on_table.put_records(&strays()).await.expect("strays");
    let dir = tempfile::tempdir().expect("temp dir");
    let (click, order) = (
        doc::<Click>(dir.path(), "click"),
        doc::<Order>(dir.path(), "order"),
    );
    let tool = |args: &[&str]| {
        let mut all = vec!["--schema", &order];
        all.extend_from_slice(args);
        on_dynamodb(&click, &table, &all)
    };
    let (code, stdout, stderr) = tool(&["hotspot", "--rows", "5000"]);
    assert_eq!(code, 1, "{stderr}\n{stdout}");
    check_hotspot(&stdout);
    let (code, stdout, stderr) = tool(&["splits", "--rows", "5000", "--per-bucket", "2"]);
    assert_eq!(code, 1, "{stderr}\n{stdout}");
    check_splits(&stdout);
    let (code, stdout, _) = tool(&["check", "--rows", "5000"]);
    assert_eq!(code, 1, "{stdout}");
    for (name, n) in [("Click", 600), ("Order", 300)] {
        let part = part(&stdout, name);
        assert!(
            part.contains(&format!("ok    keys: all {n} sampled keys decode")),
            "{part}"
        );
        assert!(part.contains("ok    values: "), "{part}");
    }
    assert!(
        stdout.contains("FAIL  layouts: 50 of 950 sampled keys are of no given layout"),
        "{stdout}"
    );
    let (code, _, stderr) = tool(&["scan", "user_id=hot"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("--schema was given 2 times"), "{stderr}");
}
