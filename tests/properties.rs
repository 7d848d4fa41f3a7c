//! The laws of the encoding, as property tests.

mod common;

use common::model::{self, Eight, One, Prefixed, Wide};

use keyschema::{decode_value, encode_value};
use keyschema::{KeyComponent, RowKey};
use proptest::prelude::*;
use std::cmp::Ordering;
use std::fmt::Debug;

const CASES: u32 = 2_000;

/// Strings that stress the escape: empty, NUL, 0x01, shared prefixes.
fn tricky_string() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::collection::vec(prop::sample::select(vec!['a', 'b', '\0', '\u{1}', '\u{2}', 'é', '\u{ff}']), 0..5)
            .prop_map(String::from_iter),
        1 => any::<String>(),
    ]
}

fn tricky_bytes() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        3 => prop::collection::vec(prop::sample::select(vec![0x00u8, 0x01, 0x02, 0x61, 0xFE, 0xFF]), 0..5),
        1 => any::<Vec<u8>>(),
    ]
}

/// decode(encode(x)) == x, encodings compare like values, and no encoding
/// is a proper prefix of another; `cmp` is the type's order.
fn check_laws<T: KeyComponent + Debug>(
    a: &T,
    b: &T,
    cmp: impl Fn(&T, &T) -> Ordering,
    same: impl Fn(&T, &T) -> bool,
) {
    let (ea, eb) = (
        encode_value::<T>(a.as_key_ref()),
        encode_value::<T>(b.as_key_ref()),
    );
    let back = decode_value::<T>(&ea).expect("decode of an encoding");
    assert!(same(&back, a), "decode(encode({a:?})) = {back:?}");
    assert_eq!(
        ea.cmp(&eb),
        cmp(a, b),
        "order of {a:?} vs {b:?}: {ea:02x?} vs {eb:02x?}"
    );
    if ea != eb {
        assert!(
            !eb.starts_with(&ea) && !ea.starts_with(&eb),
            "{ea:02x?} and {eb:02x?}: one is a prefix of the other"
        );
    }
    // Inverted (rev): exactly the reverse order.
    let inv = |e: &[u8]| e.iter().map(|b| !b).collect::<Vec<u8>>();
    assert_eq!(inv(&ea).cmp(&inv(&eb)), cmp(a, b).reverse());
}

fn laws_ord<T: KeyComponent + Debug + Ord>(a: T, b: T) {
    check_laws(&a, &b, T::cmp, |x, y| x == y);
}

macro_rules! ord_laws {
    ($($name:ident: $strategy:expr;)*) => {
        proptest! {
            #![proptest_config(ProptestConfig::with_cases(CASES))]
            $(
                #[test]
                fn $name(a in $strategy, b in $strategy) {
                    laws_ord(a, b);
                }
            )*
        }
    };
}

ord_laws! {
    encoding_laws_u8: any::<u8>();
    encoding_laws_u16: any::<u16>();
    encoding_laws_u32: any::<u32>();
    encoding_laws_u64: any::<u64>();
    encoding_laws_u128: any::<u128>();
    encoding_laws_i8: any::<i8>();
    encoding_laws_i16: any::<i16>();
    encoding_laws_i32: any::<i32>();
    encoding_laws_i64: any::<i64>();
    encoding_laws_i128: any::<i128>();
    encoding_laws_bool: any::<bool>();
    encoding_laws_char: any::<char>();
    encoding_laws_string: tricky_string();
    encoding_laws_bytes: tricky_bytes();
    encoding_laws_array: any::<[u8; 3]>();
    encoding_laws_option_u32: any::<Option<u32>>();
    encoding_laws_option_string: proptest::option::of(tricky_string());
    encoding_laws_nested_option: proptest::option::of(proptest::option::of(any::<i8>()));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    /// Floats: IEEE total order, every bit pattern round-trips (NaNs and -0.0 included).
    #[test]
    fn encoding_laws_f64(a in any::<u64>().prop_map(f64::from_bits), b in any::<f64>()) {
        check_laws(&a, &b, f64::total_cmp, |x, y| x.to_bits() == y.to_bits());
    }

    #[test]
    fn encoding_laws_f32(a in any::<u32>().prop_map(f32::from_bits), b in any::<f32>()) {
        check_laws(&a, &b, f32::total_cmp, |x, y| x.to_bits() == y.to_bits());
    }
}

