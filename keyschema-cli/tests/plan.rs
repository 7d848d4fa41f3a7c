//! The tool's planning commands as a user runs them (`encode` and `bucket`,
//! `ranges`, `splits` from samples, `size`): the binary spawned on schema
//! documents written by derived key types, its answers checked against the
//! derived code.

mod common;

use common::{docs, escaped, hex, keyschema, stderr, stdout, Event, Transaction};
use keyschema::RowKey;

#[test]
fn encode_and_bucket_agree_with_the_derived_code() {
    let d = docs();
    let key = Event::get_key("u1", "s", 1_700_000_000);
    assert_eq!(
        stdout(keyschema(&d.events).args([
            "encode",
            "timestamp=1700000000",
            "user_id=u1",
            "site=s",
            "--output",
            "hex"
        ])),
        format!("{}\n", hex(&key))
    );
    assert_eq!(
        stdout(keyschema(&d.events).args(["bucket", "user_id=u1", "site=s"])),
        format!("{}\n", key[0])
    );
    // A random salt: every bucket's key, or the one asked for.
    let all =
        stdout(keyschema(&d.invoices).args(["encode", "invoice_id=INV-1", "transaction_id=t1"]));
    assert_eq!(all.lines().count(), 10);
    let one = stdout(keyschema(&d.invoices).args([
        "encode",
        "invoice_id=INV-1",
        "transaction_id=t1",
        "--bucket",
        "3",
        "--output",
        "hex",
    ]));
    let candidates = Transaction::get_keys("INV-1", "t1");
    assert_eq!(one, format!("{}\n", hex(&candidates[3])));
    let err = stderr(
        keyschema(&d.events).args(["encode", "user_id=u1", "site=s", "timestamp=soon"]),
        2,
    );
    assert!(err.contains("field `timestamp` is u64: cannot read \"soon\""));
}

#[test]
fn ranges_are_those_of_the_typed_scan() {
    let d = docs();
    let printed = stdout(keyschema(&d.events).args([
        "ranges",
        "user_id=u1",
        "site=s",
        "timestamp=100..=200",
    ]));
    let derived = Event::scan()
        .user_id("u1")
        .site("s")
        .timestamp(100..=200)
        .ranges();
    let mut lines = printed.lines();
    assert_eq!(lines.next(), Some("1 range(s)"));
    for (line, r) in lines.zip(derived.iter()) {
        let end = r
            .end()
            .map(escaped)
            .unwrap_or_else(|| "(end of table)".into());
        assert!(
            line.starts_with(&format!(
                "bucket {}: [{}, {})",
                r.bucket(),
                escaped(r.start()),
                end
            )),
            "{line}"
        );
    }
    let all = stdout(keyschema(&d.events).args(["ranges", "user_id=u1"]));
    assert_eq!(all.lines().next(), Some("8 range(s)"));
    let err = stderr(keyschema(&d.events).args(["ranges", "site=s"]), 2);
    assert!(err.contains("bind the fields in key order"));
}

#[test]
fn splits_from_cbt_and_hbase_shell_samples() {
    let d = docs();
    // Timestamps whose inverted bytes hold no 0x0A (cbt prints keys raw).
    let keys: Vec<Vec<u8>> = (0..400)
        .map(|i| Event::get_key(&format!("user{i:03}"), "s", i * 2))
        .collect();
    assert!(keys.iter().all(|k| !k.contains(&b'\n')));
    let derived = keyschema::splits::plan(Event::schema(), keys.iter().map(Vec::as_slice), 2);
    // As cbt prints rows: the key's raw bytes after a line of dashes.
    let mut cbt = Vec::new();
    for k in &keys {
        cbt.extend_from_slice(b"----------------------------------------\n");
        cbt.extend_from_slice(k);
        cbt.extend_from_slice(
            b"\n  v:c                @ 2026/11/22-00:00:00.000000\n    \"x\"\n\n",
        );
    }
    let hbase = format!(
        "ROW                  COLUMN+CELL\n{}400 row(s)\nTook 0.0210 seconds\n",
        keys.iter()
            .map(|k| format!(" {} column=v:c, timestamp=1, value=x\n", escaped(k)))
            .collect::<String>()
    );
    for sample in [cbt, hbase.into_bytes()] {
        let printed = stdout(
            keyschema(&d.events)
                .args(["splits", "--per-bucket", "2", "--output", "hex"])
                .write_stdin(sample),
        );
        let mut lines = printed.lines();
        assert_eq!(
            lines.next(),
            Some(
                format!(
                    "{} split points from 400 sampled keys (0 not of this schema, ignored)",
                    derived.len()
                )
                .as_str()
            )
        );
        let points: Vec<&str> = lines.map(|l| l.split("  ").next().unwrap_or("")).collect();
        let expected: Vec<String> = derived.iter().map(|p| hex(p)).collect();
        assert_eq!(points, expected);
    }
}

#[test]
fn size_is_the_chapters_estimate() {
    let d = docs();
    // The chapter's hotel partition: 100 rooms x 730 days, 1.1 MB.
    let printed = stdout(keyschema(&d.hotels).args([
        "size",
        "--rows",
        "73000",
        "--bytes",
        "hotel_id=5",
        "--value",
        "is_available=1",
    ]));
    assert_eq!(
        printed,
        "rows 73000, values 73000, bytes 1095005\nwithin the guidance (100,000 values, 100 MB)\n"
    );
    let over = stdout(keyschema(&d.hotels).args([
        "size",
        "--rows",
        "200000",
        "--bytes",
        "hotel_id=5",
        "--value",
        "is_available=1",
    ]));
    assert!(
        over.contains("over the guidance: 200000 values, above 100000"),
        "{over}"
    );
    let err = stderr(keyschema(&d.hotels).args(["size", "--rows", "10"]), 2);
    assert!(err.contains(
        "`hotel_id` (String) has no fixed size: give its average with --bytes hotel_id=N"
    ));
}

#[test]
fn random_salt_buckets_and_fixed_width_sizes_are_refused_with_what_to_do() {
    let d = docs();
    let err = stderr(
        keyschema(&d.invoices).args(["bucket", "invoice_id=INV-1"]),
        2,
    );
    assert!(
        err.contains("salted `random % 10`") && err.contains("any of buckets 0..=9"),
        "{err}"
    );
    let err = stderr(
        keyschema(&d.hotels).args(["size", "--rows", "10", "--bytes", "day=5"]),
        2,
    );
    assert!(err.contains("is always 4 bytes"), "{err}");
}

#[test]
fn splits_reads_raw_key_bytes_and_skips_their_cell_lines() {
    let d = docs();
    // cbt's layout: a dashes line, the raw key, indented cell lines.
    let mut sample = Vec::new();
    for i in 0..40u64 {
        let key = Event::get_key(&format!("user{i:03}"), "shop.example", 1_700_000_000 + i);
        sample.extend_from_slice(b"----------------------------------------\n");
        sample.extend_from_slice(&key);
        sample.extend_from_slice(b"\n  f:page                                   @ 2026/11/22-00:00:00.000000\n    \"/p/1\"\n");
    }
    let out = stdout(
        keyschema(&d.events)
            .args(["splits", "--per-bucket", "1"])
            .write_stdin(sample),
    );
    assert!(
        out.starts_with("7 split points from 40 sampled keys (0 not of this schema, ignored)"),
        "{out}"
    );
}
