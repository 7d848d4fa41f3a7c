// A verification is made by `Backfill::verify` alone: one written by hand
// (an empty one, say) cannot authorise `delete_older`.
use keyschema::backfill::Verification;

fn main() {
    let _forged = Verification {
        schema: "Event",
        buckets: Vec::new(),
        uncovered: 0,
        stranded: 0,
    };
}
