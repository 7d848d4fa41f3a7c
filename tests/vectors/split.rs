//! How a split point renders (`docs/ENCODING.md`, "Each type's rendering",
//! table `render_prefix`): a prefix of a key, as `keyschema splits` and
//! scan bounds show it (`Schema::render_prefix`): its complete components
//! and `…` where it ends inside one; a whole key as `render` without the
//! decode check; other damage as `render` shows it. Python renders each
//! alike (`Schema.render_prefix`, `test_render_prefix.py`).

use super::{hex, plain_hex, record};
use super::{KarteEvent, Prefixed};
use crate::common::schemas::Event;
use keyschema::dynamic::Value;
use keyschema::RowKey;

fn one<K: RowKey>(what: &str, key: &[u8]) -> String {
    let shown = K::schema().render_prefix(key);
    record(
        "render_prefix",
        format!(
            r#"{{"schema":{},"what":{},"key":"{}","rendered":{}}}"#,
            K::schema().to_json(),
            Value::from(what).to_json(),
            plain_hex(key),
            Value::from(shown.as_str()).to_json()
        ),
    );
    format!(
        "| `{}` | {what} | `{}` | `{}` |",
        K::schema().name(),
        if key.is_empty() {
            "(none)".to_string()
        } else {
            hex(key)
        },
        shown.replace('|', "\\|")
    )
}

/// The `render_prefix` table.
pub fn prefix_rows() -> Vec<String> {
    let event = Event::get_key("u1", "s", 1_700_000_000);
    let mut other_salt = event.clone();
    other_salt[0] = (event[0] + 1) % 8;
    let prefixed = Prefixed::get_key("u1", 7);
    let karte = KarteEvent::get_key("user42", 1_700_000_000);
    vec![
        one::<Event>("empty: inside the salt", &[]),
        one::<Event>("the salt alone", &event[..1]),
        one::<Event>("inside user_id", &event[..3]),
        one::<Event>("user_id complete", &event[..4]),
        one::<Event>("inside timestamp", &event[..10]),
        one::<Event>("the whole key", &event),
        one::<Event>(
            "a whole key of another salt: not checked against its fields",
            &other_salt,
        ),
        one::<Event>(
            "an escape byte followed by 0x02: as render shows it",
            &[event[0], 0x75, 0x01, 0x02],
        ),
        one::<Prefixed>("the prefix alone", &prefixed[..3]),
        one::<Prefixed>("inside the prefix: as render shows it", &prefixed[..1]),
        one::<KarteEvent>("a text key cut inside user_id", &karte[..6]),
        one::<KarteEvent>("a text key cut after user_id's separator", &karte[..10]),
    ]
}
