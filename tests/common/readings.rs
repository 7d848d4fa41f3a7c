//! A reading indexed by its temperature three ways (an `f64`, an `f32`, an
//! `Option<f64>`): the floats stores treat specially, in index keys
//! (`tests/dynamodb_values.rs`, `tests/index_floats.rs`).

use keyschema::RowKey;

#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(
    prefix = "r",
    then = (zone), id,
    index(ByTemp, prefix = "x", then = (zone), temp, id),
    index(ByCold, prefix = "y", then = (zone), cold, id),
    index(ByPeak, prefix = "z", then = (zone), peak, id),
)]
pub struct Reading {
    pub zone: String,
    pub id: u16,
    #[rowkey(value)]
    pub temp: f64,
    #[rowkey(value)]
    pub cold: f32,
    #[rowkey(value)]
    pub peak: Option<f64>,
}

/// Reading `id` of zone `z` at `t` in each of the three fields.
pub fn reading(id: u16, t: f64) -> Reading {
    Reading {
        zone: "z".into(),
        id,
        temp: t,
        cold: t as f32,
        peak: Some(t),
    }
}
