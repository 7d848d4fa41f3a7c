//! The index model's row (`index_model`) and its older version, declared
//! by `hits!` with the indexes given: here with both indexes encoded on
//! DynamoDB (the stores' model on memory, redb, Bigtable and dynalite);
//! `tests/dynamodb_native_model.rs` declares them native.

/// `Hit` (a user's hits, salted by user) with the by-page index `$page`
/// (newest first: `then = (page), rev(ts), user` and what else the
/// declaration adds) and the by-tag index `$tag` (sparse: a hit without a
/// tag has no entry); `HitV1`, the same row without the required `n`,
/// with `$page_v1` and `$tag_v1`. Each is the declaration after the name.
macro_rules! hits {
    (
        page: ($($page:tt)*),
        tag: ($($tag:tt)*),
        page_v1: ($($page_v1:tt)*),
        tag_v1: ($($tag_v1:tt)*) $(,)?
    ) => {
        /// The row: a user's hits, salted by user; indexed by page and by
        /// tag.
        #[derive(keyschema::RowKey, Debug, Clone, PartialEq)]
        #[rowkey(
            salt = hash(user) % 4,
            then = (user), ts,
            index(HitByPage, $($page)*),
            index(HitByTag, $($tag)*),
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

        /// The older version of `Hit`: the same key and indexes, without `n`.
        #[derive(keyschema::RowKey, Debug, Clone, PartialEq)]
        #[rowkey(
            salt = hash(user) % 4,
            then = (user), ts,
            index(HitV1ByPage, $($page_v1)*),
            index(HitV1ByTag, $($tag_v1)*),
        )]
        pub struct HitV1 {
            pub user: String,
            pub ts: u16,
            #[rowkey(value)]
            pub page: String,
            #[rowkey(value)]
            pub tag: Option<String>,
        }

        impl From<&Hit> for HitV1 {
            fn from(hit: &Hit) -> Self {
                HitV1 {
                    user: hit.user.clone(),
                    ts: hit.ts,
                    page: hit.page.clone(),
                    tag: hit.tag.clone(),
                }
            }
        }
    };
}
pub(crate) use hits;

hits!(
    page: (prefix = "p", salt = hash(page) % 4, then = (page), rev(ts), user, dynamodb = encoded),
    tag: (prefix = "t", then = (tag), user, ts, dynamodb = encoded),
    page_v1: (prefix = "p", salt = hash(page) % 4, then = (page), rev(ts), user, dynamodb = encoded),
    tag_v1: (prefix = "t", then = (tag), user, ts, dynamodb = encoded),
);
