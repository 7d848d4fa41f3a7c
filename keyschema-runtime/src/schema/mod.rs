//! A runtime description of a key layout, for tools: printing keys, planning
//! splits, estimating sizes.

mod header;
mod history;
mod json;
mod json_text;
#[cfg_attr(not(feature = "dynamodb"), allow(dead_code))]
pub(crate) mod native;
mod parts;
mod render;
mod types_json;
mod value_field;

pub(crate) use header::Header;
pub use history::{Cut, History};
pub(crate) use json::ROW_FORMAT;
pub(crate) use json_text::string as json_string;
pub use parts::{Component, Salt};
pub(crate) use render::{rendered, rendered_prefix, try_render, Attempt, RenderPart};
pub use value_field::ValueField;

use crate::encoding::{
    BucketKey, Encoding, KeyComponent, Reader, ReversibleKey, TextComponent, TextDigits,
};
use crate::error::DecodeError;
use crate::salt;

/// The direction a component sorts in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Order {
    /// Smallest value first (a plain field).
    Ascending,
    /// Largest value first (`rev(field)`): the component's bytes are inverted.
    Descending,
}

/// How a DynamoDB store keeps an index, as its declaration says
/// (`index(Name, ..., dynamodb = encoded)` or `dynamodb = native`): see
/// `store::dynamodb::index_form` for the form each index gets, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum DynamoForm {
    /// Not declared: native where every component can be (and the table
    /// has no encoded GSI of the index's name), else the encoded form (a
    /// GSI over `Name_pk` and `Name_sk`).
    #[default]
    Undeclared,
    /// `dynamodb = encoded`: the encoded form, declared.
    Encoded,
    /// `dynamodb = native`: a GSI over the item's own typed attributes; a
    /// store refuses to open when a component cannot be one.
    Native,
}

/// The textual form of keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Format {
    /// Compact, memcomparable bytes (the default).
    Binary,
    /// Readable text: the salt as zero-padded decimal, components separated
    /// by `sep` (`format = text(sep = "#")`).
    Text {
        /// The separator byte.
        sep: u8,
    },
}

/// Renders one component's encoding for a human reader.
pub type RenderFn = fn(&mut Reader<'_>, &mut String) -> Result<(), DecodeError>;

/// Turns a component's binary encoding into its text form.
pub(crate) type TextFn = fn(&[u8], &mut Vec<u8>, u8) -> Result<(), DecodeError>;

/// The layout of a row key, as declared in `#[rowkey(...)]`.
///
/// ```
/// use keyschema::{Order, RowKey};
///
/// #[derive(RowKey)]
/// #[rowkey(salt = hash(user_id, site) % 8, then = user_id, site, rev(timestamp))]
/// struct Event { user_id: String, site: String, timestamp: u64 }
///
/// let schema = Event::schema();
/// assert_eq!(schema.buckets(), 8);
/// assert_eq!(schema.components()[2].name(), "timestamp");
/// assert_eq!(schema.components()[2].order(), Order::Descending);
/// assert_eq!(
///     schema.to_string(),
///     "Event: salt = hash(user_id, site) % 8, then = user_id: String, site: String, rev(timestamp: u64)"
/// );
///
/// let key = Event::get_key("u1", "s", 1_700_000_000);
/// assert_eq!(schema.render(&key), "3|u1|s|~1700000000");
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Schema {
    name: &'static str,
    prefix: &'static [u8],
    salt: Option<Salt>,
    components: &'static [Component],
    format: Format,
    /// `(first, last)` when the hashed fields are consecutive plain
    /// components in key order: the salt input is one slice of the key.
    salt_span: Option<(usize, usize)>,
    /// The key type's own `decode`, for the checks that need the types
    /// (the salt against the fields, buckets against their fields).
    check: Option<CheckFn>,
    /// `then = (a, b), c`: how many leading components form the partition key.
    partition: Option<usize>,
    /// `#[rowkey_was(...)]`: the older layout and the cut-over.
    pub(crate) history: Option<&'static History>,
    /// The value fields (`#[rowkey(value)]`), stored beside the key.
    values: &'static [ValueField],
    /// The column family of the value fields on Bigtable (`family = "..."`).
    family: &'static str,
    /// A projection's value fields (`#[derive(Projection)]`): what reads
    /// of this schema fetch, a subset of `values`.
    projection: Option<&'static [ValueField]>,
    /// The schemas of the row type's indexes (`index(Name, ...)`).
    indexes: &'static [fn() -> &'static Schema],
    /// The row type's `stored_index_keys`: a stored row's entry keys.
    entries: Option<EntriesFn>,
    /// An index's entry layout declared `building`.
    building: bool,
    /// An index's declared form on DynamoDB (`dynamodb = ...`).
    dynamodb: DynamoForm,
    /// The indexes a schema document lists that a schema read from it
    /// does not keep (their entries need the key type's code).
    unkept_indexes: &'static [&'static str],
    /// The length of the prefix and the salt ([`header_len`](Self::header_len)),
    /// computed once: every decode reads it.
    header_len: usize,
}

