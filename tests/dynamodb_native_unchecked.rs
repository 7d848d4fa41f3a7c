//! A store opened without `check_table` (`connect_local`, `from_client`)
//! checks its indexes against the table's GSIs on its first index write
//! or read, and refuses a GSI other than its declaration as `check_table`
//! does: a native GSI whose sort attributes come in another order (rows
//! would come back in the GSI's order, not the declared one), and an
//! index declared `dynamodb = encoded` on a table whose GSI of that name
//! is native (its `_pk`/`_sk` attributes would be written and the rows
//! would drop out of the GSI). Nothing is written by a refused put, and a
//! refused store keeps refusing (issue 41, from a new user's trial).
//!
//! They need a server with multi-attribute GSI keys (DynamoDB Local 3.3 or
//! later), so they are ignored in the README's test command and
//! `.ci/dynamodb-local` runs them with `--include-ignored`.
#![cfg(feature = "dynamodb")]

mod common;

use common::dynalite::{endpoint, fresh_table};
use common::native_table::visit;
use futures_util::StreamExt;
use keyschema::store::dynamodb::{DynamoError, DynamoStore};
use keyschema::store::AsyncRecordStore;
use keyschema::store::RowError;
use keyschema::RowKey;

#[allow(dead_code)]
mod native {
    super::visit!(index(
        ByN,
        prefix = "n",
        then = (site),
        rev(n),
        user,
        ts,
        dynamodb = native
    ));
}
/// `ByN` with its last two sort attributes the other way round.
#[allow(dead_code)]
mod reordered {
    super::visit!(index(
        ByN,
        prefix = "n",
        then = (site),
        rev(n),
        ts,
        user,
        dynamodb = native
    ));
}
#[allow(dead_code)]
mod encoded {
    super::visit!(index(
        ByN,
        prefix = "n",
        then = (site),
        rev(n),
        user,
        ts,
        dynamodb = encoded
    ));
}

macro_rules! visit_of {
    ($module:ident, $user:expr, $ts:expr) => {
        $module::Visit {
            user: $user.into(),
            ts: $ts,
            site: "a".into(),
            n: 7,
        }
    };
}

/// The reason of a `TableMismatch`, or a panic naming what came instead.
fn mismatch<T: std::fmt::Debug>(result: Result<T, RowError<DynamoError>>) -> String {
    match result {
        Err(RowError::Store(DynamoError::TableMismatch { reason, .. })) => reason,
        other => panic!("wanted a TableMismatch, got {other:?}"),
    }
}

/// The users of the rows `native`'s `ByN` scan of site `a` reads, in its
/// order.
async fn by_n(store: &DynamoStore) -> Vec<String> {
    let mut rows = native::ByN::scan().site("a").request().stream_rows(store);
    let mut users = Vec::new();
    while let Some(row) = rows.next().await {
        users.push(row.expect("a row").user);
    }
    users
}

/// The reason of the `TableMismatch` the first item of `rows` is.
async fn first_mismatch<T: std::fmt::Debug>(
    mut rows: impl futures_util::Stream<Item = Result<T, RowError<DynamoError>>> + Unpin,
) -> String {
    match rows.next().await {
        Some(Err(RowError::Store(DynamoError::TableMismatch { reason, .. }))) => reason,
        other => panic!("wanted a TableMismatch, got {other:?}"),
    }
}

/// Whether the row of user `u3` at 3 is stored.
async fn u3_stored(store: &DynamoStore) -> bool {
    let key = visit_of!(native, "u3", 3).encode();
    store
        .get_record::<native::Visit>(&key)
        .await
        .expect("get")
        .is_some()
}

/// A table made by `native` with two rows on it.
async fn native_table(name: &str) -> (String, DynamoStore) {
    let table = fresh_table(name);
    let store = DynamoStore::connect_local::<native::Visit>(&endpoint(), &table).expect("a store");
    assert!(store.create_table().await.expect("create"));
    for (user, ts) in [("u1", 1), ("u2", 2)] {
        store
            .put_record(&visit_of!(native, user, ts))
            .await
            .expect("put");
    }
    (table, store)
}

#[tokio::test]
#[ignore = "needs multi-attribute GSIs: DynamoDB Local 3.3 (.ci/dynamodb-local)"]
async fn a_native_gsi_with_other_sort_attributes_is_refused_before_a_read_or_write() {
    let (table, store) = native_table("native-unchecked-order").await;
    let other =
        DynamoStore::connect_local::<reordered::Visit>(&endpoint(), &table).expect("a store");
    let reason = first_mismatch(
        reordered::ByN::scan()
            .site("a")
            .request()
            .stream_rows(&other),
    )
    .await;
    assert!(
        reason.contains("its GSI `ByN` is over [site HASH S, ByN_n_rev RANGE N, user RANGE S, ts RANGE N], and `Visit`'s index `ByN` is declared `dynamodb = native`, so it needs a GSI over [site HASH S, ByN_n_rev RANGE N, ts RANGE N, user RANGE S]: "),
        "{reason}"
    );
    assert!(
        reason.contains("a GSI's key attributes cannot change"),
        "{reason}"
    );
    // The put is refused before anything is sent, and again on a retry.
    for _ in 0..2 {
        let reason = mismatch(other.put_record(&visit_of!(reordered, "u3", 3)).await);
        assert!(reason.contains("its GSI `ByN` is over ["), "{reason}");
    }
    assert!(!u3_stored(&store).await);
    // The declaration the table was made with reads both rows, in order.
    assert_eq!(by_n(&store).await, ["u1", "u2"]);
}

#[tokio::test]
#[ignore = "needs multi-attribute GSIs: DynamoDB Local 3.3 (.ci/dynamodb-local)"]
async fn an_encoded_declaration_on_a_native_gsi_is_refused_before_a_write() {
    let (table, store) = native_table("native-unchecked-encoded").await;
    let old = DynamoStore::connect_local::<encoded::Visit>(&endpoint(), &table).expect("a store");
    let reason = mismatch(old.put_record(&visit_of!(encoded, "u3", 3)).await);
    assert!(
        reason.contains("its GSI `ByN` is the index's native form, over ["),
        "{reason}"
    );
    assert!(
        reason.contains("declare it `dynamodb = native`"),
        "{reason}"
    );
    // One sentence: the declaration is named once.
    assert_eq!(reason.matches("dynamodb = encoded").count(), 1, "{reason}");
    assert!(!u3_stored(&store).await);
    // A read through the index is refused too, on a fresh store.
    let old = DynamoStore::connect_local::<encoded::Visit>(&endpoint(), &table).expect("a store");
    let reason = first_mismatch(encoded::ByN::scan().site("a").request().stream_rows(&old)).await;
    assert!(reason.contains("the index's native form"), "{reason}");
    // Both rows are still in the GSI.
    assert_eq!(by_n(&store).await, ["u1", "u2"]);
}
