//! Tests of [`super`]: value fields rendered as the typed read reads them.

use super::*;
use crate::record::cells::cell_map;

fn field(name: &'static str, type_name: &'static str) -> ValueField {
    fn no() -> bool {
        false
    }
    ValueField {
        name,
        type_name,
        required: !type_name.starts_with("Option"),
        self_describing: no,
        reads_nil: no,
        user_types: crate::record::UserTypesOf::Read(crate::record::no_user_types(), None),
    }
}

#[test]
fn a_field_map_renders_every_kind_and_reads_back_as_json() {
    #[derive(serde::Serialize)]
    struct Row {
        name: String,
        n: i64,
        big: u64,
        ratio: f64,
        ok: bool,
        #[serde(with = "serde_bytes_like")]
        raw: Vec<u8>,
        tags: Vec<String>,
        nested: std::collections::BTreeMap<String, Vec<i32>>,
        extra: u8,
    }
    mod serde_bytes_like {
        pub fn serialize<S: serde::Serializer>(v: &[u8], s: S) -> Result<S::Ok, S::Error> {
            s.serialize_bytes(v)
        }
    }
    let row = Row {
        name: "a \"quoted\"\n line".into(),
        n: -5,
        big: u64::MAX,
        ratio: 0.5,
        ok: true,
        raw: vec![0, 0xff],
        tags: vec!["x".into(), "y".into()],
        nested: [("k".to_string(), vec![1, -2])].into_iter().collect(),
        extra: 7,
    };
    let value = rmp_serde::to_vec_named(&row).expect("msgpack");
    let fields = [
        field("name", "String"),
        field("n", "i64"),
        field("missing", "Option<u8>"),
        field("big", "u64"),
        field("ratio", "f64"),
        field("ok", "bool"),
        field("raw", "Vec<u8>"),
        field("tags", "Vec<String>"),
        field("nested", "BTreeMap<String, Vec<i32>>"),
    ];
    let text = render_values(&value, &fields).expect("renders");
    let expected = [
        ("name", r#""a \"quoted\"\n line""#),
        ("n", "-5"),
        ("missing", "null"),
        ("big", "18446744073709551615"),
        ("ratio", "0.5"),
        ("ok", "true"),
        ("raw", "0x00ff"),
        ("tags", r#"["x", "y"]"#),
        ("nested", r#"{"k": [1, -2]}"#),
        ("extra", "7"),
    ];
    let text: Vec<(&str, &str)> = text.iter().map(|(n, t)| (n.as_str(), t.as_str())).collect();
    assert_eq!(text, expected);
}

#[test]
fn cells_read_by_their_fields_types() {
    let nested = rmp_serde::to_vec(&vec![1u8, 2]).expect("msgpack");
    let mut tagged = vec![TAGGED];
    tagged.extend(rmp_serde::to_vec(&5u8).expect("msgpack"));
    let cells: Vec<(&[u8], Vec<u8>)> = vec![
        (b"", Vec::new()),
        (b"count", 300u64.to_be_bytes().to_vec()),
        (b"delta", (-3i64).to_be_bytes().to_vec()),
        (b"ratio", 0.25f64.to_be_bytes().to_vec()),
        (b"flag", b"false".to_vec()),
        (b"name", b"caf\xc3\xa9".to_vec()),
        (b"blob", vec![0xff, 0x00]),
        (b"list", nested),
        (b"any", tagged),
        (b"other", b"text".to_vec()),
    ];
    let value = cell_map(cells.iter().map(|(q, v)| (*q, v.as_slice())));
    let fields = [
        field("count", "Option<u32>"),
        field("delta", "i64"),
        field("ratio", "f64"),
        field("flag", "bool"),
        field("name", "String"),
        field("blob", "serde_bytes::ByteBuf"),
        field("list", "Vec<u8>"),
        field("any", "serde_json::Value"),
        field("gone", "Option<String>"),
    ];
    let text = render_values(&value, &fields).expect("renders");
    let text: Vec<(&str, &str)> = text.iter().map(|(n, t)| (n.as_str(), t.as_str())).collect();
    assert_eq!(
        text,
        [
            ("count", "300"),
            ("delta", "-3"),
            ("ratio", "0.25"),
            ("flag", "false"),
            ("name", "\"café\""),
            ("blob", "0xff00"),
            ("list", "[1, 2]"),
            ("any", "5"),
            ("gone", "null"),
            ("other", "\"text\""),
        ]
    );
}

/// A DynamoDB item's map: its notes entry is no field, and a number
/// beyond 64-bit integers renders as the item stores it.
#[test]
fn an_items_notes_give_its_numbers_as_stored() {
    let mut value = vec![0x83];
    value.extend(rmp_serde::to_vec("big").expect("msgpack"));
    value.extend(rmp_serde::to_vec(&1e20).expect("msgpack"));
    value.extend(rmp_serde::to_vec("tags").expect("msgpack"));
    value.extend(rmp_serde::to_vec(&["a"]).expect("msgpack"));
    value.extend(rmp_serde::to_vec("").expect("msgpack"));
    let notes = std::collections::BTreeMap::from([("big", "99999999999999999999"), ("tags", "SS")]);
    value.extend(rmp_serde::to_vec(&notes).expect("msgpack"));
    // Undeclared, the number as DynamoDB holds it; declared an `f64`,
    // as the typed read's float prints (issue 39).
    for (declared, big) in [
        (vec![], "99999999999999999999"),
        (vec![field("big", "f64")], "1e20"),
    ] {
        let text = render_values(&value, &declared).expect("renders");
        let text: Vec<(&str, &str)> = text.iter().map(|(n, t)| (n.as_str(), t.as_str())).collect();
        assert_eq!(text, [("big", big), ("tags", r#"["a"]"#)]);
    }
    // Declared an `i64`, the number does not read: an error naming it.
    match render_values(&value, &[field("big", "i64")]) {
        Err(ValueError::Field { field, message }) => {
            assert_eq!(field, "big");
            assert!(message.starts_with("(i64)"), "{message}");
        }
        other => panic!("expected the field's error, got {other:?}"),
    }
}

#[test]
fn values_their_types_refuse_are_errors_naming_the_field() {
    let cells = |cell: &[u8]| cell_map([(&b"n"[..], cell)]);
    let refused = |value: &[u8], type_name| {
        render_values(value, &[field("n", type_name)])
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default()
    };
    let said = refused(&cells(b"5"), "u32");
    assert!(
        said.contains("`n`") && said.contains("the text \"5\""),
        "{said}"
    );
    assert!(refused(&cells(&[0, 0, 0, 5]), "i64").contains("4 bytes"));
    assert!(refused(&cells(&(1u64 << 40).to_be_bytes()), "u32").contains("does not fit"));
    assert!(refused(&cells(&[0xff, 0x00]), "Vec<u8>").contains("MessagePack"));
    let map = |v: &dyn erased::Value| {
        let mut out = vec![0x81, 0xa1, b'n'];
        out.extend(v.msgpack());
        out
    };
    let said = refused(&map(&"lots"), "i64");
    assert!(said.contains("lots"), "{said}");
    assert!(refused(&map(&1.5f64), "i64").contains("1.5"));
    assert!(refused(&map(&1e20f64), "i64").contains("`n`"));
    assert!(refused(&map(&()), "u8").contains("nil"));
    let missing = render_values(&[0x80], &[field("n", "u8")]);
    assert_eq!(missing, Err(ValueError::Missing { field: "n" }));
    // 128-bit integers as rmp-serde writes them (16 bytes of bin), and
    // an f32 read back as the f64 DynamoDB gives.
    let wide = render_values(&map(&u128::MAX), &[field("n", "u128")]).expect("reads");
    assert_eq!(wide[0].1, u128::MAX.to_string());
    let ratio = render_values(&map(&0.9f64), &[field("n", "Option<f32>")]).expect("reads");
    assert_eq!(ratio[0].1, "0.9");
}

/// A serializable value of any type, for the tests' maps.
mod erased {
    pub trait Value {
        fn msgpack(&self) -> Vec<u8>;
    }
    impl<T: serde::Serialize> Value for T {
        fn msgpack(&self) -> Vec<u8> {
            rmp_serde::to_vec(self).expect("msgpack")
        }
    }
}

#[test]
fn damaged_values_are_errors_not_panics() {
    for bad in [
        &[0x81u8][..],
        &[0x81, 0xa1],
        &[0xc1, 0x81, 0xc4],
        &[0x91, 0x01],
        &[0xdc],
    ] {
        assert!(render_values(bad, &[]).is_err(), "{bad:02x?}");
    }
    let deep: Vec<u8> = [0x81, 0xa1, b'a']
        .into_iter()
        .chain([0x91; crate::limits::MAX_NESTING + 1])
        .chain([0x01])
        .collect();
    assert!(render_values(&deep, &[]).is_err());
}
