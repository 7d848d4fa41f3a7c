//! Projections (`docs/ENCODING.md`, "Value fields on Bigtable",
//! Projections; table `projections`): what a projected read asks each
//! store for and what it makes of the answer. For each projection of one
//! row type: the DynamoDB `ProjectionExpression` and its attribute names
//! (`DynamoStore::projection_request`) and the Bigtable `RowFilter`
//! (`BigtableStore::read_filter_of`), as the code builds them; the item
//! DynamoDB returns (the attributes the expression names) and the cells
//! Bigtable returns (the filter applied to the row's cells, as Bigtable
//! applies each filter); and the projected fields read from each. Python's
//! `Schema.dynamodb_projection`, `Schema.bigtable_read_filter` and
//! `Schema.decode_projection` give the same (`test_projections.py`).

use super::record;
use super::values::model::{hex, item_json};
use keyschema::record::{cells, decode_projection, encode_values};
use keyschema::store::bigtable::BigtableStore;
use keyschema::store::dynamodb::sdk::types::AttributeValue;
use keyschema::store::dynamodb::DynamoStore;
use keyschema::{Projection, RowKey};
use serde_json::{json, Value as Json};
use std::collections::{BTreeMap, HashMap};

use data::column_range::{EndQualifier, StartQualifier};
use data::row_filter::Filter;
use googleapis_tonic_google_bigtable_v2::google::bigtable::v2 as data;

/// A row type whose value fields include DynamoDB reserved words (`name`,
/// `status`) and an `Option`.
#[derive(RowKey, Debug, Clone, PartialEq, Default)]
#[rowkey(prefix = "p", then = (account), seq)]
pub struct Entry {
    account: String,
    seq: u32,
    #[rowkey(value)]
    amount: i64,
    #[rowkey(value)]
    name: String,
    #[rowkey(value)]
    note: Option<String>,
    #[rowkey(value)]
    status: u8,
}

/// One value field and a key field.
#[derive(Projection, Debug, Clone, PartialEq)]
#[projection(of = Entry)]
pub struct Amount {
    seq: u32,
    #[projection(value)]
    amount: i64,
}

/// Two value fields, in another order than the row type's.
#[derive(Projection, Debug, Clone, PartialEq)]
#[projection(of = Entry)]
pub struct NoteName {
    account: String,
    #[projection(value)]
    note: Option<String>,
    #[projection(value)]
    name: String,
}

/// Key fields only: no value field is fetched.
#[derive(Projection, Debug, Clone, PartialEq)]
#[projection(of = Entry)]
pub struct KeysOnly {
    account: String,
    seq: u32,
}

/// A projection's value fields as JSON, as read.
trait Read: Projection<Of = Entry> {
    fn read_json(&self) -> Json;
}

impl Read for Amount {
    fn read_json(&self) -> Json {
        json!({ "amount": self.amount })
    }
}

impl Read for NoteName {
    fn read_json(&self) -> Json {
        json!({ "note": self.note, "name": self.name })
    }
}

impl Read for KeysOnly {
    fn read_json(&self) -> Json {
        json!({})
    }
}

/// A `RowFilter` as JSON: one object per filter, named by its kind.
pub fn filter_json(f: &data::RowFilter) -> Json {
    let text = |b: &[u8]| String::from_utf8(b.to_vec()).expect("UTF-8 in a vector's filter");
    match f.filter.as_ref().expect("a filter") {
        Filter::Chain(c) => {
            json!({ "chain": c.filters.iter().map(filter_json).collect::<Vec<_>>() })
        }
        Filter::Interleave(i) => {
            json!({ "interleave": i.filters.iter().map(filter_json).collect::<Vec<_>>() })
        }
        Filter::CellsPerColumnLimitFilter(n) => json!({ "cells_per_column_limit": n }),
        Filter::CellsPerRowLimitFilter(n) => json!({ "cells_per_row_limit": n }),
        Filter::StripValueTransformer(b) => json!({ "strip_value": b }),
        Filter::FamilyNameRegexFilter(r) => json!({ "family_name_regex": r }),
        Filter::ColumnQualifierRegexFilter(r) => json!({ "column_qualifier_regex": text(r) }),
        Filter::ColumnRangeFilter(r) => {
            let start = match &r.start_qualifier {
                Some(StartQualifier::StartQualifierClosed(q)) => json!({ "closed": text(q) }),
                Some(StartQualifier::StartQualifierOpen(q)) => json!({ "open": text(q) }),
                None => Json::Null,
            };
            let end = match &r.end_qualifier {
                Some(EndQualifier::EndQualifierClosed(q)) => json!({ "closed": text(q) }),
                Some(EndQualifier::EndQualifierOpen(q)) => json!({ "open": text(q) }),
                None => Json::Null,
            };
            json!({ "column_range": { "family": r.family_name, "start": start, "end": end } })
        }
        other => panic!("a filter keyschema does not send: {other:?}"),
    }
}

