//! Whole rows on Bigtable, against the real emulator: each value field its
//! own column of the key type's family, read by name by the library and by
//! Google's `cbt`, written by `cbt` and read by the library; rows of an
//! older struct; compare-and-set on a whole row's cells.
#![cfg(feature = "bigtable")]

mod common;

use common::cbt;
use common::emulator;
use common::rows::{ledger, Ledger};
use futures_util::StreamExt;
use keyschema::record::{cells, encode_values};
use keyschema::store::bigtable::{BigtableError, BigtableStore};
use keyschema::store::{AsyncRecordStore, AsyncStore, Cas, RowError};
use keyschema::RowKey;

async fn store_for<K: RowKey>(name: &str) -> (BigtableStore, String) {
    let table = emulator::fresh_table(name);
    let store =
        BigtableStore::connect_emulator(&emulator::host(), cbt::PROJECT, cbt::INSTANCE, &table)
            .await
            .expect("connect to the emulator");
    store.create_table_for::<K>().await.expect("create table");
    (store, table)
}

/// `cbt read TABLE`, as text (cbt quotes every value).
fn cbt_read(table: &str, extra: &[&str]) -> String {
    let mut args = vec!["read", table];
    args.extend(extra);
    String::from_utf8_lossy(&cbt::run(&emulator::host(), &args)).into_owned()
}

/// The lines cbt prints for one column: its `family:qualifier` line and
/// the quoted value under it.
fn cbt_cell(output: &str, column: &str) -> Option<String> {
    let mut lines = output.lines();
    while let Some(line) = lines.next() {
        if line.trim_start().starts_with(&format!("{column} ")) {
            return lines.next().map(|v| v.trim().to_string());
        }
    }
    None
}

