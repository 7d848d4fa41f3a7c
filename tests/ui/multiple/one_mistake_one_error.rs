// One mistake in the declaration (an unknown transform), a key type re-exported
// under another path (`crate = ...`), and code that uses every generated item:
// the compiler reports the one mistake, not a cascade from the uses.
mod reexport {
    pub use keyschema as ks;
}

use reexport::ks::store::{MemoryStore, RowStore};
use reexport::ks::RowKey;

#[derive(RowKey, Debug)]
#[rowkey(crate = "reexport::ks", salt = hash(user_id) % 8, then = user_id, desc(ts))]
struct Event {
    user_id: String,
    ts: u64,
}

fn main() {
    let store = MemoryStore::new();
    let key = Event::get_key("u1", 7);
    let mut out = Vec::new();
    Event::get_key_into(&mut out, "u1", 7);
    let _ = Event::get(&store, "u1", 7);
    let _ = Event::get_async(&FakeAsync, "u1", 7);
    let _ = store.get_row::<Event>(&key);
    let _ = Event::scan().user_id("u1").ts(1..5).ranges();
    let _ = Event::scan().user_id("u1").limit(3).run(&store).count();
    let _ = Event::decode(&key).map(|e| e.ts);
    let _ = Event::BUCKETS;
}

struct FakeAsync;
impl reexport::ks::store::AsyncStore for FakeAsync {
    type Error = std::convert::Infallible;
    fn scan_stream(
        &self,
        _: &reexport::ks::KeyRange,
        _: reexport::ks::store::Direction,
        _: Option<usize>,
    ) -> reexport::ks::store::BoxRowStream<Self::Error> {
        unimplemented!()
    }
    fn get_many(
        &self,
        _: Vec<Vec<u8>>,
    ) -> reexport::ks::store::BoxFuture<'_, Result<Vec<(Vec<u8>, Vec<u8>)>, Self::Error>> {
        unimplemented!()
    }
    fn write(
        &self,
        _: Vec<reexport::ks::store::Mutation>,
    ) -> reexport::ks::store::BoxFuture<'_, Result<(), Self::Error>> {
        unimplemented!()
    }
    fn compare_and_write(
        &self,
        _: Vec<reexport::ks::store::Cas>,
    ) -> reexport::ks::store::BoxFuture<'_, Result<Vec<bool>, Self::Error>> {
        unimplemented!()
    }
}