/// The filter in ENCODING.md's notation.
fn filter_text(f: &Json) -> String {
    let (kind, v) = f
        .as_object()
        .and_then(|o| o.iter().next())
        .expect("a filter");
    let list = |v: &Json| {
        v.as_array()
            .expect("filters")
            .iter()
            .map(filter_text)
            .collect::<Vec<_>>()
            .join(", ")
    };
    // `[q` / `(q` / `(-inf` for the start, `q]` / `q)` / `+inf)` for the end.
    let bound = |e: &Json, closed: &str, open: &str, start: bool| match e.as_object() {
        Some(o) if o.contains_key("closed") => {
            let q = o["closed"].as_str().unwrap_or("");
            if start {
                format!("{closed}{q}")
            } else {
                format!("{q}{closed}")
            }
        }
        Some(o) => {
            let q = o["open"].as_str().unwrap_or("");
            if start {
                format!("{open}{q}")
            } else {
                format!("{q}{open}")
            }
        }
        None if start => format!("{open}-inf"),
        None => format!("+inf{open}"),
    };
    match kind.as_str() {
        "chain" => format!("Chain[{}]", list(v)),
        "interleave" => format!("Interleave[{}]", list(v)),
        "cells_per_column_limit" => format!("CellsPerColumnLimit({v})"),
        "cells_per_row_limit" => format!("CellsPerRowLimit({v})"),
        "strip_value" => "StripValueTransformer".to_string(),
        "family_name_regex" => format!("FamilyNameRegex({})", v.as_str().unwrap_or("")),
        "column_qualifier_regex" => format!("ColumnQualifierRegex({})", v.as_str().unwrap_or("")),
        _ => format!(
            "ColumnRange({}: {}, {})",
            v["family"].as_str().unwrap_or(""),
            bound(&v["start"], "[", "(", true),
            bound(&v["end"], "]", ")", false)
        ),
    }
}

/// One cell as Bigtable holds it: family, qualifier, value.
type StoredCell = (String, Vec<u8>, Vec<u8>);

/// The cells of one row `f` passes, as Bigtable applies each filter (one
/// version per column here, so a column limit of 1 keeps every cell): a
/// chain feeds each filter's output to the next, an interleave joins its
/// filters' outputs in column order, a column range keeps its family's
/// qualifiers within its ends, a row limit the first cells, a strip
/// empties the values, and the regexes here are anchored literals.
fn apply(f: &Json, cells: &[StoredCell]) -> Vec<StoredCell> {
    let (kind, v) = f
        .as_object()
        .and_then(|o| o.iter().next())
        .expect("a filter");
    let literal = |r: &str| {
        r.trim_start_matches('^')
            .trim_end_matches('$')
            .replace("\\.", ".")
    };
    match kind.as_str() {
        "chain" => v
            .as_array()
            .expect("filters")
            .iter()
            .fold(cells.to_vec(), |acc, f| apply(f, &acc)),
        "interleave" => {
            let mut out: Vec<StoredCell> = v
                .as_array()
                .expect("filters")
                .iter()
                .flat_map(|f| apply(f, cells))
                .collect();
            out.sort();
            out
        }
        "cells_per_column_limit" => cells.to_vec(),
        "cells_per_row_limit" => {
            let n = v.as_u64().expect("a count") as usize;
            cells.iter().take(n).cloned().collect()
        }
        "strip_value" => cells
            .iter()
            .map(|(f, q, _)| (f.clone(), q.clone(), Vec::new()))
            .collect(),
        "family_name_regex" => {
            let family = literal(v.as_str().expect("a regex"));
            cells.iter().filter(|c| c.0 == family).cloned().collect()
        }
        "column_qualifier_regex" => {
            let q = literal(v.as_str().expect("a regex"));
            cells
                .iter()
                .filter(|c| c.1 == q.as_bytes())
                .cloned()
                .collect()
        }
        _ => {
            let family = v["family"].as_str().expect("a family");
            let after = |q: &[u8]| match v["start"].as_object() {
                Some(o) if o.contains_key("closed") => {
                    q >= o["closed"].as_str().unwrap_or("").as_bytes()
                }
                Some(o) => q > o["open"].as_str().unwrap_or("").as_bytes(),
                None => true,
            };
            let before = |q: &[u8]| match v["end"].as_object() {
                Some(o) if o.contains_key("closed") => {
                    q <= o["closed"].as_str().unwrap_or("").as_bytes()
                }
                Some(o) => q < o["open"].as_str().unwrap_or("").as_bytes(),
                None => true,
            };
            cells
                .iter()
                .filter(|c| c.0 == family && after(&c.1) && before(&c.1))
                .cloned()
                .collect()
        }
    }
}

