//! `value_refusals` rows for values of the user's types (the `Address`
//! struct and `Status` enum the catalog's document lists in `types`):
//! stored forms another version of the program could write, refused with
//! serde's words at the field's path, in the map, a cell and an item.

use super::model::{hex, item_json};
use super::{dynamodb, Catalog};
use keyschema::record::{cells, decode_values, encode_values};
use keyschema::store::dynamodb::sdk::types::AttributeValue;
use keyschema::RowKey;
use serde_json::json;

/// MessagePack of a one-field map `{field: item}`.
fn one(field: &str, item: &[u8]) -> Vec<u8> {
    let mut map = vec![0x81, 0xa0 | field.len() as u8];
    map.extend(field.as_bytes());
    map.extend(item);
    map
}

/// A fixstr.
fn s(text: &str) -> Vec<u8> {
    let mut out = vec![0xa0 | text.len() as u8];
    out.extend(text.as_bytes());
    out
}

pub fn user_type_refusals(
    row: &Catalog,
    mut cells: Vec<(Vec<u8>, Vec<u8>)>,
    push: &mut impl FnMut(&str, &str, serde_json::Value, String),
) {
    let key = row.encode();
    let refused = |value: &[u8]| {
        let mut read = Catalog::decode(&key).expect("the key");
        decode_values(&mut read, value)
            .expect_err("refused")
            .to_string()
    };
    let cat = |parts: &[&[u8]]| parts.concat();
    for (what, field, item) in [
        ("`status` a variant the enum lacks", "status", s("Lost")),
        (
            "`address` without its required `city`",
            "address",
            cat(&[&[0x81], &s("zip"), &[0xc0]]),
        ),
        (
            "`address` naming `city` twice",
            "address",
            cat(&[&[0x82], &s("city"), &s("a"), &s("city"), &s("b")]),
        ),
        (
            "`status` Paid without its `on`",
            "status",
            cat(&[&[0x81], &s("Paid"), &[0x80]]),
        ),
        (
            "`status` Note holding an integer",
            "status",
            cat(&[&[0x81], &s("Note"), &[0x07]]),
        ),
        ("`address` an integer", "address", vec![0x07]),
    ] {
        let map = one(field, &item);
        let input = json!({"key": hex(&key), "memory": hex(&map)});
        push(what, "memory", input, refused(&map));
    }
    let big = cells.iter().position(|(q, _)| q == b"big").expect("big");
    let wide = cells.iter().position(|(q, _)| q == b"wide").expect("wide");
    cells[big].1 = vec![0; 8];
    cells[wide].1 = vec![0; 16];
    let address = cells
        .iter()
        .position(|(q, _)| q == b"address")
        .expect("address");
    for (what, cell) in [
        (
            "an `address` cell without its required `city`",
            cat(&[&[0x81], &s("zip"), &[0xc0]]),
        ),
        (
            "an `address` cell of three elements in order",
            cat(&[&[0x93], &s("a"), &[0xc0], &[0x01]]),
        ),
    ] {
        cells[address].1 = cell;
        let map = cells::cell_map(cells.iter().map(|(q, c)| (&q[..], &c[..])));
        let list: Vec<serde_json::Value> = cells
            .iter()
            .map(|(q, c)| json!([String::from_utf8(q.clone()).expect("a name"), hex(c)]))
            .collect();
        push(
            what,
            "bigtable",
            json!({"key": hex(&key), "cells": list}),
            refused(&map),
        );
    }
    let store = dynamodb();
    let good = store
        .item_for(&key, &encode_values(row).expect("encodes"))
        .expect("an item");
    let s_attr = |text: &str| AttributeValue::S(text.into());
    for (what, field, attribute) in [
        (
            "an item's `status` a variant the enum lacks",
            "status",
            s_attr("Lost"),
        ),
        (
            "an item's `address` without its required `city`",
            "address",
            AttributeValue::M([("zip".to_string(), s_attr("0150"))].into()),
        ),
        (
            "an item's `status` Paid with `on` a string",
            "status",
            AttributeValue::M(
                [(
                    "Paid".to_string(),
                    AttributeValue::M([("on".to_string(), s_attr("7"))].into()),
                )]
                .into(),
            ),
        ),
    ] {
        let mut item = good.clone();
        item.insert(field.to_string(), attribute);
        let value = store.value_of_item(&key, &item).expect("a field map");
        let input = json!({"key": hex(&key), "item": item_json(&item)});
        push(what, "dynamodb", input, refused(&value));
    }
}