#[tokio::test]
async fn a_whole_row_is_one_cell_per_field_that_cbt_reads_by_name() {
    let (store, table) = store_for::<Ledger>("rows").await;
    let line = ledger("INV-1", 2);
    store.put_record(&line).await.expect("put");
    assert_eq!(
        store
            .get_record::<Ledger>(&line.encode())
            .await
            .expect("get"),
        Some(line.clone())
    );

    let output = cbt_read(&table, &[]);
    println!("cbt read {table}:\n{output}");
    // Text as text, integers as Bigtable's 64-bit big-endian, bools as
    // words, nested values as MessagePack; `None` has no cell.
    assert_eq!(cbt_cell(&output, "f:memo").as_deref(), Some("\"rent 2\""));
    assert_eq!(
        cbt_cell(&output, "f:amount").as_deref(),
        Some(r#""\x00\x00\x00\x00\x00\x00\x03\xe8""#)
    );
    assert_eq!(cbt_cell(&output, "f:paid").as_deref(), Some("\"true\""));
    assert_eq!(
        cbt_cell(&output, "f:approved_by").as_deref(),
        Some("\"ana\"")
    );
    assert!(cbt_cell(&output, "f:note").is_none(), "{output}");
    assert!(cbt_cell(&output, "v:v").is_none(), "{output}");
    let columns = output.lines().filter(|l| l.starts_with("  f:")).count();
    assert_eq!(columns, 9, "{output}");

    // With the format file the library writes, cbt prints numbers.
    let format = std::env::temp_dir().join(format!("{table}.yml"));
    std::fs::write(&format, cells::cbt_format_file(Ledger::schema())).expect("write");
    let output = cbt_read(&table, &[&format!("format-file={}", format.display())]);
    println!("cbt read {table} format-file=...:\n{output}");
    assert_eq!(cbt_cell(&output, "f:amount").as_deref(), Some("1000"));
    assert_eq!(cbt_cell(&output, "f:ratio").as_deref(), Some("0.25"));
    assert_eq!(cbt_cell(&output, "f:memo").as_deref(), Some("\"rent 2\""));
    let _ = std::fs::remove_file(format);
}

/// A meter's readings: an unsigned counter above `i64::MAX` and a negative
/// small integer, as the format file has cbt print them.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(then = (id), family = "m")]
struct Meter {
    id: String,
    #[rowkey(value)]
    reading: u64,
    #[rowkey(value)]
    delta: i32,
    #[rowkey(value)]
    level: Option<u8>,
}

#[tokio::test]
async fn the_format_file_has_cbt_print_unsigned_and_signed_integers() {
    let (store, table) = store_for::<Meter>("rows-meter").await;
    let meter = Meter {
        id: "m1".into(),
        reading: u64::MAX - 1,
        delta: -3,
        level: Some(200),
    };
    store.put_record(&meter).await.expect("put");
    let format = std::env::temp_dir().join(format!("{table}.yml"));
    std::fs::write(&format, cells::cbt_format_file(Meter::schema())).expect("write");
    let output = cbt_read(&table, &[&format!("format-file={}", format.display())]);
    println!("cbt read {table} format-file=...:\n{output}");
    assert_eq!(
        cbt_cell(&output, "m:reading").as_deref(),
        Some("18446744073709551614")
    );
    assert_eq!(cbt_cell(&output, "m:delta").as_deref(), Some("-3"));
    assert_eq!(cbt_cell(&output, "m:level").as_deref(), Some("200"));
    let _ = std::fs::remove_file(format);
}

#[tokio::test]
async fn puts_replaces_deletes_and_scans_of_whole_rows() {
    let (store, table) = store_for::<Ledger>("rows-ops").await;
    let lines: Vec<Ledger> = (1..=4).map(|l| ledger("INV-2", l)).collect();
    store.put_records(&lines).await.expect("put");
    let scanned: Vec<Ledger> = Ledger::scan()
        .invoice_id("INV-2")
        .request()
        .stream(&store)
        .records()
        .map(|r| r.expect("a whole row"))
        .collect()
        .await;
    assert_eq!(scanned, lines);
    let newest: Vec<u16> = Ledger::scan()
        .invoice_id("INV-2")
        .request()
        .reverse()
        .limit(2)
        .stream(&store)
        .records()
        .map(|r| r.expect("a whole row").line_no)
        .collect()
        .await;
    assert_eq!(newest, [4, 3]);

    // A replace that clears a field removes its cell: nothing stale is read.
    let mut first = lines[0].clone();
    assert!(first.note.is_some());
    first.note = None;
    first.memo = "rent, corrected".into();
    store.replace_record(&first).await.expect("replace");
    let key = first.encode();
    assert_eq!(
        store.get_record::<Ledger>(&key).await.expect("get"),
        Some(first.clone())
    );
    assert!(cbt_cell(&cbt_read(&table, &["count=1"]), "f:note").is_none());

    store.delete_row(&first).await.expect("delete");
    assert_eq!(store.get_record::<Ledger>(&key).await.expect("get"), None);
}

/// A text key, so that `cbt` can address its rows from a shell.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(format = text, then = (invoice_id), line_no, family = "ledger")]
struct Memo {
    invoice_id: String,
    line_no: u16,
    #[rowkey(value)]
    memo: String,
    #[rowkey(value)]
    paid: bool,
    #[rowkey(value)]
    note: Option<String>,
    #[rowkey(value, default)]
    approved_by: String,
}

#[tokio::test]
async fn cells_cbt_wrote_are_read_by_field_name() {
    let (store, table) = store_for::<Memo>("rows-cbt").await;
    let host = emulator::host();
    let one = String::from_utf8(Memo::get_key("INV-3", 1)).expect("a text key");
    let two = String::from_utf8(Memo::get_key("INV-3", 2)).expect("a text key");
    // A row with an unknown column and no `note` or `approved_by`.
    cbt::run(
        &host,
        &[
            "set",
            &table,
            &one,
            "ledger:memo=hello",
            "ledger:paid=true",
            "ledger:written_by=cbt",
        ],
    );
    // A row without its required `memo`.
    cbt::run(&host, &["set", &table, &two, "ledger:paid=false"]);

    let expected = Memo {
        invoice_id: "INV-3".into(),
        line_no: 1,
        memo: "hello".into(),
        paid: true,
        note: None,
        approved_by: String::new(),
    };
    assert_eq!(
        store.get_record::<Memo>(one.as_bytes()).await.expect("get"),
        Some(expected.clone())
    );
    match store.get_record::<Memo>(two.as_bytes()).await {
        Err(RowError::Value { key, source, .. }) => {
            assert_eq!(key, two.as_bytes());
            assert_eq!(source, keyschema::ValueError::Missing { field: "memo" });
        }
        other => panic!("expected the missing field named, got {other:?}"),
    }
    // A scan reports the broken row as an error item and reads on.
    let rows: Vec<Result<Memo, _>> = Memo::scan()
        .invoice_id("INV-3")
        .request()
        .stream(&store)
        .records()
        .collect()
        .await;
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0].as_ref().expect("the first row"), &expected);
    assert!(matches!(rows[1], Err(RowError::Value { .. })));
}

