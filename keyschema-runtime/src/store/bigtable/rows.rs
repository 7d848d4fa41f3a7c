//! Whole rows as cells: a key type with value fields keeps each field in
//! its own column of the key type's family (`Schema::family`, `f` unless
//! declared), the qualifier the field's name, the cell in the encoding of
//! [`crate::record::cells`] (strings as text, integers as 64-bit
//! big-endian), so that `cbt read` shows every field by name. A key type
//! without value fields keeps its raw value in `v:v`.
//!
//! - A put is one MutateRow entry: `DeleteFromFamily` of the family (a
//!   field now `None` loses its old cell), then one `SetCell` per field,
//!   applied together (Bigtable is atomic per row).
//! - A read returns the family's newest cells as one cell map; a row
//!   written before whole rows had their own columns (the ordered stores'
//!   map in `v:v`) is read from there.
//! - A compare-and-set expects the family's newest cells to be exactly the
//!   cell map it was given: no cell more, none less, each value equal.

use super::write::Entry;
use super::{BigtableError, BigtableStore, FAMILY, QUALIFIER};
use crate::record::cells::{self, Cell};
use crate::record::ValueField;
use crate::schema::Schema;
use crate::store::Mutation;
use data::row_filter::{Chain, Condition, Filter, Interleave};
use googleapis_tonic_google_bigtable_v2::google::bigtable::v2 as data;

/// The family of `schema`'s value fields when its rows are whole.
pub(super) fn family_of(schema: &Schema) -> Option<&'static str> {
    (!schema.values().is_empty()).then(|| schema.family())
}

/// What a read of whole rows fetches: the family's columns, all of them or
/// a projection's.
#[derive(Debug, Clone, Copy)]
pub(super) struct Reads {
    pub(super) family: &'static str,
    pub(super) projection: Option<&'static [ValueField]>,
}

impl BigtableStore {
    /// The `RowFilter` a typed read of `schema` sends with its ReadRows (a
    /// scan or a get): the newest cell of each column of the schema's
    /// family (of a projection's columns only, `P::schema()` of a
    /// `#[derive(Projection)]`, and one other cell of the row with its
    /// value stripped, so that a row whose projected fields are all absent
    /// is still a row), and the `v:v` cell of rows written before value
    /// fields had columns. `None` for a key type without value fields
    /// (its reads take `v:v` and send no filter). The filter's form is
    /// `docs/ENCODING.md`'s ("Value fields on Bigtable", Projections), and
    /// its `projections` vectors hold it.
    pub fn read_filter_of(schema: &Schema) -> data::RowFilter {
        filter_for(reads_of(schema))
    }
}

/// The filter of a read that fetches `reads` (`None`: raw values).
pub(super) fn filter_for(reads: Option<Reads>) -> data::RowFilter {
    match reads {
        Some(reads) => read_filter(reads),
        None => filter(Filter::CellsPerColumnLimitFilter(1)),
    }
}

/// How reads of `schema` fetch its rows; `None` for raw values in `v:v`.
pub(super) fn reads_of(schema: &Schema) -> Option<Reads> {
    Some(Reads {
        family: family_of(schema)?,
        projection: schema.projection(),
    })
}

impl BigtableStore {
    /// Writes a typed batch: for a key type with value fields, each put's
    /// value (its fields) as one cell per field.
    pub(super) async fn write_rows(
        &self,
        schema: &'static Schema,
        batch: &[Mutation],
    ) -> Result<(), BigtableError> {
        let Some(family) = family_of(schema) else {
            return self.write_batch(batch).await;
        };
        let entries = batch
            .iter()
            .map(|m| row_entry(family, schema.values(), m))
            .collect::<Result<Vec<_>, _>>()?;
        self.write_entries(&entries).await
    }
}

/// A whole row's entry: its cells, or the row's deletion.
fn row_entry(family: &str, fields: &[ValueField], m: &Mutation) -> Result<Entry, BigtableError> {
    let (row_key, mutations) = match m {
        Mutation::Put { key, value } => (key.clone(), set_cells(family, fields, key, value)?),
        Mutation::Delete { key } => (key.clone(), vec![delete_row()]),
    };
    Ok(Entry {
        row_key,
        mutations,
        ..Default::default()
    })
}