/// Appends the index entry keys of the row stored under a key with a
/// value (see `RowKey::stored_index_keys`).
pub(crate) type EntriesFn = fn(&[u8], &[u8], &mut Vec<Vec<u8>>);

/// The column family a key type's value fields are kept in on Bigtable
/// when it declares none (`#[rowkey(family = "...")]`).
pub const DEFAULT_FAMILY: &str = "f";

/// Decodes a key of the schema's type and drops the value.
pub(crate) type CheckFn = fn(&[u8]) -> Result<(), DecodeError>;

impl Schema {
    pub(crate) const fn new(
        name: &'static str,
        prefix: &'static [u8],
        salt: Option<Salt>,
        components: &'static [Component],
        format: Format,
    ) -> Self {
        let mut schema = Schema {
            name,
            prefix,
            salt,
            components,
            format,
            salt_span: salt_span(salt, components),
            check: None,
            partition: None,
            history: None,
            values: &[],
            family: DEFAULT_FAMILY,
            projection: None,
            indexes: &[],
            entries: None,
            building: false,
            dynamodb: DynamoForm::Undeclared,
            unkept_indexes: &[],
            header_len: 0,
        };
        schema.header_len = schema.head().len();
        schema
    }

    /// Marks an index's entry layout as declared `building`.
    pub(crate) const fn building(mut self) -> Self {
        self.building = true;
        self
    }