/// Every supported type in one key, some of them `rev`, with a two-byte salt.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(
    salt = hash(s, j, l) % 1000,
    then = a, rev(b), c, d, rev(e), f, g, rev(h), i, j, k, rev(l), s, rev(t), v, rev(w), x, rev(o)
)]
struct Everything {
    a: u8,
    b: u16,
    c: u32,
    d: u64,
    e: u128,
    f: i8,
    g: i16,
    h: i32,
    i: i64,
    j: i128,
    k: bool,
    l: char,
    s: String,
    t: String,
    v: Vec<u8>,
    w: [u8; 2],
    x: Option<String>,
    o: Option<i64>,
    #[rowkey(skip)]
    note: String,
}

prop_compose! {
    fn everything()(
        (a, b, c, d, e, f, g, h) in (any::<u8>(), any::<u16>(), any::<u32>(), any::<u64>(), any::<u128>(), any::<i8>(), any::<i16>(), any::<i32>()),
        (i, j, k, l, s, t) in (any::<i64>(), any::<i128>(), any::<bool>(), any::<char>(), tricky_string(), tricky_string()),
        (v, w, x, o) in (tricky_bytes(), any::<[u8; 2]>(), proptest::option::of(tricky_string()), any::<Option<i64>>()),
    ) -> Everything {
        Everything { a, b, c, d, e, f, g, h, i, j, k, l, s, t, v, w, x, o, note: String::new() }
    }
}

/// The unsalted order of `Everything`: its components compared in key order, `rev` ones reversed.
fn logical_cmp(p: &Everything, q: &Everything) -> Ordering {
    p.a.cmp(&q.a)
        .then(q.b.cmp(&p.b))
        .then(p.c.cmp(&q.c))
        .then(p.d.cmp(&q.d))
        .then(q.e.cmp(&p.e))
        .then(p.f.cmp(&q.f))
        .then(p.g.cmp(&q.g))
        .then(q.h.cmp(&p.h))
        .then(p.i.cmp(&q.i))
        .then(p.j.cmp(&q.j))
        .then(p.k.cmp(&q.k))
        .then(q.l.cmp(&p.l))
        .then(p.s.cmp(&q.s))
        .then(q.t.cmp(&p.t))
        .then(p.v.cmp(&q.v))
        .then(q.w.cmp(&p.w))
        .then(p.x.cmp(&q.x))
        .then(q.o.cmp(&p.o))
}

/// A compact key over which scans are tested.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = hash(user, site) % 4, then = user, site, rev(ts))]
struct Visit {
    user: String,
    site: String,
    ts: i64,
}

/// The same components, unsalted and behind a prefix.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(prefix = "v", then = user, site, rev(ts))]
struct PlainVisit {
    user: String,
    site: String,
    ts: i64,
}

