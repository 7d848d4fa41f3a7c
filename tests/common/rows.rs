//! Whole rows for the store tests: a ledger line whose value fields cover
//! serde's data model (numbers, text, bool, a nested struct, an enum, a
//! list, a map, an `Option` and a `default` field).

use keyschema::RowKey;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
pub struct Address {
    pub city: String,
    pub zip: Option<String>,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
pub enum Status {
    #[default]
    Open,
    Paid {
        on: u64,
    },
    Void(String),
}

/// A ledger line: one invoice per partition, lines in order.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(then = (invoice_id), line_no)]
pub struct Ledger {
    pub invoice_id: String,
    pub line_no: u16,
    #[rowkey(value)]
    pub amount: i64,
    #[rowkey(value)]
    pub memo: String,
    #[rowkey(value)]
    pub ratio: f64,
    #[rowkey(value)]
    pub paid: bool,
    #[rowkey(value)]
    pub tags: Vec<String>,
    #[rowkey(value)]
    pub address: Address,
    #[rowkey(value)]
    pub status: Status,
    #[rowkey(value)]
    pub note: Option<String>,
    #[rowkey(value)]
    pub counts: BTreeMap<String, u32>,
    #[rowkey(value, default)]
    pub approved_by: String,
}

/// Line `line_no` of invoice `invoice`, every field set.
pub fn ledger(invoice: &str, line_no: u16) -> Ledger {
    Ledger {
        invoice_id: invoice.into(),
        line_no,
        amount: 500 * i64::from(line_no),
        memo: format!("rent {line_no}"),
        ratio: 0.25,
        paid: line_no.is_multiple_of(2),
        tags: vec!["home".into(), "monthly".into()],
        address: Address {
            city: "Oslo".into(),
            zip: None,
        },
        status: if line_no.is_multiple_of(2) {
            Status::Paid { on: 1_700_000_000 }
        } else {
            Status::Void("duplicate".into())
        },
        note: (line_no == 1).then(|| "first".into()),
        counts: BTreeMap::from([("views".into(), 3)]),
        approved_by: "ana".into(),
    }
}

/// Every line of `invoice`, whole, by the async typed scan (an error item
/// fails the test).
#[cfg(feature = "dynamodb")]
pub async fn invoice_lines(
    store: &keyschema::store::dynamodb::DynamoStore,
    invoice: &str,
) -> Vec<Ledger> {
    use futures_util::StreamExt;
    Ledger::scan()
        .invoice_id(invoice)
        .request()
        .stream(store)
        .records()
        .map(|r| r.expect("a whole row"))
        .collect()
        .await
}
