//! Cassandra tables from key declarations: `CREATE TABLE` as golden text,
//! every CQL type mapping, the errors, and the chapter's partition sizing.

use keyschema::cassandra::{CqlError, CqlTable};
use keyschema::{DecodeError, KeyComponent, Reader, RowKey};

/// The chapter's hotel inventory, one partition per hotel.
#[derive(RowKey)]
#[rowkey(then = (hotel_id), day, room_number)]
struct PerHotel {
    hotel_id: String,
    day: u32,
    room_number: u16,
}

/// Split by month: the bucket and the salt join the partition key.
#[derive(RowKey)]
#[rowkey(salt = hash(hotel_id, bucket(day, 30)) % 64, then = (hotel_id, bucket(day, 30), day), room_number)]
struct PerMonth {
    hotel_id: String,
    day: u32,
    room_number: u16,
}

fn hotel_table<K: RowKey>(name: &str) -> CqlTable {
    CqlTable::new(K::schema(), name)
        .column("hotel_id", "text", 5)
        .column("day", "date", 4)
        .column("day_bucket", "date", 4)
        .column("room_number", "smallint", 2)
        .value("is_available", "boolean", 1)
}

#[test]
fn the_chapters_hotel_table_and_its_size() {
    let table = CqlTable::new(PerHotel::schema(), "available_rooms_by_hotel_date")
        .column("hotel_id", "text", 5)
        .column("day", "date", 4)
        .column("room_number", "smallint", 2)
        .value("is_available", "boolean", 1);
    assert_eq!(
        table.create_table().unwrap(),
        "CREATE TABLE available_rooms_by_hotel_date (
  hotel_id text,
  day date,
  room_number smallint,
  is_available boolean,
  PRIMARY KEY ((hotel_id), day, room_number)
) WITH CLUSTERING ORDER BY (day ASC, room_number ASC);"
    );
    let hotel = table.partition(100 * 730).unwrap();
    assert_eq!(hotel.values(), 73_000);
    assert_eq!(hotel.total_bytes(), 1_095_005, "the chapter's ~1.1 MB");
    assert_eq!(hotel.over_guidance(), None);
    // Five years of 1,000 rooms is past the 100,000-cell guidance.
    let big = table.partition(1_000 * 5 * 365).unwrap();
    let why = big.over_guidance().expect("too large");
    assert!(why.contains("1825000 values, above 100000"), "{why}");
}

#[test]
fn salt_and_bucket_are_partition_columns() {
    let table = hotel_table::<PerMonth>("available_rooms_by_hotel_month");
    assert_eq!(
        table.create_table().unwrap(),
        "CREATE TABLE available_rooms_by_hotel_month (
  salt tinyint,
  hotel_id text,
  day_bucket date,
  day date,
  room_number smallint,
  is_available boolean,
  PRIMARY KEY ((salt, hotel_id, day_bucket, day), room_number)
) WITH CLUSTERING ORDER BY (room_number ASC);"
    );
    // A partition per hotel-day here (day is in the partition): 100 rows.
    let p = table.partition(100).unwrap();
    assert_eq!(p.values(), 100);
    assert_eq!(p.partition_key_bytes, 1 + 5 + 4 + 4);
}

#[derive(RowKey)]
#[rowkey(then = (a, b, c, d), e, f, g, h, rev(i), j, k, l, m, n, o, p, q)]
struct EveryType {
    a: i8,
    b: u8,
    c: i16,
    d: u16,
    e: i32,
    f: u32,
    g: i64,
    h: u64,
    i: i128,
    j: u128,
    k: bool,
    l: f32,
    m: f64,
    n: String,
    o: char,
    p: Vec<u8>,
    q: [u8; 16],
}

#[test]
fn every_key_type_has_its_cql_type() {
    let statement = CqlTable::new(EveryType::schema(), "t")
        .create_table()
        .unwrap();
    assert_eq!(
        statement,
        "CREATE TABLE t (
  a tinyint,
  b smallint,
  c smallint,
  d int,
  e int,
  f bigint,
  g bigint,
  h varint,
  i varint,
  j varint,
  k boolean,
  l float,
  m double,
  n text,
  o text,
  p blob,
  q blob,
  PRIMARY KEY ((a, b, c, d), e, f, g, h, i, j, k, l, m, n, o, p, q)
) WITH CLUSTERING ORDER BY (e ASC, f ASC, g ASC, h ASC, i DESC, j ASC, k ASC, l ASC, m ASC, n ASC, o ASC, p ASC, q ASC);"
    );
}

