//! Partition keys in the declaration, `then = (a, b), c`: the bytes do not
//! change, and `Schema::split_key` cuts every key into its partition and
//! sort parts.

mod common;

use common::schemas::Line;
use keyschema::{DecodeError, RowKey};
use proptest::prelude::*;

/// The same layout without a partition: the same bytes.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = random % 10, then = invoice_id, rev(created_at), line_no)]
struct LineUnsplit {
    invoice_id: String,
    created_at: u64,
    line_no: u16,
}

/// The Cassandra chapter's hotel availability: a month bucket in the partition.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = hash(hotel_id, bucket(day, 30)) % 16, then = (hotel_id, bucket(day, 30), day), room)]
struct Availability {
    hotel_id: u32,
    day: u32,
    room: String,
}

/// Two partition fields, a reversed id, and a prefix.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(prefix = "ev", then = (tenant, reverse(user)), rev(at), kind)]
struct Tenanted {
    tenant: String,
    user: u64,
    at: i64,
    kind: Option<String>,
}

/// A readable text key with a partition.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(format = text(sep = "#"), salt = hash(invoice_id) % 4, then = (invoice_id), rev(created_at), note)]
struct TextLine {
    invoice_id: String,
    created_at: u32,
    note: String,
}

/// Everything in the partition: no sort part.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(then = (user_id, site))]
struct Profile {
    user_id: String,
    site: String,
}

#[test]
fn the_partition_group_changes_no_byte() {
    keyschema::salt::set_chooser(Some(Box::new(|_| 7)));
    let split = Line::get_key("INV-1", 5, 2);
    let plain = LineUnsplit::get_key("INV-1", 5, 2);
    keyschema::salt::set_chooser(None);
    assert_eq!(split, plain);
    assert_eq!(Line::schema().partition_components(), Some(1));
    assert_eq!(LineUnsplit::schema().partition_components(), None);
}

#[test]
fn split_key_cuts_after_the_partition_components() {
    let key = Availability::get_key(42, 95, "101");
    let (partition, sort) = Availability::schema().split_key(&key).unwrap();
    // salt (1) + hotel_id (4) + bucket of day (4) + day (4); then "101\0".
    assert_eq!((partition.len(), sort), (13, &b"101\x00"[..]));
    assert_eq!(Availability::schema().partition_components(), Some(3));

    let key = Tenanted::get_key("acme", 0x0102, -3, Some("click"));
    let (partition, sort) = Tenanted::schema().split_key(&key).unwrap();
    assert_eq!(
        partition,
        [&b"ev\x00acme\x00"[..], &0x0102u64.to_le_bytes()].concat()
    );
    assert_eq!([partition, sort].concat(), key);

    let key = TextLine::get_key("INV#7", 1_700_000_000, "paid");
    let text = std::str::from_utf8(&key).unwrap();
    let (partition, sort) = TextLine::schema().split_key(&key).unwrap();
    let (partition, sort) = (
        std::str::from_utf8(partition).unwrap(),
        std::str::from_utf8(sort).unwrap(),
    );
    assert_eq!(format!("{partition}{sort}"), text);
    assert!(partition.ends_with("INV%237#"), "{partition}");
    assert_eq!(sort, "8299999999#paid#"); // rev: the digits of 1700000000, 9-complemented

    let key = Profile::get_key("u1", "s");
    assert_eq!(
        Profile::schema().split_key(&key).unwrap(),
        (&key[..], &b""[..])
    );
    assert_eq!(
        Profile::schema().to_string(),
        "Profile: then = (user_id: String, site: String)"
    );
}

#[test]
fn split_key_refuses_a_key_that_ends_inside_the_partition() {
    let key = Line::get_key("INV-1", 5, 2);
    let err = Line::schema().split_key(&key[..4]).unwrap_err();
    assert!(
        matches!(
            err,
            DecodeError::Truncated {
                component: "invoice_id",
                ..
            }
        ),
        "{err}"
    );
    assert!(Line::schema().split_key(b"").is_err());
}

proptest! {
    /// The partition part is the key of the partition fields alone, every
    /// key of one partition starts with it, and the two parts make the key.
    #[test]
    fn split_key_is_the_partition_prefix(
        invoice in "[a-z#%]{0,6}",
        a in any::<u64>(), b in any::<u64>(), la in any::<u16>(), lb in any::<u16>(),
    ) {
        keyschema::salt::set_chooser(Some(Box::new(|_| 3)));
        let one = Line::get_key(&invoice, a, la);
        let two = Line::get_key(&invoice, b, lb);
        keyschema::salt::set_chooser(None);
        let (p1, s1) = Line::schema().split_key(&one).unwrap();
        let (p2, _) = Line::schema().split_key(&two).unwrap();
        prop_assert_eq!(p1, p2);
        prop_assert_eq!([p1, s1].concat(), one.clone());
        prop_assert_eq!(s1.len(), 8 + 2);
        let t1 = TextLine::get_key(&invoice, a as u32, "x");
        let t2 = TextLine::get_key(&invoice, b as u32, "yz");
        prop_assert_eq!(
            TextLine::schema().split_key(&t1).unwrap().0,
            TextLine::schema().split_key(&t2).unwrap().0
        );
    }
}
