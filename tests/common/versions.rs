//! Two versions of one struct with the same key and the same indexes, as
//! two binaries declare them (issue 40): version 2 adds a required value
//! field, so a row version 1 wrote does not read as version 2 whole. Each
//! version is in a module of its own, so that both name their indexes
//! alike (a DynamoDB table's GSIs are named after the index), and two more
//! shapes of the same key write rows whose indexed `page` does not read
//! as a `String` (another type, or no `page` at all). The store's keys are
//! checked against `get_key` by hand.

use keyschema::backfill::{BackfillError, Progress};
use keyschema::index::{EntryError, IndexVerification};
use keyschema::store::{
    AsyncStore, BoxFuture, BoxRowStream, Cas, Direction, MemoryStore, Mutation, Row, RowError,
    Store,
};
use keyschema::{Index, KeyRange, ValueError};

/// Version 1: a hit's page and tag.
pub mod v1 {
    use keyschema::RowKey;

    #[derive(RowKey, Debug, Clone, PartialEq)]
    #[rowkey(
        salt = hash(user) % 4,
        then = (user), ts,
        index(HitByPage, prefix = "p", salt = hash(page) % 4, then = (page), rev(ts), user, dynamodb = encoded),
        index(HitByTag, prefix = "t", then = (tag), user, ts, dynamodb = encoded),
    )]
    pub struct Hit {
        pub user: String,
        pub ts: u16,
        #[rowkey(value)]
        pub page: String,
        #[rowkey(value)]
        pub tag: Option<String>,
    }
}

/// Version 2: the same key and indexes, and a required count.
pub mod v2 {
    use keyschema::RowKey;

    #[derive(RowKey, Debug, Clone, PartialEq)]
    #[rowkey(
        salt = hash(user) % 4,
        then = (user), ts,
        index(HitByPage, prefix = "p", salt = hash(page) % 4, then = (page), rev(ts), user, dynamodb = encoded),
        index(HitByTag, prefix = "t", then = (tag), user, ts, dynamodb = encoded),
    )]
    pub struct Hit {
        pub user: String,
        pub ts: u16,
        #[rowkey(value)]
        pub page: String,
        #[rowkey(value)]
        pub tag: Option<String>,
        #[rowkey(value)]
        pub n: i64,
    }
}

/// Version 0: the binary before the indexes, whose rows have no entry.
pub mod v0 {
    use keyschema::RowKey;

    #[derive(RowKey, Debug, Clone, PartialEq)]
    #[rowkey(salt = hash(user) % 4, then = (user), ts)]
    pub struct Hit {
        pub user: String,
        pub ts: u16,
        #[rowkey(value)]
        pub page: String,
        #[rowkey(value)]
        pub tag: Option<String>,
    }
}

/// Another program's rows under the same key: `page` a list of numbers.
pub mod odd {
    use keyschema::RowKey;

    #[derive(RowKey, Debug, Clone, PartialEq)]
    #[rowkey(salt = hash(user) % 4, then = (user), ts)]
    pub struct Hit {
        pub user: String,
        pub ts: u16,
        #[rowkey(value)]
        pub page: Vec<i64>,
        #[rowkey(value)]
        pub tag: Option<String>,
    }
}

/// Rows under the same key without a `page`.
pub mod pageless {
    use keyschema::RowKey;

    #[derive(RowKey, Debug, Clone, PartialEq)]
    #[rowkey(salt = hash(user) % 4, then = (user), ts)]
    pub struct Hit {
        pub user: String,
        pub ts: u16,
        #[rowkey(value)]
        pub tag: Option<String>,
    }
}

pub fn v1(ts: u16, page: &str, tag: Option<&str>) -> v1::Hit {
    v1::Hit {
        user: "u1".into(),
        ts,
        page: page.into(),
        tag: tag.map(Into::into),
    }
}

pub fn v2(ts: u16, page: &str, tag: Option<&str>) -> v2::Hit {
    v2::Hit {
        user: "u1".into(),
        ts,
        page: page.into(),
        tag: tag.map(Into::into),
        n: 7,
    }
}

/// The rows of the story: version 1 writes the first three, version 2 the
/// fourth.
pub fn older_rows() -> Vec<v1::Hit> {
    vec![
        v1(1, "/a", Some("x")),
        v1(3, "/a", Some("z")),
        v1(2, "/b", None),
    ]
}

pub fn newer_row() -> v2::Hit {
    v2(4, "/c", Some("x"))
}

/// The key of row `ts` of user `u1`, by hand.
pub fn row_key(ts: u16) -> Vec<u8> {
    v2::Hit::get_key("u1", ts)
}

