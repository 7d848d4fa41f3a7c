//! `time`'s `OffsetDateTime` (`timestamp`), `PrimitiveDateTime`
//! (`datetime`) and `Date` (`date`), feature `time`: the layouts of
//! `clock.rs`. Every value of each type encodes; an `OffsetDateTime` keeps
//! its instant, not its offset (it decodes at UTC). Bytes outside the
//! type's range (years -9999..=9999, or ±999,999 with time's `large-dates`)
//! and leap seconds, which `time` does not hold, decode to an error.

use super::clock::{self, DATE_WIDTH, SECONDS_WIDTH};
use super::{Base, Encoding, KeyComponent, Reader, TextComponent, TextError, TextOrdered};
use crate::error::DecodeError;
use time::{Date, OffsetDateTime, PrimitiveDateTime};

/// The Julian day of 1970-01-01.
const UNIX_EPOCH_JULIAN_DAY: i32 = 2_440_588;

/// The instant of `seconds` and `nanos` at UTC, or why `time` cannot hold it.
fn instant(seconds: i64, nanos: u32) -> Result<OffsetDateTime, &'static str> {
    if nanos >= 1_000_000_000 {
        return Err("a leap second, which the time crate does not represent");
    }
    OffsetDateTime::from_unix_timestamp(seconds)
        .and_then(|at| at.replace_nanosecond(nanos))
        .map_err(|_| "an instant outside the time crate's range (years -9999..=9999 without its large-dates feature)")
}

fn date(days: i32) -> Result<Date, &'static str> {
    days.checked_add(UNIX_EPOCH_JULIAN_DAY)
        .and_then(|julian| Date::from_julian_day(julian).ok())
        .ok_or("a date outside time::Date's range (years -9999..=9999 without its large-dates feature)")
}

fn days(value: Date) -> i32 {
    // Julian days of time's dates lie far inside i32 (±999,999 years at most).
    value.to_julian_day() - UNIX_EPOCH_JULIAN_DAY
}

/// `time::OffsetDateTime` (feature `time`): encoding `timestamp`, the
/// instant. The offset is not kept: a decoded value is at UTC (equal to
/// the original, as `OffsetDateTime` compares instants).
///
/// ```
/// use keyschema::{decode_value, encode_value};
/// use time::{OffsetDateTime, UtcOffset};
///
/// let at = OffsetDateTime::from_unix_timestamp(1_700_000_000).unwrap();
/// let there = at.to_offset(UtcOffset::from_hms(2, 0, 0).unwrap());
/// let bytes = encode_value::<OffsetDateTime>(there);
/// assert_eq!(bytes, encode_value::<OffsetDateTime>(at));
/// let back = decode_value::<OffsetDateTime>(&bytes).unwrap();
/// assert_eq!(back.offset(), UtcOffset::UTC);
/// assert_eq!(back, there);
/// ```
impl KeyComponent for OffsetDateTime {
    type Ref<'a> = OffsetDateTime;
    const FIXED_WIDTH: Option<usize> = Some(SECONDS_WIDTH);
    const ENCODING: Option<Encoding> = Some(Encoding::of(Base::Timestamp));

    fn as_key_ref(&self) -> Self {
        *self
    }
    fn encode_key(value: Self, out: &mut Vec<u8>) {
        clock::encode_seconds(value.unix_timestamp(), value.nanosecond(), out);
    }
    fn decode_key(input: &mut Reader<'_>) -> Result<Self, DecodeError> {
        let (seconds, nanos) = clock::decode_seconds(input, "12 bytes of timestamp")?;
        instant(seconds, nanos).map_err(|reason| input.invalid_value(reason))
    }
}

