//! The dynamic schema read from the JSON document agrees with the derived
//! code for every layout of the examples and the tests: the same key bytes
//! for random rows, the same values decoded, the same rendering, the same
//! errors for damaged keys, and the same scan ranges.

mod common;

use common::catalog::{self, Sample, Visit};
use keyschema::dynamic::{DynSchema, Value, ValueError};
use keyschema::{salt, RowKey};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

fn dynamic<K: Sample>() -> DynSchema {
    DynSchema::from_json(&K::schema().to_json())
        .expect("the document of a derived schema reads back")
}

/// The key the derived code writes, and the dynamic schema's for the same values.
fn both<K: Sample>(schema: &DynSchema, row: &K) -> (Vec<u8>, Vec<u8>) {
    let key = row.encode();
    let values = row.values();
    let ours = match schema.salt() {
        Some(s) if s.is_random() => {
            let bucket = K::schema()
                .bucket_of(&key)
                .expect("a fresh key has a bucket");
            schema.encode_in(&values, bucket)
        }
        _ => schema.encode(&values),
    }
    .expect("values of the key's own fields encode");
    (key, ours)
}

/// A decode refused because the Rust type holds less than its encoding:
/// chrono's and time's years, and time's lack of leap seconds
/// (`docs/ENCODING.md`, "Identifiers, times and enums").
fn narrower_than_its_encoding<T>(result: &Result<T, keyschema::DecodeError>) -> bool {
    matches!(result, Err(keyschema::DecodeError::InvalidValue { reason, .. })
        if reason.contains("range (years") || reason.contains("does not represent"))
}

struct Agree {
    cases: u32,
    checked: usize,
}

impl Visit for Agree {
    fn visit<K: Sample>(&mut self) {
        let schema = dynamic::<K>();
        let mut runner = TestRunner::new(Config {
            cases: self.cases,
            ..Config::default()
        });
        let result = runner.run(
            &(K::strategy(), any::<(usize, u8)>()),
            |(row, (at, byte))| {
                let (key, ours) = both(&schema, &row);
                prop_assert_eq!(&ours, &key, "{} encodes {:?}", K::DECLARATION, row);
                prop_assert_eq!(schema.decode(&key), Ok(row.values()));
                prop_assert_eq!(schema.render(&key), K::render(&key));
                prop_assert_eq!(schema.render_strict(&key), K::schema().render_strict(&key));
                // Damaged keys: the same error, or the same row.
                let mut damaged = vec![key[..at % (key.len() + 1)].to_vec()];
                let mut flipped = key.clone();
                let i = at % key.len();
                flipped[i] ^= byte | 1;
                damaged.push(flipped);
                let mut longer = key.clone();
                longer.push(byte);
                damaged.push(longer);
                for bad in &damaged {
                    let derived = K::decode(bad).map(|r| r.values());
                    if narrower_than_its_encoding(&derived) {
                        // Bytes of the encoding that the Rust type cannot
                        // hold (a chrono date past year 262142): the spec's
                        // readers read on (and may refuse later bytes, or
                        // the salt), the type refuses them here.
                        continue;
                    }
                    prop_assert_eq!(&schema.decode(bad), &derived, "{:02x?}", bad);
                    prop_assert_eq!(schema.render(bad), K::render(bad));
                    prop_assert_eq!(schema.render_prefix(bad), K::schema().render_prefix(bad));
                }
                // Scans binding each prefix of the fields.
                let values = row.values();
                for (k, derived) in row.prefix_ranges().into_iter().enumerate() {
                    let ranges = schema
                        .ranges(&values[..k], None)
                        .expect("a prefix binding plans");
                    prop_assert_eq!(ranges, derived, "{} fields bound", k);
                }
                Ok(())
            },
        );
        if let Err(e) = result {
            panic!("{}: {e}", K::DECLARATION);
        }
        self.checked += 1;
    }
}

#[test]
fn the_dynamic_schema_agrees_with_the_derived_code_for_every_layout() {
    let mut agree = Agree {
        cases: 256,
        checked: 0,
    };
    catalog::for_each(&mut agree);
    assert_eq!(agree.checked, 32, "layouts checked");
}

struct SameAsExamples(Vec<String>);

impl Visit for SameAsExamples {
    fn visit<K: Sample>(&mut self) {
        if K::SOURCE.is_empty() {
            return;
        }
        let path = format!("{}/{}", env!("CARGO_MANIFEST_DIR"), K::SOURCE);
        let source = std::fs::read_to_string(&path).expect("the example exists");
        let compact = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
        let wanted = format!("#[rowkey({})]", K::DECLARATION);
        if !compact(&source).contains(&compact(&wanted)) {
            self.0.push(format!("{}: {wanted}", K::SOURCE));
        }
        for field in K::FIELDS {
            if !compact(&source).contains(&compact(&format!("pub {field},"))) {
                self.0
                    .push(format!("{}: {} field {field}", K::SOURCE, K::DECLARATION));
            }
        }
    }
}

