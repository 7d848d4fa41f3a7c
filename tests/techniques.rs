//! The seed articles' techniques as declarations: `reverse(f)` and `random % N`.

use keyschema::store::{MemoryStore, RowStore};
use keyschema::{salt, RowKey};

/// The HBase article's reversal: a sequential id stored least-significant byte first.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(then = reverse(order_id), line)]
struct OrderLine {
    order_id: u64,
    line: u16,
}

#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = hash(order_id) % 16, then = reverse(order_id), line)]
struct SaltedReversed {
    order_id: u64,
    line: u16,
}

#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = hash(order_id) % 16, then = order_id, line)]
struct SaltedPlain {
    order_id: u64,
    line: u16,
}

#[test]
fn reverse_stores_the_least_significant_byte_first() {
    let key = OrderLine::get_key(0x0102_0304_0506_0708, 1);
    assert_eq!(
        key,
        [0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01, 0x00, 0x01]
    );
    let line = OrderLine {
        order_id: 0x0102_0304_0506_0708,
        line: 1,
    };
    assert_eq!(OrderLine::decode(&key), Ok(line));
    assert_eq!(OrderLine::render(&key), "^72623859790382856|1");
    assert_eq!(
        OrderLine::schema().to_string(),
        "OrderLine: then = reverse(order_id: u64), line: u16"
    );
    assert!(OrderLine::decode(&key[..5]).is_err());
}

#[test]
fn sequential_ids_spread_over_the_key_space() {
    // 256 consecutive ids: big-endian keys share their first 7 bytes (one
    // region takes every write); reversed, their first byte takes 256 values.
    let first_bytes: std::collections::BTreeSet<u8> = (1_000_000u64..1_000_256)
        .map(|id| OrderLine::get_key(id, 0)[0])
        .collect();
    assert_eq!(first_bytes.len(), 256);
}

#[test]
fn reversed_components_scan_by_equality_and_hash_unreversed() {
    let set = OrderLine::scan().order_id(42).ranges();
    assert!(set.contains(&OrderLine::get_key(42, 7)));
    assert!(!set.contains(&OrderLine::get_key(43, 7)));
    // The salt hashes the field before the transform: same bucket as the plain layout.
    for id in [0u64, 1, 42, 1 << 40, u64::MAX] {
        let reversed = SaltedReversed::schema()
            .bucket_of(&SaltedReversed::get_key(id, 0))
            .unwrap();
        let plain = SaltedPlain::schema()
            .bucket_of(&SaltedPlain::get_key(id, 0))
            .unwrap();
        assert_eq!(reversed, plain, "id {id}");
        let row = SaltedReversed {
            order_id: id,
            line: 3,
        };
        assert_eq!(SaltedReversed::decode(&row.encode()), Ok(row));
    }
    assert_eq!(
        SaltedReversed::scan().order_id(42).ranges().len(),
        1,
        "the hashed field is bound"
    );
}

/// DynamoDB write sharding and HBase salting: a random suffix on write.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = random % 10, then = invoice_id, transaction_id)]
struct Transaction {
    invoice_id: String,
    transaction_id: u32,
}

#[test]
fn random_salt_picks_a_bucket_through_a_chooser() {
    salt::set_chooser(Some(Box::new(|_| 7)));
    let key = Transaction::get_key("inv-1", 1);
    assert_eq!(key[0], 7);
    salt::set_chooser(None);
    assert_eq!(
        Transaction::schema().to_string(),
        "Transaction: salt = random % 10, then = invoice_id: String, transaction_id: u32"
    );
    // Decode accepts every bucket below N; there is no hash to check.
    for b in 0..10u8 {
        let mut k = key.clone();
        k[0] = b;
        assert_eq!(Transaction::decode(&k).map(|t| t.transaction_id), Ok(1));
    }
    let mut k = key.clone();
    k[0] = 10;
    assert!(Transaction::decode(&k).is_err(), "bucket 10 of 10");
}

#[test]
fn random_salt_gets_try_every_candidate_and_scans_fan_out() {
    let candidates = Transaction::get_keys("inv-1", 1);
    assert_eq!(candidates.len(), 10);
    assert_eq!(
        candidates.iter().map(|k| k[0]).collect::<Vec<_>>(),
        (0..10).collect::<Vec<_>>()
    );

    let store = MemoryStore::new();
    let mut turn = 0u32;
    salt::set_chooser(Some(Box::new(move |n| {
        turn += 3;
        turn % n
    })));
    for t in 0..30u32 {
        store
            .put_row(
                &Transaction {
                    invoice_id: "inv-1".into(),
                    transaction_id: t,
                },
                &t.to_be_bytes(),
            )
            .unwrap();
    }
    salt::set_chooser(None);
    // The typed get finds the row in whichever bucket it went to.
    let (row, value) = Transaction::get(&store, "inv-1", 17)
        .unwrap()
        .expect("found in some bucket");
    assert_eq!(
        (row.transaction_id, value),
        (17, 17u32.to_be_bytes().to_vec())
    );
    assert!(Transaction::get(&store, "inv-1", 99).unwrap().is_none());
    // A scan for the invoice needs every bucket even with every field bound.
    assert_eq!(
        Transaction::scan()
            .invoice_id("inv-1")
            .transaction_id(17)
            .ranges()
            .len(),
        10
    );
    // Merged back in key order.
    let ids: Vec<u32> = Transaction::scan()
        .invoice_id("inv-1")
        .run(&store)
        .map(|r| r.unwrap().0.transaction_id)
        .collect();
    assert_eq!(ids, (0..30).collect::<Vec<_>>());
}

