//! The value encoding, side by side with the alternatives considered (issue
//! 19, item 4): encode and decode of one row's value fields, and the size,
//! for MessagePack by field name (keyschema's, `docs/ENCODING.md` "Value
//! fields"), MessagePack as an array (field order, no names), postcard,
//! bincode, CBOR (ciborium, by name) and JSON (serde_json). Run:
//! `cargo bench --bench values` (the sizes are printed first).
//!
//! Only the formats that carry field names (MessagePack by name, CBOR, JSON)
//! let a struct add, drop or reorder fields and still read older rows;
//! postcard, bincode and MessagePack arrays are positional.

use criterion::{criterion_group, criterion_main, Criterion};
use serde::{Deserialize, Serialize};
use std::hint::black_box;

/// A typical event row's value fields: an action, an amount, a referrer
/// that is usually absent, tags and a small nested struct.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Values {
    action: String,
    amount: u64,
    referrer: Option<String>,
    tags: Vec<String>,
    device: Device,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Device {
    os: String,
    width: u32,
}

fn sample() -> Values {
    Values {
        action: "add_to_cart".into(),
        amount: 1_250,
        referrer: None,
        tags: vec!["sale".into(), "mobile".into()],
        device: Device {
            os: "android".into(),
            width: 1080,
        },
    }
}

type Encode = fn(&Values) -> Vec<u8>;
type Decode = fn(&[u8]) -> Values;

fn formats() -> Vec<(&'static str, Encode, Decode)> {
    vec![
        (
            "msgpack_by_name",
            |v| rmp_serde::to_vec_named(v).expect("encode"),
            |b| rmp_serde::from_slice(b).expect("decode"),
        ),
        (
            "msgpack_array",
            |v| rmp_serde::to_vec(v).expect("encode"),
            |b| rmp_serde::from_slice(b).expect("decode"),
        ),
        (
            "postcard",
            |v| postcard::to_stdvec(v).expect("encode"),
            |b| postcard::from_bytes(b).expect("decode"),
        ),
        (
            "bincode",
            |v| bincode::serde::encode_to_vec(v, bincode::config::standard()).expect("encode"),
            |b| {
                bincode::serde::decode_from_slice(b, bincode::config::standard())
                    .expect("decode")
                    .0
            },
        ),
        (
            "cbor",
            |v| {
                let mut out = Vec::new();
                ciborium::into_writer(v, &mut out).expect("encode");
                out
            },
            |b| ciborium::from_reader(b).expect("decode"),
        ),
        (
            "json",
            |v| serde_json::to_vec(v).expect("encode"),
            |b| serde_json::from_slice(b).expect("decode"),
        ),
    ]
}

fn values(c: &mut Criterion) {
    let row = sample();
    for (name, encode, decode) in formats() {
        let bytes = encode(&row);
        assert_eq!(decode(&bytes), row, "{name} round trips");
        println!("size {name}: {} bytes", bytes.len());
    }
    let mut group = c.benchmark_group("value_encoding");
    for (name, encode, decode) in formats() {
        let bytes = encode(&row);
        group.bench_function(format!("{name}/encode"), |b| {
            b.iter(|| black_box(encode(black_box(&row))))
        });
        group.bench_function(format!("{name}/decode"), |b| {
            b.iter(|| black_box(decode(black_box(&bytes))))
        });
    }
    group.finish();
}

criterion_group!(benches, values);
criterion_main!(benches);
