//! The parts of a key layout: its salt and its components, as the
//! derive declares them and tools read them.

use super::*;

/// A salt: `hash(fields) % buckets`, or `random % buckets`.
#[derive(Debug, Clone, Copy)]
pub struct Salt {
    pub(super) buckets: u32,
    pub(super) hashed: &'static [usize],
    pub(super) random: bool,
}

/// How a component renders: by its type's `render_key`, or, read from a
/// schema document, by its [`Encoding`].
#[derive(Debug, Clone, Copy)]
pub(super) enum Render {
    Typed(RenderFn),
    Encoding(Encoding),
}

/// One component of a key.
#[derive(Debug, Clone, Copy)]
pub struct Component {
    pub(super) name: &'static str,
    pub(super) type_name: &'static str,
    pub(super) order: Order,
    pub(super) reversed: bool,
    pub(super) bucket: Option<u64>,
    pub(super) fixed_width: Option<usize>,
    pub(super) encoding: Option<Encoding>,
    pub(super) render: Render,
    /// For text keys: the text width (None: variable, ends at the separator)
    /// and the conversion from binary (`None` for a document's component:
    /// only typed scans convert, and they need the derived type).
    pub(super) text: Option<(Option<usize>, Option<TextFn>)>,
}

impl Salt {
    pub(crate) const fn by_hash(buckets: u32, hashed: &'static [usize]) -> Self {
        Salt {
            buckets,
            hashed,
            random: false,
        }
    }

    pub(crate) const fn random(buckets: u32) -> Self {
        Salt {
            buckets,
            hashed: &[],
            random: true,
        }
    }

    /// Whether the bucket is chosen at random on write (`random % N`): a get
    /// must try every bucket, and decode cannot check the salt.
    pub fn is_random(&self) -> bool {
        self.random
    }

    /// The number of buckets, N in `% N`.
    pub fn buckets(&self) -> u32 {
        self.buckets
    }

    /// The indexes (into [`Schema::components`]) of the hashed fields, in
    /// the order they are hashed.
    pub fn hashed(&self) -> &'static [usize] {
        self.hashed
    }

    /// The width of the salt in bytes: 1, or 2 above 256 buckets.
    pub fn width(&self) -> usize {
        salt::width(self.buckets)
    }
}

impl Component {
    pub(crate) const fn plain<T: KeyComponent>(
        name: &'static str,
        type_name: &'static str,
        order: Order,
    ) -> Self {
        Component {
            name,
            type_name,
            order,
            reversed: false,
            bucket: None,
            fixed_width: T::FIXED_WIDTH,
            encoding: T::ENCODING,
            render: Render::Typed(T::render_key),
            text: None,
        }
    }

    pub(crate) const fn bucket<T: BucketKey>(
        name: &'static str,
        type_name: &'static str,
        order: Order,
        width: u64,
    ) -> Self {
        Component {
            name,
            type_name,
            order,
            reversed: false,
            bucket: Some(width),
            fixed_width: T::FIXED_WIDTH,
            encoding: T::ENCODING,
            render: Render::Typed(T::render_key),
            text: None,
        }
    }

    pub(crate) const fn reversed<T: ReversibleKey>(
        name: &'static str,
        type_name: &'static str,
    ) -> Self {
        Component {
            name,
            type_name,
            order: Order::Ascending,
            reversed: true,
            bucket: None,
            fixed_width: T::FIXED_WIDTH,
            encoding: T::ENCODING,
            render: Render::Typed(T::render_key),
            text: None,
        }
    }

    pub(crate) const fn with_text<T: TextComponent>(mut self) -> Self {
        self.text = Some((
            T::TEXT_WIDTH,
            Some(crate::encoding::text::binary_to_text::<T>),
        ));
        self
    }

    /// For `rev`, `reverse` and `bucket` in text keys: a number's digits.
    pub(crate) const fn with_text_digits<T: TextDigits>(self) -> Self {
        self.with_text::<T>()
    }

    /// A component of a layout read at run time ([`Schema::from_document`]):
    /// it renders by its encoding.
    pub(crate) fn of_document(
        name: &'static str,
        type_name: &'static str,
        order: Order,
        reversed: bool,
        bucket: Option<u64>,
        encoding: Encoding,
        text: bool,
    ) -> Self {
        Component {
            name,
            type_name,
            order,
            reversed,
            bucket,
            fixed_width: encoding.fixed_width(),
            encoding: Some(encoding),
            render: Render::Encoding(encoding),
            text: text.then(|| (encoding.text_width(), None)),
        }
    }

    /// Renders one ascending encoding of the component from `input`.
    pub(crate) fn render_one(
        &self,
        input: &mut Reader<'_>,
        out: &mut String,
    ) -> Result<(), DecodeError> {
        match self.render {
            Render::Typed(render) => render(input, out),
            Render::Encoding(encoding) => encoding.render(input, out),
        }
    }

    pub(crate) fn text_width(&self) -> Option<usize> {
        self.text.and_then(|(w, _)| w)
    }

    /// Applies the component's transform to its binary encoding, in place:
    /// bytes reversed for `reverse`, inverted for `rev`. Its own inverse.
    pub(crate) fn transform_binary(&self, bytes: &mut [u8]) {
        if self.reversed {
            bytes.reverse();
        } else if self.order == Order::Descending {
            crate::encoding::invert(bytes);
        }
    }

    /// Applies the component's transform to its text form, in place: digits
    /// reversed for `reverse`, 9-complemented for `rev`. Its own inverse.
    pub(crate) fn transform_text(&self, text: &mut [u8]) {
        if self.reversed {
            text.reverse();
        } else if self.order == Order::Descending {
            crate::encoding::text::complement_digits(text);
        }
    }

    /// The component's bytes in the key, from its binary encoding: inverted
    /// or byte-reversed as declared, or its text form (digit-complemented or
    /// digit-reversed) followed by the separator when it is variable-width.
    pub(crate) fn key_form(
        &self,
        binary: &[u8],
        sep: Option<u8>,
        out: &mut Vec<u8>,
    ) -> Result<(), DecodeError> {
        let start = out.len();
        match (sep, self.text) {
            (Some(sep), Some((width, Some(to_text)))) => {
                to_text(binary, out, sep)?;
                self.transform_text(&mut out[start..]);
                if width.is_none() {
                    out.push(sep);
                }
            }
            _ => {
                out.extend_from_slice(binary);
                self.transform_binary(&mut out[start..]);
            }
        }
        Ok(())
    }

    /// The field name.
    #[inline]
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The field type as written in the struct.
    pub fn type_name(&self) -> &'static str {
        self.type_name
    }

    /// Ascending, or descending for `rev(field)`.
    #[inline]
    pub fn order(&self) -> Order {
        self.order
    }

    /// For `bucket(field, WIDTH)`: the width. The component holds
    /// `field.div_euclid(WIDTH)` and is followed by the field itself.
    pub fn bucket_width(&self) -> Option<u64> {
        self.bucket
    }

    /// Whether the component is stored byte-reversed (`reverse(field)`):
    /// least-significant byte first, to spread sequential ids.
    pub fn is_reversed(&self) -> bool {
        self.reversed
    }

    /// The encoded width when it is fixed.
    pub fn fixed_width(&self) -> Option<usize> {
        self.fixed_width
    }

    /// The built-in encoding the type's bytes are (see
    /// [`KeyComponent::ENCODING`]); `None` for a type of yours that does not
    /// declare one.
    pub fn encoding(&self) -> Option<Encoding> {
        self.encoding
    }
}
