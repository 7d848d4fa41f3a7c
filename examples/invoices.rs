//! DynamoDB write sharding: one busy invoice's transactions spread over 10
//! suffixes so no single partition takes every write, and read back merged
//! (the DynamoDB guide's "shard the partition key with a suffix, query every
//! suffix, merge the results"). Here the suffix is keyschema's random salt.
//!
//! Run: `cargo run --release --example invoices`

use keyschema::store::{MemoryStore, RowStore, Store};
use keyschema::RowKey;

/// `random % 10`: each write picks one of 10 suffixes at random; a get or a
/// scan of the invoice asks all 10 and merges them.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(salt = random % 10, then = invoice_id, transaction_id)]
pub struct Transaction {
    pub invoice_id: String,
    pub transaction_id: u32,
    #[rowkey(skip)]
    pub amount_cents: i64,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let store = MemoryStore::new();
    println!("schema  {}", Transaction::schema());

    // One hot invoice with 1,000 transactions, and a few quiet ones.
    let mut per_suffix = [0u32; 10];
    for t in 0..1_000u32 {
        let tx = Transaction {
            invoice_id: "INV-2024-0001".into(),
            transaction_id: t,
            amount_cents: i64::from(t) * 125,
        };
        let key = tx.encode();
        per_suffix[usize::from(key[0])] += 1;
        store.put(&key, &tx.amount_cents.to_be_bytes())?;
    }
    for invoice in ["INV-2024-0002", "INV-2024-0003"] {
        for t in 0..5u32 {
            let tx = Transaction {
                invoice_id: invoice.into(),
                transaction_id: t,
                amount_cents: 999,
            };
            store.put_row(&tx, &tx.amount_cents.to_be_bytes())?;
        }
    }
    println!();
    println!("writes of INV-2024-0001 per suffix (one partition each in DynamoDB):");
    for (suffix, n) in per_suffix.iter().enumerate() {
        println!("  suffix {suffix}  {n:>4}  {}", "#".repeat(*n as usize / 4));
    }

    // Reading it back: 10 ranges, merged into transaction order.
    let ranges = Transaction::scan().invoice_id("INV-2024-0001").ranges();
    println!();
    println!(
        "a query for the invoice covers {} suffix ranges, merged in key order:",
        ranges.len()
    );
    let mut total = 0i64;
    let mut ids = Vec::new();
    for row in Transaction::scan().invoice_id("INV-2024-0001").run(&store) {
        let (tx, value) = row?;
        let amount = i64::from_be_bytes(value.as_slice().try_into()?);
        total += amount;
        ids.push(tx.transaction_id);
    }
    assert_eq!(
        ids,
        (0..1_000).collect::<Vec<_>>(),
        "every transaction once, in order"
    );
    println!(
        "  {} transactions, ids {}..={}, in order; total {:.2}",
        ids.len(),
        ids[0],
        ids[ids.len() - 1],
        total as f64 / 100.0
    );

    // A get by key must try every suffix: the row is in one of them.
    let candidates = Transaction::get_keys("INV-2024-0001", 417);
    println!();
    println!(
        "get of transaction 417 tries {} candidate keys:",
        candidates.len()
    );
    for key in candidates.iter().take(3) {
        println!("  {}", Transaction::render(key));
    }
    println!("  ...");
    let (tx, value) =
        Transaction::get(&store, "INV-2024-0001", 417)?.ok_or("transaction 417 not found")?;
    let mut suffix = None;
    for (b, key) in candidates.iter().enumerate() {
        if store.get(key)?.is_some() {
            suffix = Some(b);
        }
    }
    println!(
        "found transaction {} in suffix {}: {} cents",
        tx.transaction_id,
        suffix.ok_or("in no suffix")?,
        i64::from_be_bytes(value.as_slice().try_into()?)
    );

    // put_row with a random suffix is an insert: writing transaction 417
    // again would store a second copy under another suffix. A correction is
    // a replace (the put and the deletes of the 9 other suffixes, one
    // batch), a refund a delete from every suffix.
    let corrected: i64 = 50_000;
    store.replace_row(&tx, &corrected.to_be_bytes())?;
    let copies = candidates
        .iter()
        .filter(|k| store.get(k).ok().flatten().is_some())
        .count();
    let (_, value) =
        Transaction::get(&store, "INV-2024-0001", 417)?.ok_or("transaction 417 not found")?;
    println!();
    println!(
        "after replace_row: {} copy, {} cents",
        copies,
        i64::from_be_bytes(value.as_slice().try_into()?)
    );
    assert_eq!(copies, 1, "a replace leaves one copy");
    store.delete_row(&tx)?;
    assert!(Transaction::get(&store, "INV-2024-0001", 417)?.is_none());
    println!("after delete_row: transaction 417 is in no suffix");
    Ok(())
}
