//! Readable text keys, `format = text(sep = ...)`: KARTE's
//! `{hash}_{user_id}_{reversed timestamp}` and the Bigtable article's
//! `01-user_id-...`, exact round trips, order, and scan ranges.

use keyschema::{DecodeError, RowKey};
use proptest::prelude::*;
use std::ops::Bound;

/// KARTE's event key: hash, user id, reversed timestamp.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(format = text(sep = "_"), salt = hash(user_id) % 16, then = user_id, rev(timestamp))]
struct KarteEvent {
    user_id: String,
    timestamp: u64,
}

/// The same fields in binary: the salt rule hashes binary encodings, so both agree.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = hash(user_id) % 16, then = user_id, rev(timestamp))]
struct BinaryEvent {
    user_id: String,
    timestamp: u64,
}

#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(format = text(sep = "#"), prefix = "ev", then = site, delta, flag, score, tag, blob)]
struct Mixed {
    site: String,
    delta: i32,
    flag: bool,
    score: f64,
    tag: Option<String>,
    blob: Vec<u8>,
}

#[test]
fn karte_style_keys_read_as_text() {
    let key = KarteEvent::get_key("user42", 1_700_000_000);
    let bucket = BinaryEvent::schema()
        .bucket_of(&BinaryEvent::get_key("user42", 1_700_000_000))
        .unwrap();
    assert_eq!(
        String::from_utf8(key.clone()).unwrap(),
        format!("{bucket:02}_user42_99999999998299999999")
    );
    assert_eq!(
        KarteEvent::render(&key),
        String::from_utf8(key.clone()).unwrap()
    );
    assert_eq!(
        KarteEvent::decode(&key),
        Ok(KarteEvent {
            user_id: "user42".into(),
            timestamp: 1_700_000_000
        })
    );
    assert_eq!(
        KarteEvent::schema().to_string(),
        "KarteEvent: format = text(sep = '_'), salt = hash(user_id) % 16, then = user_id: String, rev(timestamp: u64)"
    );
    // Newest first.
    assert!(KarteEvent::get_key("user42", 1_700_000_001) < key);
}

#[test]
fn separators_inside_ids_cannot_break_decoding() {
    for user in ["a_b", "_", "%", "100%_sure", "", "日本", "a\0b"] {
        let e = KarteEvent {
            user_id: user.into(),
            timestamp: 7,
        };
        let key = e.encode();
        assert_eq!(
            KarteEvent::decode(&key),
            Ok(e.clone()),
            "{user:?} -> {:?}",
            String::from_utf8_lossy(&key)
        );
        // The separator appears only between components.
        let text = String::from_utf8(key).unwrap();
        assert_eq!(text.matches('_').count(), 2, "{text}");
    }
}

#[test]
fn every_type_round_trips() {
    let m = Mixed {
        site: "s#1".into(),
        delta: -42,
        flag: true,
        score: -1.5,
        tag: Some("x".into()),
        blob: vec![0, 255],
    };
    let key = m.encode();
    assert_eq!(
        String::from_utf8(key.clone()).unwrap(),
        "ev#s%231#2147483606#1#4007ffffffffffff#=x#00ff#"
    );
    assert_eq!(Mixed::decode(&key), Ok(m));
    let none = Mixed {
        site: String::new(),
        delta: i32::MIN,
        flag: false,
        score: f64::NAN,
        tag: None,
        blob: vec![],
    };
    let back = Mixed::decode(&none.encode()).unwrap();
    assert_eq!(
        (back.delta, back.tag, back.score.to_bits()),
        (i32::MIN, None, f64::NAN.to_bits())
    );
}

