//! Instants (`timestamp`), civil date-times (`datetime`) and dates (`date`),
//! as plain integers: the byte layouts, checks, renderings and text forms
//! of `docs/ENCODING.md` that the `chrono` and `time` impls (`chrono.rs`,
//! `time.rs`) and the dynamic schemas share. No date crate is needed here.
//!
//! * `timestamp` and `datetime`: seconds since 1970-01-01T00:00:00 as an
//!   `i64` (sign bit flipped, big-endian), then the nanoseconds as a
//!   big-endian `u32`: 12 bytes. Nanoseconds from 1,000,000,000 to
//!   1,999,999,999 are a leap second (chrono's form: the second before it
//!   is `:59`, so `seconds mod 60 = 59`).
//! * `date`: days since 1970-01-01 as an `i32`, sign bit flipped,
//!   big-endian: 4 bytes.

use super::{KeyComponent, Reader, TextError};
use crate::error::DecodeError;
use std::fmt::Write as _;

/// Bytes of a `timestamp` or `datetime`.
pub(crate) const SECONDS_WIDTH: usize = 12;
/// Bytes of a `date`.
pub(crate) const DATE_WIDTH: usize = 4;
const NANOS_PER_SECOND: u32 = 1_000_000_000;
const SECONDS_PER_DAY: i64 = 86_400;

/// Appends seconds and nanoseconds (already checked by their type).
#[inline]
pub(crate) fn encode_seconds(seconds: i64, nanos: u32, out: &mut Vec<u8>) {
    i64::encode_key(seconds, out);
    out.extend_from_slice(&nanos.to_be_bytes());
}

/// Why seconds and nanoseconds are not one value of the encoding, if not.
pub(crate) fn check_seconds(seconds: i64, nanos: u32) -> Result<(), &'static str> {
    if nanos >= 2 * NANOS_PER_SECOND {
        return Err("nanoseconds above 1999999999");
    }
    if nanos >= NANOS_PER_SECOND && seconds.rem_euclid(60) != 59 {
        return Err(
            "a leap second (nanoseconds of 1000000000 or more) after a second other than :59",
        );
    }
    Ok(())
}

/// Reads 12 bytes of seconds and nanoseconds, checked (`what` names the
/// encoding for a truncated key: `"12 bytes of timestamp"`).
pub(crate) fn decode_seconds(
    input: &mut Reader<'_>,
    what: &'static str,
) -> Result<(i64, u32), DecodeError> {
    let start = input.offset();
    let bytes: [u8; SECONDS_WIDTH] = input.read_array(what)?;
    let mut reader = Reader::new(&bytes);
    let seconds = i64::decode_key(&mut reader).map_err(|_| input.truncated(what))?;
    let nanos = u32::from_be_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]);
    check_seconds(seconds, nanos).map_err(|reason| DecodeError::InvalidValue {
        component: input.component(),
        offset: start + 8,
        reason,
    })?;
    Ok((seconds, nanos))
}

/// Appends a day number.
#[inline]
pub(crate) fn encode_days(days: i32, out: &mut Vec<u8>) {
    i32::encode_key(days, out);
}

/// Reads 4 bytes of a day number (every `i32` is a date).
pub(crate) fn decode_days(input: &mut Reader<'_>) -> Result<i32, DecodeError> {
    let flipped = u32::from_be_bytes(input.read_array("4 bytes of date")?);
    Ok((flipped ^ (1 << 31)) as i32)
}

/// The proleptic Gregorian date of a day number (days since 1970-01-01):
/// year, month 1..=12, day 1..=31 (Howard Hinnant's `civil_from_days`).
pub(crate) fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// The day number of a proleptic Gregorian date (`days_from_civil`), or
/// `None` when the month or day does not exist or the count overflows.
pub(crate) fn days_from_civil(year: i64, month: u32, day: u32) -> Option<i64> {
    if !(1..=12).contains(&month) || day == 0 || day > days_in_month(year, month) {
        return None;
    }
    let y = year.checked_sub(i64::from(month <= 2))?;
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let m = i64::from(month);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era.checked_mul(146_097)?
        .checked_add(doe)?
        .checked_sub(719_468)
}

fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        2 if year.rem_euclid(4) == 0
            && (year.rem_euclid(100) != 0 || year.rem_euclid(400) == 0) =>
        {
            29
        }
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// `YYYY-MM-DD`; a year outside 0..=9999 with its sign and at least four
/// digits (`-0001-12-31`, `+10000-01-01`).
fn push_date(out: &mut String, days: i64) {
    let (year, month, day) = civil_from_days(days);
    if (0..=9999).contains(&year) {
        let _ = write!(out, "{year:04}");
    } else {
        let sign = if year < 0 { '-' } else { '+' };
        let _ = write!(out, "{sign}{:04}", year.unsigned_abs());
    }
    let _ = write!(out, "-{month:02}-{day:02}");
}

