//! The `event_index` example on DynamoDB: the events written to a table
//! whose `EventBySite` GSI is native (keyed on the items' own attributes),
//! the typed index scan of one site, and the boto3 call and `aws dynamodb
//! query` command that read the same index by field values.

use crate::events::SITES;
use crate::site_event::{Event, EventBySite};
use futures_util::StreamExt;
use keyschema::store::dynamodb::{DynamoStore, IndexForm};
use keyschema::store::AsyncRecordStore;

/// The line before the printed boto3 program, and the line after it.
pub const BOTO3_START: &str = "--- boto3 ---";
/// The line after the printed boto3 program.
pub const BOTO3_END: &str = "--- end boto3 ---";

/// Writes `events` to `table` and reads one site's latest through the
/// index, typed, then prints the boto3 program and the AWS CLI command
/// that read them by field values.
pub fn run(table: &str, events: &[Event]) -> Result<(), Box<dyn std::error::Error>> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let endpoint = std::env::var("DYNAMODB_ENDPOINT").ok();
    rt.block_on(async {
        let store = match &endpoint {
            Some(endpoint) => DynamoStore::connect_local::<Event>(endpoint, table)?,
            None => DynamoStore::connect::<Event>(table).await?,
        };
        let created = store.create_table().await?;
        println!(
            "\n8. on DynamoDB ({}), table {table} ({}): {} events",
            endpoint.as_deref().unwrap_or("AWS"),
            if created { "created" } else { "already there" },
            events.len()
        );
        for (name, form) in store.index_forms() {
            match form {
                IndexForm::Native { hash, range } => println!(
                    "   index {name}: a native GSI, HASH {:?}, RANGE {:?}",
                    hash.iter().map(|a| a.name.as_str()).collect::<Vec<_>>(),
                    range.iter().map(|a| a.name.as_str()).collect::<Vec<_>>(),
                ),
                IndexForm::Encoded { why } => println!("   index {name}: encoded ({why})"),
            }
        }
        for chunk in events.chunks(100) {
            store.put_records(chunk).await?;
        }
        // One site's events since the middle of the run, newest first.
        let site = SITES[0];
        let since = events.get(events.len() / 2).map_or(0, |e| e.timestamp);
        let mut rows = EventBySite::scan().site(site).request().stream_rows(&store);
        let mut typed = Vec::new();
        while let Some(row) = rows.next().await {
            let row = row?;
            if row.timestamp < since {
                break;
            }
            typed.push(row);
        }
        println!(
            "   {site} since {since}, typed index scan: {} events, the latest {:?}",
            typed.len(),
            typed.first().map(|e| (&e.user_id, e.timestamp))
        );
        let want: Vec<&Event> = events
            .iter()
            .rev()
            .filter(|e| e.site == site && e.timestamp >= since)
            .collect();
        if typed.iter().collect::<Vec<_>>() != want {
            return Err(format!("{site}: the index disagrees with the events written").into());
        }
        println!(
            "   the same read with boto3 (one Query per shard, merged in the index's order):\n{BOTO3_START}\n{}{BOTO3_END}",
            boto3(endpoint.as_deref(), table, site, since)
        );
        println!(
            "   one shard of it with the AWS CLI:\n{}",
            aws_cli(endpoint.as_deref(), table, site, since)
        );
        Ok(())
    })
}

/// A Python program that prints `user_id timestamp`, a line per event of
/// `site` since `since`, in the index's order.
fn boto3(endpoint: Option<&str>, table: &str, site: &str, since: u64) -> String {
    let client = match endpoint {
        Some(e) => format!(
            "boto3.client(\"dynamodb\", endpoint_url=\"{e}\", region_name=\"us-east-1\",\n                   aws_access_key_id=\"local\", aws_secret_access_key=\"local\")"
        ),
        None => "boto3.client(\"dynamodb\")".to_string(),
    };
    format!(
        r#"import boto3
ddb = {client}
items = []
for shard in range(8):  # salt = hash(site, user_id) % 8: EventBySite_shard 0..7
    pages = ddb.get_paginator("query").paginate(
        TableName="{table}", IndexName="EventBySite",
        KeyConditionExpression="EventBySite_shard = :shard AND site = :site"
                               " AND EventBySite_timestamp_rev <= :since",
        ExpressionAttributeValues={{":shard": {{"N": str(shard)}}, ":site": {{"S": "{site}"}},
                                   ":since": {{"N": "-{since}"}}}})
    items += [item for page in pages for item in page["Items"]]
# Each shard comes newest first (EventBySite_timestamp_rev is -timestamp);
# the index's order over the shards: that attribute, then user_id's bytes.
items.sort(key=lambda i: (int(i["EventBySite_timestamp_rev"]["N"]), i["user_id"]["S"].encode()))
for item in items:
    print(item["user_id"]["S"], -int(item["EventBySite_timestamp_rev"]["N"]))
"#
    )
}

/// The `aws dynamodb query` command reading shard 0 of the same events.
fn aws_cli(endpoint: Option<&str>, table: &str, site: &str, since: u64) -> String {
    format!(
        "aws dynamodb query --table-name {table} --index-name EventBySite \\\n  \
         --key-condition-expression 'EventBySite_shard = :shard AND site = :site AND EventBySite_timestamp_rev <= :since' \\\n  \
         --expression-attribute-values '{{\":shard\":{{\"N\":\"0\"}},\":site\":{{\"S\":\"{site}\"}},\":since\":{{\"N\":\"-{since}\"}}}}'{}",
        endpoint.map_or(String::new(), |e| format!(" \\\n  --endpoint-url {e}"))
    )
}