fn mutation(m: data::mutation::Mutation) -> data::Mutation {
    data::Mutation { mutation: Some(m) }
}

pub(super) fn delete_row() -> data::Mutation {
    mutation(data::mutation::Mutation::DeleteFromRow(
        data::mutation::DeleteFromRow {},
    ))
}

/// The mutations that make `key`'s cells in `family` those of `value` (a
/// row's value fields, or a cell map read before); `fields` are the key
/// type's value fields.
pub(super) fn set_cells(
    family: &str,
    fields: &[ValueField],
    key: &[u8],
    value: &[u8],
) -> Result<Vec<data::Mutation>, BigtableError> {
    let cells = cells::cells_of(value, fields).map_err(|source| BigtableError::Value {
        key: key.to_vec(),
        source,
    })?;
    let mut mutations = Vec::with_capacity(cells.len() + 1);
    mutations.push(mutation(data::mutation::Mutation::DeleteFromFamily(
        data::mutation::DeleteFromFamily {
            family_name: family.to_string(),
        },
    )));
    mutations.extend(cells.into_iter().map(|(qualifier, value)| {
        mutation(data::mutation::Mutation::SetCell(data::mutation::SetCell {
            family_name: family.to_string(),
            column_qualifier: qualifier,
            // The server's time, as every put: see `BigtableStore`.
            timestamp_micros: -1,
            value,
        }))
    }));
    Ok(mutations)
}

fn filter(f: Filter) -> data::RowFilter {
    data::RowFilter { filter: Some(f) }
}

fn chain(filters: Vec<data::RowFilter>) -> data::RowFilter {
    filter(Filter::Chain(Chain { filters }))
}

/// A family name as an RE2 pattern matching it alone (family names are
/// `[-_.a-zA-Z0-9]+`; the dot is escaped).
fn family_pattern(family: &str) -> String {
    format!("^{}$", family.replace('.', "\\."))
}

/// What a read of whole rows asks for: the newest cell of each column of
/// the family (of a projection's columns only), and `v:v` (rows written
/// before).
pub(super) fn read_filter(reads: Reads) -> data::RowFilter {
    let raw = chain(vec![
        filter(Filter::FamilyNameRegexFilter(family_pattern(FAMILY))),
        filter(Filter::ColumnQualifierRegexFilter(b"^v$".to_vec())),
    ]);
    let mine = match reads.projection {
        None => filter(Filter::FamilyNameRegexFilter(family_pattern(reads.family))),
        Some(fields) => projected(reads.family, fields),
    };
    chain(vec![
        filter(Filter::CellsPerColumnLimitFilter(1)),
        filter(Filter::Interleave(Interleave {
            filters: vec![mine, raw],
        })),
    ])
}

/// The projection's columns of `family`, and one other cell of the row
/// with its value stripped: a row whose projected fields are all `None`
/// still exists, and the stripped cell (never a projected column) is an
/// unknown column to the reader.
fn projected(family: &str, fields: &[ValueField]) -> data::RowFilter {
    let mut names: Vec<&[u8]> = fields.iter().map(|f| f.name.as_bytes()).collect();
    names.sort_unstable();
    names.dedup();
    let mut wanted: Vec<data::RowFilter> = names.iter().map(|q| column_is(family, q)).collect();
    wanted.push(chain(vec![
        interleave(columns_besides(family, &names)),
        filter(Filter::CellsPerRowLimitFilter(1)),
        filter(Filter::StripValueTransformer(true)),
    ]));
    interleave(wanted)
}

/// The column `qualifier` of `family`.
fn column_is(family: &str, qualifier: &[u8]) -> data::RowFilter {
    use data::column_range::{EndQualifier, StartQualifier};
    filter(Filter::ColumnRangeFilter(data::ColumnRange {
        family_name: family.to_string(),
        start_qualifier: Some(StartQualifier::StartQualifierClosed(qualifier.to_vec())),
        end_qualifier: Some(EndQualifier::EndQualifierClosed(qualifier.to_vec())),
    }))
}