    /// The indexes the schema document this schema was read from lists
    /// ([`Schema::from_document`]), which it does not keep: a row's index
    /// entries need the key type's code, so [`indexes`](Self::indexes) is
    /// empty and a store of this schema cannot keep them in step (the
    /// stores read through it, and a DynamoDB store refuses its puts).
    /// Empty for a key type's own schema.
    pub fn unkept_indexes(&self) -> &'static [&'static str] {
        self.unkept_indexes
    }

    /// Sets the indexes a schema document lists that this schema, read
    /// from it, does not keep.
    pub(crate) fn with_unkept_indexes(mut self, names: &'static [&'static str]) -> Self {
        self.unkept_indexes = names;
        self
    }

    /// Whether this is the entry layout of an index declared `building`
    /// (`index(Name, building, ...)`): its entries are being built, and
    /// its scans are refused until the declaration drops `building`.
    pub fn is_building(&self) -> bool {
        self.building
    }

    /// Sets an index's declared form on DynamoDB (`dynamodb = ...`).
    pub(crate) const fn with_dynamodb_form(mut self, form: DynamoForm) -> Self {
        self.dynamodb = form;
        self
    }

    /// An index's declared form on DynamoDB (`index(Name, ..., dynamodb =
    /// encoded)` or `dynamodb = native`); [`DynamoForm::Undeclared`] when its
    /// declaration names none, and for a row's own layout.
    pub fn dynamodb_form(&self) -> DynamoForm {
        self.dynamodb
    }

    /// Sets the index layouts (`index(Name, ...)`) and how a stored row's
    /// entries are found.
    pub(crate) const fn with_indexes(
        mut self,
        indexes: &'static [fn() -> &'static Schema],
        entries: EntriesFn,
    ) -> Self {
        self.indexes = indexes;
        self.entries = Some(entries);
        self
    }

    /// The entry keys of the row stored under `key` with `value`, one per
    /// index it has an entry in (none without indexes).
    pub(crate) fn stored_entries(&self, key: &[u8], value: &[u8]) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        if let Some(entries) = self.entries {
            entries(key, value, &mut out);
        }
        out
    }

    /// The key layouts of the row type's indexes (`index(Name, ...)`; see
    /// [`crate::index`]), in declaration order.
    pub fn indexes(&self) -> impl ExactSizeIterator<Item = &'static Schema> + '_ {
        self.indexes.iter().map(|schema| schema())
    }

    /// Whether the row type has indexes, which every write keeps in step.
    pub fn has_indexes(&self) -> bool {
        !self.indexes.is_empty()
    }

    /// Sets the value fields (`#[rowkey(value)]`).
    pub(crate) const fn with_values(mut self, values: &'static [ValueField]) -> Self {
        self.values = values;
        self
    }

    /// Sets the column family of the value fields (`family = "..."`).
    pub(crate) const fn with_family(mut self, family: &'static str) -> Self {
        self.family = family;
        self
    }

    /// The column family that keeps the value fields on Bigtable, one
    /// column per field: `#[rowkey(family = "...")]`, else
    /// `f`.
    pub fn family(&self) -> &'static str {
        self.family
    }

    /// The value fields of the row (`#[rowkey(value)]`), in declaration
    /// order: what a store with a shape of its own (DynamoDB attributes)
    /// writes beside the key. Empty for a key type without value fields,
    /// whose rows hold a raw value.
    pub fn values(&self) -> &'static [ValueField] {
        self.values
    }

    /// The same layout read through a projection: reads of the returned
    /// schema fetch only `fields` (a subset of [`values`](Self::values))
    /// where the store can leave the others out (a Bigtable column filter,
    /// a DynamoDB `ProjectionExpression`). Writes never take it.
    pub(crate) const fn projected(self, fields: &'static [ValueField]) -> Self {
        Schema {
            projection: Some(fields),
            ..self
        }
    }

    /// The value fields a read of this schema fetches: the
    /// [`values`](Self::values) a projection (`#[derive(Projection)]`)
    /// selects, `None` for the key type's own schema, whose reads fetch
    /// them all.
    pub fn projection(&self) -> Option<&'static [ValueField]> {
        self.projection
    }

    /// Sets the full check (`decode` of the key type) that `render_strict`
    /// and `render` use, so that they agree with `decode`.
    pub(crate) const fn with_check(mut self, check: CheckFn) -> Self {
        self.check = Some(check);
        self
    }

    /// Declares the leading `components` the partition key.
    pub(crate) const fn with_partition(mut self, components: Option<usize>) -> Self {
        self.partition = components;
        self
    }

    /// How many leading components form the partition key (DynamoDB's
    /// partition key, Cassandra's partition columns), as declared with
    /// `then = (a, b), c`; `None` when the declaration names none. A bucket
    /// and its field count as two components here, as in
    /// [`components`](Self::components).
    ///
    /// ```
    /// use keyschema::RowKey;
    ///
    /// #[derive(RowKey)]
    /// #[rowkey(salt = random % 10, then = (invoice_id), rev(created_at), line_no)]
    /// struct Line { invoice_id: String, created_at: u64, line_no: u16 }
    ///
    /// assert_eq!(Line::schema().partition_components(), Some(1));
    /// assert_eq!(
    ///     Line::schema().to_string(),
    ///     "Line: salt = random % 10, then = (invoice_id: String), rev(created_at: u64), line_no: u16"
    /// );
    /// ```
    pub fn partition_components(&self) -> Option<usize> {
        self.partition
    }

    /// Splits an encoded key into its partition part (the prefix, the salt
    /// and the partition components) and its sort part (the remaining
    /// components: DynamoDB's sort key, Cassandra's clustering columns).
    /// The key is exactly the two parts joined, so ordered stores see the
    /// same bytes whether or not a partition is declared. Without a declared
    /// partition, the whole key is the partition and the sort part is empty.
    /// In text keys the separator after the last partition component ends
    /// the partition part.
    ///
    /// ```
    /// use keyschema::RowKey;
    ///
    /// #[derive(RowKey)]
    /// #[rowkey(salt = hash(invoice_id) % 4, then = (invoice_id), rev(created_at), line_no)]
    /// struct Line { invoice_id: String, created_at: u64, line_no: u16 }
    ///
    /// let key = Line::get_key("INV-42", 1_700_000_000, 3);
    /// let (partition, sort) = Line::schema().split_key(&key)?;
    /// assert_eq!(partition, [&[key[0]][..], b"INV-42\0"].concat());
    /// assert_eq!(sort.len(), 8 + 2);
    /// assert_eq!([partition, sort].concat(), key);
    /// # Ok::<(), keyschema::DecodeError>(())
    /// ```
    pub fn split_key<'k>(&self, key: &'k [u8]) -> Result<(&'k [u8], &'k [u8]), DecodeError> {
        let at = match self.partition {
            Some(n) if n < self.components.len() => self.start_of(key, n)?,
            _ => key.len(),
        };
        Ok(key.split_at(at))
    }

    /// Where the declared partition ends in `key`, which may be a prefix of
    /// a key (a scan bound) but must hold every partition component.
    #[cfg_attr(not(feature = "dynamodb"), allow(dead_code))]
    pub(crate) fn partition_end(&self, key: &[u8]) -> Result<usize, DecodeError> {
        let n = self.partition.unwrap_or(self.components.len());
        self.start_of(key, n)
    }

    /// The length of the partition part of `key`; see [`split_key`](Self::split_key).
    pub fn partition_len(&self, key: &[u8]) -> Result<usize, DecodeError> {
        Ok(self.split_key(key)?.0.len())
    }

    /// Where component `n` starts in `key` (after its separator in text keys).
    fn start_of(&self, key: &[u8], n: usize) -> Result<usize, DecodeError> {
        self.bucket_of(key)?;
        let mut pos = self.header_len();
        let sep = self.sep();
        // Binary components are walked by rendering them: one buffer for all.
        let mut scratch = String::new();
        for (i, c) in self.components[..n].iter().enumerate() {
            let start = pos;
            let truncated = |expected| DecodeError::Truncated {
                component: c.name,
                offset: start,
                expected,
            };
            match sep {
                Some(sep) => {
                    pos = match c.text_width() {
                        Some(width) => pos
                            .checked_add(width)
                            .filter(|&end| end <= key.len())
                            .ok_or(truncated("the component's text"))?,
                        None => key
                            .get(pos..)
                            .and_then(|rest| rest.iter().position(|&b| b == sep))
                            .map(|at| pos + at)
                            .ok_or(truncated("the separator"))?,
                    };
                    match key.get(pos) {
                        Some(&b) if b == sep => pos += 1,
                        _ if i + 1 == self.components.len() => {}
                        _ => return Err(truncated("the separator")),
                    }
                }
                None if c.reversed => {
                    let width = c.fixed_width.unwrap_or(0);
                    pos = pos
                        .checked_add(width)
                        .filter(|&end| end <= key.len())
                        .ok_or(truncated("a reversed fixed-width integer"))?;
                }
                None => {
                    let mut reader = Reader::at(key, pos, c.order == Order::Descending, c.name);
                    scratch.clear();
                    c.render_one(&mut reader, &mut scratch)?;
                    pos = reader.offset();
                }
            }
        }
        Ok(pos)
    }

    /// The key type's full check; `Ok` when the schema has none.
    fn full_check(&self, key: &[u8]) -> Result<(), DecodeError> {
        self.check.map_or(Ok(()), |check| check(key))
    }

    /// The name of the struct the schema was derived for.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The constant bytes every key starts with (empty when none).
    pub fn prefix(&self) -> &'static [u8] {
        self.prefix
    }

    /// The salt, when the key has one.
    #[inline]
    pub fn salt(&self) -> Option<&Salt> {
        self.salt.as_ref()
    }

    /// The number of salt buckets; 1 when unsalted.
    pub fn buckets(&self) -> u32 {
        self.salt.map_or(1, |s| s.buckets)
    }

    /// The key's components, in key order.
    #[inline]
    pub fn components(&self) -> &'static [Component] {
        self.components
    }

    /// The key format.
    pub fn format(&self) -> Format {
        self.format
    }

    /// The separator of a text key.
    #[inline]
    pub(crate) const fn sep(&self) -> Option<u8> {
        match self.format {
            Format::Text { sep } => Some(sep),
            Format::Binary => None,
        }
    }

    /// The prefix and salt of the layout, which dynamic schemas share.
    #[inline]
    pub(crate) const fn head(&self) -> Header<'static> {
        Header {
            name: self.name,
            prefix: self.prefix,
            sep: self.sep(),
            salt: match self.salt {
                Some(s) => Some((s.buckets, s.random)),
                None => None,
            },
        }
    }

    /// Where the salt starts: after the prefix (and its separator in text keys).
    pub(crate) fn salt_at(&self) -> usize {
        self.head().salt_at()
    }

    /// The salt's length: 1 or 2 bytes, or the decimal digits of `N - 1`.
    pub(crate) fn salt_len(&self) -> usize {
        self.head().salt_len()
    }

    /// The length of the prefix and the salt: where the first component starts.
    #[inline]
    pub fn header_len(&self) -> usize {
        self.header_len
    }

    /// Appends the prefix and the salt of `bucket` (zeros when `None`, to be
    /// filled in later), with their separators in text keys.
    #[inline]
    pub(crate) fn push_header(&self, bucket: Option<u32>, out: &mut Vec<u8>) {
        self.head().push(bucket, out)
    }

    /// Writes `bucket` into the salt field.
    pub(crate) fn write_salt(&self, bucket: u32, field: &mut [u8]) {
        self.head().write_salt(bucket, field)
    }

    /// The salt bucket of an encoded key, read from its bytes (not checked
    /// against the fields; [`RowKey::decode`](crate::RowKey::decode) does that).
    pub fn bucket_of(&self, key: &[u8]) -> Result<u32, DecodeError> {
        self.head().bucket_of(key)
    }

    /// Every key a row can have: for a `random % N` salt, `key` with its
    /// salt set to each bucket in turn, bucket 0 first; for any other layout
    /// just `key`. A get or a delete of a randomly salted row must cover all
    /// of them, and [`RowStore`](crate::store::RowStore) does.
    ///
    /// ```
    /// use keyschema::RowKey;
    ///
    /// #[derive(RowKey)]
    /// #[rowkey(salt = random % 3, then = invoice_id, line)]
    /// struct Line { invoice_id: u64, line: u32 }
    ///
    /// let key = Line { invoice_id: 42, line: 1 }.encode();
    /// let all = Line::schema().candidates(&key);
    /// assert_eq!(all.iter().map(|k| k[0]).collect::<Vec<_>>(), [0, 1, 2]);
    /// assert!(all.contains(&key));
    /// ```
    pub fn candidates(&self, key: &[u8]) -> Vec<Vec<u8>> {
        self.head().candidates(key)
    }

    /// The salt bucket from the encoded components after the header.
    /// `ends[i]` is the offset in `body` where component `i` ends.
    /// The salt bucket from plain (ascending, untransformed) binary
    /// encodings of the components (text keys hash a binary shadow).
    pub(crate) fn bucket_of_plain(&self, s: &Salt, plain: &[u8], ends: &[usize]) -> u32 {
        let parts = s.hashed.iter().map(|&i| {
            let start = if i == 0 { 0 } else { ends[i - 1] };
            salt::Part::Plain(&plain[start..ends[i]])
        });
        salt::bucket_of_parts(parts, s.buckets)
    }

    #[inline]
    pub(crate) fn bucket_of_body(&self, s: &Salt, body: &[u8], ends: &[usize]) -> u32 {
        let start_of = |i: usize| if i == 0 { 0 } else { ends[i - 1] };
        // The common case: hashed fields are consecutive plain components in
        // key order (`hash(user_id, site)`, then = user_id, site, ...): hash
        // their bytes in one piece.
        if let Some((first, last)) = self.salt_span {
            return salt::bucket(&body[start_of(first)..ends[last]], s.buckets);
        }
        let parts = s.hashed.iter().map(|&i| {
            let bytes = &body[start_of(i)..ends[i]];
            let c = &self.components[i];
            if c.reversed {
                salt::Part::Reversed(bytes)
            } else if c.order == Order::Descending {
                salt::Part::Inverted(bytes)
            } else {
                salt::Part::Plain(bytes)
            }
        });
        salt::bucket_of_parts(parts, s.buckets)
    }
}

/// See [`Schema::salt_span`]; `const` so it is computed once, at compile time.
const fn salt_span(salt: Option<Salt>, components: &[Component]) -> Option<(usize, usize)> {
    let Some(salt) = salt else { return None };
    let hashed = salt.hashed;
    if salt.random || hashed.is_empty() {
        return None;
    }
    let mut k = 0;
    while k < hashed.len() {
        let i = hashed[k];
        if i >= components.len()
            || (k > 0 && i != hashed[k - 1] + 1)
            || components[i].reversed
            || !matches!(components[i].order, Order::Ascending)
        {
            return None;
        }
        k += 1;
    }
    Some((hashed[0], hashed[hashed.len() - 1]))
}
