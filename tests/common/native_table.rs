//! The row of the DynamoDB native-index tests (`dynamodb_native_table`,
//! `dynamodb_native_move`, `dynamodb_native_default`): the same visits
//! under each test's index declarations, one module per declaration.

/// `pub struct Visit` (key `(user), ts`; value fields `site` and `n`) with
/// the index declarations given.
macro_rules! visit {
    ($($index:tt)*) => {
        #[derive(keyschema::RowKey, Debug, Clone, PartialEq)]
        #[rowkey(prefix = "v", then = (user), ts, $($index)*)]
        pub struct Visit {
            pub user: String,
            pub ts: i64,
            #[rowkey(value)]
            pub site: String,
            #[rowkey(value)]
            pub n: u32,
        }
    };
}
pub(crate) use visit;

/// The sites the tests' visits are on (`a` a prefix of `ab`).
pub const SITES: [&str; 3] = ["a", "ab", "b"];
