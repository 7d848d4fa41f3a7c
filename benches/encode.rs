//! Key encoding side by side, on DESIGN.md's `Event` key (two short strings,
//! a reversed u64, salt over the two strings):
//!
//! * keyschema's generated `encode_into` vs a hand-optimised encoder that
//!   pushes the same bytes and computes the same SHA-256 salt, and vs the
//!   `format!`-built text key of the seed articles' samples (same salt);
//! * the unsalted tuple: keyschema vs storekey vs memcomparable;
//! * `decode` vs a hand-optimised decoder; `get_key`; the salt hash alone.
//!
//! Run: `cargo bench --bench encode`

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use keyschema::RowKey;
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::hint::black_box;

#[allow(dead_code)]
#[path = "../tests/common/schemas.rs"]
mod schemas;

#[allow(dead_code)]
#[path = "common/hand.rs"]
mod hand;
use schemas::Event;

#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(then = user_id, site, rev(timestamp))]
struct PlainEvent {
    user_id: String,
    site: String,
    timestamp: u64,
}

fn events() -> Vec<Event> {
    (0..1024u64)
        .map(|i| Event {
            user_id: format!("user{:05}", i * 7919 % 100_000),
            site: format!("site{}.example", i % 13),
            timestamp: 1_700_000_000 + i * 37,
        })
        .collect()
}

/// What a careful engineer writes by hand: same bytes, same salt.
fn hand_encode(user: &str, site: &str, ts: u64, out: &mut Vec<u8>) {
    let salt_at = out.len();
    out.push(0);
    hand_escape(user.as_bytes(), out);
    hand_escape(site.as_bytes(), out);
    let digest = Sha256::digest(&out[salt_at + 1..]);
    out.extend_from_slice(&(!ts).to_be_bytes());
    let first = u64::from_be_bytes([
        digest[0], digest[1], digest[2], digest[3], digest[4], digest[5], digest[6], digest[7],
    ]);
    out[salt_at] = (first % 8) as u8;
}

fn hand_escape(bytes: &[u8], out: &mut Vec<u8>) {
    if !bytes.iter().any(|&b| b <= 1) {
        out.extend_from_slice(bytes);
    } else {
        for &b in bytes {
            if b <= 1 {
                out.push(1);
            }
            out.push(b);
        }
    }
    out.push(0);
}

fn hand_decode(key: &[u8]) -> Option<Event> {
    let salt = *key.first()?;
    let mut at = 1;
    let user_id = hand::unescape(key, &mut at)?;
    let site = hand::unescape(key, &mut at)?;
    let ts_bytes: [u8; 8] = key.get(at..at + 8)?.try_into().ok()?;
    if at + 8 != key.len() {
        return None;
    }
    let digest = Sha256::digest(&key[1..at]);
    let first = u64::from_be_bytes([
        digest[0], digest[1], digest[2], digest[3], digest[4], digest[5], digest[6], digest[7],
    ]);
    if (first % 8) as u8 != salt {
        return None;
    }
    Some(Event {
        user_id,
        site,
        timestamp: !u64::from_be_bytes(ts_bytes),
    })
}

/// The seed samples' key: `format!` with the same salt.
fn format_key(e: &Event) -> String {
    let mut input = Vec::with_capacity(32);
    hand_escape(e.user_id.as_bytes(), &mut input);
    hand_escape(e.site.as_bytes(), &mut input);
    let digest = Sha256::digest(&input);
    let first = u64::from_be_bytes([
        digest[0], digest[1], digest[2], digest[3], digest[4], digest[5], digest[6], digest[7],
    ]);
    format!(
        "{:02}#{}#{}#{}",
        first % 8,
        e.user_id,
        e.site,
        u64::MAX - e.timestamp
    )
}

#[derive(Serialize)]
struct Tuple<'a>(&'a str, &'a str, u64);

