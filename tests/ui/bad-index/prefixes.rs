use keyschema::RowKey;

// No prefix; the prefix of another index; the row's prefix.
#[derive(RowKey)]
#[rowkey(
    prefix = "e",
    then = id,
    index(ByA, then = a, id),
    index(ByB, prefix = "x", then = b, id),
    index(ByC, prefix = "x", then = c, id),
    index(ByD, prefix = "e", then = d, id),
)]
struct Row {
    id: u64,
    #[rowkey(value)]
    a: u32,
    #[rowkey(value)]
    b: u32,
    #[rowkey(value)]
    c: u32,
    #[rowkey(value)]
    d: u32,
}

// A row without prefix or salt: its keys may begin like an entry's.
#[derive(RowKey)]
#[rowkey(then = id, index(BareByName, prefix = "n", then = name, id))]
struct Bare {
    id: String,
    #[rowkey(value)]
    name: String,
}

// Salted by 200 buckets: a prefix beginning with a byte below 200 may be a salt.
#[derive(RowKey)]
#[rowkey(salt = hash(id) % 200, then = id, index(WideByName, prefix = "n", then = name, id))]
struct Wide {
    id: String,
    #[rowkey(value)]
    name: String,
}

// Written prefixes in different formats: the text row's `ev#` begins the
// binary index's `ev#\0`; the text index `a#` begins the binary one's `a#\0`.
#[derive(RowKey)]
#[rowkey(format = text(sep = "#"), prefix = "ev", then = user_id, ts,
         index(TxtBin, format = binary, prefix = "ev#", then = site, user_id, ts))]
struct TxtRow {
    user_id: String,
    ts: u64,
    #[rowkey(value)]
    site: String,
}

#[derive(RowKey)]
#[rowkey(prefix = "r", then = id,
         index(IA, format = text(sep = "#"), prefix = "a", then = x, id),
         index(IB, prefix = "a#", then = y, id))]
struct TwoFormats {
    id: u32,
    #[rowkey(value)]
    x: u32,
    #[rowkey(value)]
    y: u32,
}

fn main() {}
