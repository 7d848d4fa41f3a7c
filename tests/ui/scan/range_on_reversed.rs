use keyschema::RowKey;

#[derive(RowKey)]
#[rowkey(then = reverse(order_id), line)]
struct OrderLine {
    order_id: u64,
    line: u16,
}

fn main() {
    // A reversed id's byte order is not its value order: only equality.
    let _ = OrderLine::scan().order_id(10..20);
}