/// Found by `fuzz/run text_keys`: `%22` decoded to `"`, whose text form is
/// `"`, so one value had two keys. Each value now has exactly one text form.
#[test]
fn text_forms_are_canonical() {
    let canonical = b"ev#a%23b#2147483606#1#4007ffffffffffff#=x#00ff#";
    assert!(Mixed::decode(canonical).is_ok());
    for (key, reason) in [
        // A needless escape of a plain character.
        (
            &b"ev#%41#2147483606#1#4007ffffffffffff#=x#00ff#"[..],
            "needless",
        ),
        (
            &b"ev#\x03%22#2147483606#1#4007ffffffffffff#=x#00ff#"[..],
            "needless",
        ),
        // The separator's escape in lowercase hex.
        (
            &b"ev#a%2fb#2147483606#1#4007ffffffffffff#=x#00ff#"[..],
            "uppercase",
        ),
        // A sign inside an escape or a hex blob (`from_str_radix` takes one).
        (
            &b"ev#%+5#2147483606#1#4007ffffffffffff#=x#00ff#"[..],
            "uppercase",
        ),
        (
            &b"ev#a#2147483606#1#4007ffffffffffff#=x#+f#"[..],
            "lowercase hex",
        ),
        (
            &b"ev#a#2147483606#1#+007ffffffffffff#=x#00ff#"[..],
            "lowercase hex",
        ),
        (
            &b"ev#a#2147483606#1#4007FFFFFFFFFFFF#=x#00ff#"[..],
            "lowercase hex",
        ),
    ] {
        match Mixed::decode(key) {
            Err(DecodeError::InvalidValue { reason: r, .. }) => {
                assert!(
                    r.contains(reason),
                    "{:?}: {r}",
                    String::from_utf8_lossy(key)
                )
            }
            other => panic!("{:?} decoded as {other:?}", String::from_utf8_lossy(key)),
        }
    }
}

#[test]
fn bad_text_is_a_typed_error() {
    let key = KarteEvent::get_key("u", 5);
    let text = String::from_utf8(key.clone()).unwrap();
    let mut bad = key.clone();
    let at = text.rfind('_').unwrap() + 3;
    bad[at] = b'x';
    assert!(matches!(
        KarteEvent::decode(&bad),
        Err(DecodeError::InvalidValue {
            component: "timestamp",
            ..
        })
    ));
    assert!(matches!(
        KarteEvent::decode(&key[..key.len() - 1]),
        Err(DecodeError::Truncated {
            component: "timestamp",
            ..
        })
    ));
    assert!(matches!(
        KarteEvent::decode(&[key.clone(), b"_".to_vec()].concat()),
        Err(DecodeError::TrailingBytes { .. })
    ));
    let mut wrong_salt = key.clone();
    wrong_salt[1] = if key[1] == b'0' { b'1' } else { b'0' };
    assert!(KarteEvent::decode(&wrong_salt).is_err());
    assert!(matches!(
        Mixed::decode(b"xx#s#"),
        Err(DecodeError::ForeignPrefix { .. })
    ));
}

#[test]
fn text_scans_are_exact() {
    let set = KarteEvent::scan().user_id("u1").ranges();
    assert_eq!(set.len(), 1);
    assert!(set.contains(&KarteEvent::get_key("u1", 3)));
    assert!(
        !set.contains(&KarteEvent::get_key("u10", 3)),
        "u1 must not admit u10"
    );
    let window = KarteEvent::scan()
        .user_id("u1")
        .timestamp(100..200)
        .ranges();
    for t in [0u64, 99, 100, 150, 199, 200, u64::MAX] {
        assert_eq!(
            window.contains(&KarteEvent::get_key("u1", t)),
            (100..200).contains(&t),
            "{t}"
        );
    }
    assert_eq!(KarteEvent::schema().salt_splits()[0], b"01");
}

/// Strings over characters above the separator and not `%`: text order is value order.
fn ordered_string() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(vec!['a', 'b', 'z', '0', '9', '~', 'é']),
        0..4,
    )
    .prop_map(String::from_iter)
}

#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(format = text(sep = "#"), then = user, rev(score), site)]
struct Ranked {
    user: String,
    score: i64,
    site: String,
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn text_decode_inverts_encode(user in any::<String>(), ts in any::<u64>(), score in any::<i64>(), site in any::<String>()) {
        let e = KarteEvent { user_id: user.clone(), timestamp: ts };
        prop_assert_eq!(KarteEvent::decode(&e.encode()), Ok(e));
        let r = Ranked { user, score, site };
        prop_assert_eq!(Ranked::decode(&r.encode()), Ok(r));
    }

    #[test]
    fn text_order_matches_declared_order(a in ordered_string(), b in ordered_string(), x in any::<i64>(), y in any::<i64>(), s in ordered_string(), t in ordered_string()) {
        let (p, q) = (Ranked { user: a, score: x, site: s }, Ranked { user: b, score: y, site: t });
        let logical = p.user.cmp(&q.user).then(q.score.cmp(&p.score)).then(p.site.cmp(&q.site));
        prop_assert_eq!(p.encode().cmp(&q.encode()), logical);
    }

