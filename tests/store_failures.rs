//! The embedded store when its files are removed or damaged under it:
//! every failure is a typed error, never a panic and never a silent loss.
#![cfg(feature = "redb")]

mod common;

use common::schemas::Event;
use keyschema::store::{RedbStore, RowStore};
use keyschema::RowKey;
use std::fs;

fn event(t: u64) -> Event {
    Event {
        user_id: "u1".into(),
        site: "s".into(),
        timestamp: t,
    }
}

fn filled(dir: &std::path::Path, n: u64) -> RedbStore {
    let store = RedbStore::open(dir).expect("open");
    let rows: Vec<(Event, Vec<u8>)> = (0..n).map(|t| (event(t), vec![7u8; 512])).collect();
    store
        .put_rows(rows.iter().map(|(e, v)| (e, v.as_slice())))
        .expect("fill");
    store
}

#[test]
fn writes_after_the_directory_is_removed_are_errors_not_lost() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    let store = filled(&path, 10);
    fs::remove_dir_all(&path).unwrap();
    let err = store
        .put_row(&event(99), b"late")
        .expect_err("a write into a removed database would be lost");
    let message = err.to_string();
    assert!(message.contains("removed"), "{message}");
    assert!(message.contains("keyschema.redb"), "{message}");
    // Reads still see the open snapshot of the file.
    assert!(store.get_row::<Event>(&event(3).encode()).is_ok());
}

#[test]
fn a_database_file_overwritten_with_garbage_does_not_open() {
    let dir = tempfile::tempdir().unwrap();
    let file = {
        let store = filled(dir.path(), 100);
        store.path().to_path_buf()
    };
    let len = fs::metadata(&file).unwrap().len() as usize;
    let garbage: Vec<u8> = (0..len).map(|i| (i * 7919 % 251) as u8).collect();
    fs::write(&file, garbage).unwrap();
    let err = RedbStore::open(dir.path()).expect_err("garbage is not a database");
    assert!(!err.to_string().is_empty());
}

#[test]
fn a_truncated_database_file_is_an_error_or_its_rows_are_whole() {
    for keep in [0usize, 1, 100, 4096, 20_000] {
        let dir = tempfile::tempdir().unwrap();
        let file = {
            let store = filled(dir.path(), 100);
            store.path().to_path_buf()
        };
        let bytes = fs::read(&file).unwrap();
        fs::write(&file, &bytes[..keep.min(bytes.len())]).unwrap();
        match RedbStore::open(dir.path()) {
            Err(err) => assert!(!err.to_string().is_empty()),
            // An empty file is a new database; any rows that are there are whole.
            Ok(store) => {
                for (_, value) in Event::scan().user_id("u1").run(&store).flatten() {
                    assert_eq!(value, vec![7u8; 512]);
                }
            }
        }
    }
}

#[test]
fn damaged_pages_give_errors_not_panics() {
    let dir = tempfile::tempdir().unwrap();
    let file = {
        let store = filled(dir.path(), 2_000);
        store.path().to_path_buf()
    };
    let pristine = fs::read(&file).unwrap();
    // Flip a run of bytes at many places past the header, one place per trial.
    let mut outcomes = [0usize; 3]; // open failed, scan reported an error, scan read whole rows
    for trial in 0..24usize {
        let at = 4096 + trial * (pristine.len() - 8192) / 24;
        let mut bytes = pristine.clone();
        for b in &mut bytes[at..at + 64] {
            *b ^= 0x5a;
        }
        fs::write(&file, &bytes).unwrap();
        let opened = std::panic::catch_unwind(|| RedbStore::open(dir.path()));
        let store = match opened {
            Err(_) => panic!("opening a damaged file panicked (trial {trial}, byte {at})"),
            Ok(Err(_)) => {
                outcomes[0] += 1;
                continue;
            }
            Ok(Ok(store)) => store,
        };
        // Every row comes back whole, or as an error: never damaged bytes.
        let scanned = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let (mut whole, mut errors, mut wrong) = (0, 0, 0);
            for row in Event::scan().user_id("u1").site("s").run(&store) {
                match row {
                    Ok((_, value)) if value == [7u8; 512] => whole += 1,
                    Ok(_) => wrong += 1,
                    Err(_) => errors += 1,
                }
            }
            (whole, errors, wrong)
        }));
        match scanned {
            Err(_) => panic!("scanning a damaged file panicked (trial {trial}, byte {at})"),
            Ok((_, _, wrong)) if wrong > 0 => {
                panic!("{wrong} damaged value(s) returned as rows (trial {trial}, byte {at})")
            }
            Ok((2_000, 0, _)) => outcomes[2] += 1,
            Ok(_) => outcomes[1] += 1,
        }
    }
    println!("open failed / scan reported errors / every row whole: {outcomes:?}");
    assert!(
        outcomes[0] + outcomes[1] > 0,
        "the damage was noticed somewhere"
    );
}
