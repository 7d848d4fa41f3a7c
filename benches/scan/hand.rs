//! What a user writes without keyschema: a decoder for `Event`'s key
//! (`[salt] user_id 00 site 00 !timestamp`), written as a careful engineer
//! would: the unescaped common case sliced directly, escapes handled.

use super::schemas::Event;

/// One escaped string component and the bytes after it.
fn string(bytes: &[u8]) -> Option<(String, &[u8])> {
    let end = bytes.iter().position(|&b| b <= 1)?;
    if bytes[end] == 0 {
        let s = std::str::from_utf8(&bytes[..end]).ok()?;
        return Some((s.to_owned(), &bytes[end + 1..]));
    }
    let mut out = bytes[..end].to_vec();
    let mut i = end;
    loop {
        match *bytes.get(i)? {
            0 => break,
            1 => {
                out.push(*bytes.get(i + 1).filter(|&&b| b <= 1)?);
                i += 2;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    Some((String::from_utf8(out).ok()?, &bytes[i + 1..]))
}

/// The event a key holds (the salt byte skipped, not checked).
pub fn decode(key: &[u8]) -> Option<Event> {
    let (user_id, rest) = string(key.get(1..)?)?;
    let (site, rest) = string(rest)?;
    let ts: [u8; 8] = rest.try_into().ok()?;
    Some(Event {
        user_id,
        site,
        timestamp: !u64::from_be_bytes(ts),
    })
}
