//! The `uuid`, `chrono` and `time` component types and the derived enums and
//! newtypes, law by law (`docs/ENCODING.md`, "Identifiers, times and
//! enums"): byte order is value order over each type's whole range, `rev`
//! reverses it, decode inverts encode, arbitrary bytes are refused without
//! a panic, the text form sorts and reads back, and the renderings are what
//! the spec says (RFC 3339 that chrono reads back, chrono's own date text).

mod common;

use chrono::{DateTime, NaiveDate, NaiveDateTime, SecondsFormat, Utc};
use common::catalog::{self, Priority, UserId};
use keyschema::dynamic::Value;
use keyschema::{decode_value, encode_value, KeyComponent, Reader, RowKey, TextComponent};
use proptest::prelude::*;
use std::cmp::Ordering;
use std::fmt::Debug;
use time::{OffsetDateTime, PrimitiveDateTime, UtcOffset};
use uuid::Uuid;

fn inverted(bytes: &[u8]) -> Vec<u8> {
    bytes.iter().map(|b| !b).collect()
}

fn text<T: TextComponent>(v: &T) -> Vec<u8> {
    let mut out = Vec::new();
    T::encode_text(v.as_key_ref(), &mut out, b'#');
    out
}

fn rendered<T: KeyComponent>(v: &T) -> String {
    let bytes = encode_value::<T>(v.as_key_ref());
    let mut out = String::new();
    T::render_key(&mut Reader::new(&bytes), &mut out).expect("renders");
    out
}

macro_rules! laws {
    ($module:ident, $ty:ty, $strategy:expr) => {
        mod $module {
            use super::*;

            /// One component, descending: what `rev` stores.
            #[derive(RowKey, Debug, Clone, PartialEq)]
            #[rowkey(then = rev(v), n)]
            struct Desc {
                v: $ty,
                n: u8,
            }

            proptest! {
                #[test]
                fn encoding_order_matches_value_order(a in $strategy, b in $strategy) {
                    let (ea, eb) = (encode_value::<$ty>(a.as_key_ref()), encode_value::<$ty>(b.as_key_ref()));
                    prop_assert_eq!(ea.cmp(&eb), a.cmp(&b), "{:?} {:?}", a, b);
                    prop_assert_eq!(Some(ea.len()), <$ty as KeyComponent>::FIXED_WIDTH);
                }

                #[test]
                fn decode_inverts_encode(a in $strategy) {
                    let bytes = encode_value::<$ty>(a.as_key_ref());
                    prop_assert_eq!(decode_value::<$ty>(&bytes), Ok(a.clone()));
                    // Cut short, the bytes are an error, never another value.
                    prop_assert!(decode_value::<$ty>(&bytes[..bytes.len() - 1]).is_err());
                }

                #[test]
                fn rev_reverses_order(a in $strategy, b in $strategy) {
                    let (ka, kb) = (Desc { v: a.clone(), n: 0 }.encode(), Desc { v: b.clone(), n: 0 }.encode());
                    prop_assert_eq!(ka.cmp(&kb), b.cmp(&a));
                    prop_assert_eq!(&ka[..ka.len() - 1], &inverted(&encode_value::<$ty>(a.as_key_ref()))[..]);
                    prop_assert_eq!(Desc::decode(&ka), Ok(Desc { v: a, n: 0 }));
                }

                #[test]
                fn decode_rejects_without_panic(bytes in proptest::collection::vec(any::<u8>(), 0..40)) {
                    // Either a value whose encoding is exactly these bytes, or an error.
                    if let Ok(v) = decode_value::<$ty>(&bytes) {
                        prop_assert_eq!(encode_value::<$ty>(v.as_key_ref()), bytes.clone());
                    }
                    let _ = Desc::render(&bytes);
                    let _ = <$ty as TextComponent>::decode_text(&bytes, b'#');
                }

                #[test]
                fn text_form_sorts_and_reads_back(a in $strategy, b in $strategy) {
                    let (ta, tb) = (text(&a), text(&b));
                    prop_assert_eq!(ta.cmp(&tb), a.cmp(&b));
                    prop_assert_eq!(Some(ta.len()), <$ty as TextComponent>::TEXT_WIDTH);
                    prop_assert_eq!(<$ty as TextComponent>::decode_text(&ta, b'#'), Ok(a.clone()));
                }

                #[test]
                fn the_rendering_reads_back_as_the_same_value(a in $strategy) {
                    let encoding = <$ty as KeyComponent>::ENCODING.expect("declares its encoding");
                    let text = rendered(&a);
                    prop_assert_eq!(Value::parse(encoding, &text), Ok(Value::from(a.clone())), "{}", text);
                    prop_assert_eq!(Value::from(a).to_text(), text);
                }
            }
        }
    };
}

