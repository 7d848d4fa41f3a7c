use keyschema::RowKey;

// An index's form on DynamoDB is `native` or `encoded`, given once.
#[derive(RowKey)]
#[rowkey(
    salt = hash(user_id) % 8,
    then = user_id, rev(ts),
    index(BySite, prefix = "s", then = (site), user_id, ts, dynamodb = fast),
)]
struct Event {
    user_id: String,
    ts: u64,
    #[rowkey(value)]
    site: String,
}

#[derive(RowKey)]
#[rowkey(
    salt = hash(user_id) % 8,
    then = user_id, rev(ts),
    index(ByPage, dynamodb = native, prefix = "p", then = (page), user_id, ts, dynamodb = encoded),
)]
struct Hit {
    user_id: String,
    ts: u64,
    #[rowkey(value)]
    page: String,
}

fn main() {}