#[derive(RowKey)]
#[rowkey(then = user_id, ts)]
struct NoPartition {
    user_id: String,
    ts: u64,
}

#[derive(RowKey)]
#[rowkey(then = (user_id), ts)]
struct OptionalKey {
    user_id: String,
    ts: Option<u64>,
}

/// A newtype key component: no CQL type until one is given.
#[derive(Debug, Clone, Copy, PartialEq)]
struct TenantId(u32);

impl KeyComponent for TenantId {
    type Ref<'a> = TenantId;
    const FIXED_WIDTH: Option<usize> = Some(4);
    fn as_key_ref(&self) -> TenantId {
        *self
    }
    fn encode_key(value: TenantId, out: &mut Vec<u8>) {
        u32::encode_key(value.0, out)
    }
    fn decode_key(input: &mut Reader<'_>) -> Result<Self, DecodeError> {
        u32::decode_key(input).map(TenantId)
    }
}

#[derive(RowKey)]
#[rowkey(then = (tenant), name)]
struct Document {
    tenant: TenantId,
    name: String,
}

#[test]
fn declarations_that_make_no_table_are_typed_errors() {
    assert_eq!(
        CqlTable::new(NoPartition::schema(), "t").create_table(),
        Err(CqlError::NoPartition {
            schema: "NoPartition"
        })
    );
    assert_eq!(
        CqlTable::new(OptionalKey::schema(), "t").create_table(),
        Err(CqlError::NullableKey { component: "ts" })
    );
    let err = CqlTable::new(Document::schema(), "t")
        .create_table()
        .unwrap_err();
    assert_eq!(
        err,
        CqlError::UnknownType {
            component: "tenant",
            type_name: "TenantId"
        }
    );
    assert!(err.to_string().contains(".column(\"tenant\""), "{err}");
    let fixed = CqlTable::new(Document::schema(), "t")
        .column("tenant", "int", 4)
        .create_table()
        .unwrap();
    assert!(fixed.contains("tenant int,"), "{fixed}");
    assert_eq!(
        CqlTable::new(Document::schema(), "t")
            .column("tennant", "int", 4)
            .create_table(),
        Err(CqlError::UnknownColumn {
            name: "tennant".into(),
            schema: "Document"
        })
    );
}

/// A whole row: value fields of every shape.
#[derive(RowKey)]
#[rowkey(then = (invoice_id), line_no)]
struct InvoiceLine {
    invoice_id: String,
    line_no: u16,
    #[rowkey(value)]
    amount: i64,
    #[rowkey(value)]
    memo: String,
    #[rowkey(value)]
    note: Option<String>,
    #[rowkey(value)]
    tags: Vec<String>,
    #[rowkey(value)]
    labels: std::collections::BTreeSet<String>,
    #[rowkey(value)]
    counts: std::collections::BTreeMap<String, u32>,
    #[rowkey(value)]
    scan: Vec<u8>,
    #[rowkey(value)]
    address: Address,
    #[rowkey(value)]
    approved: bool,
    #[rowkey(value)]
    history: Vec<Vec<std::string::String>>,
}

#[derive(serde::Serialize, serde::Deserialize, Default)]
struct Address {
    city: String,
}

#[test]
fn value_fields_are_columns_with_their_cql_types() {
    let table = CqlTable::new(InvoiceLine::schema(), "invoice_lines").value(
        "address",
        "frozen<address>",
        24,
    );
    assert_eq!(
        table.create_table().unwrap(),
        "CREATE TABLE invoice_lines (
  invoice_id text,
  line_no int,
  amount bigint,
  memo text,
  note text,
  tags list<text>,
  labels set<text>,
  counts map<text, bigint>,
  scan blob,
  address frozen<address>,
  approved boolean,
  history list<frozen<list<text>>>,
  PRIMARY KEY ((invoice_id), line_no)
) WITH CLUSTERING ORDER BY (line_no ASC);"
    );
    // Without the override, a struct is a blob of its MessagePack.
    let plain = CqlTable::new(InvoiceLine::schema(), "t")
        .create_table()
        .unwrap();
    assert!(plain.contains("  address blob,\n"), "{plain}");
}
