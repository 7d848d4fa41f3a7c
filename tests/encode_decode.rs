//! Encode, decode, get_key and render on concrete keys, and every decode error.

use keyschema::{DecodeError, RowKey};

#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = hash(user_id, site) % 8, then = user_id, site, rev(timestamp))]
pub struct Event {
    pub user_id: String,
    pub site: String,
    pub timestamp: u64,
    #[rowkey(skip)]
    pub payload: Vec<u8>,
}

#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(prefix = "ev", salt = hash(user_id) % 300, then = user_id, flag, score)]
struct Tagged {
    user_id: String,
    flag: bool,
    score: Option<char>,
}

fn event(user: &str, site: &str, ts: u64) -> Event {
    Event {
        user_id: user.into(),
        site: site.into(),
        timestamp: ts,
        payload: b"not in the key".to_vec(),
    }
}

#[test]
fn encode_equals_get_key_and_decodes_back() {
    let e = event("u1", "s", 1_700_000_000);
    let key = e.encode();
    assert_eq!(key, Event::get_key("u1", "s", 1_700_000_000));
    let back = Event::decode(&key).unwrap();
    // The skipped field comes back as its Default.
    assert_eq!(
        back,
        Event {
            payload: Vec::new(),
            ..e
        }
    );
}

#[test]
fn encode_into_appends_without_allocating_when_there_is_room() {
    let e = event("user-42", "example.com", 7);
    let mut buf = Vec::with_capacity(256);
    buf.extend_from_slice(b"head");
    let (ptr, cap) = (buf.as_ptr(), buf.capacity());
    e.encode_into(&mut buf);
    assert_eq!(&buf[..4], b"head");
    assert_eq!(&buf[4..], e.encode().as_slice());
    assert_eq!(
        (buf.as_ptr(), buf.capacity()),
        (ptr, cap),
        "no reallocation"
    );
}

#[test]
fn newest_first_within_a_user() {
    let keys: Vec<Vec<u8>> = [1u64, 5, 3, u64::MAX, 0]
        .iter()
        .map(|&t| Event::get_key("u1", "s", t))
        .collect();
    let mut sorted = keys.clone();
    sorted.sort();
    let order: Vec<u64> = sorted
        .iter()
        .map(|k| Event::decode(k).unwrap().timestamp)
        .collect();
    assert_eq!(order, [u64::MAX, 5, 3, 1, 0]);
}

#[test]
fn schema_describes_the_layout() {
    let s = Event::schema();
    assert_eq!(Event::BUCKETS, 8);
    assert_eq!(s.header_len(), 1);
    let names: Vec<_> = s
        .components()
        .iter()
        .map(|c| (c.name(), c.type_name(), c.fixed_width()))
        .collect();
    assert_eq!(
        names,
        [
            ("user_id", "String", None),
            ("site", "String", None),
            ("timestamp", "u64", Some(8))
        ]
    );
    assert_eq!(s.salt().unwrap().hashed(), &[0, 1]);
    assert_eq!(Tagged::BUCKETS, 300);
    assert_eq!(
        Tagged::schema().header_len(),
        5,
        "prefix `ev\\0` (3 bytes) + 2-byte salt"
    );
    assert_eq!(
        Tagged::schema().to_string(),
        "Tagged: prefix = \"ev\", salt = hash(user_id) % 300, then = user_id: String, flag: bool, score: Option<char>"
    );
}

#[test]
fn render_is_readable_and_never_fails() {
    let key = Event::get_key("u|1", "s", 1_700_000_000);
    assert_eq!(
        Event::render(&key),
        format!(
            "{}|u\\|1|s|~1700000000",
            Event::schema().bucket_of(&key).unwrap()
        )
    );
    let t = Tagged {
        user_id: "ann".into(),
        flag: true,
        score: None,
    };
    let key = t.encode();
    let bucket = Tagged::schema().bucket_of(&key).unwrap();
    assert_eq!(
        Tagged::render(&key),
        format!("ev|{bucket:03}|ann|true|<none>")
    );
    // A damaged key still renders, with the bad part as hex and the reason.
    let mut bad = Event::get_key("u1", "s", 9);
    bad.truncate(5);
    let text = Event::render(&bad);
    assert!(
        text.starts_with("3|u1|!0x73 (key ends inside component `site` at byte 4"),
        "{text}"
    );
    assert_eq!(
        Event::schema().render_strict(&bad),
        Err(DecodeError::Truncated {
            component: "site",
            offset: 4,
            expected: "a string ending in 0x00"
        })
    );
}

/// A newtype that delegates to `i64` and says so.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Micros(i64);

impl keyschema::KeyComponent for Micros {
    type Ref<'a> = i64;
    const FIXED_WIDTH: Option<usize> = Some(8);
    const ENCODING: Option<keyschema::Encoding> = i64::ENCODING;
    fn as_key_ref(&self) -> i64 {
        self.0
    }
    fn encode_key(value: i64, out: &mut Vec<u8>) {
        i64::encode_key(value, out)
    }
    fn decode_key(input: &mut keyschema::Reader<'_>) -> Result<Self, DecodeError> {
        i64::decode_key(input).map(Micros)
    }
}

#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(then = at, rev(until))]
struct Window {
    at: Micros,
    until: Micros,
}

#[test]
fn a_newtype_renders_as_the_type_it_delegates_to() {
    let key = Window {
        at: Micros(-7),
        until: Micros(7),
    }
    .encode();
    assert_eq!(Window::render(&key), "-7|~7");
    assert!(Window::schema().to_json().contains("\"i64\""));
}

