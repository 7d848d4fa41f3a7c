//! The runtime of [keyschema](https://docs.rs/keyschema): component
//! encodings, the salt rule, schemas, scan ranges, typed scans and stores.
//!
//! Use it through the `keyschema` crate, which re-exports everything here
//! together with `#[derive(RowKey)]`. `docs/ARCHITECTURE.md` maps the
//! modules; they depend one way, lowest first: `limits`, `range`, `error`,
//! `salt` → `encoding` → `schema` → `codec`, `key` → `store` → `scan`.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod backfill;
pub mod cassandra;
mod codec;
pub mod dynamic;
mod encoding;
mod error;
pub mod history;
pub mod hotspot;
pub mod index;
mod key;
mod limits;
mod range;
pub mod record;
pub mod salt;
mod scan;
mod schema;
pub mod sizing;
pub mod splits;
pub mod store;

pub use encoding::{
    decode_value, encode_value, Base, Encoding, EnumDef, TextError, UnknownEncoding,
};
pub use encoding::{BucketKey, KeyArg, KeyComponent, Reader, ReversibleKey};
pub use encoding::{TextComponent, TextDigits, TextOrdered};
pub use error::{CursorError, DecodeError};
pub use index::{Index, IndexRows};
pub use key::{OneLayout, RowKey};
pub use limits::{
    KeyTooLong, MAX_BUCKETS, MAX_BUCKET_EXPANSION, MAX_COMPONENTS, MAX_KEY_LEN, MAX_NESTING,
};
pub use range::{prefix_successor, KeyRange, ScanRangeSet, OLDER_LAYOUT};
pub use record::{Projection, Record, ValueError};
pub use scan::{AsyncTypedRows, BucketArg, Cursor, ScanArg, ScanError, ScanRequest, TypedRows};
pub use scan::{MergedRows, Projected, ProjectedScan, RangeScan};
pub use scan::{PhaseKnown, Phased, Unphased, DEFAULT_CONCURRENCY};
pub use schema::{Component, DynamoForm, Format, Order, Salt, Schema};

/// Support for generated code: the only home of the hooks the derive calls.
/// Not a public API: it changes without notice.
#[doc(hidden)]
pub mod __private {
    pub use crate::encoding::{TextComponent, TextDigits};

    pub use crate::codec::{KeyDecoder, KeyEncoder};
    pub use crate::encoding::{Base, Encoding, EnumDef, Reader, TextError, TextOrdered};
    pub use crate::encoding::{BucketKey, KeyArg, KeyComponent, KeyComponentCheck, ReversibleKey};
    pub use crate::history::{Cut, History, Phase};
    pub use crate::index::Index;
    pub use crate::record::{
        check_required, decode_values, from_nil, is_self_describing, key_field, projected_schema,
        read_stored, reads_nil, traced, value_field, value_required, HasKeyField, HasValueField,
        Projection, Record, StoredValues, UserTypesOf, ValueError, ValueField, ValueFieldCheck,
        ValueReader, ValueWriter,
    };
    pub use crate::scan::builder::{ScanStage, ScanState};
    pub use crate::scan::request::{BindInKeyOrder, ScanWithoutPhase, StageWithoutPhase, TextScan};
    pub use crate::store::{AsyncStore, BoxFuture, RowError, RowStore, Store, TypedGet, TypedRow};
    pub use crate::{
        encode_value, Component, DecodeError, DynamoForm, Format, OneLayout, Order, RowKey, Salt,
        Schema,
    };
    pub use crate::{
        AsyncTypedRows, BucketArg, Cursor, Phased, ProjectedScan, ScanArg, ScanRangeSet,
        ScanRequest, TypedRows,
    };
    pub use std::sync::OnceLock;
    pub use std::{default::Default, option::Option, result::Result, vec::Vec};

    /// The key type's `Schema`, checked by its own `decode`.
    pub const fn schema(
        name: &'static str,
        prefix: &'static [u8],
        salt: Option<Salt>,
        components: &'static [Component],
        format: Format,
        partition: Option<usize>,
        check: fn(&[u8]) -> Result<(), DecodeError>,
    ) -> Schema {
        Schema::new(name, prefix, salt, components, format)
            .with_partition(partition)
            .with_check(check)
    }

    /// `salt = hash(...) % buckets` over the components at `hashed`.
    pub const fn hash_salt(buckets: u32, hashed: &'static [usize]) -> Salt {
        Salt::by_hash(buckets, hashed)
    }

    /// `salt = random % buckets`.
    pub const fn random_salt(buckets: u32) -> Salt {
        Salt::random(buckets)
    }

    /// A plain (`field`) or descending (`rev(field)`) component.
    pub const fn component<T: KeyComponent>(
        name: &'static str,
        type_name: &'static str,
        order: Order,
    ) -> Component {
        Component::plain::<T>(name, type_name, order)
    }

