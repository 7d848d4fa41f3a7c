//! Key fields read from JSON ([`DynSchema::fields_from_json`]): the one
//! form of each value of `docs/ENCODING.md`, "Values as JSON", and no
//! other.
//!
//! The reader is typed: it reads each member as its field's encoding
//! (so an integer of any size is read from its digits, never through a
//! float) and stops at the first thing that is not that encoding's form,
//! saying what it found. The reasons are the words the Python package's
//! `Schema.fields_from_json` uses; `docs/vectors.json` (`json_value_refusals`)
//! holds both to them.

use super::{DynSchema, Value, ValueError};
use crate::encoding::{Base, Encoding};

impl DynSchema {
    /// The key's fields, in key order, from a JSON object of them by name
    /// (`{"user_id": "u1", "site": "s", "timestamp": 1700000000}`, as
    /// `keyschema decode --json` and the vectors write them), each value in
    /// its one JSON form (`docs/ENCODING.md`, "Values as JSON").
    ///
    /// Any other form is refused rather than guessed at: an integer written
    /// `7.0` or beyond its type, an uppercase uuid, a time in another form
    /// than its rendering, a member that is no field, a field given twice
    /// or missing. The members are read in the order written, and the
    /// first refusal is the error; then each missing field, in key order.
    ///
    /// ```
    /// use keyschema::dynamic::{DynSchema, Value};
    /// use keyschema::RowKey;
    ///
    /// #[derive(RowKey)]
    /// #[rowkey(then = user_id, rev(timestamp))]
    /// struct Event { user_id: String, timestamp: u64 }
    ///
    /// let schema = DynSchema::from_json(&Event::schema().to_json())?;
    /// let values = schema.fields_from_json(r#"{"user_id": "u1", "timestamp": 7}"#)?;
    /// assert_eq!(values, [Value::from("u1"), Value::from(7u64)]);
    /// let err = schema.fields_from_json(r#"{"user_id": "u1", "timestamp": 7.0}"#).unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "field `timestamp` is u64: 7.0 is not an integer: write it without fraction or exponent"
    /// );
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn fields_from_json(&self, text: &str) -> Result<Vec<Value>, ValueError> {
        let mut p = Parser { text, pos: 0 };
        let not_json = |reason: String| ValueError::JsonText { reason };
        p.skip_ws();
        if p.peek() != Some(b'{') {
            return Err(not_json(format!(
                "expected an object of the fields by name, found {}",
                p.kind()
            )));
        }
        p.pos += 1;
        let mut values: Vec<Option<Value>> = vec![None; self.fields().len()];
        let mut first = true;
        loop {
            p.skip_ws();
            if first && p.peek() == Some(b'}') {
                p.pos += 1;
                break;
            }
            let name = p.string().map_err(not_json)?;
            let (index, field) = self.field(&name)?;
            if values[index].is_some() {
                return Err(ValueError::Field {
                    field: name,
                    what: "given twice",
                });
            }
            p.expect(b':').map_err(not_json)?;
            let value = p.value(field.encoding()).map_err(|r| match r {
                Refusal::Form(reason) => ValueError::Json {
                    field: field.name().to_string(),
                    expected: field.encoding().to_string(),
                    reason,
                },
                Refusal::Syntax(reason) => not_json(reason),
            })?;
            values[index] = Some(value);
            first = false;
            p.skip_ws();
            match p.peek() {
                Some(b',') => p.pos += 1,
                Some(b'}') => {
                    p.pos += 1;
                    break;
                }
                _ => return Err(not_json(p.syntax("`,` or `}`"))),
            }
        }
        p.skip_ws();
        if p.pos < text.len() {
            return Err(not_json(p.syntax("nothing after the object")));
        }
        values
            .into_iter()
            .zip(self.fields())
            .map(|(v, f)| {
                v.ok_or(ValueError::Field {
                    field: f.name().to_string(),
                    what: "missing",
                })
            })
            .collect()
    }
}

/// Why a value was not read: not its encoding's form (with the reason a
/// reader words alike), or not JSON at all (the parser's own words).
enum Refusal {
    Form(String),
    Syntax(String),
}

impl From<String> for Refusal {
    fn from(s: String) -> Self {
        Refusal::Syntax(s)
    }
}

fn form<T>(reason: impl Into<String>) -> Result<T, Refusal> {
    Err(Refusal::Form(reason.into()))
}

