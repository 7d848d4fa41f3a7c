//! The `event_index` example's rows with their index built, shared with
//! the test that queries the example's DynamoDB table with boto3
//! (`tests/dynamodb_native_example.rs`).

use crate::events::Payload;
use keyschema::RowKey;

/// The rows with the index built: by user (the row key) and by site.
///
/// `EventBySite` is `dynamodb = native`: on DynamoDB its GSI is keyed on
/// `EventBySite_shard` (`N`, the salt bucket) and `site` (HASH), then
/// `EventBySite_timestamp_rev` (`N`, `-timestamp`: newest first) and
/// `user_id` (RANGE), so boto3 or the console queries it by field values.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(
    salt = hash(user_id, site) % 8,
    then = (user_id, site), rev(timestamp),
    index(EventBySite, prefix = "s", salt = hash(site, user_id) % 8,
          then = (site), rev(timestamp), user_id, dynamodb = native),
)]
pub struct Event {
    pub user_id: String,
    pub site: String,
    pub timestamp: u64,
    #[rowkey(value)]
    pub action: String,
    #[rowkey(value)]
    pub payload: Payload,
}