/// `time::PrimitiveDateTime` (feature `time`): encoding `datetime`, the
/// seconds counted as if the date-time were UTC.
///
/// ```
/// use keyschema::{decode_value, encode_value};
/// use time::{Date, Month, PrimitiveDateTime, Time};
///
/// let at = PrimitiveDateTime::new(
///     Date::from_calendar_date(1970, Month::January, 1).unwrap(),
///     Time::from_hms_nano(0, 0, 1, 7).unwrap(),
/// );
/// let bytes = encode_value::<PrimitiveDateTime>(at);
/// assert_eq!(bytes, [0x80, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 7]);
/// assert_eq!(decode_value::<PrimitiveDateTime>(&bytes), Ok(at));
/// ```
impl KeyComponent for PrimitiveDateTime {
    type Ref<'a> = PrimitiveDateTime;
    const FIXED_WIDTH: Option<usize> = Some(SECONDS_WIDTH);
    const ENCODING: Option<Encoding> = Some(Encoding::of(Base::DateTime));

    fn as_key_ref(&self) -> Self {
        *self
    }
    fn encode_key(value: Self, out: &mut Vec<u8>) {
        clock::encode_seconds(value.assume_utc().unix_timestamp(), value.nanosecond(), out);
    }
    fn decode_key(input: &mut Reader<'_>) -> Result<Self, DecodeError> {
        let (seconds, nanos) = clock::decode_seconds(input, "12 bytes of datetime")?;
        instant(seconds, nanos)
            .map(|at| PrimitiveDateTime::new(at.date(), at.time()))
            .map_err(|reason| input.invalid_value(reason))
    }
}

/// `time::Date` (feature `time`): encoding `date`, days since 1970-01-01.
///
/// ```
/// use keyschema::{decode_value, encode_value};
/// use time::{Date, Month};
///
/// let day = Date::from_calendar_date(1969, Month::December, 31).unwrap();
/// assert_eq!(encode_value::<Date>(day), [0x7f, 0xff, 0xff, 0xff]);
/// assert_eq!(decode_value::<Date>(&[0x7f, 0xff, 0xff, 0xff]), Ok(day));
/// ```
impl KeyComponent for Date {
    type Ref<'a> = Date;
    const FIXED_WIDTH: Option<usize> = Some(DATE_WIDTH);
    const ENCODING: Option<Encoding> = Some(Encoding::of(Base::Date));

    fn as_key_ref(&self) -> Self {
        *self
    }
    fn encode_key(value: Self, out: &mut Vec<u8>) {
        clock::encode_days(days(value), out);
    }
    fn decode_key(input: &mut Reader<'_>) -> Result<Self, DecodeError> {
        let days = clock::decode_days(input)?;
        date(days).map_err(|reason| input.invalid_value(reason))
    }
}

impl TextComponent for OffsetDateTime {
    const TEXT_WIDTH: Option<usize> = Some(2 * SECONDS_WIDTH);
    fn encode_text(value: Self, out: &mut Vec<u8>, _sep: u8) {
        clock::seconds_text(value.unix_timestamp(), value.nanosecond(), out);
    }
    fn decode_text(text: &[u8], _sep: u8) -> Result<Self, TextError> {
        let (seconds, nanos) = clock::seconds_from_text(text)?;
        instant(seconds, nanos)
    }
}

impl TextComponent for PrimitiveDateTime {
    const TEXT_WIDTH: Option<usize> = Some(2 * SECONDS_WIDTH);
    fn encode_text(value: Self, out: &mut Vec<u8>, _sep: u8) {
        clock::seconds_text(value.assume_utc().unix_timestamp(), value.nanosecond(), out);
    }
    fn decode_text(text: &[u8], _sep: u8) -> Result<Self, TextError> {
        let (seconds, nanos) = clock::seconds_from_text(text)?;
        instant(seconds, nanos).map(|at| PrimitiveDateTime::new(at.date(), at.time()))
    }
}

impl TextComponent for Date {
    const TEXT_WIDTH: Option<usize> = Some(2 * DATE_WIDTH);
    fn encode_text(value: Self, out: &mut Vec<u8>, _sep: u8) {
        clock::days_text(days(value), out);
    }
    fn decode_text(text: &[u8], _sep: u8) -> Result<Self, TextError> {
        date(clock::days_from_text(text)?)
    }
}

impl TextOrdered for OffsetDateTime {}
impl TextOrdered for PrimitiveDateTime {}
impl TextOrdered for Date {}

arg_by_ref!(OffsetDateTime, PrimitiveDateTime, Date);
