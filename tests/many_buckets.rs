//! Ordered scans over many buckets, whose first rows are found by one walk
//! of the table (more than 64 buckets: 5,000, read in windows of 2,048),
//! and over few (8, each bucket
//! opened), against a model: every row of the
//! store inside the scan's ranges, in key order after the salt (ties by
//! bucket), read in pages of a random size resumed from their cursors,
//! both directions, unbound and bound (sparse ranges the walk seeks
//! between), with keys another program wrote: a salt other than the hash
//! (the same body in two buckets), a salt past the last bucket, a body
//! that does not decode, another prefix. On memory, redb and a store that
//! lends `scan`'s rows (`OwnedRows`).

mod common;

/// The model and its tests for a key of `$buckets` salt buckets.
macro_rules! model {
    ($name:ident, $buckets:literal) => {
        mod $name {
            use crate::common::no_txn::NoTxn;
            use keyschema::store::{MemoryStore, RedbStore, Store};
            use keyschema::{Cursor, RowKey, TypedRows};
            use proptest::prelude::*;
            use std::collections::BTreeMap;


#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(prefix = "w", salt = hash(id) % $buckets, then = site, id)]
struct Wide {
    site: String,
    id: u32,
}

/// The prefix and the 2-byte salt.
fn header() -> usize {
    Wide::schema().header_len()
}

/// Sets a key's salt (1 byte up to 256 buckets, else 2).
fn set_salt(key: &mut [u8], salt: u16) {
    let h = header();
    let width = if $buckets > 256 { 2 } else { 1 };
    key[h - width..h].copy_from_slice(&salt.to_be_bytes()[2 - width..]);
}

/// A row as the test compares it: the decoded row and value, or the key
/// that did not decode.
type Item = Result<(Wide, Vec<u8>), Vec<u8>>;

fn item<E: std::fmt::Debug>(row: Result<(Wide, Vec<u8>), keyschema::store::RowError<E>>) -> Item {
    match row {
        Ok(row) => Ok(row),
        Err(keyschema::store::RowError::Decode { key, .. }) => Err(key),
        Err(e) => panic!("{e:?}"),
    }
}

/// What the scan must return: the rows of the model inside its ranges, by
/// body then bucket.
fn expected(model: &BTreeMap<Vec<u8>, Vec<u8>>, site: Option<&str>, reverse: bool) -> Vec<Item> {
    let ranges = match site {
        Some(s) => Wide::scan().site(s).ranges(),
        None => Wide::scan().ranges(),
    };
    let mut rows: Vec<(&Vec<u8>, u32, &Vec<u8>)> = model
        .iter()
        .filter_map(|(k, v)| {
            let range = ranges.iter().find(|r| r.contains(k))?;
            Some((k, range.bucket(), v))
        })
        .collect();
    rows.sort_by(|a, b| {
        let by_body = a.0[header()..].cmp(&b.0[header()..]);
        let by_body = if reverse { by_body.reverse() } else { by_body };
        by_body.then(a.1.cmp(&b.1))
    });
    rows.into_iter()
        .map(|(k, _, v)| match Wide::decode_scanned(k) {
            Ok(row) => Ok((row, v.clone())),
            Err(_) => Err(k.clone()),
        })
        .collect()
}

/// Every page of `limit` rows, each a fresh scan resumed from the last
/// cursor, concatenated.
fn paged<S: Store>(store: &S, site: Option<&str>, reverse: bool, limit: usize) -> Vec<Item>
where
    S::Error: std::fmt::Debug,
{
    let request = |after: Option<Cursor>| {
        let mut scan = match site {
            Some(s) => Wide::scan().site(s).limit(limit),
            None => Wide::scan().limit(limit),
        };
        if reverse {
            scan = scan.reverse();
        }
        match after {
            Some(c) => scan.after(c),
            None => scan,
        }
    };
    let mut out = Vec::new();
    let mut after = None;
    for _ in 0..10_000 {
        let mut rows: TypedRows<'_, Wide, S> = request(after.take()).run(store);
        let before = out.len();
        out.extend(rows.by_ref().map(item));
        let cursor = rows.cursor();
        if out.len() == before || cursor.is_finished() {
            return out;
        }
        after = Some(cursor);
    }
    panic!("the pages did not end");
}

#[derive(Debug, Clone)]
enum Foreign {
    /// A row's body under another bucket's salt.
    OtherSalt(u16),
    /// A salt past the last bucket.
    PastLast,
    /// A body that does not decode.
    Damaged,
    /// Another prefix.
    OtherPrefix,
}

fn foreign() -> impl Strategy<Value = Foreign> {
    prop_oneof![
        (0u16..$buckets).prop_map(Foreign::OtherSalt),
        Just(Foreign::PastLast),
        Just(Foreign::Damaged),
        Just(Foreign::OtherPrefix),
    ]
}

fn site() -> impl Strategy<Value = String> {
    prop::sample::select(vec!["a", "b", "bb", "c"]).prop_map(str::to_string)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    #[test]
    fn an_ordered_merge_reads_what_the_model_holds(
        rows in prop::collection::vec((site(), 0u32..400, prop::collection::vec(any::<u8>(), 0..4)), 0..300),
        foreign_rows in prop::collection::vec((site(), 0u32..400, foreign()), 0..12),
        bound in prop::option::of(site()),
        reverse in any::<bool>(),
        limit in prop::sample::select(vec![1usize, 3, 10, 1000]),
    ) {
        let mut model = BTreeMap::new();
        for (site, id, value) in rows {
            model.insert(Wide { site, id }.encode(), value);
        }
        for (site, id, kind) in foreign_rows {
            let mut key = Wide { site, id }.encode();
            match kind {
                Foreign::OtherSalt(salt) => set_salt(&mut key, salt),
                Foreign::PastLast => set_salt(&mut key, $buckets),
                Foreign::Damaged => key.truncate(key.len() - 1),
                Foreign::OtherPrefix => key[0] = b'x',
            }
            model.insert(key, b"foreign".to_vec());
        }
        let want = expected(&model, bound.as_deref(), reverse);
        let batch: Vec<_> = model
            .iter()
            .map(|(k, v)| keyschema::store::Mutation::Put { key: k.clone(), value: v.clone() })
            .collect();

        let memory = MemoryStore::new();
        memory.write_batch(&batch).expect("write");
        prop_assert_eq!(&paged(&memory, bound.as_deref(), reverse, limit), &want);

        let dir = tempfile::tempdir().expect("temp dir");
        let redb = RedbStore::open(dir.path()).expect("redb");
        redb.write_batch(&batch).expect("write");
        prop_assert_eq!(&paged(&redb, bound.as_deref(), reverse, limit), &want);

        let default = NoTxn::new();
        default.write_batch(&batch).expect("write");
        prop_assert_eq!(&paged(&default, bound.as_deref(), reverse, limit), &want);
    }
}

/// Buckets of many rows: the walk reads a few of each, then seeks the
/// next, and the merge still reads every row in order.
#[test]
fn full_buckets_are_skipped_by_seeks() {
    let store = MemoryStore::new();
    let mut want = Vec::new();
    for id in 0..3_000u32 {
        let row = Wide {
            site: "s".into(),
            id,
        };
        store.put(&row.encode(), b"").expect("put");
        want.push(row);
    }
    let got: Vec<Wide> = Wide::scan()
        .run(&store)
        .map(|r| r.expect("row").0)
        .collect();
    assert_eq!(got, want);
    let mut reversed: Vec<Wide> = Wide::scan()
        .reverse()
        .run(&store)
        .map(|r| r.expect("row").0)
        .collect();
    reversed.reverse();
    assert_eq!(reversed, want);
}
        }
    };
}

