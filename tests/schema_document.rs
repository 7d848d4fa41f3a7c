//! `Schema::from_document`: the layout a schema document describes, as the
//! stores take it, agrees with the derived schema it was written from for
//! every layout of the examples and the tests: the same document back, the
//! same rendering, the same partition and sort parts (what the DynamoDB
//! store splits keys by), the same bucket and header, for random rows and
//! damaged keys alike.

mod common;

use common::catalog::{self, check_layout, Sample, Visit};
use keyschema::{RowKey, Schema};
use proptest::prelude::*;

struct Agree {
    checked: usize,
}

impl Visit for Agree {
    fn visit<K: Sample>(&mut self) {
        let derived = K::schema();
        let read = Schema::from_document(&derived.to_json()).expect("the document reads");
        assert_eq!(read.to_json(), derived.to_json(), "{}", K::DECLARATION);
        assert_eq!(read.header_len(), derived.header_len());
        assert_eq!(read.partition_components(), derived.partition_components());
        assert_eq!(read.buckets(), derived.buckets());
        assert_eq!(read.format(), derived.format());
        check_layout::<K, _>(
            128,
            (K::strategy(), any::<(usize, u8)>()),
            |(row, (at, byte))| {
                let key = row.encode();
                prop_assert_eq!(read.render(&key), derived.render(&key));
                prop_assert_eq!(read.split_key(&key), derived.split_key(&key));
                prop_assert_eq!(read.bucket_of(&key), derived.bucket_of(&key));
                let mut cut = key[..at % (key.len() + 1)].to_vec();
                prop_assert_eq!(read.render_prefix(&cut), derived.render_prefix(&cut));
                cut.push(byte);
                prop_assert_eq!(read.render_prefix(&cut), derived.render_prefix(&cut));
                Ok(())
            },
        );
        self.checked += 1;
    }
}

#[test]
fn a_documents_schema_agrees_with_the_derived_one_for_every_layout() {
    let mut agree = Agree { checked: 0 };
    catalog::for_each(&mut agree);
    assert_eq!(agree.checked, 32, "layouts checked");
}

#[test]
fn value_fields_and_the_family_come_from_the_document() {
    #[derive(RowKey)]
    #[rowkey(then = (user_id), ts, family = "visit")]
    #[allow(dead_code)]
    struct Page {
        user_id: String,
        ts: u64,
        #[rowkey(value)]
        url: String,
        #[rowkey(value)]
        referrer: Option<String>,
        #[rowkey(value)]
        extra: serde_json::Value,
    }
    let read = Schema::from_document(&Page::schema().to_json()).expect("reads");
    assert_eq!(read.family(), "visit");
    assert_eq!(read.values(), Page::schema().values());
    let describing: Vec<bool> = read
        .values()
        .iter()
        .map(|f| (f.self_describing)())
        .collect();
    assert_eq!(describing, [false, false, true]);
}

#[test]
fn documents_the_stores_cannot_take_are_refused_with_the_place() {
    let good = common::catalog::Event::schema().to_json();
    let cases = [
        (good.replace("\"keyschema\":2", "\"keyschema\":9"), "keyschema"),
        (
            good.replace("}]}", "}],\"values\":[{\"name\":\"a\",\"type\":\"u8\"}]}"),
            "values[0].required",
        ),
        (
            good.replace(
                "}]}",
                "}],\"values\":[{\"name\":\"a\",\"type\":\"u8\",\"required\":true},{\"name\":\"a\",\"type\":\"u8\",\"required\":true}]}",
            ),
            "values[1].name",
        ),
        (good.replace("}]}", "}],\"family\":7}"), "family"),
        (good.replace("}]}", "}],\"values\":{}}"), "values"),
    ];
    for (doc, at) in cases {
        let err = Schema::from_document(&doc).expect_err(&doc).to_string();
        assert!(err.starts_with(&format!("schema `{at}`")), "{err}");
    }
    let history = common::history::Event::schema().to_json();
    let err = Schema::from_document(&history)
        .expect_err("a history")
        .to_string();
    assert!(err.contains("history"), "{err}");
}