use keyschema::RowKey;

/// The by-page entry keys of the story's rows, by hand.
pub fn page_entries() -> Vec<Vec<u8>> {
    vec![
        v2::HitByPage::get_key("/a", 1, "u1"),
        v2::HitByPage::get_key("/a", 3, "u1"),
        v2::HitByPage::get_key("/b", 2, "u1"),
        v2::HitByPage::get_key("/c", 4, "u1"),
    ]
}

/// The by-tag entry keys of the story's rows (row 2 has no tag), by hand.
pub fn tag_entries() -> Vec<Vec<u8>> {
    vec![
        v2::HitByTag::get_key("x", "u1", 1),
        v2::HitByTag::get_key("z", "u1", 3),
        v2::HitByTag::get_key("x", "u1", 4),
    ]
}

/// An async store over a `MemoryStore` (no transactions, no GSIs): the
/// typed writes' three steps and check (`write_rows_async`), and the
/// async backfill's batches.
#[derive(Clone)]
pub struct AsyncMemory(pub MemoryStore);

impl AsyncStore for AsyncMemory {
    type Error = keyschema::KeyTooLong;

    fn scan_stream(
        &self,
        range: &KeyRange,
        direction: Direction,
        limit: Option<usize>,
    ) -> BoxRowStream<Self::Error> {
        use futures_util::StreamExt;
        let rows: Vec<Result<Row, Self::Error>> = match self.0.scan(range, direction) {
            Ok(rows) => rows.take(limit.unwrap_or(usize::MAX)).collect(),
            Err(e) => vec![Err(e)],
        };
        futures_util::stream::iter(rows).boxed()
    }

    fn get_many(&self, keys: Vec<Vec<u8>>) -> BoxFuture<'_, Result<Vec<Row>, Self::Error>> {
        Box::pin(async move {
            let values = self.0.get_many(&keys)?;
            Ok(keys
                .into_iter()
                .zip(values)
                .filter_map(|(k, v)| Some((k, v?)))
                .collect())
        })
    }

    fn write(&self, batch: Vec<Mutation>) -> BoxFuture<'_, Result<(), Self::Error>> {
        Box::pin(async move { self.0.write_batch(&batch) })
    }

    fn compare_and_write(&self, batch: Vec<Cas>) -> BoxFuture<'_, Result<Vec<bool>, Self::Error>> {
        Box::pin(async move { Store::compare_and_write(&self.0, &batch) })
    }
}

/// What an index scan's row came back as.
#[derive(Debug, Clone, PartialEq)]
pub enum Got {
    Row(v2::Hit),
    /// A row whose value fields do not read: its key and why.
    Unread(Vec<u8>, ValueError),
    Other(String),
}

impl Got {
    pub fn of<E: std::fmt::Display>(row: Result<v2::Hit, RowError<E>>) -> Got {
        match row {
            Ok(row) => Got::Row(row),
            Err(RowError::Value { key, source, .. }) => Got::Unread(key, source),
            Err(e) => Got::Other(e.to_string()),
        }
    }
}

/// Why a build stopped: a row whose value fields do not read (its key and
/// why), or anything else.
#[derive(Debug)]
pub enum BuildFailed {
    Value(Vec<u8>, ValueError),
    Other(String),
}

impl BuildFailed {
    pub fn of<E: std::fmt::Display>(e: BackfillError<E>) -> BuildFailed {
        match e {
            BackfillError::Value { key, source } => BuildFailed::Value(key, source),
            e => BuildFailed::Other(e.to_string()),
        }
    }
}

/// A store under test, through the API its users call (sync or async).
pub trait Under {
    fn put_v0(&self, row: &v0::Hit);
    fn put_v1(&self, rows: &[v1::Hit]);
    fn put_v2(&self, row: &v2::Hit);
    fn put_odd(&self, row: &odd::Hit);
    fn put_pageless(&self, row: &pageless::Hit);
    /// Puts a by-page entry alone, as an interrupted write leaves one;
    /// `false` where the store keeps its indexes itself (no stale entry).
    fn put_entry(&self, entry: Vec<u8>) -> bool;
    fn verify<I: Index<Row = v2::Hit>>(&self) -> Result<IndexVerification, String>;
    fn build<I: Index<Row = v2::Hit>>(&self) -> Result<Progress, BuildFailed>;
    /// The by-page entries of `pages`, as the index's raw entry scan reads
    /// them (no row read).
    fn page_entries(&self, pages: &[&str]) -> Vec<Vec<u8>>;
    /// The by-tag entries of `tags`, likewise.
    fn tag_entries(&self, tags: &[&str]) -> Vec<Vec<u8>>;
    /// `.rows()` of the index scan of one page, every item.
    fn page_rows(&self, page: &str) -> (Vec<Got>, u64);
}