/// The ledger line as an older version of the program declared it: a
/// field since removed (`legacy`), the fields in another order, none of
/// the ones added since.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(format = text, then = (invoice_id), line_no, family = "ledger")]
struct MemoV1 {
    invoice_id: String,
    line_no: u16,
    #[rowkey(value)]
    paid: bool,
    #[rowkey(value)]
    legacy: u32,
    #[rowkey(value)]
    memo: String,
}

#[tokio::test]
async fn rows_an_older_struct_wrote_read_with_the_next() {
    let (store, _) = store_for::<Memo>("rows-evolve").await;
    let old = MemoV1 {
        invoice_id: "INV-4".into(),
        line_no: 1,
        paid: true,
        legacy: 7,
        memo: "from v1".into(),
    };
    store.put_record(&old).await.expect("put v1");
    let read = store
        .get_record::<Memo>(&old.encode())
        .await
        .expect("get v2")
        .expect("stored");
    assert_eq!(
        read,
        Memo {
            invoice_id: "INV-4".into(),
            line_no: 1,
            memo: "from v1".into(),
            paid: true,
            note: None,
            approved_by: String::new(),
        }
    );
    // And back: v1 reads what v2 wrote, its removed field missing.
    store.put_record(&read).await.expect("put v2");
    match store.get_record::<MemoV1>(&old.encode()).await {
        Err(RowError::Value { source, .. }) => {
            assert_eq!(source, keyschema::ValueError::Missing { field: "legacy" })
        }
        other => panic!("v1 needs `legacy`: {other:?}"),
    }
}