/// The columns of `family` other than `qualifiers` (sorted, distinct): one
/// range before, between and after them each.
fn columns_besides(family: &str, qualifiers: &[&[u8]]) -> Vec<data::RowFilter> {
    use data::column_range::{EndQualifier, StartQualifier};
    let range = |after: Option<&[u8]>, before: Option<&[u8]>| {
        filter(Filter::ColumnRangeFilter(data::ColumnRange {
            family_name: family.to_string(),
            start_qualifier: after.map(|a| StartQualifier::StartQualifierOpen(a.to_vec())),
            end_qualifier: before.map(|b| EndQualifier::EndQualifierOpen(b.to_vec())),
        }))
    };
    let mut ranges = Vec::with_capacity(qualifiers.len() + 1);
    let mut after = None;
    for q in qualifiers {
        ranges.push(range(after, Some(q)));
        after = Some(*q);
    }
    ranges.push(range(after, None));
    ranges
}

/// One filter for several; Bigtable refuses an interleave of one.
fn interleave(mut filters: Vec<data::RowFilter>) -> data::RowFilter {
    if filters.len() == 1 {
        if let Some(only) = filters.pop() {
            return only;
        }
    }
    filter(Filter::Interleave(Interleave { filters }))
}

/// A row's value as the typed reads take it: its cells in `family` as a
/// cell map, else its `v:v` value; `None` when it has neither.
pub(super) fn row_value(family: &str, row_cells: Vec<super::readrows::Cell>) -> Option<Vec<u8>> {
    let mine: Vec<(&[u8], &[u8])> = row_cells
        .iter()
        .filter(|c| c.family == family)
        .map(|c| (&c.qualifier[..], &c.value[..]))
        .collect();
    if !mine.is_empty() {
        return Some(cells::cell_map(mine));
    }
    value_of(row_cells)
}

/// A row's raw value: its `v:v` cell.
pub(super) fn value_of(cells: Vec<super::readrows::Cell>) -> Option<Vec<u8>> {
    cells
        .into_iter()
        .find(|c| c.family == FAMILY && c.qualifier == QUALIFIER)
        .map(|c| c.value)
}

/// A predicate that yields cells exactly when the newest cells of `family`
/// are `expected`: the same qualifiers, each with the same value.
pub(super) fn holds_exactly(family: &str, expected: &[Cell]) -> data::RowFilter {
    use data::value_range::{EndValue, StartValue};
    let mut expected: Vec<&Cell> = expected.iter().collect();
    expected.sort();
    let values = |start: Option<StartValue>, end: Option<EndValue>| {
        filter(Filter::ValueRangeFilter(data::ValueRange {
            start_value: start,
            end_value: end,
        }))
    };
    // A cell that should not be there: a column between (or around) the
    // expected ones, or an expected column with another value.
    let qualifiers: Vec<&[u8]> = expected.iter().map(|(q, _)| &q[..]).collect();
    let mut wrong = columns_besides(family, &qualifiers);
    for (q, v) in &expected {
        let other = filter(Filter::Interleave(Interleave {
            filters: vec![
                values(None, Some(EndValue::EndValueOpen(v.clone()))),
                values(Some(StartValue::StartValueOpen(v.clone())), None),
            ],
        }));
        wrong.push(chain(vec![column_is(family, q), other]));
    }
    let mut steps = vec![
        filter(Filter::FamilyNameRegexFilter(family_pattern(family))),
        filter(Filter::CellsPerColumnLimitFilter(1)),
        // Any wrong cell: nothing passes.
        filter(Filter::Condition(Box::new(Condition {
            predicate_filter: Some(Box::new(filter(Filter::Interleave(Interleave {
                filters: wrong,
            })))),
            true_filter: None,
            false_filter: Some(Box::new(filter(Filter::PassAllFilter(true)))),
        }))),
    ];
    // Each expected cell must be there, with its value.
    for (q, v) in &expected {
        let equal = values(
            Some(StartValue::StartValueClosed(v.clone())),
            Some(EndValue::EndValueClosed(v.clone())),
        );
        steps.push(filter(Filter::Condition(Box::new(Condition {
            predicate_filter: Some(Box::new(chain(vec![column_is(family, q), equal]))),
            true_filter: Some(Box::new(filter(Filter::PassAllFilter(true)))),
            false_filter: None,
        }))));
    }
    chain(steps)
}
