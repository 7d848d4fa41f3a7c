//! Projections on the services, against the real servers (cbtemulator,
//! dynalite or DynamoDB Local): what the store returns for a projection's
//! scan and get holds the projected columns or attributes only (on
//! Bigtable, one more cell with its value stripped, so that a row whose
//! projected fields are all absent is still a row). A cell or attribute
//! another program broke fails the whole row's read and not a projection
//! that leaves it out.
#![cfg(all(feature = "bigtable", feature = "dynamodb"))]

mod common;

use common::rows::{ledger, Ledger};
use futures_util::StreamExt;
use keyschema::store::{AsyncRecordStore, RowError};
use keyschema::{Projection, RowKey};

#[derive(Projection, Debug, Clone, PartialEq)]
#[projection(of = Ledger)]
struct Amount {
    line_no: u16,
    #[projection(value)]
    amount: i64,
    #[projection(value)]
    note: Option<String>,
}

#[derive(Projection, Debug, Clone, PartialEq)]
#[projection(of = Ledger)]
struct Note {
    invoice_id: String,
    line_no: u16,
    #[projection(value)]
    note: Option<String>,
}

/// Every line of `invoice` as `V`, or the error of each row.
async fn scan<V, S>(store: &S, invoice: &str) -> Vec<Result<V, String>>
where
    V: Projection<Of = Ledger>,
    S: keyschema::store::AsyncStore,
{
    Ledger::scan()
        .invoice_id(invoice)
        .project::<V>()
        .stream(store)
        .map(|r| r.map_err(|e| e.to_string()))
        .collect()
        .await
}

/// The fields a store returned in a row's value: a Bigtable cell map's
/// qualifiers (a stripped cell, whose value is empty, left out) or the
/// names in a DynamoDB item's map (NULL ones left out).
fn fetched(value: &[u8]) -> Vec<String> {
    use keyschema::record::cells;
    if value.first() == Some(&cells::CELL_MAP) {
        let cells = cells::read_cell_map(value).expect("a cell map");
        let stripped = cells.iter().filter(|(_, v)| v.is_empty()).count();
        assert!(stripped <= 1, "one stripped cell at most: {cells:?}");
        return cells
            .iter()
            .filter(|(_, v)| !v.is_empty())
            .map(|(q, _)| String::from_utf8_lossy(q).into_owned())
            .collect();
    }
    // DynamoDB keeps `None` as NULL; Bigtable keeps no cell. The entry
    // under the empty name is the item's notes, no attribute.
    let map: std::collections::BTreeMap<String, Option<serde::de::IgnoredAny>> =
        rmp_serde::from_slice(value).expect("a map of fields");
    map.into_iter()
        .filter(|(name, _)| !name.is_empty())
        .filter_map(|(name, v)| v.map(|_| name))
        .collect()
}

/// What the store returns for `V`'s reads of invoice INV-1: each row's
/// fetched fields, by scan and by get.
async fn fetched_for<S: keyschema::store::AsyncStore>(
    store: &S,
    schema: &'static keyschema::Schema,
) -> Vec<Vec<String>> {
    let range = Ledger::scan().invoice_id("INV-1").ranges();
    let range = range.iter().next().expect("one range").clone();
    let scanned: Vec<Vec<String>> = store
        .scan_for(schema, &range, keyschema::store::Direction::Forward, None)
        .map(|row| fetched(&row.expect("a row").1))
        .collect()
        .await;
    let got = store
        .get_many_for(schema, vec![Ledger::get_key("INV-1", 1)])
        .await
        .expect("get");
    assert_eq!(got.len(), 1);
    assert_eq!(fetched(&got[0].1), scanned[0], "a get fetches as a scan");
    scanned
}

