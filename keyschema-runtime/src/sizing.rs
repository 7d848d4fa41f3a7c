//! Partition sizing, as the Cassandra data-modeling chapter computes it.
//!
//! For a table whose partition holds `Nr` rows with `Nc` columns, of which
//! `Npk` are primary-key columns and `Ns` static:
//!
//! ```text
//! Nv = Nr (Nc - Npk - Ns) + Ns                      (values, or cells, per partition)
//! St = Σ sizeOf(partition key columns) + Σ sizeOf(static columns)
//!    + Nr × (Σ sizeOf(regular columns) + Σ sizeOf(clustering columns))
//!    + Nv × sizeOf(t_avg)                           (bytes per partition)
//! ```
//!
//! `t_avg` is the per-cell metadata, usually estimated at 8 bytes. Use it to
//! decide whether a partition needs a time bucket in its key (see
//! `bucket(f, W)`): the chapter's hotel inventory is 73,000 rows and 1.1 MB
//! per hotel; split by month, about 3,000 rows and 45 KB.

/// The chapter's guidance: at most 100,000 values (cells) per partition.
pub const MAX_CELLS: u64 = 100_000;

/// The chapter's guidance: at most 100 MB per partition.
pub const MAX_BYTES: u64 = 100_000_000;

/// The shape of one partition.
///
/// ```
/// use keyschema::sizing::Partition;
///
/// // The chapter's available_rooms_by_hotel_date: one partition per hotel,
/// // 100 rooms x 730 days, key (hotel_id text(5)), clustering (date 4, room_number 2),
/// // one regular column (is_available 1).
/// let hotel = Partition {
///     rows: 100 * 730,
///     columns: 4,
///     primary_key_columns: 3,
///     static_columns: 0,
///     partition_key_bytes: 5,
///     static_bytes: 0,
///     clustering_bytes: 4 + 2,
///     regular_bytes: 1,
///     cell_metadata_bytes: 8,
/// };
/// assert_eq!(hotel.values(), 73_000);
/// assert_eq!(hotel.row_bytes(), 511_000);
/// assert_eq!(hotel.metadata_bytes(), 584_000);
/// assert_eq!(hotel.total_bytes(), 1_095_005); // about 1.1 MB
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Partition {
    /// `Nr`: rows per partition.
    pub rows: u64,
    /// `Nc`: columns in the table.
    pub columns: u64,
    /// `Npk`: primary-key columns (partition key and clustering columns).
    pub primary_key_columns: u64,
    /// `Ns`: static columns.
    pub static_columns: u64,
    /// Σ sizeOf(partition key columns), stored once per partition.
    pub partition_key_bytes: u64,
    /// Σ sizeOf(static columns), stored once per partition.
    pub static_bytes: u64,
    /// Σ sizeOf(clustering columns), per row.
    pub clustering_bytes: u64,
    /// Σ sizeOf(regular columns), per row.
    pub regular_bytes: u64,
    /// `sizeOf(t_avg)`: metadata per cell (8 is the usual estimate).
    pub cell_metadata_bytes: u64,
}

impl Partition {
    /// `Nv = Nr (Nc - Npk - Ns) + Ns`: the values (cells) in the partition.
    /// A table whose columns are all key columns still stores one cell per row's
    /// marker in practice; the formula then gives `Ns`, as the chapter states it.
    pub fn values(&self) -> u64 {
        let per_row = self
            .columns
            .saturating_sub(self.primary_key_columns)
            .saturating_sub(self.static_columns);
        self.rows
            .saturating_mul(per_row)
            .saturating_add(self.static_columns)
    }

    /// `Nr × (Σ regular + Σ clustering)`: the bytes of the rows' cells.
    pub fn row_bytes(&self) -> u64 {
        self.rows
            .saturating_mul(self.regular_bytes.saturating_add(self.clustering_bytes))
    }

    /// `Nv × sizeOf(t_avg)`: the cells' metadata.
    pub fn metadata_bytes(&self) -> u64 {
        self.values().saturating_mul(self.cell_metadata_bytes)
    }

    /// `St`: the partition's estimated size in bytes.
    pub fn total_bytes(&self) -> u64 {
        self.partition_key_bytes
            .saturating_add(self.static_bytes)
            .saturating_add(self.row_bytes())
            .saturating_add(self.metadata_bytes())
    }

    /// The same partition cut into `parts` buckets of equal rows (a time
    /// bucket such as `month` added to the partition key); rounds up.
    pub fn split_into(&self, parts: u64) -> Partition {
        Partition {
            rows: self.rows.div_ceil(parts.max(1)),
            ..*self
        }
    }

    /// What the chapter's guidance says of this partition: `None` when it
    /// holds at most [`MAX_CELLS`] values and [`MAX_BYTES`] bytes, else why
    /// it is too large.
    pub fn over_guidance(&self) -> Option<String> {
        let (values, bytes) = (self.values(), self.total_bytes());
        let mut why = Vec::new();
        if values > MAX_CELLS {
            why.push(format!("{values} values, above {MAX_CELLS}"));
        }
        if bytes > MAX_BYTES {
            why.push(format!("{bytes} bytes, above {MAX_BYTES}"));
        }
        (!why.is_empty()).then(|| {
            format!(
                "{}: add a bucket (a time bucket such as `bucket(day, 30)`) to the partition",
                why.join(" and ")
            )
        })
    }
}