    /// A `bucket(field, width)` component.
    pub const fn bucket_component<T: BucketKey>(
        name: &'static str,
        type_name: &'static str,
        order: Order,
        width: u64,
    ) -> Component {
        Component::bucket::<T>(name, type_name, order, width)
    }

    /// A `reverse(field)` component.
    pub const fn reversed_component<T: ReversibleKey>(
        name: &'static str,
        type_name: &'static str,
    ) -> Component {
        Component::reversed::<T>(name, type_name)
    }

    /// The component's text form in a text key.
    pub const fn with_text<T: TextComponent>(component: Component) -> Component {
        component.with_text::<T>()
    }

    /// The component's text form, for `rev`, `reverse` and `bucket`: a number's digits.
    pub const fn with_text_digits<T: TextDigits>(component: Component) -> Component {
        component.with_text_digits::<T>()
    }

    /// The declared schema, with its value fields (`#[rowkey(value)]`).
    pub const fn with_values(schema: Schema, values: &'static [ValueField]) -> Schema {
        schema.with_values(values)
    }

    /// The declared schema, with its indexes' schemas.
    pub const fn with_indexes(
        schema: Schema,
        indexes: &'static [fn() -> &'static Schema],
        entries: fn(&[u8], &[u8], &mut Vec<Vec<u8>>),
    ) -> Schema {
        schema.with_indexes(indexes, entries)
    }

    /// The declared schema, with the column family of its value fields
    /// (`family = "..."`).
    pub const fn with_family(schema: Schema, family: &'static str) -> Schema {
        schema.with_family(family)
    }

    /// An index's entry layout declared `building`.
    pub const fn building(schema: Schema) -> Schema {
        schema.building()
    }

    /// An index's declared form on DynamoDB (`dynamodb = ...`).
    pub const fn dynamodb_form(schema: Schema, form: crate::DynamoForm) -> Schema {
        schema.with_dynamodb_form(form)
    }

    /// `#[rowkey_was(...)]`: the older layout and the cut-over.
    /// The declared schema, with its `history`.
    pub const fn with_history(schema: Schema, history: &'static History) -> Schema {
        schema.with_history(history)
    }

    pub const fn history(
        old: &'static Schema,
        cut: crate::history::Cut,
    ) -> crate::history::History {
        crate::history::History::new(old, cut)
    }

    /// `until = field >= value`.
    pub const fn cut_at_field(component: usize, at: fn() -> &'static [u8]) -> crate::history::Cut {
        crate::history::Cut::Field { component, at }
    }

    /// Whether a row whose cut-over field is `value` is at or past the
    /// cut-over: the encodings compared, without allocating.
    pub fn past_cut_over<T: KeyComponent>(
        value: T::Ref<'_>,
        history: Option<&'static History>,
    ) -> bool {
        let Some(crate::history::Cut::Field { at, .. }) = history.map(History::cut) else {
            return true;
        };
        thread_local! {
            static SCRATCH: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
        }
        SCRATCH.with(|scratch| {
            let mut scratch = scratch.borrow_mut();
            scratch.clear();
            T::encode_key(value, &mut scratch);
            scratch.as_slice() >= at()
        })
    }

    /// `until = migration`.
    pub const fn cut_by_migration() -> crate::history::Cut {
        crate::history::Cut::Migration
    }

    /// Whether a get in `phase` reads the older layout, for a row on the
    /// `past` side of the cut-over.
    pub fn reads_older<K: RowKey>(phase: Phase, past: bool) -> bool {
        crate::store::layout::reads_older::<K>(phase, past)
    }

    /// The generated `get_in`: reads `key` (of the older layout when
    /// `is_older`) and decodes it in that layout; in `Split`, a stranded
    /// row's older key when `key` is empty.
    pub fn get_in<K: RowKey, S: crate::store::Store>(
        store: &S,
        phase: Phase,
        key: Vec<u8>,
        is_older: bool,
    ) -> Result<Option<crate::store::TypedRow<K>>, RowError<S::Error>> {
        crate::store::get_in(store, phase, key, is_older)
    }

    /// The generated `get_in_async`.
    pub fn get_in_async<K: RowKey, S: AsyncStore>(
        store: &S,
        phase: Phase,
        key: Vec<u8>,
        is_older: bool,
    ) -> BoxFuture<'_, crate::store::TypedGet<K, S::Error>> {
        crate::store::get_in_async(store, phase, key, is_older)
    }

    /// The request a builder stage ends in.
    pub fn request<K: RowKey>(state: ScanState) -> ScanRequest<K> {
        ScanRequest::from_state(state)
    }
}
