//! The Cassandra data-modeling chapter's hotel inventory: how big one
//! partition gets, and how a month bucket in the partition key cuts it down.
//!
//! `available_rooms_by_hotel_date` keeps one row per room per night for two
//! years. With the hotel alone as partition key, a partition holds 73,000
//! rows, about 1.1 MB; adding a month bucket splits it into 25 partitions of
//! about 45 KB. keyschema writes the bucket as `bucket(day, 30)`, hashes it
//! into the salt like a partition key, and expands a date-range query into
//! one range per month.
//!
//! A row is the chapter's whole row: the key columns and `is_available`, a
//! value field (`#[rowkey(value)]`). `CqlTable` makes its regular column
//! from the declaration, the store keeps it beside the key, and the
//! date-range query reads the rows back typed.
//!
//! Run: `cargo run --release --example hotel_availability`

use keyschema::cassandra::CqlTable;
use keyschema::store::{MemoryStore, RecordStore, Store};
use keyschema::RowKey;

/// The chapter's first design (`available_rooms_by_hotel_date`): one
/// partition per hotel, clustered by day and room.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(then = (hotel_id), day, room_number)]
pub struct PerHotel {
    pub hotel_id: String,
    pub day: u32,
    pub room_number: u16,
    /// The table's one regular column.
    #[rowkey(value)]
    pub is_available: bool,
}

/// Partition (hotel_id, month), clustered by day and room.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = hash(hotel_id, bucket(day, 30)) % 64, then = (hotel_id, bucket(day, 30)), day, room_number)]
pub struct Availability {
    pub hotel_id: String,
    /// Days since the inventory's first day.
    pub day: u32,
    pub room_number: u16,
    /// Whether the room is free that night: a value field, stored beside
    /// the key (the CQL table's regular column).
    #[rowkey(value)]
    pub is_available: bool,
}