fn encode(c: &mut Criterion) {
    let events = events();
    // The comparisons write the same bytes.
    for e in &events {
        let mut hand = Vec::new();
        hand_encode(&e.user_id, &e.site, e.timestamp, &mut hand);
        assert_eq!(hand, e.encode());
        assert_eq!(hand_decode(&hand).as_ref(), Some(e));
    }
    let n = events.len() as u64;
    let mut group = c.benchmark_group("encode_salted");
    group.throughput(Throughput::Elements(n));
    let mut buf = Vec::with_capacity(64);
    group.bench_function("keyschema_encode_into", |b| {
        b.iter(|| {
            for e in &events {
                buf.clear();
                e.encode_into(&mut buf);
                black_box(&buf);
            }
        })
    });
    group.bench_function("hand_optimised", |b| {
        b.iter(|| {
            for e in &events {
                buf.clear();
                hand_encode(&e.user_id, &e.site, e.timestamp, &mut buf);
                black_box(&buf);
            }
        })
    });
    group.bench_function("format_text_key", |b| {
        b.iter(|| {
            events
                .iter()
                .map(|e| black_box(format_key(e)).len())
                .sum::<usize>()
        })
    });
    group.bench_function("keyschema_get_key", |b| {
        b.iter(|| {
            events
                .iter()
                .map(|e| black_box(Event::get_key(&e.user_id, &e.site, e.timestamp)).len())
                .sum::<usize>()
        })
    });
    group.finish();

    let mut group = c.benchmark_group("encode_unsalted_tuple");
    group.throughput(Throughput::Elements(n));
    group.bench_function("keyschema_encode_into", |b| {
        b.iter(|| {
            for e in &events {
                buf.clear();
                PlainEvent::get_key_into(&mut buf, &e.user_id, &e.site, e.timestamp);
                black_box(&buf);
            }
        })
    });
    group.bench_function("storekey", |b| {
        b.iter(|| {
            for e in &events {
                buf.clear();
                storekey::encode(
                    &mut buf,
                    &(e.user_id.as_str(), e.site.as_str(), u64::MAX - e.timestamp),
                )
                .expect("encode");
                black_box(&buf);
            }
        })
    });
    group.bench_function("memcomparable", |b| {
        b.iter(|| {
            for e in &events {
                buf.clear();
                let mut ser = memcomparable::Serializer::new(&mut buf);
                Tuple(&e.user_id, &e.site, u64::MAX - e.timestamp)
                    .serialize(&mut ser)
                    .expect("encode");
                black_box(&buf);
            }
        })
    });
    group.finish();

    let keys: Vec<Vec<u8>> = events.iter().map(RowKey::encode).collect();
    let mut group = c.benchmark_group("decode_salted");
    group.throughput(Throughput::Elements(n));
    group.bench_function("keyschema_decode", |b| {
        b.iter(|| {
            keys.iter()
                .map(|k| black_box(Event::decode(k).expect("key")).timestamp)
                .sum::<u64>()
        })
    });
    group.bench_function("hand_optimised", |b| {
        b.iter(|| {
            keys.iter()
                .map(|k| black_box(hand_decode(k).expect("key")).timestamp)
                .sum::<u64>()
        })
    });
    group.finish();

    let plain: Vec<Vec<u8>> = events
        .iter()
        .map(|e| PlainEvent::get_key(&e.user_id, &e.site, e.timestamp))
        .collect();
    let tuples: Vec<Vec<u8>> = events
        .iter()
        .map(|e| {
            storekey::encode_vec(&(e.user_id.as_str(), e.site.as_str(), u64::MAX - e.timestamp))
                .expect("encode")
        })
        .collect();
    let memcmp: Vec<Vec<u8>> = events
        .iter()
        .map(|e| {
            let mut ser = memcomparable::Serializer::new(Vec::new());
            Tuple(&e.user_id, &e.site, u64::MAX - e.timestamp)
                .serialize(&mut ser)
                .expect("encode");
            ser.into_inner()
        })
        .collect();
    let mut group = c.benchmark_group("decode_unsalted_tuple");
    group.throughput(Throughput::Elements(n));
    group.bench_function("keyschema_decode", |b| {
        b.iter(|| {
            plain
                .iter()
                .map(|k| black_box(PlainEvent::decode(k).expect("key")).timestamp)
                .sum::<u64>()
        })
    });
    group.bench_function("storekey", |b| {
        b.iter(|| {
            tuples
                .iter()
                .map(|k| {
                    let t: (String, String, u64) = storekey::decode(k.as_slice()).expect("key");
                    black_box(t).2
                })
                .sum::<u64>()
        })
    });
    group.bench_function("memcomparable", |b| {
        b.iter(|| {
            memcmp
                .iter()
                .map(|k| {
                    let t: (String, String, u64) = memcomparable::from_slice(k).expect("key");
                    black_box(t).2
                })
                .sum::<u64>()
        })
    });
    group.finish();

    let inputs: Vec<Vec<u8>> = keys.iter().map(|k| k[1..k.len() - 8].to_vec()).collect();
    let mut group = c.benchmark_group("salt_hash_alone");
    group.throughput(Throughput::Elements(n));
    group.bench_function("keyschema_salt_bucket", |b| {
        b.iter_batched(
            || &inputs,
            |inputs| {
                inputs
                    .iter()
                    .map(|i| keyschema::salt::bucket(black_box(i), 8))
                    .sum::<u32>()
            },
            BatchSize::SmallInput,
        )
    });
    group.bench_function("sha2_digest", |b| {
        b.iter_batched(
            || &inputs,
            |inputs| {
                inputs
                    .iter()
                    .map(|i| {
                        let digest = Sha256::digest(black_box(i));
                        u32::from(digest[7] % 8)
                    })
                    .sum::<u32>()
            },
            BatchSize::SmallInput,
        )
    });
    group.finish();
}

criterion_group!(benches, encode);
criterion_main!(benches);
