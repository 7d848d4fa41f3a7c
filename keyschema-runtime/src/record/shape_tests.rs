//! Tests of [`super`]: shapes from type texts, and nested values read by
//! them as the typed read reads them.

use super::*;

#[test]
fn type_texts_spell_their_shapes() {
    let scalar = |k| Shape::Scalar(k);
    let seq = |s| Shape::Seq(Box::new(s));
    assert_eq!(Shape::of("Vec<i64>"), seq(scalar(Kind::I64)));
    assert_eq!(Shape::of("Vec<u8>"), seq(scalar(Kind::U8)));
    assert_eq!(
        Shape::of("Option<(u8, String)>"),
        Shape::Option(Box::new(Shape::Tuple {
            items: vec![scalar(Kind::U8), scalar(Kind::Str)],
            array: false
        }))
    );
    assert_eq!(
        Shape::of("[f32; 2]"),
        Shape::Tuple {
            items: vec![scalar(Kind::F32); 2],
            array: true
        }
    );
    assert_eq!(
        Shape::of("std::collections::BTreeMap<String, Vec<u32>>"),
        Shape::Map(
            Box::new(scalar(Kind::Str)),
            Box::new(seq(scalar(Kind::U32)))
        )
    );
    assert_eq!(Shape::of("Box<Vec<bool>>"), seq(scalar(Kind::Bool)));
    assert_eq!(Shape::of("Vec<Status>"), seq(Shape::Any));
    assert_eq!(Shape::of("Cow<'static, str>"), Shape::Any);
    assert_eq!(Shape::of("[u8]"), Shape::Any);
    assert_eq!(Shape::of("Vec<u8"), Shape::Any);
}

fn field(name: &'static str, type_name: &'static str) -> crate::record::ValueField {
    fn no() -> bool {
        false
    }
    crate::record::ValueField {
        name,
        type_name,
        required: true,
        self_describing: no,
        reads_nil: no,
        user_types: crate::record::UserTypesOf::Read(crate::record::no_user_types(), None),
    }
}

/// `{name: value}` as a field map, with a DynamoDB item's `notes`.
fn map<T: serde::Serialize>(name: &str, value: &T, notes: Option<&[(&str, &str)]>) -> Vec<u8> {
    let mut out = vec![if notes.is_some() { 0x82 } else { 0x81 }];
    out.extend(rmp_serde::to_vec(name).expect("msgpack"));
    out.extend(rmp_serde::to_vec(value).expect("msgpack"));
    if let Some(notes) = notes {
        out.extend(rmp_serde::to_vec("").expect("msgpack"));
        let top: std::collections::BTreeMap<&str, &str> = notes
            .iter()
            .filter(|(k, _)| !k.contains('['))
            .copied()
            .collect();
        let nested: std::collections::BTreeMap<&str, &str> = notes
            .iter()
            .filter(|(k, _)| k.contains('['))
            .copied()
            .collect();
        let mut all = rmp_serde::to_vec(&top).expect("msgpack");
        if !nested.is_empty() {
            // One more entry, under the empty name: the nested notes.
            all[0] += 1;
            all.extend(rmp_serde::to_vec("").expect("msgpack"));
            all.extend(rmp_serde::to_vec(&nested).expect("msgpack"));
        }
        out.extend(all);
    }
    out
}

fn said(value: &[u8], type_name: &'static str) -> Result<String, String> {
    crate::record::render_values(value, &[field("v", type_name)])
        .map(|f| f[0].1.clone())
        .map_err(|e| e.to_string())
}

/// What the typed read of `T` says of `value`'s field `v`.
fn typed<T: serde::de::DeserializeOwned>(value: &[u8]) -> String {
    use crate::record::ValueReader;
    let mut reader = crate::record::msgpack::MapReader::new(value).expect("a map");
    assert_eq!(reader.next_field(&["v"]).expect("reads"), Some(0));
    match reader.value::<T>("v") {
        Ok(_) => String::new(),
        Err(e) => e.to_string(),
    }
}

#[test]
fn nested_values_their_types_refuse_are_the_typed_reads_errors() {
    let tally = std::collections::BTreeMap::from([("a b", (1u8, true))]);
    let cases: Vec<(Vec<u8>, &str, String)> = vec![
        (
            map("v", &(1u8, "x"), None),
            "Vec<i64>",
            typed::<Vec<i64>>(&map("v", &(1u8, "x"), None)),
        ),
        (
            map("v", &[u64::MAX], None),
            "Vec<i64>",
            typed::<Vec<i64>>(&map("v", &[u64::MAX], None)),
        ),
        (
            map("v", &(7u8,), None),
            "(u8, String)",
            typed::<(u8, String)>(&map("v", &(7u8,), None)),
        ),
        (
            map("v", &[1e39f64], None),
            "Option<Vec<f32>>",
            typed::<Option<Vec<f32>>>(&map("v", &[1e39f64], None)),
        ),
        (
            map("v", &tally, None),
            "BTreeMap<String, Vec<u8>>",
            typed::<std::collections::BTreeMap<String, Vec<u8>>>(&map("v", &tally, None)),
        ),
    ];
    for (value, type_name, typed) in cases {
        assert!(
            !typed.is_empty(),
            "the typed read of {type_name} refuses it"
        );
        let said = said(&value, type_name).expect_err("refused");
        let detail = typed
            .split_once("declared type: ")
            .map_or(typed.as_str(), |(_, d)| d);
        assert!(said.contains(detail), "{type_name}: {said} / {typed}");
    }
    let items = [("v[1]", "99999999999999999999")];
    let value = map("v", &(1u8, 1e20f64), Some(&items));
    let refused = said(&value, "Vec<i64>").expect_err("refused");
    assert!(
        refused.contains("at `v[1]`: the number (N) 99999999999999999999"),
        "{refused}"
    );
}

#[test]
fn nested_values_print_as_stored_and_f32_by_its_own_text() {
    let value = map("v", &(-1i64, u64::MAX), None);
    assert_eq!(
        said(&value, "(i64, u64)"),
        Ok(format!("[-1, {}]", u64::MAX))
    );
    let value = map(
        "v",
        &std::collections::BTreeMap::from([("k", [f64::from(f32::MAX)])]),
        None,
    );
    assert_eq!(
        said(&value, "HashMap<String, Vec<f32>>"),
        Ok(r#"{"k": [3.4028235e38]}"#.into())
    );
    // DynamoDB keeps f32::MAX as 39 digits: an f32 prints its own text,
    // at the top and nested; an f64 as the item holds it.
    let digits = "340282350000000000000000000000000000000";
    let value = map("v", &f64::from(f32::MAX), Some(&[("v", digits)]));
    assert_eq!(said(&value, "Option<f32>"), Ok("3.4028235e38".into()));
    let value = map("v", &[f64::from(f32::MAX)], Some(&[("v[0]", digits)]));
    assert_eq!(said(&value, "Vec<f32>"), Ok("[3.4028235e38]".into()));
    let value = map("v", &[1e20f64], Some(&[("v[0]", "99999999999999999999")]));
    assert_eq!(
        said(&value, "Vec<f64>"),
        Ok("[99999999999999999999]".into())
    );
    assert_eq!(
        said(&map("v", &[[1u8, 2]], None), "[[u8; 2]; 1]"),
        Ok("[[1, 2]]".into())
    );
}
