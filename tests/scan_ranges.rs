//! Scan ranges on concrete requests: bucket fan-out, prefix exactness, range syntax, `rev`.

mod common;

use common::schemas::Event;
use keyschema::prefix_successor;
use keyschema::{RowKey, ScanRangeSet};

#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(then = name, age)]
struct Person {
    name: String,
    age: i32,
}

fn buckets(set: &ScanRangeSet) -> Vec<u32> {
    set.iter().map(|r| r.bucket()).collect()
}

#[test]
fn one_range_when_every_hashed_field_is_bound() {
    let set = Event::scan().user_id("u1").site("s").ranges();
    assert_eq!(set.len(), 1);
    let bucket = Event::schema()
        .bucket_of(&Event::get_key("u1", "s", 0))
        .unwrap();
    assert_eq!(buckets(&set), [bucket]);
    let range = set.iter().next().unwrap();
    assert_eq!(range.start(), &[bucket as u8, b'u', b'1', 0, b's', 0]);
    assert_eq!(
        range.end(),
        Some(&[bucket as u8, b'u', b'1', 0, b's', 1][..])
    );
}

#[test]
fn one_range_per_bucket_otherwise() {
    assert_eq!(buckets(&Event::scan().ranges()), (0..8).collect::<Vec<_>>());
    let set = Event::scan().user_id("u1").ranges();
    assert_eq!(buckets(&set), (0..8).collect::<Vec<_>>());
    for (b, r) in set.iter().enumerate() {
        assert_eq!(r.start(), &[b as u8, b'u', b'1', 0]);
    }
    assert_eq!(Event::scan().user_id("a".."m").ranges().len(), 8);
}

#[test]
fn a_prefix_does_not_admit_longer_values() {
    let set = Event::scan().user_id("u1").ranges();
    assert!(set.contains(&Event::get_key("u1", "x", 5)));
    assert!(
        !set.contains(&Event::get_key("u10", "x", 5)),
        "u1 must not admit u10"
    );
    assert!(
        !set.contains(&Event::get_key("u1\0", "x", 5)),
        "u1 must not admit u1\\0"
    );
    let set = Person::scan().name("a").ranges();
    assert!(set.contains(&Person::get_key("a", 3)));
    assert!(
        !set.contains(&Person::get_key("a\0", 3)),
        "a must not admit a\\0"
    );
    assert!(!set.contains(&Person::get_key("ab", 3)));
    assert!(!set.contains(&Person::get_key("", 3)));
}

#[test]
fn every_range_form_on_an_ascending_component() {
    let ages = |set: ScanRangeSet| -> Vec<i32> {
        (-3..=3)
            .filter(|&a| set.contains(&Person::get_key("p", a)))
            .collect()
    };
    assert_eq!(
        ages(Person::scan().name("p").age(-1..2).ranges()),
        [-1, 0, 1]
    );
    assert_eq!(
        ages(Person::scan().name("p").age(-1..=2).ranges()),
        [-1, 0, 1, 2]
    );
    assert_eq!(ages(Person::scan().name("p").age(1..).ranges()), [1, 2, 3]);
    assert_eq!(
        ages(Person::scan().name("p").age(..0).ranges()),
        [-3, -2, -1]
    );
    assert_eq!(
        ages(Person::scan().name("p").age(..=0).ranges()),
        [-3, -2, -1, 0]
    );
    assert_eq!(
        ages(Person::scan().name("p").age(2..2).ranges()),
        Vec::<i32>::new()
    );
    #[allow(clippy::reversed_empty_ranges)] // on purpose: an inverted range matches nothing
    let inverted = Person::scan().name("p").age(3..1).ranges();
    assert!(inverted.is_empty());
    // A name range ends the scan; both bounds are exact.
    let set = Person::scan().name("b".."d").ranges();
    assert!(set.contains(&Person::get_key("b", 0)));
    assert!(set.contains(&Person::get_key("c\0", 0)));
    assert!(!set.contains(&Person::get_key("d", 0)));
    assert!(!set.contains(&Person::get_key("a\u{ff}", 0)));
}

#[test]
fn rev_components_take_ranges_in_value_order() {
    let set = Event::scan()
        .user_id("u1")
        .site("s")
        .timestamp(100..200)
        .ranges();
    for t in [0u64, 99, 100, 150, 199, 200, u64::MAX] {
        assert_eq!(
            set.contains(&Event::get_key("u1", "s", t)),
            (100..200).contains(&t),
            "timestamp {t}"
        );
    }
    let newest = Event::scan()
        .user_id("u1")
        .site("s")
        .timestamp(1_000..)
        .ranges();
    assert!(newest.contains(&Event::get_key("u1", "s", u64::MAX)));
    assert!(!newest.contains(&Event::get_key("u1", "s", 999)));
}

#[test]
fn owned_and_borrowed_arguments_agree() {
    let owned = String::from("u1");
    assert_eq!(
        Event::scan().user_id(&owned).ranges(),
        Event::scan().user_id("u1").ranges()
    );
    assert_eq!(
        Event::scan().user_id(owned.clone()).ranges(),
        Event::scan().user_id("u1").ranges()
    );
}

#[test]
fn prefix_successor_edges() {
    assert_eq!(prefix_successor(b""), None);
    assert_eq!(prefix_successor(b"\xff"), None);
    assert_eq!(prefix_successor(b"a\xff\xff"), Some(b"b".to_vec()));
    assert_eq!(prefix_successor(b"\x07"), Some(b"\x08".to_vec()));
}

#[test]
fn last_bucket_of_256_runs_to_the_end() {
    #[derive(RowKey)]
    #[rowkey(salt = hash(id) % 256, then = id)]
    struct Wide {
        id: u64,
    }
    let set = Wide::scan().ranges();
    assert_eq!(set.len(), 256);
    let last = set.iter().last().unwrap();
    assert_eq!((last.start(), last.end()), (&[0xFF][..], None));
    assert!(set.contains(&Wide::get_key(12345)));
}

#[test]
fn salt_split_points_sit_on_bucket_boundaries() {
    #[derive(RowKey)]
    #[rowkey(salt = hash(id) % 1000, then = id)]
    struct Wide {
        id: u64,
    }
    let splits = Wide::schema().salt_splits();
    assert_eq!(splits.len(), 999);
    assert_eq!(
        (splits[0].as_slice(), splits[998].as_slice()),
        (&[0x00, 0x01][..], &[0x03, 0xE7][..])
    );
    assert!(splits.windows(2).all(|w| w[0] < w[1]), "sorted");
    // Every split point starts a bucket's range: no bucket straddles a split.
    let ranges = Wide::scan().ranges();
    for (split, range) in splits.iter().zip(ranges.iter().skip(1)) {
        assert_eq!(split.as_slice(), range.start());
    }
    assert_eq!(Event::schema().salt_splits().len(), 7);
    assert!(
        Person::schema().salt_splits().is_empty(),
        "unsalted: no splits"
    );
}
