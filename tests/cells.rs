//! Bigtable's shape of a row's value fields, without a server: each cell
//! read by its field's type (`keyschema::record::CellDeserializer`), and a
//! whole row through the cell map on the memory store's typed path.

mod common;

use common::rows::{ledger, Ledger};
use keyschema::record::{cells, decode_values, encode_values, CellDeserializer, CellError};
use keyschema::RowKey;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

fn read<T: for<'a> Deserialize<'a>>(cell: &[u8]) -> Result<T, CellError> {
    T::deserialize(CellDeserializer::new(cell))
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone, Default)]
enum Status {
    #[default]
    Open,
    Paid {
        on: u64,
    },
}

#[test]
fn each_cell_reads_as_the_type_that_asks() {
    assert_eq!(read::<String>(b"click"), Ok("click".into()));
    assert_eq!(read::<i64>(&(-5i64).to_be_bytes()), Ok(-5));
    assert_eq!(read::<u16>(&500i64.to_be_bytes()), Ok(500));
    assert_eq!(read::<u64>(&u64::MAX.to_be_bytes()), Ok(u64::MAX));
    assert_eq!(read::<i32>(&(-7i64).to_be_bytes()), Ok(-7));
    assert_eq!(read::<f64>(&0.25f64.to_be_bytes()), Ok(0.25));
    assert_eq!(read::<f32>(&0.5f64.to_be_bytes()), Ok(0.5));
    assert_eq!(read::<bool>(b"true"), Ok(true));
    assert_eq!(read::<bool>(&[0xff]), Ok(true)); // HBase's Bytes.toBytes(true)
    assert_eq!(read::<Option<String>>(b"x"), Ok(Some("x".into())));
    assert_eq!(read::<Vec<u32>>(&[0x92, 0x01, 0x02]), Ok(vec![1, 2]));
    assert_eq!(read::<Status>(b"Open"), Ok(Status::Open));
    let paid = [
        0x81, 0xa4, b'P', b'a', b'i', b'd', 0x81, 0xa2, b'o', b'n', 0x05,
    ];
    assert_eq!(read::<Status>(&paid), Ok(Status::Paid { on: 5 }));
}

#[test]
fn a_cell_of_another_type_is_an_error_not_a_guess() {
    assert!(read::<u8>(&300i64.to_be_bytes()).is_err());
    assert!(read::<u32>(&(-1i64).to_be_bytes()).is_err());
    assert!(read::<i64>(b"abc").is_err());
    assert!(read::<String>(&[0xff, 0xfe]).is_err());
    assert!(read::<bool>(b"yes").is_err());
    assert!(read::<Status>(b"Closed").is_err());
    let message = read::<i64>(b"abc").unwrap_err().to_string();
    assert!(message.contains("8 big-endian bytes"), "{message}");
    // Text another program wrote is not taken for a number.
    let message = read::<i64>(b"5").unwrap_err().to_string();
    assert!(message.contains("the text \"5\""), "{message}");
    // Other widths are not guessed at: HBase's 4-byte int, a 4-byte float.
    assert!(read::<i32>(&(-7i32).to_be_bytes()).is_err());
    assert!(read::<f32>(&0.5f32.to_be_bytes()).is_err());
    assert!(read::<u64>(&[0, 0, 0, 9]).is_err());
}

/// Self-describing types (`serde_json::Value`, untagged enums) read what
/// the cell holds: a string as text, anything else after the byte `c1`
/// as MessagePack; a bare number or word another program wrote reads as
/// text, never as a number guessed from its bytes.
#[test]
fn self_describing_fields_keep_their_type_in_the_cell() {
    use serde_json::{json, Value};
    #[derive(keyschema::RowKey, Debug, PartialEq)]
    #[rowkey(then = id)]
    struct Doc {
        id: u32,
        #[rowkey(value)]
        meta: Value,
        #[rowkey(value)]
        count: i64,
    }
    for meta in [
        json!(5),
        json!(true),
        json!("5"),
        json!("text"),
        json!(-1.5),
        json!([1, {"a": null}]),
    ] {
        let row = Doc {
            id: 1,
            meta: meta.clone(),
            count: 5,
        };
        let cells = cells::cells_of(&encode_values(&row).unwrap(), Doc::schema().values()).unwrap();
        let cell = &cells
            .iter()
            .find(|(q, _)| q == b"meta")
            .expect("a meta cell")
            .1;
        match &meta {
            Value::String(s) => assert_eq!(cell, s.as_bytes()),
            _ => assert_eq!(cell[0], cells::TAGGED, "{meta}"),
        }
        // A plain integer field keeps its 8 bytes.
        let count = &cells.iter().find(|(q, _)| q == b"count").expect("count").1;
        assert_eq!(count, &5i64.to_be_bytes());
        let map = cells::cell_map(cells.iter().map(|(q, v)| (&q[..], &v[..])));
        let mut back = Doc::decode(&Doc::get_key(1)).expect("key");
        decode_values(&mut back, &map).expect("reads");
        assert_eq!(back, row);
    }
    assert_eq!(read::<Value>(b"5"), Ok(json!("5")));
    assert_eq!(read::<Value>(&[0xc1, 0x05]), Ok(json!(5)));
    // Bytes that are not text are bytes, which a JSON value does not take.
    assert!(read::<Value>(&[0xff, 0x00]).is_err());
    assert!(read::<Value>(&[0xc1, 0x05, 0x06]).is_err());
}

