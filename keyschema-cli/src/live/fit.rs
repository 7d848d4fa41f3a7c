//! Whether the schema document fits the live table, from what is cheap to
//! read: the table's column families (Bigtable), a few keys at the table's
//! start, and keys past the document's last salt bucket. A read that finds
//! nothing, or a document that names what the table does not hold, says
//! so on standard error with what to do, instead of an empty answer that
//! looks true.

use super::{Live, Store};
use keyschema::dynamic::DynSchema;
use keyschema::store::bigtable::FAMILY;
use keyschema::store::Direction;
use keyschema::{prefix_successor, KeyRange};

impl Live {
    /// The column family the rows' values are read from on Bigtable: the
    /// document's `family` for whole rows, `v` for raw values.
    pub fn value_family(&self) -> &'static str {
        match self.schema.values().is_empty() {
            true => FAMILY,
            false => self.schema.family(),
        }
    }

    /// The table's column families (Bigtable); `None` on DynamoDB.
    pub fn families(&self) -> Result<Option<Vec<String>>, String> {
        match &self.store {
            Store::Bigtable(s) => self
                .runtime
                .block_on(s.column_families())
                .map(Some)
                .map_err(|e| e.to_string()),
            Store::Dynamo(_) => Ok(None),
        }
    }

    /// Refuses a Bigtable table without the family the document's rows are
    /// read from: every read would come back empty (Bigtable leaves out a
    /// row with no cell the read's filter keeps), and `get` would say "no
    /// row" of a row that is there.
    pub fn check_family(&self) -> Result<(), String> {
        let Some(families) = self.families()? else {
            return Ok(());
        };
        let family = self.value_family();
        if families.iter().any(|f| f == family) {
            return Ok(());
        }
        Err(self.family_problem(family, &families))
    }

    /// What is wrong when the table lacks `family`.
    pub fn family_problem(&self, family: &str, families: &[String]) -> String {
        let has = match families {
            [] => "no column family".to_string(),
            list => format!("the families {}", list.join(", ")),
        };
        format!(
            "{} has no column family `{family}`, where the schema document's rows keep their values (its \"family\"); the table has {has}: every read would find no rows. Use the document of this table's rows (`K::schema().to_json()` of the type that wrote them), or fix its \"family\"",
            self.name
        )
    }

    /// Up to `n` keys of `range` whatever their cells (Bigtable), or the
    /// first page of a Scan of the key attributes (DynamoDB, whose
    /// items are not in one key order: `range` is not used there).
    pub fn first_keys(&self, range: &KeyRange, n: usize) -> Result<Vec<Vec<u8>>, String> {
        match &self.store {
            Store::Bigtable(s) => self
                .runtime
                .block_on(s.keys_in(range, Direction::Forward, n))
                .map_err(|e| e.to_string()),
            Store::Dynamo(s) => self
                .runtime
                .block_on(s.some_keys(n))
                .map_err(|e| e.to_string()),
        }
    }

    /// After a read that found nothing: whether the table holds rows the
    /// document does not read (another prefix, salt or field order), said
    /// on standard error; whether it warned. Silent when it cannot tell.
    pub fn explain_empty(&self, layout: &DynSchema) -> bool {
        let whole = KeyRange::new(Vec::new(), None, 0);
        let Ok(keys) = self.first_keys(&whole, 5) else {
            return false;
        };
        let foreign: Vec<(&Vec<u8>, String)> = keys
            .iter()
            .filter_map(|k| layout.decode(k).err().map(|e| (k, e.to_string())))
            .collect();
        if let Some((key, why)) = foreign.first() {
            eprintln!(
                "{} holds rows, but {} of the first {} keys it holds are not keys of `{}` (first: {}: {why}): the schema document may not be this table's (its prefix, salt or field order); `keyschema check` compares them",
                self.name,
                foreign.len(),
                keys.len(),
                layout.name(),
                crate::forms::write(key, crate::forms::Output::Escaped),
            );
        }
        let past = self.warn_past_buckets(layout);
        !foreign.is_empty() || past
    }

    /// Keys past the document's last salt bucket (Bigtable): the table was
    /// written with more buckets than the document says, and every read
    /// by the document misses their rows. `None` when there are none or it
    /// cannot tell; else the count seen (at most `n`) and the first.
    pub fn past_buckets(&self, layout: &DynSchema, n: usize) -> Option<(usize, Vec<u8>)> {
        if !matches!(self.store, Store::Bigtable(_)) || layout.salt().is_none() {
            return None;
        }
        let ranges = layout.ranges(&[], None).ok()?;
        let last = ranges.iter().max_by(|a, b| a.start().cmp(b.start()))?;
        let after_last = last.end()?.to_vec();
        let end = prefix_successor(layout.prefix());
        if end.as_deref().is_some_and(|e| e <= after_last.as_slice()) {
            return None;
        }
        let keys = self
            .first_keys(&KeyRange::new(after_last, end, 0), n)
            .ok()?;
        let first = keys.first()?.clone();
        Some((keys.len(), first))
    }

    /// [`past_buckets`](Self::past_buckets), said on standard error;
    /// whether there were any (the read missed rows).
    pub fn warn_past_buckets(&self, layout: &DynSchema) -> bool {
        let past = self.past_buckets(layout, 1);
        if let Some((_, first)) = &past {
            eprintln!(
                "warning: {} holds keys past the document's {} salt buckets (first: {}): it was written with more buckets than `{}` declares, so this read missed their rows. Use the document of the type that wrote the table",
                self.name,
                layout.buckets(),
                crate::forms::write(first, crate::forms::Output::Escaped),
                layout.name(),
            );
        }
        past.is_some()
    }
}