#[test]
fn the_catalog_declares_the_examples_layouts() {
    let mut check = SameAsExamples(Vec::new());
    catalog::for_each(&mut check);
    assert!(check.0.is_empty(), "not in the examples: {:#?}", check.0);
}

#[test]
fn ranges_agree_with_typed_scans() {
    use catalog::{Availability, Event, KarteEvent, Ranking, TextTypes};
    use std::ops::Bound::*;
    let event = dynamic::<Event>();
    let ranges = event
        .ranges(
            &["u1".into(), "s".into()],
            Some((Included(Value::U64(10)), Excluded(Value::U64(20)))),
        )
        .unwrap();
    assert_eq!(
        ranges,
        Event::scan()
            .user_id("u1")
            .site("s")
            .timestamp(10..20)
            .ranges()
    );
    let ranges = event
        .ranges(&["u1".into()], Some((Excluded("a".into()), Unbounded)))
        .unwrap();
    assert_eq!(
        ranges,
        Event::scan()
            .user_id("u1")
            .site((std::ops::Bound::Excluded("a"), std::ops::Bound::Unbounded))
            .ranges()
    );
    let ranking = dynamic::<Ranking>();
    let ranges = ranking
        .ranges(
            &[],
            Some((Included(Value::I32(-5)), Included(Value::I32(9)))),
        )
        .unwrap();
    assert_eq!(ranges, Ranking::scan().score(-5..=9).ranges());
    // A hashed bucket: one scan per bucket value.
    let hotel = dynamic::<Availability>();
    let ranges = hotel
        .ranges(
            &["h1".into()],
            Some((Included(Value::U32(20)), Excluded(Value::U32(95)))),
        )
        .unwrap();
    assert_eq!(ranges.len(), 4);
    assert_eq!(
        ranges,
        Availability::scan()
            .hotel_id("h1")
            .day(20..95)
            .unwrap()
            .ranges()
    );
    assert!(matches!(
        hotel.ranges(&["h1".into()], Some((Included(Value::U32(20)), Unbounded))),
        Err(ValueError::Scan(_))
    ));
    // Text keys: ranges on numbers are exact; on strings they are refused.
    let karte = dynamic::<KarteEvent>();
    let ranges = karte
        .ranges(
            &["user42".into()],
            Some((Included(Value::U64(5)), Unbounded)),
        )
        .unwrap();
    assert_eq!(
        ranges,
        KarteEvent::scan().user_id("user42").timestamp(5..).ranges()
    );
    let err = karte
        .ranges(&[], Some((Included("a".into()), Unbounded)))
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("text order is not its value order"),
        "{err}"
    );
    let text = dynamic::<TextTypes>();
    let ranges = text
        .ranges(
            &[Value::U128(7)],
            Some((Included(Value::I8(-3)), Included(Value::I8(100)))),
        )
        .unwrap();
    assert_eq!(ranges, TextTypes::scan().a(7).b(-3..=100).ranges());
}

#[test]
fn values_of_the_wrong_type_or_count_are_errors_that_name_the_field() {
    let event = dynamic::<catalog::Event>();
    let err = event
        .encode(&["u1".into(), Value::U64(1), Value::U64(2)])
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "field `site` is String, but the value given is u64 1"
    );
    let err = event.encode(&["u1".into()]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "1 values given for 3 of the key's fields (user_id, site, timestamp)"
    );
    let err = event
        .parse_fields(&[("user_id", "u1"), ("site", "s"), ("timestamp", "-1")])
        .unwrap_err();
    assert!(
        err.to_string()
            .starts_with("field `timestamp` is u64: cannot read \"-1\""),
        "{err}"
    );
    let err = event.parse_fields(&[("user", "u1")]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the key has no field `user`; its fields are user_id, site, timestamp"
    );
    assert!(event
        .encode_in(&["u1".into(), "s".into(), Value::U64(1)], 0)
        .is_err());
}