#[tokio::test]
async fn a_compare_and_set_expects_exactly_the_rows_cells() {
    let (store, table) = store_for::<Memo>("rows-cas").await;
    let host = emulator::host();
    let schema = Memo::schema();
    let row = Memo {
        invoice_id: "INV-5".into(),
        line_no: 1,
        memo: "first".into(),
        paid: false,
        note: Some("n".into()),
        approved_by: "ana".into(),
    };
    let key = row.encode();
    let text_key = String::from_utf8(key.clone()).expect("a text key");
    store.put_record(&row).await.expect("put");
    let read = || async {
        let found = store
            .get_many_for(schema, vec![key.clone()])
            .await
            .expect("get");
        found.into_iter().next().map(|(_, value)| value)
    };
    let stored = read().await.expect("stored");
    let mut next = row.clone();
    next.memo = "second".into();
    let set = encode_values(&next).expect("values");
    let cas = |expect: Option<Vec<u8>>| Cas {
        key: key.clone(),
        expect,
        set: Some(set.clone()),
    };
    let apply = |batch: Vec<Cas>| store.compare_and_write_for(schema, batch);

    // Absent expected, present found; another value of one cell.
    let mut other = row.clone();
    other.memo = "not it".into();
    let other_cells = {
        store.put_record(&other).await.expect("put");
        let cells = read().await.expect("stored");
        store.put_record(&row).await.expect("put back");
        cells
    };
    assert_eq!(
        apply(vec![cas(None), cas(Some(other_cells))])
            .await
            .expect("cas"),
        [false, false]
    );
    // A cell more (another program's column), then a cell less.
    cbt::run(&host, &["set", &table, &text_key, "ledger:extra=x"]);
    assert_eq!(
        apply(vec![cas(Some(stored.clone()))]).await.expect("cas"),
        [false]
    );
    cbt::run(
        &host,
        &["deletecolumn", &table, &text_key, "ledger", "extra"],
    );
    cbt::run(
        &host,
        &["deletecolumn", &table, &text_key, "ledger", "note"],
    );
    assert_eq!(
        apply(vec![cas(Some(stored.clone()))]).await.expect("cas"),
        [false]
    );
    // The exact cells: applied, and the row is the new one.
    store.put_record(&row).await.expect("put back");
    assert_eq!(read().await.as_ref(), Some(&stored));
    assert_eq!(apply(vec![cas(Some(stored))]).await.expect("cas"), [true]);
    assert_eq!(
        store.get_record::<Memo>(&key).await.expect("get"),
        Some(next)
    );
    // On an absent row, expecting cells does nothing.
    store.delete_row(&row).await.expect("delete");
    let gone = encode_values(&row).expect("values");
    assert_eq!(apply(vec![cas(Some(gone))]).await.expect("cas"), [false]);
    assert_eq!(read().await, None);
}

#[tokio::test]
async fn raw_bytes_for_a_whole_row_type_are_refused_and_older_rows_in_v_still_read() {
    let (store, _) = store_for::<Ledger>("rows-raw").await;
    let line = ledger("INV-6", 1);
    match store.put_row(&line, b"raw bytes").await {
        Err(BigtableError::Value { key, .. }) => assert_eq!(key, line.encode()),
        other => panic!("raw bytes for a whole-row type must be refused: {other:?}"),
    }
    // What a whole row was before it had columns: its map in `v:v`.
    store
        .put(&line.encode(), &encode_values(&line).expect("values"))
        .await
        .expect("raw put");
    assert_eq!(
        store
            .get_record::<Ledger>(&line.encode())
            .await
            .expect("get"),
        Some(line)
    );
}

/// Fields whose value is nil (`()`, `serde_json::Value::Null`) have no
/// cell, as `None` has none, and read back as nil; a row far above tonic's
/// default 4 MiB message limit reads back whole.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(then = (id), n)]
struct Nils {
    id: String,
    n: u32,
    #[rowkey(value)]
    unit: (),
    #[rowkey(value)]
    meta: serde_json::Value,
    #[rowkey(value)]
    big: String,
}

#[tokio::test]
async fn nil_fields_and_rows_over_4_mib_read_back() {
    let (store, _) = store_for::<Nils>("rows-nil").await;
    let rows = [
        Nils {
            id: "a".into(),
            n: 1,
            unit: (),
            meta: serde_json::Value::Null,
            big: String::new(),
        },
        Nils {
            id: "a".into(),
            n: 2,
            unit: (),
            meta: serde_json::Value::Null,
            big: "x".repeat(5 << 20),
        },
    ];
    for row in &rows {
        store.put_record(row).await.expect("put");
        let got = store.get_record::<Nils>(&row.encode()).await.expect("get");
        assert_eq!(got.as_ref(), Some(row));
    }
    let scanned: Vec<Nils> = Nils::scan()
        .id("a")
        .request()
        .stream(&store)
        .records()
        .map(|r| r.expect("a row"))
        .collect()
        .await;
    assert_eq!(scanned, rows);
}