struct Parser<'a> {
    text: &'a str,
    pos: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn syntax(&self, expected: &str) -> String {
        format!("not JSON: expected {expected} at byte {}", self.pos)
    }

    fn expect(&mut self, c: u8) -> Result<(), String> {
        self.skip_ws();
        if self.peek() != Some(c) {
            return Err(self.syntax(&format!("`{}`", c as char)));
        }
        self.pos += 1;
        Ok(())
    }

    /// The kind of JSON value that begins here, for a refusal.
    fn kind(&self) -> &'static str {
        match self.peek() {
            Some(b'"') => "a string",
            Some(b'-' | b'0'..=b'9') => "a number",
            Some(b't' | b'f') => "a boolean",
            Some(b'n') => "null",
            Some(b'{') => "an object",
            Some(b'[') => "an array",
            _ => "no JSON value",
        }
    }

    fn literal(&mut self, word: &str) -> Result<(), String> {
        if self.text[self.pos..].starts_with(word) {
            self.pos += word.len();
            Ok(())
        } else {
            Err(self.syntax(&format!("`{word}`")))
        }
    }

    /// A JSON string, unescaped (the escapes and the control characters
    /// JSON refuses are serde_json's to judge).
    fn string(&mut self) -> Result<String, String> {
        if self.peek() != Some(b'"') {
            return Err(self.syntax("a string"));
        }
        let bytes = self.text.as_bytes();
        let start = self.pos;
        let mut i = start + 1;
        while i < bytes.len() && bytes[i] != b'"' {
            i += if bytes[i] == b'\\' { 2 } else { 1 };
        }
        if i >= bytes.len() {
            return Err(self.syntax("the end of the string"));
        }
        let raw = &self.text[start..=i];
        let s = serde_json::from_str::<String>(raw).map_err(|e| format!("not JSON: {e}"))?;
        self.pos = i + 1;
        Ok(s)
    }

    /// A JSON number's text, as written.
    fn number(&mut self) -> Result<&str, String> {
        let bytes = self.text.as_bytes();
        let start = self.pos;
        let mut i = start;
        let digits = |i: &mut usize| {
            let from = *i;
            while *i < bytes.len() && bytes[*i].is_ascii_digit() {
                *i += 1;
            }
            *i > from
        };
        if bytes.get(i) == Some(&b'-') {
            i += 1;
        }
        let int_start = i;
        let ok = digits(&mut i) && (bytes[int_start] != b'0' || i == int_start + 1);
        let ok =
            ok && (bytes.get(i) != Some(&b'.') || {
                i += 1;
                digits(&mut i)
            }) && (!matches!(bytes.get(i), Some(b'e' | b'E')) || {
                i += 1;
                if matches!(bytes.get(i), Some(b'+' | b'-')) {
                    i += 1;
                }
                digits(&mut i)
            });
        if !ok {
            return Err(self.syntax("a number"));
        }
        self.pos = i;
        Ok(&self.text[start..i])
    }

    /// A value of `enc` in its one JSON form.
    fn value(&mut self, enc: Encoding) -> Result<Value, Refusal> {
        self.skip_ws();
        let Some(inner) = enc.inner() else {
            return self.base(enc);
        };
        match self.peek() {
            Some(b'n') => {
                self.literal("null")?;
                Ok(Value::Option(None))
            }
            Some(b'{') => {
                self.pos += 1;
                self.skip_ws();
                let only = "an object is {\"some\": v}, with no other member";
                if self.peek() != Some(b'"') || self.string()? != "some" {
                    return form(only);
                }
                self.expect(b':')?;
                self.skip_ws();
                if !matches!(self.peek(), Some(b'n' | b'{')) {
                    return form("{\"some\": v} is written only when v is null or itself {\"some\": ...}; write v alone");
                }
                let v = self.value(inner)?;
                self.skip_ws();
                if self.peek() != Some(b'}') {
                    return form(only);
                }
                self.pos += 1;
                Ok(Value::Option(Some(Box::new(v))))
            }
            _ => Ok(Value::Option(Some(Box::new(self.value(inner)?)))),
        }
    }

    fn base(&mut self, enc: Encoding) -> Result<Value, Refusal> {
        let base = enc.base();
        let wanted = match base {
            b if b.is_integer() => "a JSON integer",
            Base::F32 | Base::F64 => "a JSON number or one of \"inf\", \"-inf\", \"NaN\", \"-NaN\"",
            Base::Bool => "true or false",
            Base::Bytes | Base::Array(_) => "a string of lowercase hex",
            _ => "a string",
        };
        let found = self.kind();
        let right_kind = match base {
            b if b.is_integer() => found == "a number",
            Base::F32 | Base::F64 => found == "a number" || found == "a string",
            Base::Bool => found == "a boolean",
            _ => found == "a string",
        };
        if !right_kind {
            if found == "no JSON value" {
                return Err(Refusal::Syntax(self.syntax("a value")));
            }
            return form(format!("expected {wanted}, found {found}"));
        }
        match base {
            Base::Bool if self.peek() == Some(b't') => {
                self.literal("true")?;
                Ok(Value::Bool(true))
            }
            Base::Bool => {
                self.literal("false")?;
                Ok(Value::Bool(false))
            }
            b if b.is_integer() => integer(enc, self.number()?),
            Base::F32 | Base::F64 if found == "a number" => float(base, self.number()?),
            _ => {
                let s = self.string()?;
                text_value(enc, &s)
            }
        }
    }
}