#[test]
fn truncated_keys_name_the_component_and_offset() {
    let key = Event::get_key("u1", "s", 9);
    assert_eq!(
        Event::decode(&[]),
        Err(DecodeError::Truncated {
            component: "salt",
            offset: 0,
            expected: "the salt"
        })
    );
    assert_eq!(
        Event::decode(&key[..3]),
        Err(DecodeError::Truncated {
            component: "user_id",
            offset: 1,
            expected: "a string ending in 0x00"
        })
    );
    assert_eq!(
        Event::decode(&key[..key.len() - 1]),
        Err(DecodeError::Truncated {
            component: "timestamp",
            offset: 6,
            expected: "8 bytes of u64"
        })
    );
    for n in 0..key.len() {
        assert!(
            Event::decode(&key[..n]).is_err(),
            "prefix of length {n} must not decode"
        );
    }
}

#[test]
fn trailing_bytes_are_rejected() {
    let mut key = Event::get_key("u1", "s", 9);
    key.extend_from_slice(b"xy");
    assert_eq!(
        Event::decode(&key),
        Err(DecodeError::TrailingBytes {
            offset: 14,
            count: 2
        })
    );
}

#[test]
fn salt_out_of_range_and_mismatch_are_rejected() {
    let mut key = Event::get_key("u1", "s", 9);
    key[0] = 8;
    assert_eq!(
        Event::decode(&key),
        Err(DecodeError::SaltOutOfRange {
            schema: "Event",
            offset: 0,
            found: 8,
            buckets: 8
        })
    );
    key[0] = 4;
    assert_eq!(
        Event::decode(&key),
        Err(DecodeError::SaltMismatch {
            offset: 0,
            found: 4,
            expected: 3
        })
    );
    let err = Event::decode(&key).unwrap_err().to_string();
    assert_eq!(
        err,
        "salt at byte 0 is 4, but the key's hashed fields give bucket 3"
    );
}

#[test]
fn foreign_keys_are_rejected() {
    let t = Tagged {
        user_id: "u".into(),
        flag: false,
        score: Some('x'),
    };
    let mut key = t.encode();
    key[1] = b'x';
    assert_eq!(
        Tagged::decode(&key),
        Err(DecodeError::ForeignPrefix {
            schema: "Tagged",
            expected: "ev".into(),
            offset: 1
        })
    );
    // An Event key read as a Tagged one: wrong prefix.
    assert!(matches!(
        Tagged::decode(&Event::get_key("u1", "s", 1)),
        Err(DecodeError::ForeignPrefix { .. })
    ));
}

#[test]
fn invalid_bytes_name_the_component() {
    let t = Tagged {
        user_id: "u".into(),
        flag: true,
        score: Some('x'),
    };
    let key = t.encode();
    let flag_at = 5 + 2; // prefix "ev" written `ev\0`, 2-byte salt, "u\0"
    let mut bad = key.clone();
    bad[flag_at] = 7;
    assert_eq!(
        Tagged::decode(&bad),
        Err(DecodeError::InvalidByte {
            component: "flag",
            offset: flag_at,
            found: 7,
            expected: "0x00 (false) or 0x01 (true)"
        })
    );
    let mut bad = key.clone();
    bad[flag_at + 1] = 2;
    assert!(matches!(
        Tagged::decode(&bad),
        Err(DecodeError::InvalidByte {
            component: "score",
            found: 2,
            ..
        })
    ));
    // A surrogate is not a char.
    let mut bad = key.clone();
    let n = bad.len();
    bad[n - 4..].copy_from_slice(&0xD800u32.to_be_bytes());
    assert!(matches!(
        Tagged::decode(&bad),
        Err(DecodeError::InvalidValue {
            component: "score",
            ..
        })
    ));
    // A bad escape inside a string.
    let mut bad = key;
    bad[5] = 0x01;
    bad[6] = 0x07;
    assert!(matches!(
        Tagged::decode(&bad),
        Err(DecodeError::InvalidByte {
            component: "user_id",
            offset: 6,
            found: 7,
            ..
        })
    ));
}

#[test]
fn invalid_utf8_is_rejected() {
    // "u1" with its first byte replaced by 0xFF (never valid UTF-8); the salt
    // is recomputed by hand so the check reaches the string.
    let mut key = vec![0u8, 0xFF, 0x31, 0x00, 0x73, 0x00];
    key.extend_from_slice(&(!9u64).to_be_bytes());
    assert_eq!(
        Event::decode(&key),
        Err(DecodeError::InvalidUtf8 {
            component: "user_id",
            offset: 1
        })
    );
}

#[test]
fn separators_and_nul_bytes_survive() {
    for user in ["", "\0", "\u{1}", "a\0b", "a|b", "#", "日本\0"] {
        let e = event(user, "\0\0", 0);
        let back = Event::decode(&e.encode()).unwrap();
        assert_eq!(back.user_id, user);
        assert_eq!(back.site, "\0\0");
    }
}

mod renamed {
    // The runtime reached through another path, as when keyschema is re-exported.
    use keyschema as ks;

    #[derive(ks::RowKey, Debug, PartialEq)]
    #[rowkey(crate = "ks", then = id)]
    pub struct Id {
        pub id: u32,
    }

    #[test]
    fn crate_path_can_be_overridden() {
        use ks::RowKey;
        assert_eq!(Id { id: 1 }.encode(), [0, 0, 0, 1]);
    }
}