/// The Cassandra chapter's hotel inventory, bucketed by 30-day "month":
/// the partition is (hotel, month), so the salt hashes the bucket.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = hash(hotel_id, bucket(day, 30)) % 16, then = hotel_id, bucket(day, 30), day, room)]
struct Availability {
    hotel_id: String,
    day: u32,
    room: u16,
    #[rowkey(skip)]
    available: bool,
}

/// The same layout on an ordered store without salt: buckets sort with days.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(then = hotel_id, bucket(day, 30), day, room)]
struct PlainAvailability {
    hotel_id: String,
    day: u32,
    room: u16,
}

/// Newest first, with a weekly bucket.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(then = hotel_id, bucket(day, 7), rev(day))]
struct Recent {
    hotel_id: String,
    day: i32,
}

#[test]
fn buckets_sit_before_their_field_and_are_checked_on_decode() {
    let key = PlainAvailability::get_key("H1", 45, 3);
    // "H1\0", then bucket 1 (45 / 30), then 45, then room 3.
    assert_eq!(key, b"H1\x00\x00\x00\x00\x01\x00\x00\x00\x2d\x00\x03");
    let row = PlainAvailability {
        hotel_id: "H1".into(),
        day: 45,
        room: 3,
    };
    assert_eq!(PlainAvailability::decode(&key), Ok(row));
    assert_eq!(PlainAvailability::render(&key), "H1|1|45|3");
    assert_eq!(
        Availability::schema().to_string(),
        "Availability: salt = hash(hotel_id, bucket(day, 30)) % 16, then = hotel_id: String, bucket(day, 30): u32, day: u32, room: u16"
    );
    let mut bad = key.clone();
    bad[6] = 2; // bucket 2 with day 45
    assert_eq!(
        PlainAvailability::decode(&bad),
        Err(keyschema::DecodeError::InvalidValue {
            component: "day",
            offset: 3,
            reason: "the bucket does not match the field it is derived from"
        })
    );
    let a = Availability {
        hotel_id: "H1".into(),
        day: 45,
        room: 3,
        available: true,
    };
    assert_eq!(
        Availability::decode(&a.encode()).map(|r| (r.day, r.room)),
        Ok((45, 3))
    );
}

fn grid() -> Vec<(u32, u16)> {
    (0..200u32)
        .flat_map(|d| (0..3u16).map(move |r| (d, r)))
        .collect()
}

#[test]
fn a_range_on_a_hashed_bucket_expands_into_one_range_per_month() {
    let req = Availability::scan()
        .hotel_id("H1")
        .day(10..100)
        .expect("4 months");
    let ranges = req.ranges();
    assert_eq!(ranges.len(), 4, "days 10..100 span months 0, 1, 2 and 3");
    for (d, r) in grid() {
        let key = Availability::get_key("H1", d, r);
        assert_eq!(ranges.contains(&key), (10..100).contains(&d), "day {d}");
        assert!(!ranges.contains(&Availability::get_key("H2", d, r)));
    }
    // Equality binds the bucket too: one partition, one range.
    assert_eq!(
        Availability::scan().hotel_id("H1").day(45).ranges().len(),
        1
    );
    assert_eq!(
        Availability::scan()
            .hotel_id("H1")
            .day(45)
            .room(2)
            .ranges()
            .len(),
        1
    );
    // Bounds on the expansion.
    let too_wide = Availability::scan().hotel_id("H1").day(0..1_000_000);
    assert!(
        matches!(
            too_wide,
            Err(keyschema::ScanError::TooManyBuckets { count: 33_334, .. })
        ),
        "{too_wide:?}"
    );
    assert!(matches!(
        Availability::scan().hotel_id("H1").day(10..),
        Err(keyschema::ScanError::Unbounded { .. })
    ));
    #[allow(clippy::reversed_empty_ranges)] // on purpose: an inverted range matches nothing
    let inverted = Availability::scan()
        .hotel_id("H1")
        .day(50..10)
        .expect("empty");
    assert!(inverted.ranges().is_empty());
}

#[test]
fn a_range_on_an_unhashed_bucket_is_one_range() {
    for (range, expected) in [((10u32, 100u32), 1usize)] {
        let req = PlainAvailability::scan()
            .hotel_id("H1")
            .day(range.0..range.1)
            .expect("one range");
        assert_eq!(req.ranges().len(), expected);
        for (d, r) in grid() {
            assert_eq!(
                req.ranges()
                    .contains(&PlainAvailability::get_key("H1", d, r)),
                (range.0..range.1).contains(&d)
            );
        }
    }
    let open = PlainAvailability::scan()
        .hotel_id("H1")
        .day(150..)
        .expect("open-ended is fine unsalted");
    for (d, r) in grid() {
        assert_eq!(
            open.ranges()
                .contains(&PlainAvailability::get_key("H1", d, r)),
            d >= 150
        );
    }
}

#[test]
fn a_bucket_before_rev_sorts_newest_first() {
    let store = MemoryStore::new();
    for day in [-20, -1, 0, 3, 6, 7, 13, 14, 40] {
        store
            .put_row(
                &Recent {
                    hotel_id: "H".into(),
                    day,
                },
                b"",
            )
            .unwrap();
    }
    let days: Vec<i32> = Recent::scan()
        .hotel_id("H")
        .run(&store)
        .map(|r| r.unwrap().0.day)
        .collect();
    assert_eq!(days, [40, 14, 13, 7, 6, 3, 0, -1, -20]);
    let window: Vec<i32> = Recent::scan()
        .hotel_id("H")
        .day(-1..14)
        .expect("range")
        .run(&store)
        .map(|r| r.unwrap().0.day)
        .collect();
    assert_eq!(window, [13, 7, 6, 3, 0, -1]);
    let row = Recent {
        hotel_id: "H".into(),
        day: -20,
    };
    assert_eq!(Recent::decode(&row.encode()), Ok(row));
}