model!(walked, 5000);
model!(opened, 8);

mod every_layout {
    use crate::common::catalog::{self, check_layout, Sample, Visit};
    use keyschema::store::{MemoryStore, Store};
    use keyschema::Cursor;
    use proptest::prelude::*;

    /// Every layout of the catalog (text keys, 1,000 and 16 buckets, random
    /// salts, prefixes): an unbound ordered scan paged by 3 returns every row
    /// stored, by the key after the salt, then bucket.
    struct Merged {
        checked: usize,
    }

    impl Visit for Merged {
        fn visit<K: Sample>(&mut self) {
            let header = K::schema().header_len();
            check_layout::<K, _>(
                12,
                (prop::collection::vec(K::strategy(), 0..90), any::<bool>()),
                |(rows, reverse)| {
                    let store = MemoryStore::new();
                    let mut keys: Vec<Vec<u8>> = Vec::new();
                    for row in &rows {
                        let key = row.encode();
                        store.put(&key, b"").expect("put");
                        keys.push(key);
                    }
                    keys.sort();
                    keys.dedup();
                    keys.sort_by(|a, b| {
                        let by_body = a[header..].cmp(&b[header..]);
                        let by_body = if reverse { by_body.reverse() } else { by_body };
                        by_body.then(a[..header].cmp(&b[..header]))
                    });
                    let want: Vec<String> = keys
                        .iter()
                        .map(|k| format!("{:?}", K::decode(k).expect("decodes")))
                        .collect();
                    let mut got = Vec::new();
                    let mut after: Option<Cursor> = None;
                    loop {
                        let (rows, cursor) = K::scan_page(&store, reverse, after.take());
                        let empty = rows.is_empty();
                        got.extend(rows);
                        if empty || cursor.is_finished() {
                            break;
                        }
                        after = Some(cursor);
                    }
                    prop_assert_eq!(got, want, "{}", K::DECLARATION);
                    Ok(())
                },
            );
            self.checked += 1;
        }
    }

