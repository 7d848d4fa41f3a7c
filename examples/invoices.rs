//! DynamoDB write sharding, run against the DynamoDB API: one busy invoice's
//! transactions spread over 10 random suffixes so that no single partition
//! takes every write, read back by querying every suffix and merging (the
//! DynamoDB guide's "shard the partition key with a suffix, query all N
//! suffixes, merge the results"). The suffix is keyschema's random salt,
//! which sits in the partition key: `then = (invoice_id), transaction_id`.
//!
//! Where it runs:
//! - `DYNAMODB_ENDPOINT=http://host:port`: that server (DynamoDB Local, dynalite);
//! - `--aws`: real DynamoDB, with the credentials and region of the
//!   environment (`AWS_PROFILE`, `AWS_REGION`, ...), in table `--table NAME`
//!   (default `keyschema-invoices`; created on demand, billed per request);
//! - nothing: it starts dynalite itself (Node.js and npm must be installed).
//!
//! Run: `cargo run --release --features dynamodb --example invoices [-- --transactions N]`

#[allow(dead_code)]
#[path = "../tests/common/dynalite.rs"]
mod dynalite;

use futures_util::StreamExt;
use keyschema::store::dynamodb::DynamoStore;
use keyschema::store::AsyncRecordStore;
use keyschema::RowKey;
use std::time::Instant;

/// `random % 10`: each write picks one of 10 suffixes; a read asks all 10.
/// A whole row: the amount and the memo are attributes of their own, in
/// DynamoDB's types (`N`, `S`).
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = random % 10, then = (invoice_id), transaction_id)]
pub struct Transaction {
    pub invoice_id: String,
    pub transaction_id: u32,
    #[rowkey(value)]
    pub amount_cents: i64,
    #[rowkey(value)]
    pub memo: String,
}

const HOT: &str = "INV-2024-0001";

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut transactions = 1_000u32;
    let mut table = format!("keyschema-invoices-{}", std::process::id());
    let mut aws = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--transactions" => transactions = args.next().ok_or("--transactions N")?.parse()?,
            "--table" => table = args.next().ok_or("--table NAME")?,
            "--aws" => aws = true,
            "--schema-out" => std::fs::write(
                args.next().ok_or("--schema-out FILE")?,
                Transaction::schema().to_json(),
            )?,
            other => return Err(format!("unknown argument {other}").into()),
        }
    }
    let store = if aws {
        if !std::env::args().any(|a| a == "--table") {
            table = "keyschema-invoices".into();
        }
        println!("DynamoDB (credentials and region from the environment), table {table}");
        DynamoStore::connect::<Transaction>(&table).await?
    } else {
        // DYNAMODB_ENDPOINT when set, else a dynalite started here.
        let endpoint = dynalite::endpoint();
        println!("DynamoDB API at {endpoint}, table {table}");
        DynamoStore::connect_local::<Transaction>(&endpoint, &table)?
    };
    println!("schema  {}", Transaction::schema());
    let created = store.create_table().await?;
    println!(
        "table {}: {} (pk = salt + invoice_id, sk = transaction_id, on-demand billing)",
        store.table(),
        if created { "created" } else { "already there" }
    );

    // One hot invoice, every write on a random suffix.
    let rows: Vec<Transaction> = (0..transactions)
        .map(|t| Transaction {
            invoice_id: HOT.into(),
            transaction_id: t,
            amount_cents: i64::from(t) * 125,
            memo: format!("line {t}"),
        })
        .collect();
    let before = store.requests();
    let started = Instant::now();
    store.put_records(&rows).await?;
    let secs = started.elapsed().as_secs_f64();
    let writes = store.requests().batch_write_item - before.batch_write_item;
    println!();
    println!(
        "wrote {transactions} transactions of {HOT} in {writes} BatchWriteItem requests, {secs:.2} s: {:.0} rows/s",
        f64::from(transactions) / secs.max(1e-9)
    );
    // Writes per suffix: each suffix's range, counted.
    let mut per_suffix = Vec::new();
    for range in Transaction::scan().invoice_id(HOT).ranges().iter() {
        let mut rows = keyschema::store::AsyncStore::scan_stream(
            &store,
            range,
            keyschema::store::Direction::Forward,
            None,
        );
        let mut n = 0usize;
        while let Some(row) = rows.next().await {
            row?;
            n += 1;
        }
        per_suffix.push(n);
    }
    println!("writes per suffix (one partition each):");
    for (suffix, n) in per_suffix.iter().enumerate() {
        println!("  suffix {suffix}  {n:>5}  {}", "#".repeat(*n / 8));
    }

    // One item as DynamoDB holds it: every field an attribute a console,
    // boto3 or a FilterExpression reads (the amount a number, `N`).
    let item = store
        .client()
        .scan()
        .table_name(store.table())
        .limit(1)
        .send()
        .await?;
    if let Some(item) = item.items().first() {
        let mut names: Vec<&String> = item.keys().collect();
        names.sort();
        println!("one item, as DynamoDB holds it:");
        for name in names {
            println!("  {name:<15} {:?}", item[name]);
        }
    }

    // Read it back: one Query per suffix, all in flight, merged in key order.
    let request = Transaction::scan().invoice_id(HOT);
    let before = store.requests();
    let started = Instant::now();
    let mut merged = request.stream(&store).records();
    let (mut ids, mut total) = (Vec::new(), 0i64);
    while let Some(row) = merged.next().await {
        let tx = row?;
        total += tx.amount_cents;
        ids.push(tx.transaction_id);
    }
    let secs = started.elapsed().as_secs_f64();
    let queries = store.requests().query - before.query;
    assert_eq!(
        ids,
        (0..transactions).collect::<Vec<_>>(),
        "every transaction once, in order"
    );
    println!();
    println!(
        "read {} transactions back in order from {} suffix ranges in {queries} Query requests, {:.1} ms: {:.0} rows/s; total {:.2}",
        ids.len(),
        request.ranges().len(),
        secs * 1e3,
        ids.len() as f64 / secs.max(1e-9),
        total as f64 / 100.0
    );

    // A get tries the 10 suffixes in one BatchGetItem.
    let last = transactions.saturating_sub(1);
    let key = Transaction::get_key(HOT, last);
    let mut tx = store
        .get_record::<Transaction>(&key)
        .await?
        .ok_or("the last transaction is missing")?;
    println!(
        "get of transaction {} (10 candidate keys, 1 BatchGetItem): {} cents, {:?}",
        tx.transaction_id, tx.amount_cents, tx.memo
    );

    // A correction replaces the row in every suffix; a refund deletes it from all.
    tx.amount_cents = 50_000;
    tx.memo = "corrected".into();
    store.replace_record(&tx).await?;
    let corrected = store
        .get_record::<Transaction>(&key)
        .await?
        .ok_or("the corrected transaction is missing")?;
    println!(
        "after replace_record: {} cents, {:?}, one copy",
        corrected.amount_cents, corrected.memo
    );
    store.delete_row(&tx).await?;
    assert!(store.get_record::<Transaction>(&key).await?.is_none());
    println!("after delete_row: transaction {last} is in no suffix");
    Ok(())
}
