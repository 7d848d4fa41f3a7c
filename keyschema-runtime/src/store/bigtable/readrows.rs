//! Merging Bigtable ReadRows chunks into rows.
//!
//! A ReadRows response streams a row as `CellChunk`s: a cell's value may be
//! split over several chunks (and several response messages), family and
//! qualifier carry over from the previous cell, `reset_row` discards the row
//! in progress, and `commit_row` completes it. [`RowMerger`] is the state
//! machine that turns the chunks back into rows and rejects every invalid
//! sequence. It keeps its state across response messages, which is what a
//! real instance needs (rows split over messages) and what a decoder that
//! restarts per message gets wrong.
//!
//! It is checked against all 48 of Google's published conformance cases
//! (`tests/readrows_conformance.rs`).

/// One `CellChunk` of a ReadRows response, field for field.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Chunk {
    /// The row key; empty when the chunk continues the current row.
    pub row_key: Vec<u8>,
    /// A new column family, when it changes.
    pub family_name: Option<String>,
    /// A new column qualifier, when it changes.
    pub qualifier: Option<Vec<u8>>,
    /// The cell's timestamp.
    pub timestamp_micros: i64,
    /// The cell's labels.
    pub labels: Vec<String>,
    /// (A piece of) the cell's value.
    pub value: Vec<u8>,
    /// The whole value's size when the value is split and this is not the
    /// last piece; 0 otherwise.
    pub value_size: i32,
    /// Discard the row in progress.
    pub reset_row: bool,
    /// The row is complete.
    pub commit_row: bool,
}

/// One cell of a merged row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cell {
    /// Column family.
    pub family: String,
    /// Column qualifier.
    pub qualifier: Vec<u8>,
    /// Timestamp in microseconds.
    pub timestamp_micros: i64,
    /// Labels applied by filters.
    pub labels: Vec<String>,
    /// The value, reassembled.
    pub value: Vec<u8>,
}

/// A complete row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergedRow {
    /// The row key.
    pub key: Vec<u8>,
    /// Its cells, in the order received.
    pub cells: Vec<Cell>,
}

/// An invalid chunk sequence: the stream cannot be trusted past it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid ReadRows chunk {chunk}: {reason}")]
pub struct ChunkError {
    /// The index of the offending chunk in the stream (0-based).
    pub chunk: u64,
    /// What is wrong.
    pub reason: &'static str,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Between rows.
    NewRow,
    /// Inside a row, between cells.
    NewCell,
    /// Inside a cell whose value continues in the next chunk.
    CellValue,
}

/// Turns a stream of chunks into rows. Feed every chunk of every response
/// message to [`push`](Self::push), in order, then call
/// [`finish`](Self::finish) when the stream ends.
#[derive(Debug)]
pub struct RowMerger {
    state: State,
    reversed: bool,
    chunks: u64,
    key: Vec<u8>,
    cells: Vec<Cell>,
    family: Option<String>,
    qualifier: Option<Vec<u8>>,
    cell: Option<Cell>,
    last_committed: Option<Vec<u8>>,
}

impl RowMerger {
    /// A merger for a forward scan, or a reversed one (keys then decrease).
    pub fn new(reversed: bool) -> Self {
        RowMerger {
            state: State::NewRow,
            reversed,
            chunks: 0,
            key: Vec::new(),
            cells: Vec::new(),
            family: None,
            qualifier: None,
            cell: None,
            last_committed: None,
        }
    }

    /// The key of the last complete row: where a retried request resumes.
    pub fn last_committed(&self) -> Option<&[u8]> {
        self.last_committed.as_deref()
    }

    /// Whether the merger is between rows (a stream may end here).
    pub fn is_between_rows(&self) -> bool {
        self.state == State::NewRow
    }

    /// Forgets the row in progress, as when a stream breaks and is retried
    /// after [`last_committed`](Self::last_committed).
    pub fn discard_partial_row(&mut self) {
        self.reset();
    }