    #[test]
    fn every_layout_merges_in_key_order_across_pages() {
        let mut check = Merged { checked: 0 };
        catalog::for_each(&mut check);
        assert!(check.checked >= 30, "{} layouts", check.checked);
    }
}

/// Buckets of 50 rows each (100 buckets): the walk reads 16 rows past a
/// bucket's head, then seeks the next bucket; unbound and bound to one
/// site (whose rows are a third of each bucket), both directions, paged
/// by 25, against the stored keys by body then bucket.
#[test]
fn the_walk_seeks_past_full_buckets() {
    use keyschema::store::{MemoryStore, Store};
    use keyschema::{Cursor, RowKey};

    #[derive(RowKey, Debug, Clone, PartialEq)]
    #[rowkey(salt = hash(id) % 100, then = site, id)]
    struct Dense {
        site: String,
        id: u32,
    }

    let store = MemoryStore::new();
    let mut keys = Vec::new();
    for id in 0..1_700u32 {
        for site in ["a", "b", "c"] {
            let key = Dense {
                site: site.into(),
                id,
            }
            .encode();
            store.put(&key, b"").expect("put");
            keys.push(key);
        }
    }
    let header = Dense::schema().header_len();
    for site in [None, Some("b")] {
        for reverse in [false, true] {
            let mut want: Vec<&Vec<u8>> = keys
                .iter()
                .filter(|k| {
                    site.is_none_or(|s| k[header..].starts_with(&[s.as_bytes(), &[0]].concat()))
                })
                .collect();
            want.sort_by(|a, b| {
                let by_body = a[header..].cmp(&b[header..]);
                if reverse {
                    by_body.reverse()
                } else {
                    by_body
                }
            });
            let want: Vec<Dense> = want
                .into_iter()
                .map(|k| Dense::decode(k).expect("decodes"))
                .collect();
            let mut got = Vec::new();
            let mut after: Option<Cursor> = None;
            loop {
                let mut scan = match site {
                    Some(s) => Dense::scan().site(s).limit(25),
                    None => Dense::scan().limit(25),
                };
                if reverse {
                    scan = scan.reverse();
                }
                if let Some(c) = after.take() {
                    scan = scan.after(c);
                }
                let mut page = scan.run(&store);
                let before = got.len();
                got.extend(page.by_ref().map(|r| r.expect("row").0));
                let cursor = page.cursor();
                if got.len() == before || cursor.is_finished() {
                    break;
                }
                after = Some(cursor);
            }
            assert_eq!(got, want, "site {site:?}, reverse {reverse}");
        }
    }
}