fn visit() -> impl Strategy<Value = Visit> {
    let small = || {
        prop::collection::vec(prop::sample::select(vec!['a', 'b', '\0', '\u{1}']), 0..3)
            .prop_map(String::from_iter)
    };
    (small(), small(), -3i64..3).prop_map(|(user, site, ts)| Visit { user, site, ts })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    #[test]
    fn decode_inverts_encode(x in everything()) {
        let key = x.encode();
        prop_assert_eq!(Everything::decode(&key), Ok(x.clone()));
        let mut buf = Vec::new();
        x.encode_into(&mut buf);
        prop_assert_eq!(buf, key);
    }

    #[test]
    fn key_order_matches_declared_order(x in everything(), y in everything()) {
        // Within one bucket, keys sort like their components (rev reversed);
        // the salt byte(s) come first, so compare after them.
        let (kx, ky) = (x.encode(), y.encode());
        let w = Everything::schema().header_len();
        prop_assert_eq!(kx[w..].cmp(&ky[w..]), logical_cmp(&x, &y));
        let (px, py) = (PlainVisit { user: x.s.clone(), site: x.t.clone(), ts: x.i }, PlainVisit { user: y.s.clone(), site: y.t.clone(), ts: y.i });
        let logical = px.user.cmp(&py.user).then(px.site.cmp(&py.site)).then(py.ts.cmp(&px.ts));
        prop_assert_eq!(px.encode().cmp(&py.encode()), logical);
    }

    #[test]
    fn prefix_encoding_is_byte_prefix(v in visit()) {
        // The start of the single-bucket range for a bound prefix is the
        // encoding of that prefix, and every full key with it starts with it.
        let key = v.encode();
        for ranges in [
            Visit::scan().user(&v.user).site(&v.site).ranges(),
            Visit::scan().user(&v.user).site(&v.site).ts(v.ts).ranges(),
        ] {
            prop_assert_eq!(ranges.len(), 1);
            let start = ranges.iter().next().unwrap().start().to_vec();
            prop_assert!(key.starts_with(&start), "{:02x?} does not start with {:02x?}", key, start);
        }
        let plain = PlainVisit { user: v.user.clone(), site: v.site.clone(), ts: v.ts };
        let prefix = PlainVisit::scan().user(&v.user).ranges().iter().next().unwrap().start().to_vec();
        prop_assert!(plain.encode().starts_with(&prefix));
    }

    #[test]
    fn scan_ranges_hold_exactly_the_matching_keys(
        rows in prop::collection::vec(model::row(), 1..40),
        req in model::request(),
    ) {
        macro_rules! check {
            ($k:ident) => {{
                let ranges = crate::scan_for!($k, &req).ranges();
                let v: Vec<_> = ranges.iter().collect();
                for pair in v.windows(2) {
                    prop_assert!(pair[0].end().is_some_and(|e| e <= pair[1].start()), "ranges sorted and disjoint");
                }
                for row in rows.iter().chain([&req.pivot]) {
                    let expected = req.matches(row);
                    prop_assert_eq!(ranges.contains(&model::$k::from(row).encode()), expected, "{} {:?} for {:?}", stringify!($k), row, req);
                }
                ranges.len()
            }};
        }
        check!(One);
        let eight = check!(Eight);
        check!(Wide);
        check!(Prefixed);
        // One range when the salt is known (both hashed fields bound), one per bucket otherwise.
        let bound = if req.depth >= 2 { 1 } else { 8 };
        prop_assert!(eight <= bound);
    }

    #[test]
    fn decode_rejects_without_panic(bytes in prop::collection::vec(any::<u8>(), 0..64)) {
        // Arbitrary bytes decode to an error, or to a value whose encoding
        // is exactly those bytes: the format is canonical.
        if let Ok(v) = Visit::decode(&bytes) {
            prop_assert_eq!(v.encode(), bytes.clone());
        }
        if let Ok(x) = Everything::decode(&bytes) {
            prop_assert_eq!(x.encode(), bytes.clone());
        }
        let _ = Visit::render(&bytes);
        let _ = Everything::render(&bytes);
    }

    #[test]
    fn decode_rejects_damaged_keys(x in everything(), cut in any::<prop::sample::Index>(), at in any::<prop::sample::Index>(), flip in 1..=255u8) {
        let key = x.encode();
        // Every proper prefix is an error.
        let n = cut.index(key.len());
        prop_assert!(Everything::decode(&key[..n]).is_err());
        // Trailing bytes are an error.
        let mut long = key.clone();
        long.push(0);
        prop_assert!(Everything::decode(&long).is_err());
        // A changed byte is an error or a different row, never the same one.
        let mut bad = key.clone();
        bad[at.index(key.len())] ^= flip;
        if let Ok(y) = Everything::decode(&bad) {
            prop_assert_ne!(y.encode(), key);
        }
    }

    /// Seen before the fix: a key whose salt byte was changed rendered `Ok`
    /// while `decode` refused it.
    #[test]
    fn render_strict_agrees_with_decode(x in everything(), at in any::<prop::sample::Index>(), flip in 0..=255u8, salt in 0..4u8) {
        let mut key = x.encode();
        let i = at.index(key.len());
        key[i] ^= flip;
        prop_assert_eq!(Everything::schema().render_strict(&key).err(), Everything::decode(&key).err());
        let mut resalted = Visit::get_key("u", "s", 7);
        resalted[0] = salt;
        prop_assert_eq!(Visit::schema().render_strict(&resalted).err(), Visit::decode(&resalted).err());
    }
}