fn sorted(mut keys: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
    keys.sort();
    keys
}

/// Counts as `IndexVerification` fields: rows, expected, present, entries,
/// valid, stale, unreadable.
pub fn counts(v: &IndexVerification) -> [u64; 7] {
    [
        v.rows,
        v.expected,
        v.present,
        v.entries,
        v.valid,
        v.stale,
        v.unreadable,
    ]
}

/// Version 1's rows and version 2's verify and build over them: every row
/// counted with its entry, a row the binary before the index wrote
/// missing until the build, and the build giving every row its entry
/// (it does not stop at the first row version 1 wrote).
pub fn verify_and_build_over_older_rows(store: &impl Under) {
    store.put_v1(&older_rows());
    store.put_v2(&newer_row());
    let by_page = store.verify::<v2::HitByPage>().expect("verify by page");
    assert_eq!(counts(&by_page), [4, 4, 4, 4, 4, 0, 0], "{by_page:?}");
    assert!(by_page.matches(), "{by_page:?}");
    let by_tag = store.verify::<v2::HitByTag>().expect("verify by tag");
    assert_eq!(counts(&by_tag), [4, 3, 3, 3, 3, 0, 0], "{by_tag:?}");
    assert!(by_tag.matches(), "{by_tag:?}");

    // The binary before the index writes a row: it has no entry.
    store.put_v0(&v0::Hit {
        user: "u1".into(),
        ts: 5,
        page: "/d".into(),
        tag: Some("y".into()),
    });
    let by_page = store.verify::<v2::HitByPage>().expect("verify by page");
    assert_eq!(counts(&by_page), [5, 5, 4, 4, 4, 0, 0], "{by_page:?}");
    assert_eq!(by_page.missing, vec![row_key(5)]);
    assert!(!by_page.matches());

    for progress in [
        store.build::<v2::HitByPage>().expect("build by page"),
        store.build::<v2::HitByTag>().expect("build by tag"),
    ] {
        assert_eq!(progress.rows_done, 5, "{progress:?}");
        assert!(progress.finished, "{progress:?}");
    }
    let mut pages = page_entries();
    pages.push(v2::HitByPage::get_key("/d", 5, "u1"));
    let mut tags = tag_entries();
    tags.push(v2::HitByTag::get_key("y", "u1", 5));
    let (all_pages, all_tags) = (["/a", "/b", "/c", "/d"], ["x", "y", "z"]);
    assert_eq!(sorted(store.page_entries(&all_pages)), sorted(pages));
    assert_eq!(sorted(store.tag_entries(&all_tags)), sorted(tags));
    let by_page = store.verify::<v2::HitByPage>().expect("verify by page");
    assert_eq!(counts(&by_page), [5, 5, 5, 5, 5, 0, 0], "{by_page:?}");
    let by_tag = store.verify::<v2::HitByTag>().expect("verify by tag");
    assert_eq!(counts(&by_tag), [5, 4, 4, 4, 4, 0, 0], "{by_tag:?}");
}

/// A by-page entry put alone (an interrupted write) naming a row version
/// 1 wrote under another page: version 2's verify counts it stale.
pub fn verify_counts_a_stale_entry_of_an_older_row(store: &impl Under) {
    store.put_v1(&older_rows());
    store.put_v2(&newer_row());
    if !store.put_entry(v2::HitByPage::get_key("/c", 1, "u1")) {
        return;
    }
    let by_page = store.verify::<v2::HitByPage>().expect("verify by page");
    assert_eq!(counts(&by_page), [4, 4, 4, 5, 4, 1, 0], "{by_page:?}");
    assert!(by_page.matches(), "{by_page:?}");
}