    #[test]
    fn text_scan_ranges_hold_exactly_the_matching_keys(
        rows in prop::collection::vec((ordered_string(), -3i64..3, ordered_string()), 1..30),
        pivot in (ordered_string(), -3i64..3),
        lo in -4i64..4, hi in -4i64..4, kind in 0u8..9,
    ) {
        let bound = |v: i64, k: u8| match k % 3 { 0 => Bound::Included(v), 1 => Bound::Excluded(v), _ => Bound::Unbounded };
        let (lb, hb) = (bound(lo, kind), bound(hi, kind / 3));
        let by_user = Ranked::scan().user(&pivot.0).ranges();
        let by_score = Ranked::scan().user(&pivot.0).score((lb, hb)).ranges();
        let exact = Ranked::scan().user(&pivot.0).score(pivot.1).ranges();
        for (user, score, site) in rows {
            let key = Ranked::get_key(&user, score, &site);
            prop_assert_eq!(by_user.contains(&key), user == pivot.0);
            let above = match lb { Bound::Included(v) => score >= v, Bound::Excluded(v) => score > v, Bound::Unbounded => true };
            let below = match hb { Bound::Included(v) => score <= v, Bound::Excluded(v) => score < v, Bound::Unbounded => true };
            let within = above && below;
            prop_assert_eq!(by_score.contains(&key), user == pivot.0 && within);
            prop_assert_eq!(exact.contains(&key), user == pivot.0 && score == pivot.1);
        }
    }

    #[test]
    fn text_decode_rejects_without_panic(bytes in prop::collection::vec(any::<u8>(), 0..48)) {
        if let Ok(e) = KarteEvent::decode(&bytes) {
            prop_assert_eq!(e.encode(), bytes.clone());
        }
        let _ = Mixed::decode(&bytes);
        let _ = KarteEvent::render(&bytes);
    }
}

/// The people table: names under `sep = "_"`, where `"A1_"` sorts
/// before `"A_"`. A range on `name` does not compile (tests/ui/scan/
/// range_on_text_string.rs); equality on it and ranges on the fixed-width
/// number after it are exact.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(format = text(sep = "_"), then = name, seq)]
struct Person {
    name: String,
    seq: u32,
}

#[test]
fn text_key_scans_are_exact_where_they_compile() {
    use keyschema::store::{MemoryStore, RowStore};
    let store = MemoryStore::new();
    let names = ["A", "A1", "AB", "A_", "A%", "B", ""];
    for name in names {
        for seq in [1, 5, 9] {
            let p = Person {
                name: name.into(),
                seq,
            };
            store.put_row(&p, b"").unwrap();
        }
    }
    for name in names {
        let got: Vec<(String, u32)> = Person::scan()
            .name(name)
            .run(&store)
            .map(|r| r.map(|(p, _)| (p.name, p.seq)))
            .collect::<Result<_, _>>()
            .unwrap();
        let want: Vec<(String, u32)> = [1, 5, 9].iter().map(|&s| (name.to_string(), s)).collect();
        assert_eq!(got, want, "name == {name:?}");
        let got: Vec<u32> = Person::scan()
            .name(name)
            .seq(2..=9)
            .run(&store)
            .map(|r| r.map(|(p, _)| p.seq))
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(got, [5, 9], "name == {name:?}, seq in 2..=9");
    }
}

/// The guide's text-key example is this very key (it once showed another
/// salt and separator than docs/ENCODING.md).
#[test]
fn the_readme_text_key_example_is_true() {
    let readme = include_str!("../docs/guide/keys.md");
    let key = KarteEvent::get_key("user42", 1_700_000_000);
    let key = std::str::from_utf8(&key).unwrap();
    assert_eq!(key, "02_user42_99999999998299999999");
    assert!(
        readme.contains(&format!("is `{key}`")),
        "the guide (docs/guide/keys.md) shows {key}"
    );
    assert!(readme.contains("`format = text(sep = \"_\")`"));
    let spec = include_str!("../docs/ENCODING.md");
    assert!(
        spec.contains(&format!("`{key}`")),
        "docs/ENCODING.md shows {key}"
    );
}