fn blank(line: &Ledger) -> Ledger {
    Ledger::decode(&line.encode()).expect("own key")
}

#[test]
fn a_whole_row_round_trips_through_its_cells() {
    let row = ledger("INV-1", 2);
    let cells = cells::cells_of(&encode_values(&row).unwrap(), Ledger::schema().values()).unwrap();
    let by_name: BTreeMap<&[u8], &[u8]> = cells
        .iter()
        .map(|(q, v)| (q.as_slice(), v.as_slice()))
        .collect();
    // Scalars read as people read them; None has no cell.
    assert_eq!(by_name[&b"memo"[..]], b"rent 2");
    assert_eq!(by_name[&b"amount"[..]], 1000i64.to_be_bytes());
    assert_eq!(by_name[&b"paid"[..]], b"true");
    assert_eq!(by_name[&b"ratio"[..]], 0.25f64.to_be_bytes());
    assert!(!by_name.contains_key(&b"note"[..]));
    assert_eq!(cells.len(), 9);

    let map = cells::cell_map(cells.iter().map(|(q, v)| (&q[..], &v[..])));
    let mut back = blank(&row);
    decode_values(&mut back, &map).unwrap();
    assert_eq!(back, row);
}

#[test]
fn unknown_cells_are_skipped_and_a_missing_required_one_is_named() {
    let row = ledger("INV-1", 2);
    let mut cells =
        cells::cells_of(&encode_values(&row).unwrap(), Ledger::schema().values()).unwrap();
    cells.push((b"written_by_another_program".to_vec(), b"x".to_vec()));
    cells.push((vec![0xff, 0x00], b"not UTF-8".to_vec()));
    let map = cells::cell_map(cells.iter().map(|(q, v)| (&q[..], &v[..])));
    let mut back = blank(&row);
    decode_values(&mut back, &map).unwrap();
    assert_eq!(back, row);

    cells.retain(|(q, _)| q != b"amount");
    let map = cells::cell_map(cells.iter().map(|(q, v)| (&q[..], &v[..])));
    let err = decode_values(&mut blank(&row), &map).unwrap_err();
    assert_eq!(err, keyschema::ValueError::Missing { field: "amount" });
}

/// 128-bit integers: MessagePack holds them as a bin of 16 big-endian
/// bytes, which is then their cell; an 8-byte integer cell reads too.
#[test]
fn a_128_bit_field_reads_back_from_its_cell() {
    #[derive(keyschema::RowKey, Debug, PartialEq)]
    #[rowkey(then = id)]
    struct Wide {
        id: u32,
        #[rowkey(value)]
        big: u128,
        #[rowkey(value)]
        negative: i128,
    }
    let row = Wide {
        id: 1,
        big: u128::MAX - 5,
        negative: i128::MIN + 7,
    };
    let value = encode_values(&row).expect("encode");
    let cells = cells::cells_of(&value, Wide::schema().values()).expect("cells");
    assert!(cells.iter().all(|(_, v)| v.len() == 16), "{cells:?}");
    let map = cells::cell_map(cells.iter().map(|(q, v)| (&q[..], &v[..])));
    let mut back = Wide::decode(&Wide::get_key(1)).expect("key");
    decode_values(&mut back, &map).expect("reads");
    assert_eq!(back, row);
    assert_eq!(read::<i128>(&[0xff; 8]), Ok(-1));
    assert_eq!(read::<u128>(&9u64.to_be_bytes()), Ok(9));
    assert!(read::<u128>(&[0, 0, 0, 9]).is_err());
}