const ROOMS: u16 = 100;
const DAYS: u32 = 730;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // `--schema-out FILE`: the month-bucketed layout as a JSON document, for
    // the `keyschema` command line tool (`keyschema size`) and Python.
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match (arg.as_str(), args.next()) {
            ("--schema-out", Some(path)) => std::fs::write(path, Availability::schema().to_json())?,
            _ => return Err("usage: hotel_availability [--schema-out FILE]".into()),
        }
    }
    // The chapter's sizing, from the declarations: hotel_id text(5), the
    // day as a CQL date (4) and the room number as a smallint (2), 8 bytes
    // of metadata per cell. The regular column, is_available boolean (1),
    // is the value field: `CqlTable::new` makes it from the declaration.
    let columns = |table: CqlTable| {
        table
            .column("hotel_id", "text", 5)
            .column("day", "date", 4)
            .column("room_number", "smallint", 2)
    };
    let per_hotel_table = columns(CqlTable::new(PerHotel::schema(), "rooms_by_hotel"));
    let per_month_table = columns(CqlTable::new(
        Availability::schema(),
        "rooms_by_hotel_month",
    ))
    .column("day_bucket", "date", 4);
    println!("{}", per_hotel_table.create_table()?);
    println!("{}", per_month_table.create_table()?);
    println!();
    let per_hotel = per_hotel_table.partition(u64::from(ROOMS) * u64::from(DAYS))?;
    let per_month = per_month_table.partition(u64::from(ROOMS) * 30)?;
    println!(
        "partition sizing from the declarations (Nv = Nr (Nc - Npk - Ns) + Ns; St = keys + statics + Nr x row + Nv x 8):"
    );
    for (name, p) in [
        ("one partition per hotel", per_hotel),
        ("one per hotel and 30-day month", per_month),
    ] {
        println!(
            "  {name:<32} Nr = {:>6} rows, Nv = {:>6} values, cells {:>7} B + metadata {:>7} B = {:>9} B ({}){}",
            p.rows,
            p.values(),
            p.row_bytes(),
            p.metadata_bytes(),
            p.total_bytes(),
            human(p.total_bytes()),
            p.over_guidance().map(|why| format!(": {why}")).unwrap_or_default()
        );
    }
    assert_eq!(
        (per_hotel.values(), per_hotel.total_bytes()),
        (73_000, 1_095_005)
    );

    // The bucketed key on a store: three hotels' two-year inventories, as
    // whole rows (the key, and is_available beside it).
    println!();
    println!("schema  {}", Availability::schema());
    let store = MemoryStore::new();
    let mut rows = Vec::new();
    for hotel in ["AZ123", "BX456", "CQ789"] {
        for day in 0..DAYS {
            for room in 0..ROOMS {
                rows.push(Availability {
                    hotel_id: hotel.into(),
                    day,
                    room_number: room,
                    is_available: (day + u32::from(room)) % 3 != 0,
                });
            }
        }
    }
    store.put_records(&rows)?;
    println!(
        "{} rows written: 3 hotels x {ROOMS} rooms x {DAYS} nights",
        store.len()
    );

    // Partitions per salt bucket: months of one hotel spread over the cluster.
    let mut per_bucket = vec![0usize; Availability::BUCKETS as usize];
    for range in Availability::scan().ranges().iter() {
        per_bucket[range.bucket() as usize] = store
            .scan(range, keyschema::store::Direction::Forward)?
            .count();
    }
    let busiest = per_bucket.iter().max().copied().unwrap_or(0);
    println!(
        "rows per salt bucket: min {}, max {} (each (hotel, month) partition holds {} rows)",
        per_bucket.iter().min().copied().unwrap_or(0),
        busiest,
        30 * u32::from(ROOMS)
    );

    // "Which rooms are free at AZ123 from day 100 to day 129?" touches two months.
    let query = Availability::scan().hotel_id("AZ123").day(100..130)?;
    let ranges = query.ranges();
    println!();
    println!(
        "rooms of AZ123 for days 100..130: {} partitions (months 3 and 4), ranges:",
        ranges.len()
    );
    for r in ranges.iter() {
        println!(
            "  salt {:>2}  from {}",
            r.bucket(),
            Availability::schema().render_prefix(r.start())
        );
    }
    let mut free = 0;
    let mut seen = 0;
    let mut last_day = 0;
    let mut first_free = None;
    for row in query.run(&store).records() {
        // A whole row: the key columns decoded from the key, is_available
        // read from the value.
        let row: Availability = row?;
        assert!(row.day >= last_day, "merged in day order");
        last_day = row.day;
        seen += 1;
        if row.is_available {
            free += 1;
            first_free.get_or_insert(row);
        }
    }
    println!("  {seen} room-nights read in day order, {free} of them free");
    assert_eq!(seen, 30 * usize::from(ROOMS));
    if let Some(room) = first_free {
        println!("  the first free one, read whole: {room:?}");
    }

    // One room-night by its key, whole.
    let key = Availability::get_key("AZ123", 129, 7);
    let night = store
        .get_record::<Availability>(&key)?
        .ok_or("AZ123's room 7 on day 129 is stored")?;
    println!(
        "get_record {}: room {} on day {} is {}",
        Availability::render(&key),
        night.room_number,
        night.day,
        if night.is_available { "free" } else { "taken" }
    );

    // A query over two years of one hotel: 25 partitions, within the expansion limit.
    let all = Availability::scan().hotel_id("AZ123").day(0..DAYS)?;
    println!(
        "a two-year query expands to {} partition ranges (limit {})",
        all.ranges().len(),
        keyschema::MAX_BUCKET_EXPANSION
    );
    Ok(())
}

fn human(bytes: u64) -> String {
    if bytes >= 1_000_000 {
        format!("{:.2} MB", bytes as f64 / 1e6)
    } else {
        format!("{:.1} KB", bytes as f64 / 1e3)
    }
}
