//! Reading part of a row (`#[derive(Projection)]`) through the key type's
//! typed scans and gets, on every store: the same rows in the same order as
//! the whole rows give, each with the projected fields only; on Bigtable
//! and DynamoDB the store fetches no other column or attribute (a column or
//! attribute another program broke does not stop a projection that leaves
//! it out), and a row whose projected fields are all absent is still a row.

mod common;

use common::rows::{ledger, Ledger};
use keyschema::record::ValueError;
use keyschema::store::{MemoryStore, RecordStore, RedbStore, RowError, Store};
use keyschema::{Projection, RowKey};

/// The amounts of a ledger, and the note: no memo, tags or address.
#[derive(Projection, Debug, Clone, PartialEq)]
#[projection(of = Ledger)]
struct Amount {
    invoice_id: String,
    line_no: u16,
    #[projection(value)]
    amount: i64,
    #[projection(value)]
    note: Option<String>,
    #[projection(skip)]
    checked: bool,
}

/// The line numbers alone: no value field at all.
#[derive(Projection, Debug, Clone, PartialEq)]
#[projection(of = Ledger)]
struct LineNo {
    line_no: u16,
}

fn amount_of(line: &Ledger) -> Amount {
    Amount {
        invoice_id: line.invoice_id.clone(),
        line_no: line.line_no,
        amount: line.amount,
        note: line.note.clone(),
        checked: false,
    }
}

fn projections_read_as_the_whole_rows<S: Store>(store: &S) {
    let lines: Vec<Ledger> = (1..=5).map(|n| ledger("INV-1", n)).collect();
    store.put_records(&lines).expect("put");
    store.put_record(&ledger("INV-2", 1)).expect("put");

    let amounts: Vec<Amount> = Ledger::scan()
        .invoice_id("INV-1")
        .project::<Amount>()
        .run(store)
        .collect::<Result<_, _>>()
        .expect("scan");
    assert_eq!(amounts, lines.iter().map(amount_of).collect::<Vec<_>>());

    // The request's order, limit and cursor carry over.
    let newest: Vec<u16> = Ledger::scan()
        .invoice_id("INV-1")
        .reverse()
        .limit(2)
        .project::<LineNo>()
        .run(store)
        .map(|r| r.expect("row").line_no)
        .collect();
    assert_eq!(newest, [5, 4]);
    let request = Ledger::scan().invoice_id("INV-1").limit(3);
    let mut first = request.clone().project::<LineNo>().run(store);
    assert_eq!(first.next().expect("a row").expect("row").line_no, 1);
    let cursor = first.inner().cursor();
    let rest: Vec<u16> = request
        .after(cursor)
        .project::<LineNo>()
        .run(store)
        .map(|r| r.expect("row").line_no)
        .collect();
    assert_eq!(rest, [2, 3, 4], "the limit is per run");

    // Gets.
    let key = Ledger::get_key("INV-1", 3);
    assert_eq!(
        store.get_projected::<Amount>(&key).expect("get"),
        Some(amount_of(&lines[2]))
    );
    assert_eq!(
        store
            .get_projected::<Amount>(&Ledger::get_key("INV-9", 1))
            .expect("get"),
        None
    );
}

#[test]
fn projections_on_the_memory_store() {
    projections_read_as_the_whole_rows(&MemoryStore::new());
}

#[test]
fn projections_on_redb() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = RedbStore::open(dir.path()).expect("redb");
    projections_read_as_the_whole_rows(&store);
}

/// A projected field missing from a stored row is the same typed error as
/// for the whole row, naming the field and the key; a field the projection
/// leaves out may be missing.
#[test]
fn a_required_projected_field_missing_is_an_error_naming_it() {
    use keyschema::store::RowStore;
    let store = MemoryStore::new();
    let line = ledger("INV-1", 1);
    // Written by another program: `amount` only, as a MessagePack map.
    let mut value = vec![0x81, 0xa6];
    value.extend_from_slice(b"amount");
    value.push(0x07);
    store.put_row(&line, &value).expect("put");
    let key = line.encode();
    assert!(matches!(
        store.get_record::<Ledger>(&key),
        Err(RowError::Value {
            source: ValueError::Missing { field: "memo" },
            ..
        })
    ));
    let amount = store.get_projected::<Amount>(&key).expect("get");
    assert_eq!(amount.map(|a| (a.amount, a.note)), Some((7, None)));

    store.put_row(&line, &[0x80]).expect("put");
    match store.get_projected::<Amount>(&key) {
        Err(RowError::Value {
            schema,
            key: at,
            source: ValueError::Missing { field: "amount" },
        }) => {
            assert_eq!(schema, "Ledger");
            assert_eq!(at, key);
        }
        other => panic!("expected the missing amount, got {other:?}"),
    }
    let rows: Vec<_> = Ledger::scan()
        .invoice_id("INV-1")
        .project::<Amount>()
        .run(&store)
        .collect();
    assert!(
        matches!(rows[..], [Err(RowError::Value { .. })]),
        "{rows:?}"
    );
}

#[test]
fn a_projection_reads_only_its_fields() {
    assert_eq!(
        <Amount as keyschema::Projection>::VALUES
            .iter()
            .map(|f| (f.name, f.required))
            .collect::<Vec<_>>(),
        [("amount", true), ("note", false)]
    );
    let schema = <Amount as keyschema::Projection>::schema();
    assert_eq!(schema.name(), "Ledger");
    assert_eq!(schema.values(), Ledger::schema().values());
    assert_eq!(
        schema.projection().map(<[_]>::len),
        Some(2),
        "the projection is what reads fetch"
    );
    assert_eq!(Ledger::schema().projection(), None);
    assert_eq!(schema.to_json(), Ledger::schema().to_json());
}