laws!(uuid_laws, Uuid, catalog::uuids());
laws!(chrono_instant_laws, DateTime<Utc>, catalog::instants());
laws!(chrono_civil_laws, NaiveDateTime, catalog::naive_times());
laws!(chrono_date_laws, NaiveDate, catalog::dates());
laws!(
    time_civil_laws,
    PrimitiveDateTime,
    catalog::primitive_times()
);
laws!(time_date_laws, time::Date, catalog::time_dates());
laws!(enum_laws, Priority, catalog::priorities());

/// `OffsetDateTime` keeps its instant, not its offset: its laws hold for
/// the instant, and a decoded value is at UTC.
mod time_instant_laws {
    use super::*;

    proptest! {
        #[test]
        fn encoding_order_matches_value_order(a in catalog::offset_times(), b in catalog::offset_times()) {
            let (ea, eb) = (encode_value::<OffsetDateTime>(a), encode_value::<OffsetDateTime>(b));
            // OffsetDateTime orders (and compares) by instant.
            prop_assert_eq!(ea.cmp(&eb), a.cmp(&b));
            prop_assert_eq!(inverted(&ea).cmp(&inverted(&eb)), b.cmp(&a));
        }

        #[test]
        fn decode_gives_the_instant_at_utc(a in catalog::offset_times()) {
            let back = decode_value::<OffsetDateTime>(&encode_value::<OffsetDateTime>(a)).expect("decodes");
            prop_assert_eq!(back.offset(), UtcOffset::UTC);
            prop_assert_eq!(back.unix_timestamp_nanos(), a.unix_timestamp_nanos());
            // The offset is what is lost: equal as instants, apart field by field.
            prop_assert_eq!(back, a);
            if !a.offset().is_utc() {
                prop_assert!(back.offset() != a.offset());
            }
        }

        #[test]
        fn decode_rejects_without_panic(bytes in proptest::collection::vec(any::<u8>(), 0..40)) {
            if let Ok(v) = decode_value::<OffsetDateTime>(&bytes) {
                prop_assert_eq!(encode_value::<OffsetDateTime>(v), bytes);
            }
        }

        #[test]
        fn chrono_and_time_write_the_same_bytes_for_an_instant(a in catalog::offset_times()) {
            let chrono = DateTime::<Utc>::from_timestamp(a.unix_timestamp(), a.nanosecond()).expect("in range");
            prop_assert_eq!(encode_value::<DateTime<Utc>>(chrono), encode_value::<OffsetDateTime>(a));
            let date = a.to_offset(UtcOffset::UTC).date();
            let chrono_date = NaiveDate::from_ymd_opt(date.year(), u32::from(u8::from(date.month())), u32::from(date.day())).expect("a date");
            prop_assert_eq!(encode_value::<NaiveDate>(chrono_date), encode_value::<time::Date>(date));
        }
    }
}

proptest! {
    #[test]
    fn a_timestamp_renders_as_rfc3339_that_chrono_reads_back(a in catalog::instants()) {
        let text = rendered(&a);
        if (0..=9999).contains(&chrono::Datelike::year(&a)) {
            let parsed = DateTime::parse_from_rfc3339(&text).expect("RFC 3339");
            prop_assert_eq!(parsed.to_utc(), a);
            // The same instant as chrono writes it, up to the fraction's zeros.
            let chrono = a.to_rfc3339_opts(SecondsFormat::Nanos, true);
            let trimmed = chrono.trim_end_matches('Z').trim_end_matches('0').trim_end_matches('.');
            prop_assert_eq!(text.trim_end_matches('Z'), trimmed);
        }
    }

    #[test]
    fn a_date_renders_as_chrono_writes_it(d in catalog::dates()) {
        prop_assert_eq!(rendered(&d), d.to_string());
    }

    #[test]
    fn a_newtype_is_the_type_it_wraps(s in any::<String>()) {
        let user = UserId(s.clone());
        prop_assert_eq!(encode_value::<UserId>(user.as_key_ref()), encode_value::<String>(&s));
        prop_assert_eq!(decode_value::<UserId>(&encode_value::<String>(&s)), Ok(user.clone()));
        prop_assert_eq!(rendered(&user), rendered(&s));
        prop_assert_eq!(text(&user), text(&s));
        prop_assert_eq!(<UserId as KeyComponent>::ENCODING, <String as KeyComponent>::ENCODING);
    }
}