fn cells_json(cells: &[(Vec<u8>, Vec<u8>)]) -> Json {
    cells
        .iter()
        .map(|(q, c)| json!([String::from_utf8(q.clone()).expect("a name"), hex(c)]))
        .collect()
}

/// One vector: `P` read from `row` on DynamoDB and Bigtable.
fn projected<P: Read>(name: &str, row: &Entry, rows: &mut Vec<String>) {
    let store =
        DynamoStore::connect_local::<Entry>("http://127.0.0.1:1", "entries").expect("a store");
    let key = row.encode();
    let value = encode_values(row).expect("encodes");
    let fields: Vec<&str> = P::VALUES.iter().map(|f| f.name).collect();

    // DynamoDB: the request, and the attributes it names.
    let (expression, names) = store.projection_request(P::schema()).expect("a projection");
    let names: BTreeMap<String, String> = names.into_iter().collect();
    let item = store.item_for(&key, &value).expect("an item");
    let returned: HashMap<String, AttributeValue> = item
        .iter()
        .filter(|(k, _)| names.values().any(|n| n == *k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let mut from_item = P::from_key(Entry::decode(&key).expect("the key"));
    let map = store.value_of_item(&key, &returned).expect("a field map");
    decode_projection(&mut from_item, &map).expect("the projected item reads");

    // Bigtable: the filter, and the cells it passes.
    let filter = filter_json(&BigtableStore::read_filter_of(P::schema()));
    let row_cells = cells::cells_of(&value, Entry::schema().values()).expect("cells");
    let family = Entry::schema().family().to_string();
    let mut stored: Vec<StoredCell> = row_cells
        .iter()
        .map(|(q, c)| (family.clone(), q.clone(), c.clone()))
        .collect();
    stored.sort();
    let passed: Vec<(Vec<u8>, Vec<u8>)> = apply(&filter, &stored)
        .into_iter()
        .map(|(_, q, c)| (q, c))
        .collect();
    let mut from_cells = P::from_key(Entry::decode(&key).expect("the key"));
    let map = cells::cell_map(passed.iter().map(|(q, c)| (&q[..], &c[..])));
    decode_projection(&mut from_cells, &map).expect("the projected cells read");
    assert_eq!(from_item.read_json(), from_cells.read_json(), "{name}");

    record(
        "projections",
        json!({
            "schema": serde_json::from_str::<Json>(&Entry::schema().to_json()).expect("JSON"),
            "projection": name,
            "values": fields,
            "key": hex(&key),
            "dynamodb": {"expression": expression, "names": names},
            "item": item_json(&item),
            "returned_item": item_json(&returned),
            "bigtable": {
                "filter": filter,
                "whole_rows_filter": filter_json(&BigtableStore::read_filter_of(Entry::schema())),
            },
            "cells": cells_json(&row_cells),
            "returned_cells": cells_json(&passed),
            "read": from_item.read_json(),
        })
        .to_string(),
    );
    let attrs: Vec<String> = names.iter().map(|(p, n)| format!("{p} = {n}")).collect();
    let qualifiers: Vec<String> = passed
        .iter()
        .map(|(q, c)| {
            format!(
                "{}{}",
                String::from_utf8_lossy(q),
                if c.is_empty() { " (stripped)" } else { "" }
            )
        })
        .collect();
    rows.push(format!(
        "| {name} ({}) | `{expression}` with {} | `{}` | {} | `{}` |",
        if fields.is_empty() {
            "no value field".to_string()
        } else {
            format!("`{}`", fields.join(", "))
        },
        attrs.join(", "),
        filter_text(&filter),
        qualifiers.join(", "),
        from_item.read_json()
    ));
}

/// Every projection vector, as the document's rows.
pub fn projection_rows() -> Vec<String> {
    let full = Entry {
        account: "acct-1".into(),
        seq: 7,
        amount: -250,
        name: "rent".into(),
        note: Some("late".into()),
        status: 2,
    };
    let no_note = Entry {
        note: None,
        ..full.clone()
    };
    let mut rows = Vec::new();
    projected::<Amount>("Amount", &full, &mut rows);
    projected::<NoteName>("NoteName", &full, &mut rows);
    projected::<NoteName>("NoteName of a row without a note", &no_note, &mut rows);
    projected::<KeysOnly>("KeysOnly", &full, &mut rows);
    rows
}
