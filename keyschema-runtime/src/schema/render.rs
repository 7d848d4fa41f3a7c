//! Keys for human readers: [`Schema::render`] and its strict and prefix
//! forms, and the declaration's `Display`.

use super::{Component, Format, Header, Order, Schema};
use crate::encoding::Reader;
use crate::error::DecodeError;
use std::fmt;

impl Schema {
    /// Renders an encoded key for a human reader: the salt as zero-padded
    /// decimal, then each component, separated by `|`, with `~` before
    /// descending ones. Strings are shown as they are (with `|`, `\` and
    /// control characters escaped), bytes as hex.
    ///
    /// Never fails: bytes that do not decode are shown as hex after a
    /// `|!` marker with the reason, so a corrupt key is still visible in a log.
    pub fn render(&self, key: &[u8]) -> String {
        rendered(key, self.try_render(key), || self.full_check(key))
    }

    /// Renders a key prefix (a split point, a scan bound): the complete
    /// components, then `…` where the prefix ends inside one.
    ///
    /// ```
    /// use keyschema::RowKey;
    ///
    /// #[derive(RowKey)]
    /// #[rowkey(then = metric, ts)]
    /// struct Point { metric: String, ts: u64 }
    ///
    /// let key = Point::get_key("cpu", 7);
    /// assert_eq!(Point::schema().render_prefix(&key[..6]), "cpu|…");
    /// assert_eq!(Point::schema().render_prefix(&key), "cpu|7");
    /// ```
    pub fn render_prefix(&self, key: &[u8]) -> String {
        rendered_prefix(self.try_render(key), || self.render(key))
    }

    /// Renders like [`render`](Self::render), but returns an error exactly
    /// when the key type's `decode` does (the same error): a key whose salt
    /// was changed, whose bucket disagrees with its field, or whose text is
    /// not canonical is refused, not rendered.
    ///
    /// ```
    /// use keyschema::RowKey;
    ///
    /// #[derive(RowKey, Debug)]
    /// #[rowkey(salt = hash(user_id) % 8, then = user_id, rev(ts))]
    /// struct Visit { user_id: String, ts: u64 }
    ///
    /// let mut key = Visit::get_key("u1", 7);
    /// assert_eq!(Visit::schema().render_strict(&key).as_deref(), Ok("6|u1|~7"));
    /// key[0] = (key[0] + 1) % 8; // another bucket: the salt no longer matches
    /// assert_eq!(Visit::schema().render_strict(&key).unwrap_err(), Visit::decode(&key).unwrap_err());
    /// assert!(Visit::schema().render(&key).starts_with("7|u1|~7 !(salt"), "{}", Visit::schema().render(&key));
    /// ```
    pub fn render_strict(&self, key: &[u8]) -> Result<String, DecodeError> {
        self.full_check(key)?;
        self.try_render(key).map_err(|(_, _, err)| err)
    }

    fn try_render(&self, key: &[u8]) -> Attempt {
        try_render(self.head(), self.components, key)
    }
}

/// A rendering, or what rendered before the bytes that do not decode, where
/// they start, and why.
pub(crate) type Attempt = Result<String, (String, usize, DecodeError)>;

/// One component as the renderer sees it: derived and dynamic schemas
/// render through the same loop.
pub(crate) trait RenderPart {
    /// The field name, for errors.
    fn part_name(&self) -> &'static str;
    /// `rev`: the bytes are inverted (shown with `~`).
    fn descending(&self) -> bool;
    /// `reverse`: the width of the byte-reversed integer (shown with `^`).
    fn reversed_width(&self) -> Option<usize>;
    /// Renders one ascending encoding from `input`.
    fn render_part(&self, input: &mut Reader<'_>, out: &mut String) -> Result<(), DecodeError>;
}

impl RenderPart for Component {
    fn part_name(&self) -> &'static str {
        self.name
    }
    fn descending(&self) -> bool {
        self.order == Order::Descending
    }
    fn reversed_width(&self) -> Option<usize> {
        self.reversed.then(|| self.fixed_width.unwrap_or(0))
    }
    fn render_part(&self, input: &mut Reader<'_>, out: &mut String) -> Result<(), DecodeError> {
        self.render_one(input, out)
    }
}

/// The rendering of `key` under `head` and `parts` (see [`Schema::render`]).
pub(crate) fn try_render<P: RenderPart>(head: Header<'_>, parts: &[P], key: &[u8]) -> Attempt {
    if head.sep.is_some() {
        // Text keys are their own rendering.
        return match std::str::from_utf8(key) {
            Ok(text) => Ok(text.to_string()),
            Err(e) => Err((
                String::from_utf8_lossy(&key[..e.valid_up_to()]).into_owned(),
                e.valid_up_to(),
                DecodeError::InvalidUtf8 {
                    component: "key",
                    offset: e.valid_up_to(),
                },
            )),
        };
    }
    let mut out = String::with_capacity(key.len() * 2);
    if !head.prefix.is_empty() {
        out.push_str(&head.prefix.escape_ascii().to_string().replace('|', "\\|"));
    }
    let bucket = head.bucket_of(key).map_err(|e| (out.clone(), 0, e))?;
    if let Some((buckets, _)) = head.salt {
        if !out.is_empty() {
            out.push('|');
        }
        let digits = (buckets - 1).max(1).ilog10() as usize + 1;
        out.push_str(&format!("{bucket:0digits$}"));
    }
    let mut pos = head.len();
    for (i, c) in parts.iter().enumerate() {
        if i > 0 || !out.is_empty() {
            out.push('|');
        }
        if c.descending() {
            out.push('~');
        }
        let mark = out.len();
        let rendered = match c.reversed_width() {
            Some(width) => {
                out.push('^');
                render_reversed(c, width, key, pos, &mut out)
            }
            None => {
                let mut reader = Reader::at(key, pos, c.descending(), c.part_name());
                c.render_part(&mut reader, &mut out)
                    .map(|()| reader.offset())
            }
        };
        let next = match rendered {
            Ok(next) => next,
            Err(err) => {
                out.truncate(mark);
                if out.ends_with('~') {
                    out.pop();
                }
                if out.ends_with('|') {
                    out.pop();
                }
                return Err((out, pos, err));
            }
        };
        pos = next;
    }
    if pos < key.len() {
        let err = DecodeError::TrailingBytes {
            offset: pos,
            count: key.len() - pos,
        };
        return Err((out, pos, err));
    }
    Ok(out)
}