#[test]
fn an_enum_sorts_by_discriminant_and_renders_by_name() {
    // Declared High = 300, Low = -2, Normal = 0: keys sort Low, Normal, High.
    let mut keys: Vec<Vec<u8>> = [Priority::High, Priority::Low, Priority::Normal]
        .iter()
        .map(encode_value::<Priority>)
        .collect();
    keys.sort();
    let names: Vec<String> = keys
        .iter()
        .map(|k| {
            let mut out = String::new();
            Priority::render_key(&mut Reader::new(k), &mut out).expect("renders");
            out
        })
        .collect();
    assert_eq!(names, ["Low", "Normal", "High"]);
    assert_eq!(encode_value::<Priority>(&Priority::Low), [0x7f, 0xfe]);
    assert_eq!(
        Priority::ENCODING.map(|e| e.to_string()).as_deref(),
        Some("enum i16 {High = 300, Low = -2, Normal = 0}")
    );
    // A discriminant of no variant: the component and its offset.
    let err = decode_value::<Priority>(&[0x80, 0x01]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "component `value` at byte 0 is not a valid value: not the discriminant of any variant of the enum"
    );
    assert!(Priority::decode_text(b"32769", b'#').is_err());
    assert_eq!(Priority::decode_text(b"32768", b'#'), Ok(Priority::Normal));
}

#[test]
fn values_outside_a_types_range_are_refused_naming_the_type() {
    // Every i32 is a date of the encoding; chrono stops at year 262142.
    let far = encode_value::<i32>(i32::MAX);
    let err = decode_value::<NaiveDate>(&far).unwrap_err();
    assert!(
        err.to_string().contains("chrono::NaiveDate's range"),
        "{err}"
    );
    let err = decode_value::<time::Date>(&far).unwrap_err();
    assert!(err.to_string().contains("time::Date's range"), "{err}");
    // A leap second: chrono holds it, time does not.
    let leap =
        DateTime::<Utc>::from_timestamp(1_483_228_799, 1_500_000_000).expect("a leap second");
    let bytes = encode_value::<DateTime<Utc>>(leap);
    assert_eq!(decode_value::<DateTime<Utc>>(&bytes), Ok(leap));
    let err = decode_value::<OffsetDateTime>(&bytes).unwrap_err();
    assert_eq!(
        err.to_string(),
        "component `value` at byte 0 is not a valid value: a leap second, which the time crate does not represent"
    );
    // The extremes of each type encode (no panic, no wrap) and read back.
    for at in [DateTime::<Utc>::MIN_UTC, DateTime::<Utc>::MAX_UTC] {
        assert_eq!(
            decode_value::<DateTime<Utc>>(&encode_value::<DateTime<Utc>>(at)),
            Ok(at)
        );
    }
    for at in [PrimitiveDateTime::MIN, PrimitiveDateTime::MAX] {
        for offset in [
            UtcOffset::UTC,
            UtcOffset::from_hms(25, 59, 59).expect("an offset"),
            UtcOffset::from_hms(-25, -59, -59).expect("an offset"),
        ] {
            let odt = at.assume_offset(offset);
            let back = decode_value::<OffsetDateTime>(&encode_value::<OffsetDateTime>(odt));
            // Outside time's range at UTC: refused, never shifted.
            match back {
                Ok(back) => assert_eq!(back, odt),
                Err(e) => assert!(e.to_string().contains("time crate's range"), "{e}"),
            }
        }
    }
}

#[test]
fn every_order_agrees_with_the_encoding_at_the_edges() {
    // Around the epoch, where the sign flips, and around leap seconds.
    let instants: Vec<DateTime<Utc>> = [
        (-1, 0),
        (-1, 999_999_999),
        (0, 0),
        (0, 1),
        (59, 999_999_999),
        (59, 1_000_000_000),
        (59, 1_999_999_999),
        (60, 0),
    ]
    .iter()
    .map(|&(s, n)| DateTime::from_timestamp(s, n).expect("valid"))
    .collect();
    for pair in instants.windows(2) {
        assert!(pair[0] < pair[1]);
        assert_eq!(
            encode_value::<DateTime<Utc>>(pair[0]).cmp(&encode_value::<DateTime<Utc>>(pair[1])),
            Ordering::Less
        );
    }
}
