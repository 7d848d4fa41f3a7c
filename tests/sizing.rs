//! Partition sizing: the Cassandra chapter's worked example, exactly.

use keyschema::sizing::Partition;

fn hotel() -> Partition {
    Partition {
        rows: 100 * 730,
        columns: 4,
        primary_key_columns: 3,
        static_columns: 0,
        partition_key_bytes: 5,
        static_bytes: 0,
        clustering_bytes: 4 + 2,
        regular_bytes: 1,
        cell_metadata_bytes: 8,
    }
}

#[test]
fn the_hotel_inventory_example() {
    let p = hotel();
    // Nv = Nr (4 - 3 - 0) + 0 = Nr
    assert_eq!(p.values(), 73_000);
    assert_eq!(p.row_bytes(), 511_000, "0.51 MB of cells");
    assert_eq!(p.metadata_bytes(), 584_000, "0.58 MB of metadata");
    assert_eq!(p.total_bytes(), 5 + 511_000 + 584_000);
    let mb = p.total_bytes() as f64 / 1e6;
    assert!((mb - 1.1).abs() < 0.05, "about 1.1 MB, got {mb}");
}

#[test]
fn static_columns_and_month_buckets() {
    let with_static = Partition {
        columns: 6,
        static_columns: 1,
        static_bytes: 20,
        ..hotel()
    };
    // Nv = 73,000 x (6 - 3 - 1) + 1
    assert_eq!(with_static.values(), 146_001);
    // Bucketing by month: 730 days over 24 months.
    let month = hotel().split_into(24);
    assert_eq!(month.rows, 3_042);
    assert_eq!(month.total_bytes(), 5 + 3_042 * 7 + 3_042 * 8);
}