/// Rows whose `page` does not read as a `String` (another type, or none):
/// the by-page verify reports each by key and why, and goes on; the
/// by-tag one, over fields that read, counts them as any row, and the
/// by-tag build gives them their entries; the by-page build stops at one,
/// naming it and the field; a write over one moves its by-tag entry.
pub fn verify_reports_rows_whose_indexed_fields_do_not_read(store: &impl Under) {
    store.put_v1(&[v1(1, "/a", Some("x"))]);
    store.put_v2(&newer_row());
    let odd_row = odd::Hit {
        user: "u2".into(),
        ts: 1,
        page: vec![5],
        tag: Some("x".into()),
    };
    store.put_odd(&odd_row);
    store.put_pageless(&pageless::Hit {
        user: "u2".into(),
        ts: 2,
        tag: Some("y".into()),
    });
    let (odd_key, pageless_key) = (v2::Hit::get_key("u2", 1), v2::Hit::get_key("u2", 2));

    let by_page = store.verify::<v2::HitByPage>().expect("verify by page");
    assert_eq!(counts(&by_page), [4, 2, 2, 2, 2, 0, 2], "{by_page:?}");
    assert!(!by_page.matches(), "{by_page:?}");
    let mut unread: Vec<(Vec<u8>, String)> = by_page
        .unreadable_rows
        .iter()
        .map(|row| (row.key.clone(), row.to_string()))
        .collect();
    unread.sort();
    let [(k1, odd_said), (k2, pageless_said)] = &unread[..] else {
        panic!("two rows reported: {unread:?}");
    };
    assert_eq!((k1, k2), (&odd_key, &pageless_key));
    for said in [odd_said, pageless_said] {
        assert!(said.contains("value field `page`"), "{said}");
    }
    assert!(
        odd_said.contains("does not read as its declared type"),
        "{odd_said}"
    );
    assert!(pageless_said.contains("is missing"), "{pageless_said}");
    let errors: Vec<&EntryError> = by_page.unreadable_rows.iter().map(|r| &r.error).collect();
    assert!(errors.iter().any(|e| matches!(
        e,
        EntryError::Value(ValueError::Field { field: "page", .. })
    )));
    assert!(errors
        .iter()
        .any(|e| matches!(e, EntryError::Value(ValueError::Missing { field: "page" }))));

    let by_tag = store.verify::<v2::HitByTag>().expect("verify by tag");
    assert_eq!(counts(&by_tag), [4, 4, 2, 2, 2, 0, 0], "{by_tag:?}");
    assert_eq!(
        sorted(by_tag.missing.clone()),
        vec![odd_key.clone(), pageless_key.clone()]
    );
    store.build::<v2::HitByTag>().expect("build by tag");
    let by_tag = store.verify::<v2::HitByTag>().expect("verify by tag");
    assert_eq!(counts(&by_tag), [4, 4, 4, 4, 4, 0, 0], "{by_tag:?}");
    assert!(by_tag.matches());

    match store.build::<v2::HitByPage>() {
        Err(BuildFailed::Value(key, source)) => {
            assert!(key == odd_key || key == pageless_key, "{key:?}");
            assert!(
                matches!(
                    source,
                    ValueError::Field { field: "page", .. } | ValueError::Missing { field: "page" }
                ),
                "{source:?}"
            );
        }
        other => panic!("the build went past a row without a page: {other:?}"),
    }

    // Version 2 rewrites the odd row under another tag: the write finds
    // the row's old by-tag entry although its `page`, stored before `tag`,
    // does not read, and removes it.
    store.put_v2(&v2::Hit {
        user: "u2".into(),
        ts: 1,
        page: "/e".into(),
        tag: Some("y".into()),
        n: 1,
    });
    let mut tags = vec![
        v2::HitByTag::get_key("x", "u1", 1),
        v2::HitByTag::get_key("x", "u1", 4),
        v2::HitByTag::get_key("y", "u2", 1),
        v2::HitByTag::get_key("y", "u2", 2),
    ];
    tags.sort();
    assert_eq!(sorted(store.tag_entries(&["x", "y"])), tags);
    let by_tag = store.verify::<v2::HitByTag>().expect("verify by tag");
    assert_eq!(counts(&by_tag), [4, 4, 4, 4, 4, 0, 0], "{by_tag:?}");
}

/// Version 2's index scan over rows version 1 wrote: each such row is an
/// error naming its key and the missing field (never dropped), the others
/// are returned, and an entry left stale that names such a row is skipped
/// as any stale entry is.
pub fn index_scans_name_the_older_rows(store: &impl Under) {
    store.put_v1(&older_rows());
    store.put_v2(&newer_row());
    let n_missing = ValueError::Missing { field: "n" };
    let (got, stale) = store.page_rows("/a");
    assert_eq!(
        got,
        vec![
            Got::Unread(row_key(3), n_missing.clone()),
            Got::Unread(row_key(1), n_missing.clone()),
        ]
    );
    assert_eq!(stale, 0);
    let (got, _) = store.page_rows("/c");
    assert_eq!(got, vec![Got::Row(newer_row())]);
    if store.put_entry(v2::HitByPage::get_key("/c", 1, "u1")) {
        let (got, stale) = store.page_rows("/c");
        assert_eq!(got, vec![Got::Row(newer_row())]);
        assert_eq!(stale, 1);
    }
}
