//! `decode` and `render` of every example schema, on arbitrary bytes and on
//! valid keys with one byte changed, inserted or removed.
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use keyschema_fuzz::check_decode;
use libfuzzer_sys::fuzz_target;

#[allow(dead_code, unused_imports)]
#[path = "../../examples/events.rs"]
mod events;
#[allow(dead_code, unused_imports)]
#[path = "../../examples/hotel_availability.rs"]
mod hotel_availability;
/// The invoices example's key, declared here: `examples/invoices.rs` runs
/// on the DynamoDB API (the `dynamodb` feature), which this crate leaves out.
mod invoices {
    use keyschema::RowKey;

    #[derive(RowKey, Debug, Clone, PartialEq)]
    #[rowkey(salt = random % 10, then = (invoice_id), transaction_id)]
    pub struct Transaction {
        pub invoice_id: String,
        pub transaction_id: u32,
        #[rowkey(skip)]
        pub amount_cents: i64,
    }
}
#[allow(dead_code, unused_imports)]
#[path = "../../examples/metrics.rs"]
mod metrics;

/// A valid key of one of the schemas, then one edit.
fn mutated_key(u: &mut Unstructured<'_>) -> arbitrary::Result<Vec<u8>> {
    let s = String::arbitrary(u)?;
    let t = String::arbitrary(u)?;
    let n = u64::arbitrary(u)?;
    let mut key = match u.int_in_range(0..=7u8)? {
        0 => events::Event::get_key(&s, &t, n),
        1 => events::EventSpread::get_key(&s, &t, n),
        2 => hotel_availability::Availability::get_key(&s, n as u32, n as u16),
        3 => invoices::Transaction::get_key(&s, n as u32),
        4 => metrics::TimeFirst::get_key(n, &s, &t),
        5 => metrics::ByMetric::get_key(&s, n, &t),
        _ => metrics::Spread::get_key(&s, n, &t),
    };
    if !key.is_empty() {
        let at = u.choose_index(key.len())?;
        match u.int_in_range(0..=3u8)? {
            0 => key[at] = u8::arbitrary(u)?,
            1 => key.insert(at, u8::arbitrary(u)?),
            2 => {
                key.remove(at);
            }
            _ => {}
        }
    }
    Ok(key)
}

fn check_all(data: &[u8]) {
    check_decode::<events::Event>(data);
    check_decode::<events::EventSpread>(data);
    check_decode::<hotel_availability::Availability>(data);
    check_decode::<invoices::Transaction>(data);
    check_decode::<metrics::TimeFirst>(data);
    check_decode::<metrics::ByMetric>(data);
    check_decode::<metrics::Spread>(data);
}

fuzz_target!(|data: &[u8]| {
    match data.split_first() {
        Some((&mode, rest)) if mode & 1 == 1 => {
            if let Ok(key) = mutated_key(&mut Unstructured::new(rest)) {
                check_all(&key);
            }
        }
        _ => check_all(data),
    }
});
