//! The form of each index on DynamoDB (issue 41), decided from the index's
//! declaration without a server: native (a GSI over the item's own typed
//! attributes, where DynamoDB's order of each is the declared one) or
//! encoded (the GSI over `Name_pk`/`Name_sk`), and why. The order evidence
//! behind the list of native types is `tests/dynamodb_native_order.rs`.
#![cfg(feature = "dynamodb")]

use keyschema::store::dynamodb::{
    index_form, DynamoError, DynamoStore, IndexForm, ItemShape, KeyKind, KeySource, NativeAttribute,
};
use keyschema::{DynamoForm, Index, RowKey};

#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(
    prefix = "e",
    then = (user), ts, site,
    index(BySite, prefix = "s", salt = hash(site, user) % 8, then = (site), rev(ts), user, dynamodb = native),
    index(ByDay, prefix = "d", then = (site), bucket(ts, 86400), ts, user, dynamodb = native),
    index(ByDayDown, prefix = "w", then = (site), bucket(ts, 86400), rev(ts), user, dynamodb = native),
    index(ByScore, prefix = "c", then = (site), score, user, ts, dynamodb = native),
    index(ByTag, prefix = "t", then = (tag), user, ts, site),
    index(ByTagEncoded, prefix = "u", then = (tag), user, ts, site, dynamodb = encoded),
    index(ByRatio, prefix = "r", then = (site), ratio, user, ts),
)]
struct Event {
    user: String,
    ts: u64,
    site: String,
    #[rowkey(value)]
    score: i32,
    #[rowkey(value)]
    tag: Option<String>,
    #[rowkey(value)]
    ratio: f64,
}

fn attribute(name: &str, kind: KeyKind, source: KeySource) -> NativeAttribute {
    NativeAttribute {
        name: name.to_string(),
        kind,
        source,
    }
}

fn form<I: Index>(shape: &ItemShape) -> IndexForm {
    index_form(I::schema(), <I::Row as RowKey>::schema(), shape)
}

fn why<I: Index>(shape: &ItemShape) -> String {
    match form::<I>(shape) {
        IndexForm::Encoded { why } => why,
        native => panic!("{} is {native}", I::schema().name()),
    }
}

#[test]
fn a_salted_index_with_rev_is_the_shard_then_its_fields_and_a_negated_number() {
    assert_eq!(BySite::schema().dynamodb_form(), DynamoForm::Native);
    let want = IndexForm::Native {
        hash: vec![
            attribute("BySite_shard", KeyKind::N, KeySource::Shard),
            attribute("site", KeyKind::S, KeySource::Field(0)),
        ],
        range: vec![
            attribute(
                "BySite_ts_rev",
                KeyKind::N,
                KeySource::Derived {
                    at: 1,
                    negated: true,
                },
            ),
            attribute("user", KeyKind::S, KeySource::Field(2)),
        ],
    };
    assert_eq!(form::<BySite>(&ItemShape::default()), want);
    assert_eq!(
        want.to_string(),
        "native: HASH [BySite_shard N, site S], RANGE [BySite_ts_rev N, user S]"
    );
}

#[test]
fn a_bucket_is_an_attribute_of_its_own_and_a_descending_one_is_negated() {
    let derived = |at, negated| KeySource::Derived { at, negated };
    assert_eq!(
        form::<ByDay>(&ItemShape::default()),
        IndexForm::Native {
            hash: vec![attribute("site", KeyKind::S, KeySource::Field(0))],
            range: vec![
                attribute("ByDay_ts_bucket", KeyKind::N, derived(1, false)),
                attribute("ts", KeyKind::N, KeySource::Field(2)),
                attribute("user", KeyKind::S, KeySource::Field(3)),
            ],
        }
    );
    assert_eq!(
        form::<ByDayDown>(&ItemShape::default()),
        IndexForm::Native {
            hash: vec![attribute("site", KeyKind::S, KeySource::Field(0))],
            range: vec![
                attribute("ByDayDown_ts_bucket_rev", KeyKind::N, derived(1, true)),
                attribute("ByDayDown_ts_rev", KeyKind::N, derived(2, true)),
                attribute("user", KeyKind::S, KeySource::Field(3)),
            ],
        }
    );
}

#[test]
fn a_value_field_is_keyed_on_its_own_attribute() {
    let IndexForm::Native { range, .. } = form::<ByScore>(&ItemShape::default()) else {
        panic!("ByScore is native");
    };
    assert_eq!(
        range[0],
        attribute("score", KeyKind::N, KeySource::Field(1))
    );
}

#[test]
fn an_undeclared_index_is_native_where_it_can_be_and_else_says_why() {
    let shape = ItemShape::default();
    assert_eq!(ByTag::schema().dynamodb_form(), DynamoForm::Undeclared);
    assert_eq!(
        form::<ByTag>(&shape).to_string(),
        "native: HASH [tag S], RANGE [user S, ts N, site S]"
    );
    assert_eq!(
        why::<ByTagEncoded>(&shape),
        "it is declared `dynamodb = encoded`"
    );
    let ratio = why::<ByRatio>(&shape);
    assert!(
        ratio.starts_with(
            "it could not be native (the default where it can be): `ratio` (f64) is a float"
        ),
        "{ratio}"
    );
}