/// An integer of `enc` from its digits, within its type.
fn integer(enc: Encoding, raw: &str) -> Result<Value, Refusal> {
    if raw.contains(['.', 'e', 'E']) {
        return form(format!(
            "{raw} is not an integer: write it without fraction or exponent"
        ));
    }
    let (lo, hi) = range(enc.base());
    let within = match raw.strip_prefix('-') {
        // Digits only, so a failed parse is a number beyond 128 bits.
        Some(digits) => digits.parse::<u128>().is_ok_and(|m| m <= lo),
        None => raw.parse::<u128>().is_ok_and(|v| v <= hi),
    };
    if !within {
        let lo = if lo == 0 {
            "0".to_string()
        } else {
            format!("-{lo}")
        };
        return form(format!("{raw} is outside the range of {enc}, {lo}..={hi}"));
    }
    // "-0" is 0.
    let digits = if raw
        .trim_start_matches('-')
        .trim_start_matches('0')
        .is_empty()
    {
        "0"
    } else {
        raw
    };
    Value::parse(enc, digits).or_else(form)
}

/// The magnitude of an integer type's least value (0 when unsigned) and
/// its greatest value.
fn range(base: Base) -> (u128, u128) {
    match base {
        Base::U8 => (0, u8::MAX.into()),
        Base::U16 => (0, u16::MAX.into()),
        Base::U32 => (0, u32::MAX.into()),
        Base::U64 => (0, u64::MAX.into()),
        Base::U128 => (0, u128::MAX),
        Base::I8 => (128, i8::MAX as u128),
        Base::I16 => (1 << 15, i16::MAX as u128),
        Base::I32 => (1 << 31, i32::MAX as u128),
        Base::I64 => (1 << 63, i64::MAX as u128),
        _ => (1 << 127, i128::MAX as u128),
    }
}

/// A float from a JSON number (an integer reads as the same float);
/// a number beyond the type's range is refused, not read as infinity.
fn float(base: Base, raw: &str) -> Result<Value, Refusal> {
    let v: f64 = raw.parse().or_else(|_| form("not a number"))?;
    let beyond = |name: &str| form(format!("{raw} is beyond the range of {name}"));
    if base == Base::F32 {
        let single = v as f32;
        if v.is_infinite() || single.is_infinite() {
            return beyond("f32");
        }
        return Ok(Value::F32(single));
    }
    if v.is_infinite() {
        return beyond("f64");
    }
    Ok(Value::F64(v))
}

/// A value written as a JSON string: text, a char, hex bytes, a float's
/// special value, or a rendering (uuid, times, enum) exactly as rendered.
fn text_value(enc: Encoding, s: &str) -> Result<Value, Refusal> {
    match enc.base() {
        Base::String => Ok(Value::String(s.to_string())),
        Base::Char => {
            let mut chars = s.chars();
            match (chars.next(), chars.next()) {
                (Some(c), None) => Ok(Value::Char(c)),
                _ => form(format!(
                    "expected one character, found {}",
                    s.chars().count()
                )),
            }
        }
        Base::F32 | Base::F64 => {
            let v = match s {
                "inf" => f64::INFINITY,
                "-inf" => f64::NEG_INFINITY,
                "NaN" => f64::NAN,
                "-NaN" => -f64::NAN,
                _ => {
                    return form("a float's string is one of \"inf\", \"-inf\", \"NaN\", \"-NaN\"")
                }
            };
            Ok(match enc.base() {
                Base::F32 => Value::F32(v as f32),
                _ => Value::F64(v),
            })
        }
        Base::Bytes | Base::Array(_) => {
            let b = s.as_bytes();
            if !b.len().is_multiple_of(2)
                || !b.iter().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f'))
            {
                return form("expected lowercase hex, two digits per byte");
            }
            if let Base::Array(n) = enc.base() {
                if b.len() != 2 * n {
                    return form(format!("expected {n} bytes, found {}", b.len() / 2));
                }
            }
            Value::parse(enc, s).or_else(form)
        }
        _ => {
            let v = Value::parse(enc, s).or_else(form)?;
            let rendered = v.to_text();
            if rendered != s {
                return form(format!(
                    "not the value's one rendering, which is {rendered}"
                ));
            }
            Ok(v)
        }
    }
}