/// A date's rendering, `YYYY-MM-DD`.
pub(crate) fn render_date(out: &mut String, days: i32) {
    push_date(out, i64::from(days));
}

/// `YYYY-MM-DDTHH:MM:SS`, then `.` and the fraction without trailing zeros
/// when there is one; a leap second as second `60`. `zone` follows (`Z` for
/// an instant, nothing for a civil date-time).
pub(crate) fn render_seconds(out: &mut String, seconds: i64, nanos: u32, zone: &str) {
    push_date(out, seconds.div_euclid(SECONDS_PER_DAY));
    let of_day = seconds.rem_euclid(SECONDS_PER_DAY);
    let (leap, nanos) = if nanos >= NANOS_PER_SECOND {
        (1, nanos - NANOS_PER_SECOND)
    } else {
        (0, nanos)
    };
    let _ = write!(
        out,
        "T{:02}:{:02}:{:02}",
        of_day / 3600,
        of_day / 60 % 60,
        of_day % 60 + leap
    );
    if nanos > 0 {
        let fraction = format!("{nanos:09}");
        out.push('.');
        out.push_str(fraction.trim_end_matches('0'));
    }
    out.push_str(zone);
}

fn digits(text: &str, n: usize) -> Result<u32, &'static str> {
    if text.len() != n || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err("expected YYYY-MM-DD, with HH:MM:SS after a T for a time");
    }
    text.parse().map_err(|_| "number out of range")
}

/// Reads what [`push_date`] writes (a day number of any size).
fn parse_date(text: &str) -> Result<i64, &'static str> {
    let bad = "expected YYYY-MM-DD (a year outside 0000..=9999 with its sign: -0001, +10000)";
    let (sign, rest) = match text.as_bytes().first() {
        Some(b'-') => (-1, &text[1..]),
        Some(b'+') => (1, &text[1..]),
        _ => (0, text),
    };
    let mut parts = rest.rsplitn(3, '-');
    let (Some(day), Some(month), Some(year)) = (parts.next(), parts.next(), parts.next()) else {
        return Err(bad);
    };
    if year.len() < 4 || !year.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad);
    }
    let magnitude: i64 = year.parse().map_err(|_| "year out of range")?;
    // One form per date: four digits without a sign inside 0..=9999, a sign outside.
    let canonical = match sign {
        0 => year.len() == 4,
        1 => magnitude > 9999 && !year.starts_with('0'),
        _ => magnitude > 0 && (year.len() == 4 || !year.starts_with('0')),
    };
    if !canonical {
        return Err("a year inside 0000..=9999 is four digits without a sign; outside, a sign and no leading zeros beyond four digits");
    }
    let year = if sign < 0 { -magnitude } else { magnitude };
    days_from_civil(year, digits(month, 2)?, digits(day, 2)?).ok_or("no such date")
}

/// Reads a rendered date (`2024-01-05`).
pub(crate) fn parse_days(text: &str) -> Result<i32, &'static str> {
    i32::try_from(parse_date(text)?).map_err(|_| "date outside the range of the date encoding")
}

/// Reads a rendered `timestamp` (`zone` `"Z"`) or `datetime` (`""`).
pub(crate) fn parse_seconds(text: &str, zone: &str) -> Result<(i64, u32), &'static str> {
    let body = if zone.is_empty() {
        if text.ends_with('Z') {
            return Err("a datetime has no zone: expected YYYY-MM-DDTHH:MM:SS[.fraction]");
        }
        text
    } else {
        text.strip_suffix(zone)
            .ok_or("expected YYYY-MM-DDTHH:MM:SS[.fraction]Z (UTC)")?
    };
    let (date, time) = body
        .split_once('T')
        .ok_or("expected a T between the date and the time")?;
    let days = parse_date(date)?;
    let (clock, fraction) = match time.split_once('.') {
        Some((clock, fraction)) => (clock, Some(fraction)),
        None => (time, None),
    };
    let mut hms = clock.split(':');
    let (Some(h), Some(m), Some(s), None) = (hms.next(), hms.next(), hms.next(), hms.next()) else {
        return Err("expected HH:MM:SS");
    };
    let (h, m, s) = (digits(h, 2)?, digits(m, 2)?, digits(s, 2)?);
    if h > 23 || m > 59 || s > 60 {
        return Err("hour, minute or second out of range");
    }
    let mut nanos = match fraction {
        None => 0,
        Some(f) if (1..=9).contains(&f.len()) && !f.ends_with('0') => {
            digits(f, f.len())? * 10u32.pow(9 - f.len() as u32)
        }
        Some(_) => return Err("a fraction is 1 to 9 digits without trailing zeros"),
    };
    let (s, leap) = if s == 60 { (59, true) } else { (s, false) };
    if leap {
        nanos += NANOS_PER_SECOND;
    }
    let seconds =
        i128::from(days) * i128::from(SECONDS_PER_DAY) + i128::from(h * 3600 + m * 60 + s);
    let seconds =
        i64::try_from(seconds).map_err(|_| "date-time outside the range of the encoding")?;
    check_seconds(seconds, nanos)?;
    Ok((seconds, nanos))
}