#[test]
fn without_key_field_attributes_no_index_is_native() {
    let why = why::<BySite>(&ItemShape::default().key_fields(false));
    assert!(why.contains("ItemShape::key_fields(false)"), "{why}");
}

/// One row type per component that cannot be native, each index declared
/// native: the store refuses to open, naming the component and the reason.
mod refused {
    use keyschema::RowKey;

    #[derive(RowKey)]
    #[rowkey(prefix = "a", then = (k), f, index(Float, prefix = "i", then = (k), f, dynamodb = native))]
    pub struct A {
        pub k: String,
        pub f: f32,
    }

    #[derive(RowKey)]
    #[rowkey(prefix = "a", then = (k), f, index(Wide, prefix = "i", then = (k), f, dynamodb = native))]
    pub struct B {
        pub k: String,
        pub f: u128,
    }

    #[derive(RowKey)]
    #[rowkey(prefix = "a", then = (k), f, index(Flag, prefix = "i", then = (k), f, dynamodb = native))]
    pub struct C {
        pub k: String,
        pub f: bool,
    }

    #[derive(RowKey)]
    #[rowkey(prefix = "a", then = (k), f, index(Maybe, prefix = "i", then = (k), f, dynamodb = native))]
    pub struct D {
        pub k: String,
        pub f: Option<u32>,
    }

    #[derive(RowKey)]
    #[rowkey(prefix = "a", then = (k), f, index(RevText, prefix = "i", then = (k), rev(f), dynamodb = native))]
    pub struct E {
        pub k: String,
        pub f: String,
    }

    #[derive(RowKey)]
    #[rowkey(prefix = "a", then = (k), f, index(Spread, prefix = "i", then = (k), reverse(f), dynamodb = native))]
    pub struct F {
        pub k: String,
        pub f: u64,
    }

    #[derive(RowKey)]
    #[rowkey(prefix = "a", then = (k), f, index(When, prefix = "i", then = (k), f, dynamodb = native))]
    pub struct G {
        pub k: String,
        pub f: chrono::DateTime<chrono::Utc>,
    }

    #[derive(RowKey)]
    #[rowkey(prefix = "a", then = (k), a, b, c, d, index(Long, prefix = "i", then = (k), a, b, c, d, k2, dynamodb = native))]
    pub struct H {
        pub k: String,
        pub a: u8,
        pub b: u8,
        pub c: u8,
        pub d: u8,
        #[rowkey(value)]
        pub k2: u8,
    }

    #[derive(RowKey)]
    #[rowkey(prefix = "a", then = (k), f, index(Blob, prefix = "i", then = (k), blob, f, dynamodb = native))]
    pub struct I {
        pub k: String,
        pub f: u8,
        #[rowkey(value)]
        pub blob: Vec<u8>,
    }

    #[derive(RowKey)]
    #[rowkey(format = text, prefix = "a", then = (k), f, index(Text, prefix = "i", then = (k), f, dynamodb = native))]
    pub struct J {
        pub k: String,
        pub f: u8,
    }
}

fn refused<K: RowKey>() -> String {
    let client = DynamoStore::local_client("http://127.0.0.1:9");
    match DynamoStore::from_client::<K>(client, "t") {
        Err(DynamoError::Shape { reason, .. }) => reason,
        other => panic!("{}: {other:?}", K::schema().name()),
    }
}

#[test]
fn an_index_declared_native_that_cannot_be_is_refused_with_the_component_and_why() {
    let cases = [
        (refused::<refused::A>(), "`Float` is declared `dynamodb = native`, but `f` (f32) is a float: DynamoDB's numbers make -0.0 equal to 0.0"),
        (refused::<refused::B>(), "`f` (u128) is a 128-bit integer, beyond the 38 digits"),
        (refused::<refused::C>(), "`f` (bool) is a bool, and BOOL is no key attribute type"),
        (refused::<refused::D>(), "`f` (Option<u32>) is an `Option` key field"),
        (refused::<refused::E>(), "`rev(f)` (String): DynamoDB has no descending order"),
        (refused::<refused::F>(), "`reverse(f)` stores the field's bytes least-significant first"),
        (refused::<refused::G>(), "is a time, stored as RFC 3339 text"),
        (refused::<refused::H>(), "its sort part needs 5 attributes, and a GSI's sort key takes at most 4"),
        (refused::<refused::I>(), "`blob` (Vec<u8>) is a value field, whose attribute is its serde form"),
        (refused::<refused::J>(), "its keys are text (`format = text`)"),
    ];
    for (reason, want) in cases {
        assert!(reason.contains(want), "{reason}\n  wanted: {want}");
        assert!(
            reason.contains("declare it `dynamodb = encoded`"),
            "{reason}"
        );
    }
}

#[test]
fn a_store_reports_each_index_form_in_declaration_order() {
    let client = DynamoStore::local_client("http://127.0.0.1:9");
    let store = DynamoStore::from_client::<Event>(client, "t").expect("a store");
    let forms: Vec<(&str, bool)> = store
        .index_forms()
        .into_iter()
        .map(|(name, form)| (name, form.is_native()))
        .collect();
    assert_eq!(
        forms,
        [
            ("BySite", true),
            ("ByDay", true),
            ("ByDayDown", true),
            ("ByScore", true),
            ("ByTag", true),
            ("ByTagEncoded", false),
            ("ByRatio", false),
        ]
    );
}