/// What both services must do, once `broken` (line 2) holds an `amount`
/// and a `paid` another program wrote unreadable, and line 1 has no note.
async fn reads_only_the_projection<S: keyschema::store::AsyncStore>(store: &S) {
    let key = |n| Ledger::get_key("INV-1", n);
    // What the store fetches: the projected fields, never another.
    assert_eq!(
        fetched_for(store, Amount::schema()).await,
        [vec!["amount", "note"], vec!["amount"], vec!["amount"]]
    );
    assert_eq!(
        fetched_for(store, Note::schema()).await,
        [vec!["note"], vec![], vec![]]
    );
    assert_eq!(fetched_for(store, Ledger::schema()).await[0].len(), 10);

    // The whole rows: line 2 does not read.
    let whole = store.get_record::<Ledger>(&key(2)).await;
    assert!(matches!(whole, Err(RowError::Value { .. })), "{whole:?}");

    // A projection without `paid` reads line 2's amount...
    let amounts: Vec<Result<Amount, String>> = scan(store, "INV-1").await;
    assert_eq!(amounts.len(), 3, "{amounts:?}");
    assert_eq!(
        amounts[0],
        Ok(Amount {
            line_no: 1,
            amount: 500,
            note: Some("first".into())
        })
    );
    assert!(
        amounts[1].as_ref().is_err_and(|e| e.contains("amount")),
        "{amounts:?}"
    );
    assert_eq!(amounts[2].as_ref().map(|a| a.amount), Ok(1500));

    // ...and one without `amount` or `paid` reads every row, the rows
    // without a note included.
    let notes: Vec<Result<Note, String>> = scan(store, "INV-1").await;
    let notes: Vec<(u16, Option<String>)> = notes
        .into_iter()
        .map(|n| n.map(|n| (n.line_no, n.note)).expect("a note row"))
        .collect();
    assert_eq!(
        notes,
        [(1, Some("first".to_string())), (2, None), (3, None)]
    );
    assert_eq!(
        store
            .get_projected::<Note>(&key(2))
            .await
            .expect("get")
            .map(|n| n.line_no),
        Some(2)
    );
    assert_eq!(
        store.get_projected::<Note>(&key(9)).await.expect("get"),
        None
    );
}

mod bigtable {
    use super::*;
    use common::{cbt, emulator};
    use keyschema::store::bigtable::BigtableStore;

    #[tokio::test]
    async fn a_projection_reads_its_columns_only() {
        let table = emulator::fresh_table("projection");
        let store =
            BigtableStore::connect_emulator(&emulator::host(), cbt::PROJECT, cbt::INSTANCE, &table)
                .await
                .expect("connect");
        store.create_table_for::<Ledger>().await.expect("table");
        let lines: Vec<Ledger> = (1..=3).map(|n| ledger("INV-1", n)).collect();
        store.put_records(&lines).await.expect("put");
        // Another program breaks line 2: `amount` is three bytes, `paid`
        // is neither `true` nor `false`, and there is no `note`.
        let broken: [(&[u8], &[u8]); 3] = [
            (b"amount", &[1, 2, 3]),
            (b"memo", b"rent 2"),
            (b"paid", b"maybe"),
        ];
        let put = keyschema::store::Mutation::Put {
            key: lines[1].encode(),
            value: keyschema::record::cells::cell_map(broken),
        };
        keyschema::store::AsyncStore::write_for(&store, Ledger::schema(), vec![put])
            .await
            .expect("break line 2");
        reads_only_the_projection(&store).await;
    }
}

mod dynamodb {
    use super::*;
    use common::dynalite::store;
    use keyschema::store::dynamodb::sdk::primitives::Blob;
    use keyschema::store::dynamodb::sdk::types::AttributeValue;

    #[tokio::test]
    async fn a_projection_reads_its_attributes_only() {
        let store = store::<Ledger>("projection").await;
        let lines: Vec<Ledger> = (1..=3).map(|n| ledger("INV-1", n)).collect();
        store.put_records(&lines).await.expect("put");
        // Another program writes line 2's `amount` as three bytes and its
        // `paid` as a string.
        let key = lines[1].encode();
        let (pk, sk) = Ledger::schema().split_key(&key).expect("a key");
        store
            .client()
            .update_item()
            .table_name(store.table())
            .key("pk", AttributeValue::B(Blob::new(pk)))
            .key("sk", AttributeValue::B(Blob::new(sk)))
            .update_expression("SET amount = :a, paid = :p REMOVE note")
            .expression_attribute_values(":a", AttributeValue::B(Blob::new(vec![1, 2, 3])))
            .expression_attribute_values(":p", AttributeValue::S("maybe".into()))
            .send()
            .await
            .expect("UpdateItem");
        reads_only_the_projection(&store).await;
    }
}
