//! `keyschema scan`, `get` and `check` read value fields of the user's own
//! types (a struct, an enum, a tuple struct, a newtype) by the schema
//! document's `types`, as the typed read does: rows another version of
//! the program wrote (an enum variant this version does not have, a
//! struct without a field this version requires, a field of another
//! kind, a tuple struct of another length) are error lines naming the
//! field and saying what serde's derive says, never good rows; good rows
//! print their structs and enums. On the Bigtable emulator and dynalite
//! (DynamoDB Local in CI). Ground truth: the rows the test wrote, and the
//! typed read (`get_record`), whose refusal the tool must repeat.

#![cfg(all(feature = "bigtable", feature = "dynamodb"))]

mod common;

use common::cli::{bigtable_of, document, lines_with, on_dynamodb, run};
use common::{cbt, dynalite};
use keyschema::store::AsyncRecordStore;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
pub struct Address {
    city: String,
    zip: Option<String>,
    #[serde(default)]
    floors: Vec<u8>,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
pub enum Status {
    #[default]
    Draft,
    Paid {
        on: u64,
    },
    Note(String),
    Moved(String, u32),
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
pub struct Leg(String, u32);

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
pub struct Grams(u32);

/// The parcels another version of the program wrote: each module's
/// `Address`, `Status` and `Leg` differ from this version's in one way.
macro_rules! parcel {
    ($address:ty, $status:ty, $leg:ty) => {
        #[derive(keyschema::RowKey, Debug, Clone, PartialEq)]
        #[rowkey(prefix = "p", then = (depot), n)]
        pub struct Parcel {
            pub depot: String,
            pub n: u32,
            #[rowkey(value)]
            pub dest: $address,
            #[rowkey(value)]
            pub status: $status,
            #[rowkey(value)]
            pub route: Vec<$leg>,
            #[rowkey(value)]
            pub weight: super::Grams,
        }
    };
}

#[allow(dead_code)]
mod this {
    use super::{Address, Leg, Status};
    parcel!(Address, Status, Leg);
}

/// A version whose enum has a variant this one lacks.
#[allow(dead_code)]
mod more_variants {
    use super::{Address, Leg};
    #[derive(serde::Serialize, serde::Deserialize, Debug, Clone, PartialEq, Default)]
    pub enum Status {
        #[default]
        Draft,
        Lost,
    }
    parcel!(Address, Status, Leg);
}

/// A version whose address has no city.
#[allow(dead_code)]
mod no_city {
    use super::{Leg, Status};
    #[derive(serde::Serialize, serde::Deserialize, Debug, Clone, PartialEq, Default)]
    pub struct Address {
        pub zip: Option<String>,
    }
    parcel!(Address, Status, Leg);
}

/// A version whose zip is a number and whose legs have three parts.
#[allow(dead_code)]
mod other_kinds {
    use super::{Address, Status};
    #[derive(serde::Serialize, serde::Deserialize, Debug, Clone, PartialEq, Default)]
    pub struct Leg(pub String, pub u32, pub bool);
    parcel!(Address, Status, Leg);
}

/// A version whose zip is a number.
#[allow(dead_code)]
mod numeric_zip {
    use super::{Leg, Status};
    #[derive(serde::Serialize, serde::Deserialize, Debug, Clone, PartialEq, Default)]
    pub struct Address {
        pub city: String,
        pub zip: Option<u32>,
    }
    parcel!(Address, Status, Leg);
}

fn parcels() -> Vec<this::Parcel> {
    (0..10u32)
        .map(|n| this::Parcel {
            depot: "d".into(),
            n,
            dest: Address {
                city: format!("c{n}"),
                zip: (n % 2 == 0).then(|| format!("{n:04}")),
                floors: vec![n as u8],
            },
            status: match n % 4 {
                0 => Status::Draft,
                1 => Status::Paid { on: u64::from(n) },
                2 => Status::Note(format!("n{n}")),
                _ => Status::Moved("x".into(), n),
            },
            route: vec![Leg("a".into(), n), Leg("b".into(), 2 * n)],
            weight: Grams(100 + n),
        })
        .collect()
}

/// The line `scan` prints for a parcel.
fn line(p: &this::Parcel) -> String {
    let zip = p
        .dest
        .zip
        .as_ref()
        .map_or("null".to_string(), |z| format!("{z:?}"));
    let status = match &p.status {
        Status::Draft => "\"Draft\"".to_string(),
        Status::Paid { on } => format!("{{\"Paid\": {{\"on\": {on}}}}}"),
        Status::Note(s) => format!("{{\"Note\": {s:?}}}"),
        Status::Moved(s, k) => format!("{{\"Moved\": [{s:?}, {k}]}}"),
    };
    let route: Vec<String> = p
        .route
        .iter()
        .map(|Leg(s, k)| format!("[{s:?}, {k}]"))
        .collect();
    format!(
        "depot={} n={} | dest={{\"city\": {:?}, \"zip\": {zip}, \"floors\": [{}]}} status={status} route=[{}] weight={}",
        p.depot,
        p.n,
        p.dest.city,
        p.dest.floors[0],
        route.join(", "),
        p.weight.0,
    )
}

/// The bad rows: `(n, what the typed read must say)`.
const BAD: [(u32, &str); 4] = [
    (
        2,
        "unknown variant `Lost`, expected one of `Draft`, `Paid`, `Note`, `Moved`",
    ),
    (4, "missing field `city`"),
    (6, "array had incorrect length, expected 2"),
    (8, "expected a string"),
];

fn bad_rows() -> (
    more_variants::Parcel,
    no_city::Parcel,
    other_kinds::Parcel,
    numeric_zip::Parcel,
) {
    let good = parcels();
    let p = |n: usize| &good[n];
    (
        more_variants::Parcel {
            depot: "d".into(),
            n: 2,
            dest: p(2).dest.clone(),
            status: more_variants::Status::Lost,
            route: p(2).route.clone(),
            weight: Grams(1),
        },
        no_city::Parcel {
            depot: "d".into(),
            n: 4,
            dest: no_city::Address { zip: None },
            status: Status::Draft,
            route: vec![],
            weight: Grams(1),
        },
        other_kinds::Parcel {
            depot: "d".into(),
            n: 6,
            dest: p(6).dest.clone(),
            status: Status::Draft,
            route: vec![other_kinds::Leg("a".into(), 1, true)],
            weight: Grams(1),
        },
        numeric_zip::Parcel {
            depot: "d".into(),
            n: 8,
            dest: numeric_zip::Address {
                city: "c".into(),
                zip: Some(7),
            },
            status: Status::Draft,
            route: vec![],
            weight: Grams(1),
        },
    )
}

/// Checks the tool's scan against the rows and the typed read's words.
fn assert_scan(typed: &[(u32, String)], (code, stdout, stderr): (i32, String, String)) {
    assert_eq!(code, 1, "rows were bad: {stdout}{stderr}");
    let want: Vec<String> = parcels()
        .iter()
        .filter(|p| !BAD.iter().any(|(n, _)| *n == p.n))
        .map(line)
        .collect();
    assert_eq!(stdout.lines().collect::<Vec<_>>(), want, "{stderr}");
    for ((n, words), (_, typed)) in BAD.iter().zip(typed) {
        assert!(typed.contains(words), "the typed read of {n}: {typed}");
        let said = lines_with(&stderr, &format!("n={n}:"));
        assert!(
            said.len() == 1 && said[0].contains(words),
            "row {n}: the typed read says {typed:?}; the tool said {stderr}"
        );
    }
}

/// What the typed read says of each bad row.
async fn typed_refusals<S: AsyncRecordStore>(store: &S) -> Vec<(u32, String)>
where
    S::Error: std::fmt::Display,
{
    let mut out = Vec::new();
    for (n, _) in BAD {
        let said = store
            .get_record::<this::Parcel>(&this::Parcel::get_key("d", n))
            .await
            .map(|r| format!("{r:?}"))
            .expect_err("the typed read refuses it")
            .to_string();
        out.push((n, said));
    }
    out
}

#[tokio::test]
async fn bigtable_rows_of_other_versions_are_error_lines() {
    let rows = parcels();
    let (host, table) = bigtable_of("cli-user-types", &rows).await;
    let store = keyschema::store::bigtable::BigtableStore::connect_emulator(
        &host,
        cbt::PROJECT,
        cbt::INSTANCE,
        &table,
    )
    .await
    .expect("connect");
    let (a, b, c, d) = bad_rows();
    store.put_record(&a).await.expect("write");
    store.put_record(&b).await.expect("write");
    store.put_record(&c).await.expect("write");
    store.put_record(&d).await.expect("write");
    let typed = typed_refusals(&store).await;

    let dir = tempfile::tempdir().expect("temp dir");
    let doc = document::<this::Parcel>(dir.path());
    let path = format!("{}/{}/{table}", cbt::PROJECT, cbt::INSTANCE);
    let tool = |args: &[&str]| {
        let mut all = vec!["--schema", &doc, "--bigtable", &path, "--emulator", &host];
        all.extend_from_slice(args);
        run(&all, b"")
    };
    assert_scan(&typed, tool(&["scan", "--limit", "100"]));
    let (code, stdout, _) = tool(&["get", "depot=d", "n=5"]);
    assert_eq!((code, stdout.trim_end()), (0, line(&rows[5]).as_str()));
    let (code, stdout, stderr) = tool(&["get", "depot=d", "n=2"]);
    assert_eq!((code, stdout.as_str()), (1, ""), "{stderr}");
    assert!(stderr.contains(BAD[0].1), "{stderr}");
    let (code, stdout, stderr) = tool(&["check"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(
        lines_with(&stdout, "FAIL")
            .iter()
            .any(|l| l.contains("4 of 10 sampled rows")),
        "{stdout}"
    );
}

#[tokio::test]
async fn dynamodb_items_of_other_versions_are_error_lines() {
    let store = dynalite::store::<this::Parcel>("cli-user-types").await;
    let rows = parcels();
    store.put_records(&rows).await.expect("write");
    let (a, b, c, d) = bad_rows();
    let table = store.table().to_string();
    macro_rules! put_as {
        ($row:expr, $ty:ty) => {
            keyschema::store::dynamodb::DynamoStore::connect_local::<$ty>(
                &dynalite::endpoint(),
                &table,
            )
            .expect("a store")
            .put_record(&$row)
            .await
            .expect("write")
        };
    }
    put_as!(a, more_variants::Parcel);
    put_as!(b, no_city::Parcel);
    put_as!(c, other_kinds::Parcel);
    put_as!(d, numeric_zip::Parcel);
    let typed = typed_refusals(&store).await;
    let dir = tempfile::tempdir().expect("temp dir");
    let doc = document::<this::Parcel>(dir.path());
    let tool = |args: &[&str]| on_dynamodb(&doc, &table, args);
    assert_scan(&typed, tool(&["scan", "depot=d", "--limit", "100"]));
    let (code, stdout, _) = tool(&["get", "depot=d", "n=3"]);
    assert_eq!((code, stdout.trim_end()), (0, line(&rows[3]).as_str()));
    // As JSON: the struct and enum as serde_json writes this version's.
    let (code, json, stderr) = tool(&["get", "depot=d", "n=3", "--json"]);
    assert_eq!(code, 0, "{stderr}");
    let json: serde_json::Value = serde_json::from_str(&json).expect("a JSON line");
    assert_eq!(
        json["dest"],
        serde_json::to_value(&rows[3].dest).expect("json")
    );
    assert_eq!(
        json["status"],
        serde_json::to_value(&rows[3].status).expect("json")
    );
    assert_eq!(
        json["route"],
        serde_json::to_value(&rows[3].route).expect("json")
    );
    let (code, stdout, stderr) = tool(&["check"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(
        lines_with(&stdout, "FAIL")
            .iter()
            .any(|l| l.contains("4 of 10 sampled rows")),
        "{stdout}"
    );
}
