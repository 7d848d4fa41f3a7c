//! `chrono`'s `DateTime<Utc>` (`timestamp`), `NaiveDateTime` (`datetime`)
//! and `NaiveDate` (`date`), feature `chrono`: the layouts of `clock.rs`.
//! Every value of each type encodes (a leap second too); bytes outside the
//! type's range (years -262143..=262142) decode to an error.

use super::clock::{self, DATE_WIDTH, SECONDS_WIDTH};
use super::{Base, Encoding, KeyArg, KeyComponent, Reader, TextComponent, TextError, TextOrdered};
use crate::error::DecodeError;
use chrono::{DateTime, NaiveDate, NaiveDateTime, Utc};

const OUT_OF_RANGE: &str = "an instant outside chrono's range (years -262143..=262142)";
const DATE_OUT_OF_RANGE: &str = "a date outside chrono::NaiveDate's range (years -262143..=262142)";

/// `chrono::DateTime<Utc>` (feature `chrono`): encoding `timestamp`.
///
/// ```
/// use chrono::{DateTime, Utc};
/// use keyschema::{decode_value, encode_value};
///
/// let at = DateTime::<Utc>::from_timestamp(1_700_000_000, 5).unwrap();
/// let bytes = encode_value::<DateTime<Utc>>(at);
/// assert_eq!(bytes, [0x80, 0, 0, 0, 0x65, 0x53, 0xf1, 0, 0, 0, 0, 5]);
/// assert_eq!(decode_value::<DateTime<Utc>>(&bytes), Ok(at));
/// ```
impl KeyComponent for DateTime<Utc> {
    type Ref<'a> = DateTime<Utc>;
    const FIXED_WIDTH: Option<usize> = Some(SECONDS_WIDTH);
    const ENCODING: Option<Encoding> = Some(Encoding::of(Base::Timestamp));

    fn as_key_ref(&self) -> Self {
        *self
    }
    fn encode_key(value: Self, out: &mut Vec<u8>) {
        clock::encode_seconds(value.timestamp(), value.timestamp_subsec_nanos(), out);
    }
    fn decode_key(input: &mut Reader<'_>) -> Result<Self, DecodeError> {
        let (seconds, nanos) = clock::decode_seconds(input, "12 bytes of timestamp")?;
        DateTime::from_timestamp(seconds, nanos).ok_or_else(|| input.invalid_value(OUT_OF_RANGE))
    }
}

/// `chrono::NaiveDateTime` (feature `chrono`): encoding `datetime`, the
/// seconds counted as if the date-time were UTC.
///
/// ```
/// use chrono::NaiveDate;
/// use keyschema::{decode_value, encode_value};
///
/// let at = NaiveDate::from_ymd_opt(1969, 12, 31).unwrap().and_hms_opt(23, 59, 59).unwrap();
/// let bytes = encode_value::<chrono::NaiveDateTime>(at);
/// assert_eq!(bytes, [0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]);
/// assert_eq!(decode_value::<chrono::NaiveDateTime>(&bytes), Ok(at));
/// ```
impl KeyComponent for NaiveDateTime {
    type Ref<'a> = NaiveDateTime;
    const FIXED_WIDTH: Option<usize> = Some(SECONDS_WIDTH);
    const ENCODING: Option<Encoding> = Some(Encoding::of(Base::DateTime));

    fn as_key_ref(&self) -> Self {
        *self
    }
    fn encode_key(value: Self, out: &mut Vec<u8>) {
        let utc = value.and_utc();
        clock::encode_seconds(utc.timestamp(), utc.timestamp_subsec_nanos(), out);
    }
    fn decode_key(input: &mut Reader<'_>) -> Result<Self, DecodeError> {
        let (seconds, nanos) = clock::decode_seconds(input, "12 bytes of datetime")?;
        DateTime::from_timestamp(seconds, nanos)
            .map(|at| at.naive_utc())
            .ok_or_else(|| input.invalid_value(OUT_OF_RANGE))
    }
}

/// `chrono::NaiveDate` (feature `chrono`): encoding `date`, days since
/// 1970-01-01.
///
/// ```
/// use chrono::NaiveDate;
/// use keyschema::{decode_value, encode_value};
///
/// let day = NaiveDate::from_ymd_opt(1970, 1, 2).unwrap();
/// assert_eq!(encode_value::<NaiveDate>(day), [0x80, 0, 0, 1]);
/// assert_eq!(decode_value::<NaiveDate>(&[0x80, 0, 0, 1]), Ok(day));
/// ```
impl KeyComponent for NaiveDate {
    type Ref<'a> = NaiveDate;
    const FIXED_WIDTH: Option<usize> = Some(DATE_WIDTH);
    const ENCODING: Option<Encoding> = Some(Encoding::of(Base::Date));

    fn as_key_ref(&self) -> Self {
        *self
    }
    fn encode_key(value: Self, out: &mut Vec<u8>) {
        clock::encode_days(value.to_epoch_days(), out);
    }
    fn decode_key(input: &mut Reader<'_>) -> Result<Self, DecodeError> {
        let days = clock::decode_days(input)?;
        NaiveDate::from_epoch_days(days).ok_or_else(|| input.invalid_value(DATE_OUT_OF_RANGE))
    }
}

impl TextComponent for DateTime<Utc> {
    const TEXT_WIDTH: Option<usize> = Some(2 * SECONDS_WIDTH);
    fn encode_text(value: Self, out: &mut Vec<u8>, _sep: u8) {
        clock::seconds_text(value.timestamp(), value.timestamp_subsec_nanos(), out);
    }
    fn decode_text(text: &[u8], _sep: u8) -> Result<Self, TextError> {
        let (seconds, nanos) = clock::seconds_from_text(text)?;
        DateTime::from_timestamp(seconds, nanos).ok_or(OUT_OF_RANGE)
    }
}

impl TextComponent for NaiveDateTime {
    const TEXT_WIDTH: Option<usize> = Some(2 * SECONDS_WIDTH);
    fn encode_text(value: Self, out: &mut Vec<u8>, _sep: u8) {
        let utc = value.and_utc();
        clock::seconds_text(utc.timestamp(), utc.timestamp_subsec_nanos(), out);
    }
    fn decode_text(text: &[u8], _sep: u8) -> Result<Self, TextError> {
        let (seconds, nanos) = clock::seconds_from_text(text)?;
        DateTime::from_timestamp(seconds, nanos)
            .map(|at| at.naive_utc())
            .ok_or(OUT_OF_RANGE)
    }
}

impl TextComponent for NaiveDate {
    const TEXT_WIDTH: Option<usize> = Some(2 * DATE_WIDTH);
    fn encode_text(value: Self, out: &mut Vec<u8>, _sep: u8) {
        clock::days_text(value.to_epoch_days(), out);
    }
    fn decode_text(text: &[u8], _sep: u8) -> Result<Self, TextError> {
        NaiveDate::from_epoch_days(clock::days_from_text(text)?).ok_or(DATE_OUT_OF_RANGE)
    }
}

impl TextOrdered for DateTime<Utc> {}
impl TextOrdered for NaiveDateTime {}
impl TextOrdered for NaiveDate {}

arg_by_ref!(DateTime<Utc>, NaiveDateTime, NaiveDate);

impl KeyArg<DateTime<Utc>> for DateTime<chrono::FixedOffset> {
    /// An instant with another offset stands for the same instant in UTC.
    fn encode_arg(&self, out: &mut Vec<u8>) {
        DateTime::<Utc>::encode_key(self.to_utc(), out)
    }
}