#[test]
fn random_salts_encode_in_the_chosen_bucket() {
    let lines = dynamic::<catalog::Line>();
    let values = ["INV-1".into(), Value::U64(5), Value::U16(1)];
    salt::set_chooser(Some(Box::new(|_| 7)));
    let key = lines.encode(&values).unwrap();
    salt::set_chooser(None);
    assert_eq!(key[0], 7);
    assert_eq!(lines.encode_in(&values, 3).unwrap()[0], 3);
    assert!(lines.encode_in(&values, 10).is_err());
    assert_eq!(lines.candidates(&key).len(), 10);
    assert!(lines.bucket(&[("invoice_id", "INV-1".into())]).is_err());
}

#[test]
fn documents_the_derive_would_refuse_are_refused() {
    let good = catalog::Event::schema().to_json();
    for (from, to, message) in [
        (
            r#""buckets":8"#,
            r#""buckets":0"#,
            "schema `salt.buckets`: N = 0 is outside 1..=65536",
        ),
        (
            r#""encoding":"String""#,
            r#""encoding":null"#,
            "schema `components[0].encoding`: the type `String` of `user_id` declares no encoding",
        ),
        (
            r#""encoding":"u64""#,
            r#""encoding":"u65""#,
            "schema `components[2].encoding`: `u65` is not a key encoding",
        ),
        (
            r#""hashed":[0,1]"#,
            r#""hashed":[0,3]"#,
            "schema `salt.hashed[1]`: expected the index of a component",
        ),
        (
            r#""transform":"plain","encoding":"String""#,
            r#""transform":"reverse","encoding":"String""#,
            "schema `components[0].transform`: `reverse` needs a fixed-width integer",
        ),
        (
            r##""format":{"kind":"binary"},"prefix":"""##,
            r##""format":{"kind":"text","sep":"#"},"prefix":"65762378""##,
            "schema `prefix`: holds the separator '#'",
        ),
        (
            r#""keyschema":2"#,
            r#""keyschema":1"#,
            "schema `keyschema`: version 1 is not supported",
        ),
        (
            r#""kind":"binary""#,
            r#""kind":"text","sep":"-""#,
            "schema `format.sep`: \"-\" is not one ASCII punctuation character",
        ),
    ] {
        assert!(good.contains(from), "{from} in {good}");
        let err = DynSchema::from_json(&good.replacen(from, to, 1)).unwrap_err();
        assert!(err.to_string().starts_with(message), "{err}");
    }
    assert!(matches!(
        DynSchema::from_json("{"),
        Err(keyschema::dynamic::SchemaError::Json(_))
    ));
}

/// A key of either layout of a history, read by `DynSchema::decode_stored`
/// from the version 3 document as the derived `decode_stored` reads it:
/// the same layout, the same values, the same ambiguity.
fn stored_agrees<K: RowKey + std::fmt::Debug>(key: &[u8], values: impl Fn(&K) -> Vec<Value>) {
    let schema = DynSchema::from_json(&K::schema().to_json()).expect("a version 3 document");
    let derived = K::decode_stored(key);
    let read = schema.decode_stored(key);
    match (&derived, &read) {
        (Ok((row, declared)), Ok((got, layout))) => {
            assert_eq!(values(row), *got, "{key:02x?}");
            let expected = if *declared {
                keyschema::dynamic::Layout::Declared
            } else {
                keyschema::dynamic::Layout::Older
            };
            assert_eq!(*layout, expected, "{key:02x?}");
        }
        (Err(a), Err(b)) => assert_eq!(a, b, "{key:02x?}"),
        _ => panic!("derived {derived:?}, dynamic {read:?}, key {key:02x?}"),
    }
}

proptest! {
    #[test]
    fn decode_stored_agrees_with_the_derived_code_on_both_layouts(
        user in "[a-z0-9]{0,6}",
        site in "[a-z]{0,3}",
        timestamp in prop_oneof![0u64..10, 1_699_999_990u64..1_700_000_010, any::<u64>()],
        id in any::<u64>(),
        seq in any::<u32>(),
        flip in any::<(usize, u8)>(),
    ) {
        use common::history::{Event, Thing};
        let event = Event { user_id: user, site, timestamp };
        let event_values = |e: &Event| vec![Value::from(e.user_id.as_str()), Value::from(e.site.as_str()), Value::U64(e.timestamp)];
        let thing = Thing { id, seq };
        let thing_values = |t: &Thing| vec![Value::U64(t.id), Value::U32(t.seq)];
        for key in [event.encode(), event.encode_older().expect("a history")] {
            stored_agrees::<Event>(&key, event_values);
            let mut damaged = key.clone();
            let at = flip.0 % damaged.len();
            damaged[at] ^= flip.1;
            stored_agrees::<Event>(&damaged, event_values);
        }
        for key in [thing.encode(), thing.encode_older().expect("a history")] {
            stored_agrees::<Thing>(&key, thing_values);
        }
    }
}
