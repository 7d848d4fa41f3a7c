//! The vectors of whole constructs (`docs/ENCODING.md`, "Constructs"):
//! a random salt, `rev`, buckets, prefixes, partitions and nested keys,
//! each as a declaration with its key bytes and rendering.

use super::{hex, rendered, types};
use keyschema::{salt, RowKey};

#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = random % 10, then = invoice_id, line)]
pub(super) struct RandomLine {
    invoice_id: String,
    line: u32,
}

#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(then = reverse(order_id), line)]
pub(super) struct Reversed {
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
#[rowkey(then = hotel_id, bucket(day, 30), day)]
pub(super) struct Bucketed {
    hotel_id: u32,
    day: u32,
}

#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(then = hotel_id, bucket(day, 30), rev(day))]
pub(super) struct BucketedDesc {
    hotel_id: u32,
    day: u32,
}

#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = hash(hotel_id, bucket(day, 30)) % 64, then = (hotel_id, bucket(day, 30)), day)]
pub(super) struct HashedBucket {
    hotel_id: u32,
    day: u32,
}

#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(prefix = "ev", salt = hash(user_id) % 4, then = user_id)]
struct PrefixSalt {
    user_id: String,
}

#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = hash(user_id) % 1, then = user_id)]
struct OneBucket {
    user_id: String,
}

#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = hash(user_id) % 256, then = user_id)]
struct Buckets256 {
    user_id: String,
}

#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = hash(user_id) % 257, then = user_id)]
struct Buckets257 {
    user_id: String,
}

#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = hash(invoice_id) % 8, then = (invoice_id), rev(created_at))]
struct Partitioned {
    invoice_id: String,
    created_at: u64,
}

#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(then = maybe, x)]
struct Nested {
    maybe: Option<Option<u8>>,
    x: f32,
}

pub fn construct_rows() -> Vec<String> {
    let mut rows = Vec::new();
    let mut row = |decl: &str, types: &str, value: &str, key: Vec<u8>, rendered: String| {
        rows.push(format!(
            "| `{decl}` | `{types}` | `{value}` | `{}` | `{}` |",
            hex(&key),
            rendered.replace('|', "\\|")
        ));
    };
    // A random salt is the writer's choice: bucket 3 here.
    salt::set_chooser(Some(Box::new(|_| 3)));
    let key = RandomLine::get_key("INV-1", 7);
    salt::set_chooser(None);
    row(
        "salt = random % 10, then = invoice_id, line",
        "(String, u32)",
        "(\"INV-1\", 7), bucket 3",
        key.clone(),
        rendered::<RandomLine>("constructs", &key),
    );
    let key = Reversed::get_key(0x0102_0304_0506_0708, 1);
    row(
        "then = reverse(order_id), line",
        "(u64, u16)",
        "(0x0102030405060708, 1)",
        key.clone(),
        rendered::<Reversed>("constructs", &key),
    );
    let key = SaltedReversed::get_key(42, 1);
    row(
        "salt = hash(order_id) % 16, then = reverse(order_id), line",
        "(u64, u16)",
        "(42, 1)",
        key.clone(),
        rendered::<SaltedReversed>("constructs", &key),
    );
    let key = Bucketed::get_key(7, 95);
    row(
        "then = hotel_id, bucket(day, 30), day",
        "(u32, u32)",
        "(7, 95)",
        key.clone(),
        rendered::<Bucketed>("constructs", &key),
    );
    let key = BucketedDesc::get_key(7, 95);
    row(
        "then = hotel_id, bucket(day, 30), rev(day)",
        "(u32, u32)",
        "(7, 95)",
        key.clone(),
        rendered::<BucketedDesc>("constructs", &key),
    );
    let key = HashedBucket::get_key(7, 95);
    row(
        "salt = hash(hotel_id, bucket(day, 30)) % 64, then = (hotel_id, bucket(day, 30)), day",
        "(u32, u32)",
        "(7, 95)",
        key.clone(),
        rendered::<HashedBucket>("constructs", &key),
    );
    let key = PrefixSalt::get_key("u1");
    row(
        "prefix = \"ev\", salt = hash(user_id) % 4, then = user_id",
        "(String,)",
        "(\"u1\",)",
        key.clone(),
        rendered::<PrefixSalt>("constructs", &key),
    );
    let key = OneBucket::get_key("u1");
    row(
        "salt = hash(user_id) % 1, then = user_id",
        "(String,)",
        "(\"u1\",)",
        key.clone(),
        rendered::<OneBucket>("constructs", &key),
    );
    let key = Buckets256::get_key("u1");
    row(
        "salt = hash(user_id) % 256, then = user_id",
        "(String,)",
        "(\"u1\",)",
        key.clone(),
        rendered::<Buckets256>("constructs", &key),
    );
    let key = Buckets257::get_key("u1");
    row(
        "salt = hash(user_id) % 257, then = user_id",
        "(String,)",
        "(\"u1\",)",
        key.clone(),
        rendered::<Buckets257>("constructs", &key),
    );
    let key = Partitioned::get_key("INV-1", 5);
    row(
        "salt = hash(invoice_id) % 8, then = (invoice_id), rev(created_at)",
        "(String, u64)",
        "(\"INV-1\", 5)",
        key.clone(),
        rendered::<Partitioned>("constructs", &key),
    );
    for (maybe, x, shown) in [
        (None, f32::NEG_INFINITY, "(None, -inf)"),
        (Some(None), f32::NAN, "(Some(None), NaN)"),
        (Some(Some(5)), f32::INFINITY, "(Some(Some(5)), inf)"),
    ] {
        let key = Nested::get_key(maybe, x);
        row(
            "then = maybe, x",
            "(Option<Option<u8>>, f32)",
            shown,
            key.clone(),
            rendered::<Nested>("constructs", &key),
        );
    }
    types::construct_rows(&mut rows);
    rows
}
