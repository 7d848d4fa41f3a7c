//! The seed a nested value is read by ([`super::shape`]): its shape, the
//! text it appends to, and what every level of one field's read shares.

use super::dynamo_words::nested_note;
use super::misfit::locate;
use super::shape_text::Shape;
use super::shape_users::UserShapes;
use super::track::Trail;

/// What every level of one field's read shares: the trail the typed read
/// leaves (for the path of a DynamoDB number's note), the field's stored
/// MessagePack (where the path is found) and the item's notes.
pub(crate) struct Context<'c> {
    pub(crate) field: &'c str,
    pub(crate) trail: &'c Trail,
    pub(crate) raw: &'c [u8],
    pub(crate) notes: Option<&'c [u8]>,
    /// The shapes of the document's user types.
    pub(crate) users: &'static UserShapes,
}

impl Context<'_> {
    /// The DynamoDB number's text where the read now is, when the item's
    /// notes keep one (a number nested in a list or map that is not an
    /// integer of 64 bits, as DynamoDB stores it).
    pub(crate) fn number_note(&self) -> Option<String> {
        let notes = self.notes?;
        let (_, path) = locate(self.raw, &self.trail.path())?;
        nested_note(notes, &format!("{}{path}", self.field)).map(str::to_string)
    }
}

/// Reads one value as `shape`, appending its text to `out`.
pub(crate) struct ShapeSeed<'s, 'c> {
    pub(crate) shape: &'s Shape,
    pub(crate) out: &'s mut String,
    pub(crate) context: &'s Context<'c>,
}

impl<'c> ShapeSeed<'_, 'c> {
    pub(crate) fn child<'s>(&'s mut self, shape: &'s Shape) -> ShapeSeed<'s, 'c> {
        ShapeSeed {
            shape,
            out: self.out,
            context: self.context,
        }
    }

    /// A float's text: a number nested in a DynamoDB item as the item
    /// holds it, except an `f32` (`f32`), by its own shortest text
    /// (DynamoDB keeps `3.4028235e38` as 39 digits).
    pub(crate) fn float(&mut self, text: String, f32: bool) {
        let text = match f32 {
            true => text,
            false => self.context.number_note().unwrap_or(text),
        };
        self.out.push_str(&text);
    }
}