/// What `render` prints for `key`, from a rendering attempt and the full
/// check: readable keys that `decode` refuses (a salt that does not match
/// the fields, a bucket that does not match its field) say so after the
/// text; unreadable ones show the rest as hex, with the reason.
pub(crate) fn rendered(
    key: &[u8],
    attempt: Result<String, (String, usize, DecodeError)>,
    check: impl FnOnce() -> Result<(), DecodeError>,
) -> String {
    match attempt {
        Ok(mut text) => {
            if let Err(err) = check() {
                text.push_str(&format!(" !({err})"));
            }
            text
        }
        Err((mut text, offset, err)) => {
            if !text.is_empty() {
                text.push('|');
            }
            text.push_str("!0x");
            for &b in key.get(offset..).unwrap_or_default() {
                crate::encoding::push_hex(&mut text, b);
            }
            text.push_str(&format!(" ({err})"));
            text
        }
    }
}

/// What `render_prefix` prints: the rendering, or what rendered and `…`
/// where the key ends inside a component; other damage as `render` shows it.
pub(crate) fn rendered_prefix(attempt: Attempt, render: impl FnOnce() -> String) -> String {
    match attempt {
        Ok(text) => text,
        Err((mut text, _, DecodeError::Truncated { .. })) => {
            if !text.is_empty() {
                text.push('|');
            }
            text.push('…');
            text
        }
        Err(_) => render(),
    }
}

/// Renders a `reverse(...)` component: its bytes put back in order first.
fn render_reversed<P: RenderPart>(
    c: &P,
    width: usize,
    key: &[u8],
    pos: usize,
    out: &mut String,
) -> Result<usize, DecodeError> {
    let Some(bytes) = pos.checked_add(width).and_then(|end| key.get(pos..end)) else {
        return Err(DecodeError::Truncated {
            component: c.part_name(),
            offset: pos,
            expected: "a reversed fixed-width integer",
        });
    };
    let ordered: Vec<u8> = bytes.iter().rev().copied().collect();
    let mut reader = Reader::at(&ordered, 0, false, c.part_name());
    c.render_part(&mut reader, out)?;
    Ok(pos + width)
}

impl fmt::Display for Schema {
    /// The declaration, with component types: `Event: salt = hash(user_id, site) % 8, then = user_id: String, ...`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.name)?;
        if let Format::Text { sep } = self.format {
            write!(f, "format = text(sep = {:?}), ", sep as char)?;
        }
        if !self.prefix.is_empty() {
            write!(f, "prefix = \"{}\", ", self.prefix.escape_ascii())?;
        }
        if let Some(s) = self.salt {
            if s.random {
                write!(f, "salt = random % {}, ", s.buckets)?;
            } else {
                write!(f, "salt = hash(")?;
                for (n, &i) in s.hashed.iter().enumerate() {
                    let sep = if n == 0 { "" } else { ", " };
                    let c = &self.components[i];
                    match c.bucket {
                        Some(width) => write!(f, "{sep}bucket({}, {width})", c.name)?,
                        None => write!(f, "{sep}{}", c.name)?,
                    }
                }
                write!(f, ") % {}, ", s.buckets)?;
            }
        }
        write!(f, "then = ")?;
        let partition = self.partition.unwrap_or(0);
        for (i, c) in self.components.iter().enumerate() {
            let sep = match (i, partition) {
                (0, 0) => "",
                (0, _) => "(",
                (i, p) if i == p => "), ",
                _ => ", ",
            };
            match (c.order, c.reversed) {
                _ if c.bucket.is_some() => {
                    let width = c.bucket.unwrap_or(1);
                    match c.order {
                        Order::Ascending => {
                            write!(f, "{sep}bucket({}, {width}): {}", c.name, c.type_name)?
                        }
                        Order::Descending => {
                            write!(f, "{sep}rev(bucket({}, {width})): {}", c.name, c.type_name)?
                        }
                    }
                }
                (_, true) => write!(f, "{sep}reverse({}: {})", c.name, c.type_name)?,
                (Order::Ascending, false) => write!(f, "{sep}{}: {}", c.name, c.type_name)?,
                (Order::Descending, false) => write!(f, "{sep}rev({}: {})", c.name, c.type_name)?,
            }
        }
        if partition >= self.components.len() && partition > 0 {
            write!(f, ")")?;
        }
        Ok(())
    }
}
