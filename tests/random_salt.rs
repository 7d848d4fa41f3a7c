//! `salt = random % N` on every sync store: a delete deletes the row from
//! every bucket, `replace_row` overwrites, `put_row` inserts, and a get never
//! picks one of several differing copies silently. (The Bigtable store's
//! version of these laws is in `bigtable.rs`.)

use keyschema::store::{MemoryStore, RowError, RowStore, Store};
use keyschema::{salt, KeyRange, RowKey};

/// The DynamoDB article's write sharding: an invoice's lines over 10 suffixes.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = random % 10, then = invoice_id, line)]
struct Line {
    invoice_id: String,
    line: u32,
}

fn line(n: u32) -> Line {
    Line {
        invoice_id: "INV-1".into(),
        line: n,
    }
}

/// Every stored key, in order.
fn keys<S: Store>(store: &S) -> Vec<Vec<u8>> {
    let all = KeyRange::new(Vec::new(), None, 0);
    store
        .scan(&all, keyschema::store::Direction::Forward)
        .expect("scan")
        .map(|r| r.expect("row").0)
        .collect()
}

/// Writes through a chooser that walks the buckets, so that two writes of
/// one row land in different buckets (what happens 9 times in 10 otherwise).
fn walking_chooser() {
    let mut next = 0u32;
    salt::set_chooser(Some(Box::new(move |n| {
        next = (next + 3) % n;
        next
    })));
}

fn delete_removes_the_row_from_every_bucket<S: Store>(store: &S) {
    walking_chooser();
    for n in 0..20 {
        store.put_row(&line(n), b"v").expect("put");
    }
    // Seen before the fix: delete encoded a fresh random bucket and removed
    // nothing about 9 times in 10.
    for n in 0..20 {
        store.delete_row(&line(n)).expect("delete");
        assert_eq!(
            Line::get(store, "INV-1", n).expect("get"),
            None,
            "line {n} deleted"
        );
    }
    assert!(keys(store).is_empty(), "nothing left: {:?}", keys(store));
    salt::set_chooser(None);
}

fn replace_row_keeps_one_copy_and_put_row_inserts<S: Store>(store: &S) {
    walking_chooser();
    store.replace_row(&line(1), b"10 EUR").expect("replace");
    store.replace_row(&line(1), b"12 EUR").expect("replace");
    store.replace_row(&line(1), b"15 EUR").expect("replace");
    assert_eq!(keys(store).len(), 1, "one copy after three replaces");
    let (row, value) = Line::get(store, "INV-1", 1).expect("get").expect("found");
    assert_eq!((row, value), (line(1), b"15 EUR".to_vec()));

    // put_row inserts: a second copy, in another bucket.
    store.put_row(&line(1), b"15 EUR").expect("put");
    assert_eq!(keys(store).len(), 2, "put_row inserted a second copy");
    // Equal copies are one row to a get...
    let got = Line::get(store, "INV-1", 1).expect("get").expect("found");
    assert_eq!(got.1, b"15 EUR");
    // ... differing copies are an error that names the buckets, never a pick.
    store.put_row(&line(1), b"99 EUR").expect("put");
    let err = Line::get(store, "INV-1", 1).expect_err("conflicting copies");
    let RowError::Conflict { buckets, .. } = &err else {
        panic!("expected a conflict, got {err}");
    };
    assert_eq!(buckets.len(), 3, "{err}");
    assert!(err.to_string().contains("replace_row"), "{err}");
    // The same through the key a user has in hand.
    let by_key = store.get_row::<Line>(&Line::get_keys("INV-1", 1)[7]);
    assert!(matches!(by_key, Err(RowError::Conflict { .. })));

    // replace_row resolves it; delete_row removes every copy.
    store.replace_row(&line(1), b"20 EUR").expect("replace");
    assert_eq!(keys(store).len(), 1);
    store.delete_row(&line(1)).expect("delete");
    assert!(keys(store).is_empty());
    salt::set_chooser(None);
}

#[test]
fn memory_store_deletes_from_every_bucket() {
    delete_removes_the_row_from_every_bucket(&MemoryStore::new());
}

#[test]
fn memory_store_replace_and_insert() {
    replace_row_keeps_one_copy_and_put_row_inserts(&MemoryStore::new());
}

#[test]
fn replace_is_one_batch_of_a_put_and_the_other_deletes() {
    // Counted through a store that records its batches.
    struct Counting {
        inner: MemoryStore,
        batches: std::cell::RefCell<Vec<usize>>,
    }
    impl Store for Counting {
        type Error = keyschema::KeyTooLong;
        type Rows<'a> = <MemoryStore as Store>::Rows<'a>;
        type Lent<'a> = <MemoryStore as Store>::Lent<'a>;
        fn scan_into(
            &self,
            range: &KeyRange,
            direction: keyschema::store::Direction,
        ) -> Result<Self::Lent<'_>, Self::Error> {
            self.inner.scan_into(range, direction)
        }
        fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, Self::Error> {
            self.inner.get(key)
        }
        fn write_batch(&self, batch: &[keyschema::store::Mutation]) -> Result<(), Self::Error> {
            self.batches.borrow_mut().push(batch.len());
            self.inner.write_batch(batch)
        }
        fn scan(
            &self,
            range: &KeyRange,
            direction: keyschema::store::Direction,
        ) -> Result<Self::Rows<'_>, Self::Error> {
            self.inner.scan(range, direction)
        }
        fn compare_and_write(
            &self,
            batch: &[keyschema::store::Cas],
        ) -> Result<Vec<bool>, Self::Error> {
            self.inner.compare_and_write(batch)
        }
    }
    let store = Counting {
        inner: MemoryStore::new(),
        batches: Default::default(),
    };
    store.replace_row(&line(1), b"v").unwrap();
    store.delete_row(&line(1)).unwrap();
    assert_eq!(
        *store.batches.borrow(),
        [10, 10],
        "1 put + 9 deletes; 10 deletes"
    );
}

#[cfg(feature = "redb")]
mod redb {
    use super::*;
    use keyschema::store::RedbStore;

    #[test]
    fn redb_store_deletes_from_every_bucket() {
        let dir = tempfile::tempdir().unwrap();
        delete_removes_the_row_from_every_bucket(&RedbStore::open(dir.path()).unwrap());
    }

    #[test]
    fn redb_store_replace_and_insert() {
        let dir = tempfile::tempdir().unwrap();
        replace_row_keeps_one_copy_and_put_row_inserts(&RedbStore::open(dir.path()).unwrap());
    }
}