/// The text form of a fixed-width binary encoding: its bytes as lowercase
/// hex (as floats do), so text order is byte order is value order.
pub(crate) fn push_text_hex(binary: &[u8], out: &mut Vec<u8>) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    for &b in binary {
        out.push(DIGITS[usize::from(b >> 4)]);
        out.push(DIGITS[usize::from(b & 0xF)]);
    }
}

/// Reads lowercase hex of exactly `N` bytes.
pub(crate) fn text_hex<const N: usize>(text: &[u8]) -> Result<[u8; N], TextError> {
    if text.len() != 2 * N {
        return Err("wrong number of hex digits");
    }
    let mut out = [0u8; N];
    for (i, pair) in text.chunks_exact(2).enumerate() {
        let nibble = |c: u8| match c {
            b'0'..=b'9' => Ok(c - b'0'),
            b'a'..=b'f' => Ok(c - b'a' + 10),
            _ => Err("expected lowercase hex digits"),
        };
        out[i] = nibble(pair[0])? << 4 | nibble(pair[1])?;
    }
    Ok(out)
}

/// Seconds and nanoseconds from their text form (24 hex digits), checked.
pub(crate) fn seconds_from_text(text: &[u8]) -> Result<(i64, u32), TextError> {
    let bytes: [u8; SECONDS_WIDTH] = text_hex(text)?;
    let mut reader = Reader::new(&bytes);
    decode_seconds(&mut reader, "12 bytes").map_err(|_| "not a valid time (nanoseconds)")
}

/// A day number from its text form (8 hex digits).
pub(crate) fn days_from_text(text: &[u8]) -> Result<i32, TextError> {
    let bytes: [u8; DATE_WIDTH] = text_hex(text)?;
    Ok((u32::from_be_bytes(bytes) ^ (1 << 31)) as i32)
}

/// The text form of seconds and nanoseconds.
pub(crate) fn seconds_text(seconds: i64, nanos: u32, out: &mut Vec<u8>) {
    let mut binary = Vec::with_capacity(SECONDS_WIDTH);
    encode_seconds(seconds, nanos, &mut binary);
    push_text_hex(&binary, out);
}

/// The text form of a day number.
pub(crate) fn days_text(days: i32, out: &mut Vec<u8>) {
    let mut binary = Vec::with_capacity(DATE_WIDTH);
    encode_days(days, &mut binary);
    push_text_hex(&binary, out);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rendered(seconds: i64, nanos: u32) -> String {
        let mut out = String::new();
        render_seconds(&mut out, seconds, nanos, "Z");
        out
    }

    #[test]
    fn civil_dates_round_trip_over_the_whole_range() {
        for days in [
            i64::from(i32::MIN),
            -719_529,
            -719_528,
            -1,
            0,
            1,
            11_016,
            2_932_896,
            i64::from(i32::MAX),
        ] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), Some(days), "{days}");
        }
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
        assert_eq!(days_from_civil(2000, 2, 29), Some(11_016));
        assert_eq!(days_from_civil(1900, 2, 29), None);
    }

    #[test]
    fn renders_parse_back() {
        for (seconds, nanos, text) in [
            (0, 0, "1970-01-01T00:00:00Z"),
            (1_700_000_000, 500_000_000, "2023-11-14T22:13:20.5Z"),
            (-1, 999_999_999, "1969-12-31T23:59:59.999999999Z"),
            (
                1_483_228_799,
                1_000_000_001,
                "2016-12-31T23:59:60.000000001Z",
            ),
            (-62_198_755_200, 0, "-0001-01-01T00:00:00Z"),
            (253_402_300_800, 0, "+10000-01-01T00:00:00Z"),
        ] {
            assert_eq!(rendered(seconds, nanos), text);
            assert_eq!(parse_seconds(text, "Z"), Ok((seconds, nanos)));
        }
        let extremes = [(i64::MIN, 0), (i64::MAX, 999_999_999)];
        for (seconds, nanos) in extremes {
            let text = rendered(seconds, nanos);
            assert_eq!(parse_seconds(&text, "Z"), Ok((seconds, nanos)), "{text}");
        }
        for bad in [
            "1970-01-01T00:00:00",
            "1970-01-01T00:00:00.50Z",
            "1970-1-01T00:00:00Z",
            "+1970-01-01T00:00:00Z",
            "1970-01-01T00:00:61Z",
            "1970-02-30T00:00:00Z",
            "1970-01-01T24:00:00Z",
        ] {
            assert!(parse_seconds(bad, "Z").is_err(), "{bad}");
        }
        assert_eq!(parse_days("-0001-12-31"), Ok(-719_529));
        assert!(parse_days("-0000-01-01").is_err());
    }
}