    /// Takes one chunk; returns a row when the chunk commits one.
    pub fn push(&mut self, chunk: Chunk) -> Result<Option<MergedRow>, ChunkError> {
        let index = self.chunks;
        self.chunks += 1;
        let fail = |reason| {
            Err(ChunkError {
                chunk: index,
                reason,
            })
        };
        if chunk.reset_row {
            if self.state == State::NewRow {
                return fail("reset_row outside a row");
            }
            let bare = chunk.row_key.is_empty()
                && chunk.family_name.is_none()
                && chunk.qualifier.is_none()
                && chunk.timestamp_micros == 0
                && chunk.labels.is_empty()
                && chunk.value.is_empty()
                && chunk.value_size == 0
                && !chunk.commit_row;
            if !bare {
                return fail("reset_row carries other fields");
            }
            self.reset();
            return Ok(None);
        }
        match self.state {
            State::NewRow => {
                if chunk.row_key.is_empty() {
                    return fail("a new row has no row key");
                }
                if chunk.family_name.is_none() || chunk.qualifier.is_none() {
                    return fail("a new row's first cell needs a family and a qualifier");
                }
                if let Some(last) = &self.last_committed {
                    let in_order = if self.reversed {
                        chunk.row_key < *last
                    } else {
                        chunk.row_key > *last
                    };
                    if !in_order {
                        return fail("row keys out of order or repeated");
                    }
                }
                self.key = chunk.row_key.clone();
                self.start_cell(index, chunk)
            }
            State::NewCell => {
                if !chunk.row_key.is_empty() && chunk.row_key != self.key {
                    return fail("a new row key before the current row was committed");
                }
                self.start_cell(index, chunk)
            }
            State::CellValue => {
                let continues = chunk.row_key.is_empty()
                    && chunk.family_name.is_none()
                    && chunk.qualifier.is_none()
                    && chunk.timestamp_micros == 0
                    && chunk.labels.is_empty();
                if !continues {
                    return fail("a chunk inside a split value carries cell fields");
                }
                let Some(cell) = self.cell.as_mut() else {
                    return fail("a value continues with no cell in progress");
                };
                cell.value.extend_from_slice(&chunk.value);
                self.end_chunk(index, chunk.value_size, chunk.commit_row)
            }
        }
    }

    /// Call when the stream ends: an error if it ends inside a row.
    pub fn finish(&self) -> Result<(), ChunkError> {
        if self.state == State::NewRow {
            Ok(())
        } else {
            Err(ChunkError {
                chunk: self.chunks,
                reason: "the stream ended inside a row (no commit_row)",
            })
        }
    }

    fn start_cell(&mut self, index: u64, chunk: Chunk) -> Result<Option<MergedRow>, ChunkError> {
        let fail = |reason| {
            Err(ChunkError {
                chunk: index,
                reason,
            })
        };
        if let Some(family) = chunk.family_name {
            if chunk.qualifier.is_none() {
                return fail("a new column family without a qualifier");
            }
            self.family = Some(family);
        }
        if let Some(qualifier) = chunk.qualifier {
            self.qualifier = Some(qualifier);
        }
        let (Some(family), Some(qualifier)) = (&self.family, &self.qualifier) else {
            return fail("a cell with no family and qualifier");
        };
        if chunk.value_size < 0 {
            return fail("negative value_size");
        }
        let mut value = chunk.value;
        if chunk.value_size > 0 {
            value.reserve(chunk.value_size as usize - value.len().min(chunk.value_size as usize));
        }
        self.cell = Some(Cell {
            family: family.clone(),
            qualifier: qualifier.clone(),
            timestamp_micros: chunk.timestamp_micros,
            labels: chunk.labels,
            value,
        });
        self.end_chunk(index, chunk.value_size, chunk.commit_row)
    }

    /// After a chunk's value: finish the cell unless it continues, then commit if asked.
    fn end_chunk(
        &mut self,
        index: u64,
        value_size: i32,
        commit: bool,
    ) -> Result<Option<MergedRow>, ChunkError> {
        if value_size > 0 {
            if commit {
                return Err(ChunkError {
                    chunk: index,
                    reason: "commit_row inside a split value",
                });
            }
            self.state = State::CellValue;
            return Ok(None);
        }
        if let Some(cell) = self.cell.take() {
            self.cells.push(cell);
        }
        if !commit {
            self.state = State::NewCell;
            return Ok(None);
        }
        let row = MergedRow {
            key: std::mem::take(&mut self.key),
            cells: std::mem::take(&mut self.cells),
        };
        self.last_committed = Some(row.key.clone());
        self.reset();
        Ok(Some(row))
    }

    fn reset(&mut self) {
        self.state = State::NewRow;
        self.key.clear();
        self.cells.clear();
        self.family = None;
        self.qualifier = None;
        self.cell = None;
    }
}
