use keyschema::store::MemoryStore;
use keyschema::{Index, ScanRequest};

// A function generic over an index type runs its scan without knowing the
// type has one layout: the bound `I: OneLayout` is what is missing (no type
// here has a layout history).
fn count<I: Index>(r: &ScanRequest<I>, s: &MemoryStore) -> usize {
    r.run(s).count()
}

fn main() {}
