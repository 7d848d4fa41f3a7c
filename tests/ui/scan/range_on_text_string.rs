use keyschema::RowKey;

#[derive(RowKey)]
#[rowkey(format = text(sep = "_"), then = name, seq)]
struct Person {
    name: String,
    seq: u32,
}

fn main() {
    // With sep = "_", "A1_" sorts before "A_": a range on a string would miss rows.
    let _ = Person::scan().name("A"..="AB");
    // Equality on the string, then a range on the number: exact, and accepted.
    let _ = Person::scan().name("A").seq(1..5);
}
