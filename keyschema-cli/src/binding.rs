//! A scan's binding on the command line: `field=value` for leading key
//! fields, then optionally `field=LO..HI` on the next (`ranges`, `scan`).

use crate::values;
use keyschema::dynamic::{DynField, DynSchema, Value, ValueRange};
use std::ops::Bound;

/// The equal-bound values and the range of `args`, in key order.
pub fn binding(
    schema: &DynSchema,
    args: &[String],
) -> Result<(Vec<Value>, Option<ValueRange>), String> {
    let mut equal = Vec::new();
    let mut last = None;
    for (i, (name, text)) in values::pairs(args)?.into_iter().enumerate() {
        let (index, field) = schema.field(name).map_err(|e| e.to_string())?;
        if index != i {
            let expected = schema.fields().get(i).map_or("nothing more", |f| f.name());
            return Err(format!(
                "`{name}` is field {} of the key; bind the fields in key order (expected `{expected}`)",
                index + 1
            ));
        }
        if last.is_some() {
            return Err(format!(
                "`{name}` comes after the range; a range ends the binding"
            ));
        }
        // A value with `..` is a range; a string holding `..` is bound
        // quoted (`"a..b"`).
        let quoted = text.len() >= 2 && text.starts_with('"') && text.ends_with('"');
        if text.contains("..") && !quoted {
            last = Some(range(field, text)?);
        } else {
            equal.push(values::read_field(field, text)?);
        }
    }
    Ok((equal, last))
}

/// `LO..HI`, `LO..=HI`, `LO..`, `..HI`, `..=HI`.
fn range(field: &DynField, text: &str) -> Result<ValueRange, String> {
    let (lo, hi, inclusive) = match text.split_once("..=") {
        Some((lo, hi)) => (lo, hi, true),
        None => match text.split_once("..") {
            Some((lo, hi)) => (lo, hi, false),
            None => return Err(format!("`{text}` is not a range")),
        },
    };
    let parse = |t: &str| values::read_field(field, t);
    let lo = if lo.is_empty() {
        Bound::Unbounded
    } else {
        Bound::Included(parse(lo)?)
    };
    let hi = match (hi.is_empty(), inclusive) {
        (true, false) => Bound::Unbounded,
        (true, true) => return Err(format!("`{text}`: `..=` needs an upper end")),
        (false, true) => Bound::Included(parse(hi)?),
        (false, false) => Bound::Excluded(parse(hi)?),
    };
    Ok((lo, hi))
}
