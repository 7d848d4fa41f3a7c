//! What a user writes without keyschema: a decoder for `Event`'s key
//! (`[salt] user_id 00 site 00 !timestamp`), written as a careful engineer
//! would: the unescaped common case sliced directly, escapes handled.
//! `benches/scan.rs` and `benches/encode.rs` measure against it.

use super::schemas::Event;

/// The escaped string component at `*at`; `*at` moves past its terminator.
pub fn unescape(bytes: &[u8], at: &mut usize) -> Option<String> {
    let rest = bytes.get(*at..)?;
    let end = rest.iter().position(|&b| b <= 1)?;
    if rest[end] == 0 {
        let s = std::str::from_utf8(&rest[..end]).ok()?;
        *at += end + 1;
        return Some(s.to_owned());
    }
    let mut out = rest[..end].to_vec();
    let mut i = end;
    loop {
        match *rest.get(i)? {
            0 => break,
            1 => {
                out.push(*rest.get(i + 1).filter(|&&b| b <= 1)?);
                i += 2;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    *at += i + 1;
    String::from_utf8(out).ok()
}

/// The event a key holds (the salt byte skipped, not checked).
pub fn decode(key: &[u8]) -> Option<Event> {
    let mut at = 1;
    let user_id = unescape(key, &mut at)?;
    let site = unescape(key, &mut at)?;
    let ts: [u8; 8] = key.get(at..)?.try_into().ok()?;
    Some(Event {
        user_id,
        site,
        timestamp: !u64::from_be_bytes(ts),
    })
}

/// [`decode`] into an event whose strings keep their capacity (the
/// unescaped common case only): the tightest loop a user writes over rows
/// the store lends.
pub fn decode_into(key: &[u8], event: &mut Event) -> Option<()> {
    let mut at = 1;
    for field in [&mut event.user_id, &mut event.site] {
        let rest = key.get(at..)?;
        let end = rest.iter().position(|&b| b <= 1)?;
        if rest[end] != 0 {
            return None;
        }
        field.clear();
        field.push_str(std::str::from_utf8(&rest[..end]).ok()?);
        at += end + 1;
    }
    let ts: [u8; 8] = key.get(at..)?.try_into().ok()?;
    event.timestamp = !u64::from_be_bytes(ts);
    Some(())
}
