//! The shared index model (`common::index_model`: random puts, batch puts,
//! replaces that change indexed fields, deletes, `tag` going `Some` ->
//! `None` -> `Some`, another program's deletes, crashes, restarts, index
//! backfills, and index scans paged with cursors resumed by a new client,
//! both directions, against a plain map) on native indexes (issue 41):
//! the model's file, its backfill step and its service driver included
//! once per declaration of its row's indexes, each GSI keyed on the items'
//! own typed attributes:
//!
//! - `salted`: by page `salt = hash(page) % 4, then = (page), rev(ts),
//!   user` (HASH `HitByPage_shard`, `page`; RANGE `HitByPage_ts_rev`,
//!   `user`), by tag `then = (tag), user, ts`, both native by default;
//! - `unsalted`: by page without the salt;
//! - `bucket`: by page with `bucket(n, 2), n` after the user (a bucket
//!   attribute of its own, and `n` changing under a replace), declared
//!   `dynamodb = native`.
//!
//! Every one has `rev(ts)`, a negated attribute. The encoded form's model
//! runs on dynalite and DynamoDB Local (`tests/index_model_services.rs`).
//! These need multi-attribute GSI keys (DynamoDB Local 3.3 or later):
//! ignored in the README's test command, run by `.ci/dynamodb-local` with
//! `--include-ignored`.
#![cfg(feature = "dynamodb")]

mod common;

use proptest::prelude::*;

/// A module holding the model, its backfill step and its driver for `Hit`
/// rows with the index declarations given (`common::hit_rows::hits!`),
/// and the driver's service: a DynamoDB table, created.
macro_rules! native_model {
    ($name:ident, $($rows:tt)*) => {
        // The model's files, once more per declaration: on purpose.
        #[allow(clippy::duplicate_mod)]
        #[path = "common"]
        pub mod $name {
            pub mod hit_rows {
                crate::common::hit_rows::hits!($($rows)*);
            }
            #[path = "index_model.rs"]
            pub mod index_model;
            #[path = "index_model_backfill.rs"]
            pub mod index_model_backfill;
            #[path = "index_model_driver.rs"]
            pub mod index_model_driver;

            use crate::common::dynalite;
            use index_model::Hit;
            use keyschema::store::dynamodb::DynamoStore;

            impl index_model_driver::Service for DynamoStore {
                const ONE_PARTITION: bool = true;
                // One binary per table (see index_model_services.rs).
                const OLDER_WRITES: bool = false;
                fn create(rt: &tokio::runtime::Runtime) -> (String, Self) {
                    let store = rt.block_on(dynalite::store::<Hit>(stringify!($name)));
                    // Every index native, by default or declared.
                    for (index, form) in store.index_forms() {
                        assert!(form.is_native(), "{index}: {form}");
                    }
                    (store.table().to_string(), store)
                }
                async fn reconnect(table: &str) -> Self {
                    DynamoStore::connect_local::<Hit>(&dynalite::endpoint(), table)
                        .expect("connect")
                }
                async fn delete(&self, row: &Hit) -> Result<(), String> {
                    self.delete_row(row).await.map_err(index_model_driver::text)
                }
            }

            /// The model on a fresh table.
            pub fn run(ops: &[index_model::Op]) -> Result<(), proptest::test_runner::TestCaseError> {
                index_model::run(&mut index_model_driver::Services::<DynamoStore>::new(), ops)
            }
        }
    };
}

native_model!(
    salted,
    page: (prefix = "p", salt = hash(page) % 4, then = (page), rev(ts), user),
    tag: (prefix = "t", then = (tag), user, ts),
    page_v1: (prefix = "p", salt = hash(page) % 4, then = (page), rev(ts), user),
    tag_v1: (prefix = "t", then = (tag), user, ts),
);
native_model!(
    unsalted,
    page: (prefix = "p", then = (page), rev(ts), user),
    tag: (prefix = "t", then = (tag), user, ts),
    page_v1: (prefix = "p", then = (page), rev(ts), user),
    tag_v1: (prefix = "t", then = (tag), user, ts),
);
native_model!(
    bucket,
    page: (prefix = "p", salt = hash(page) % 2, then = (page), rev(ts), user, bucket(n, 2), n, dynamodb = native),
    tag: (prefix = "t", then = (tag), user, ts, dynamodb = native),
    page_v1: (prefix = "p", salt = hash(page) % 2, then = (page), rev(ts), user),
    tag_v1: (prefix = "t", then = (tag), user, ts),
);

#[test]
fn the_native_forms_are_the_ones_declared() {
    use keyschema::store::dynamodb::index_form;
    use keyschema::store::dynamodb::ItemShape;
    use keyschema::RowKey;
    let shape = ItemShape::default();
    let form = |index: &'static keyschema::Schema, row| index_form(index, row, &shape).to_string();
    assert_eq!(
        form(
            salted::hit_rows::HitByPage::schema(),
            salted::hit_rows::Hit::schema()
        ),
        "native: HASH [HitByPage_shard N, page S], RANGE [HitByPage_ts_rev N, user S]"
    );
    assert_eq!(
        form(
            unsalted::hit_rows::HitByPage::schema(),
            unsalted::hit_rows::Hit::schema()
        ),
        "native: HASH [page S], RANGE [HitByPage_ts_rev N, user S]"
    );
    assert_eq!(
        form(bucket::hit_rows::HitByPage::schema(), bucket::hit_rows::Hit::schema()),
        "native: HASH [HitByPage_shard N, page S], RANGE [HitByPage_ts_rev N, user S, HitByPage_n_bucket N, n N]"
    );
    assert_eq!(
        form(
            salted::hit_rows::HitByTag::schema(),
            salted::hit_rows::Hit::schema()
        ),
        "native: HASH [tag S], RANGE [user S, ts N]"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
    #[test]
    #[ignore = "needs multi-attribute GSIs: DynamoDB Local 3.3 (.ci/dynamodb-local)"]
    fn salted_native_index_scans_agree_with_a_map(ops in prop::collection::vec(salted::index_model::op(), 1..50)) {
        salted::run(&ops)?;
    }

    #[test]
    #[ignore = "needs multi-attribute GSIs: DynamoDB Local 3.3 (.ci/dynamodb-local)"]
    fn unsalted_native_index_scans_agree_with_a_map(ops in prop::collection::vec(unsalted::index_model::op(), 1..50)) {
        unsalted::run(&ops)?;
    }

    #[test]
    #[ignore = "needs multi-attribute GSIs: DynamoDB Local 3.3 (.ci/dynamodb-local)"]
    fn bucketed_native_index_scans_agree_with_a_map(ops in prop::collection::vec(bucket::index_model::op(), 1..50)) {
        bucket::run(&ops)?;
    }
}
